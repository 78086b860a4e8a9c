package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// TestSessionIDIsNotAPath: a session id of another form (`../x`,
// `host/../s1`) was taken for "<host>/<id>" of a remote agent: the server
// resolves ".." or "host/.." as a host name (a DNS lookup, then SSH) and
// answers with a host-resolution error, not "no session"; any id with a
// slash makes the server connect to the host it names. A 1 MB id came
// back whole in the error (an agent frame-size error, 1 MB for the model
// to read).
func TestSessionIDIsNotAPath(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "ssh_config")
	// Every host is 127.0.0.1 port 1, where nothing listens: no name
	// leaves this machine, whatever id the test sends.
	if err := os.WriteFile(cfg, []byte("Host *\n  HostName 127.0.0.1\n  Port 1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	op := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	t.Cleanup(func() { _ = op.Close() })
	rs := &remotes{ssh: op, dir: t.TempDir(), socketDir: filepath.Join(shortTempDir(t), "s"), agents: t.TempDir()}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": op}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		Remote:   rs.keeper,
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	var open OpenOut
	if res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"HOME": t.TempDir()}}, &open); res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	id := open.ID
	long := strings.Repeat("s", 100000)
	for _, bad := range []string{"../x", "host/../" + id, "x/../../" + id, id + "/../" + id, long, "h/" + long} {
		for _, tool := range []string{"send", "close"} {
			args := map[string]any{"session_id": bad}
			if tool == "send" {
				args["text"] = "echo x"
			}
			res := call(t, cs, tool, args, nil)
			text := resultText(res)
			if len(bad) > 1000 {
				// The model pays for every byte of an error: an id it
				// got wrong is not echoed back whole.
				if !res.IsError || len(text) > 4096 || !strings.Contains(text, "no session") {
					t.Errorf("%s {session_id: %d bytes}: isError=%v, %d-byte error %.200q…; want a short no session error", tool, len(bad), res.IsError, len(text), text)
				}
				continue
			}
			if !res.IsError || !strings.Contains(text, fmt.Sprintf("no session %q", bad)) {
				t.Errorf("%s {session_id: %q}: isError=%v %q; want no session %q (and the open sessions), no connection", tool, bad, res.IsError, text, bad)
			}
		}
	}
}
