package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
)

// TestShellsThroughAgent: open_local of BusyBox ash, dash, mksh and fish
// in a persistent session (the default: the local agent holds the PTY and
// starts the shell with the environment ttymux prepared) gets exact exit
// codes via exit-code without mark, as a new user would see them through
// an MCP client (issue #30). Before, these shells had none.
func TestShellsThroughAgent(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "agent.sock")
	client := &agent.Client{Socket: sock, AgentPath: agentBinary(t)}
	t.Cleanup(func() {
		_ = exec.Command(agentBinary(t), "stop", "--force", "--socket", sock).Run() // best effort
	})
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		Keeper:   client,
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	for _, sh := range []struct {
		name string
		argv []string
	}{
		{"busybox ash", []string{"busybox", "ash"}},
		{"dash", []string{"dash"}},
		{"mksh", []string{"mksh"}},
		{"fish", []string{"fish"}},
	} {
		t.Run(sh.name, func(t *testing.T) {
			p, err := exec.LookPath(sh.argv[0])
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s missing under CI", sh.argv[0])
				}
				t.Skipf("%s not installed", sh.argv[0])
			}
			home := t.TempDir()
			var open OpenOut
			call(t, cs, "open_local", map[string]any{"command": p, "args": sh.argv[1:],
				"env": map[string]string{"HOME": home, "XDG_CONFIG_HOME": home, "XDG_DATA_HOME": home}}, &open)
			if !open.Persistent || !open.Integrated {
				t.Fatalf("open_local: %+v", open)
			}
			for i, st := range []struct{ text, out, code string }{
				{"echo hello", "hello", "0"},
				{"sh -c 'exit 3'", "", "3"},
				{"cd /tmp; pwd", "/tmp", "0"},
				{"sleep 1; echo slept", "slept", "0"},
				{"false", "", "1"},
			} {
				var r session.Result
				call(t, cs, "send", map[string]any{"session_id": open.ID, "text": st.text}, &r)
				if !r.Complete || r.Via != session.ViaExitCode || r.Output != st.out || r.ExitCode == nil || fmt.Sprint(*r.ExitCode) != st.code {
					t.Fatalf("step %d %q: complete=%v via=%q exit=%v output=%q", i, st.text, r.Complete, r.Via, r.ExitCode, r.Output)
				}
			}
			call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
		})
	}
}
