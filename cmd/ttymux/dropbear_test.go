package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/dropbeartest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// routerProfile is an OpenWrt-like ~/.profile: an exported PS1 with
// BusyBox prompt escapes and an ENV file of its own (OpenWrt's
// /etc/profile sets ENV=/etc/shinit), which must still be read.
const routerProfile = "export PS1='root@OpenWrt:\\w\\$ '\nexport ENV=$HOME/shinit\n"

// router is a Dropbear on loopback whose test user's login shell is
// BusyBox ash, without SFTP, with only an Ed25519 host key: an OpenWrt-like
// target.
type router struct {
	d         *dropbeartest.Dropbear
	cfg, home string
	// Where the agent goes on the "router": the test user's home, which
	// that user can write.
	dir, socketDir string
}

func newRouter(t testing.TB) *router {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	d := dropbeartest.Start(t, dropbeartest.Options{
		HostKeys: []string{"ed25519"},
		Shell:    dropbeartest.Ash(t),
		NoSFTP:   true,
		Files:    map[string]string{".profile": routerProfile, "shinit": "alias ll='echo from-shinit'\n"},
	})
	r := &router{d: d, home: t.TempDir(), dir: filepath.Join(d.Home, "agent"), socketDir: filepath.Join(d.Home, "s")}
	known := filepath.Join(r.home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLines()), 0o600); err != nil {
		t.Fatal(err)
	}
	r.cfg = filepath.Join(r.home, "ssh_config")
	if err := os.WriteFile(r.cfg, []byte(d.ConfigBlock("router", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	return r
}

// server starts a ttymux MCP server (in memory) that reaches the router;
// each call is a fresh server, as after a restart. With agent, it can
// deploy the agent (built once per test binary).
func (r *router) server(t testing.TB, agent bool) func(name string, args map[string]any, out any) *mcp.CallToolResult {
	t.Helper()
	op := &sshconn.Opener{Config: sshconf.Options{ConfigFile: r.cfg, Home: r.home}}
	rs := &remotes{ssh: op, dir: r.dir, socketDir: r.socketDir, agents: t.TempDir()}
	if agent {
		rs.localAgent = filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent")
	}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": op}),
		StateDir: t.TempDir(),
		Remote:   rs.keeper,
	})
	t.Cleanup(func() {
		m.CloseAll()
		_ = op.Close()
	})
	cs := connect(t, newServer(m, nil), nil)
	return func(name string, args map[string]any, out any) *mcp.CallToolResult {
		t.Helper()
		res := call(t, cs, name, args, out)
		if res.IsError {
			t.Fatalf("%s %v: %s\ndropbear log:\n%s", name, args, resultText(res), r.d.Log())
		}
		return res
	}
}

// routerSteps runs commands in the session and checks each one's output
// and exit code, which must come from the hook (exit-code), never mark.
func routerSteps(t *testing.T, do func(string, map[string]any, any) *mcp.CallToolResult, id string) {
	t.Helper()
	type step struct{ text, out, code string }
	steps := []step{
		{"echo hello", "hello", "0"},
		{"(exit 3)", "", "3"},
		{"false", "", "1"},
		{"ll", "from-shinit", "0"},
		{"cd /tmp", "", "0"},
		{"pwd", "/tmp", "0"},
		{"sleep 1; echo slept", "slept", "0"},
		{"nosuchcommand-x", "", "127"},
	}
	for i := range 10 {
		steps = append(steps, step{fmt.Sprintf("echo n-%d", i), fmt.Sprintf("n-%d", i), fmt.Sprint(i % 3)})
		steps[len(steps)-1].text += fmt.Sprintf("; (exit %d)", i%3)
	}
	for _, st := range steps {
		var r session.Result
		start := time.Now()
		do("send", map[string]any{"session_id": id, "text": st.text}, &r)
		if st.text == "nosuchcommand-x" {
			r.Output = "" // ash's "not found" message
		}
		if !r.Complete || r.Via != session.ViaExitCode || r.Output != st.out || r.ExitCode == nil || fmt.Sprint(*r.ExitCode) != st.code {
			t.Fatalf("%q: complete=%v via=%q exit=%v output=%q", st.text, r.Complete, r.Via, r.ExitCode, r.Output)
		}
		if strings.HasPrefix(st.text, "sleep 1") && time.Since(start) < time.Second {
			t.Fatalf("%q complete after %v", st.text, time.Since(start))
		}
	}
}

// TestDropbearAshRouter is issue #30's router target through MCP: Dropbear
// with only an Ed25519 host key and no SFTP, BusyBox ash as the login
// shell. open_ssh connects (before the host key order it was dropped by
// Dropbear's rsa.c assertion), the session is ready at the first prompt
// (before: a 5 s ready timeout) and every command gets its exit code
// from the hook without mark (before: none). upload and download fall back
// from SFTP and say how.
func TestDropbearAshRouter(t *testing.T) {
	r := newRouter(t)
	do := r.server(t, false)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "router"}, &open)
	if !open.Integrated {
		t.Fatalf("open_ssh: not integrated: %+v", open)
	}
	routerSteps(t, do, open.ID)

	var up FileOut
	do("upload", map[string]any{"session_id": open.ID, "path": "up.txt", "content": "to the router\n"}, &up)
	if up.Via != "scp" && up.Via != "cat" || up.Path != "/tmp/up.txt" || !strings.Contains(up.Note, "sftp") {
		t.Fatalf("upload: %+v", up)
	}
	t.Cleanup(func() { _ = os.Remove("/tmp/up.txt") })
	var down FileOut
	do("download", map[string]any{"session_id": open.ID, "path": "up.txt"}, &down)
	if down.Via != "scp" && down.Via != "cat" || down.Content != "to the router\n" || !strings.Contains(down.Note, "sftp") {
		t.Fatalf("download: %+v", down)
	}
	t.Logf("upload via %s, download via %s (%s)", up.Via, down.Via, up.Note)
	do("close", map[string]any{"session_id": open.ID}, nil)
}

// TestDropbearPersistentAgent: the agent is deployed to the router through
// Dropbear (no SFTP: the upload falls back) and runs BusyBox ash with the
// hook; the session survives a detach and a server restart and is
// attached again with its output.
func TestDropbearPersistentAgent(t *testing.T) {
	r := newRouter(t)
	do := r.server(t, true)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "router", "persistent": true}, &open)
	if !open.Persistent || !strings.HasPrefix(open.ID, "router/") || !open.Integrated {
		t.Fatalf("open_ssh persistent: %+v", open)
	}
	// The agent runs as the router's user, whose processes end with the
	// test (usertest): root may not use that user's agent socket.
	routerSteps(t, do, open.ID)
	do("send", map[string]any{"session_id": open.ID, "text": "sleep 1; echo while-detached", "wait": false}, nil)
	do("detach", map[string]any{"session_id": open.ID}, nil)

	do2 := r.server(t, true) // a new server, as after a restart
	var att OpenOut
	do2("attach", map[string]any{"host": "router", "session_id": strings.TrimPrefix(open.ID, "router/")}, &att)
	var res session.Result
	do2("read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 20000}, &res)
	if got := att.Output + "\n" + res.Output; !strings.Contains(got, "while-detached") {
		t.Fatalf("after attach: %q", got)
	}
	routerSteps(t, do2, open.ID)
	do2("close", map[string]any{"session_id": open.ID}, nil)
}

// BenchmarkDropbearAshReady measures open_ssh to BusyBox ash over Dropbear
// until the session is ready, against OpenSSH's ssh client logging in to
// the same router on a PTY until the prompt is drawn (the floor: login and
// the shell's own start-up), in the same run. The target is at most 300 ms
// beyond the floor (DESIGN.md, "session ready").
func BenchmarkDropbearAshReady(b *testing.B) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		b.Skip("no ssh client for the floor")
	}
	r := newRouter(b)
	// A new server each time: a cold open (TCP, key exchange, login), as
	// the ssh client's.
	benchReady(b, sshBin, r.cfg, "router", "root@OpenWrt:", func() func(string, map[string]any, any) {
		do := r.server(b, false)
		return func(n string, a map[string]any, o any) { do(n, a, o) }
	})
}
