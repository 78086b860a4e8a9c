package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/dropbeartest"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// editPolicy refuses touch on every host: the edited lines below become
// touch only through keys.
const editPolicy = "[[rule]]\nhosts = [\"*\"]\ndeny = ['^\\s*touch\\b']\n"

// editServer is a ttymux MCP server (in memory) with editPolicy that
// reaches the hosts of the ssh_config cfg; agentExe, when set, is the agent
// it deploys for persistent sessions (into dir, its socket in socketDir).
func editServer(t *testing.T, cfg, home, agentExe, dir, socketDir string) *mcp.ClientSession {
	t.Helper()
	p, err := policy.Parse("p.toml", []byte(editPolicy))
	if err != nil {
		t.Fatal(err)
	}
	op := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	rs := &remotes{ssh: op, localAgent: agentExe, dir: dir, socketDir: socketDir, agents: t.TempDir()}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": op}),
		StateDir: t.TempDir(),
		Remote:   rs.keeper,
		Policy:   p,
	})
	t.Cleanup(func() {
		m.CloseAll()
		_ = op.Close()
	})
	return connect(t, newServer(m, nil), nil)
}

// editedEnterSteps: in session id, Enter after keys that turn "echo touch
// F" into "touch F" (ctrl+a alt+d) is refused on the line the remote shell
// holds, which is cleared; a line recalled with up that the policy allows
// runs, with its exit code from the hook. dir is a directory the remote
// user can write.
func editedEnterSteps(t *testing.T, cs *mcp.ClientSession, id, dir, log string) {
	t.Helper()
	send := func(args map[string]any) (session.Result, *mcp.CallToolResult) {
		t.Helper()
		args["session_id"] = id
		if _, ok := args["timeout_ms"]; !ok {
			args["timeout_ms"] = 10000
		}
		var r session.Result
		res := call(t, cs, "send", args, &r)
		return r, res
	}
	f := filepath.Join(dir, "F")
	if r, res := send(map[string]any{"text": "echo touch " + f, "enter": false}); res.IsError {
		t.Fatalf("type echo: %+v %s\n%s", r, resultText(res), log)
	}
	_, res := send(map[string]any{"keys": []string{"ctrl+a", "alt+d", "enter"}})
	if txt := resultText(res); !res.IsError || !strings.Contains(txt, `"touch `+f+`"`) || !strings.Contains(txt, "not allowed") {
		t.Fatalf("ctrl+a alt+d enter: %s; want the touch line the shell holds refused\n%s", txt, log)
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatalf("the edited touch line ran: %s exists", f)
	}
	if r, res := send(map[string]any{"text": "echo clean"}); res.IsError || r.Output != "clean" {
		t.Fatalf("the line after the refused one: %+v %s (was it left at the prompt?)", r, resultText(res))
	}
	if r, res := send(map[string]any{"text": "echo again; (exit 4)"}); res.IsError || r.Output != "again" {
		t.Fatalf("echo again: %+v %s", r, resultText(res))
	}
	r, res := send(map[string]any{"keys": []string{"up", "enter"}})
	if res.IsError || !r.Complete || r.Output != "again" || r.Via != session.ViaExitCode || r.ExitCode == nil || *r.ExitCode != 4 {
		t.Fatalf("up enter: %+v %s", r, resultText(res))
	}
}

// TestEditedEnterOverSSH: over SSH to OpenSSH's sshd (bash, zsh, and bash
// held by the agent deployed there) and to Dropbear (bash), an Enter after
// editing keys is judged on the line the remote shell holds. On the old
// code the bootstrap left out the keys that report that line (to fit
// Dropbear's exec limit), so every such Enter was refused after 3 s as an
// unknown line, the allowed recalled line too.
func TestEditedEnterOverSSH(t *testing.T) {
	t.Run("openssh-bash", func(t *testing.T) {
		h := newRemoteHost(t, "SetEnv SHELL=/bin/bash")
		cs := editServer(t, h.cfg, h.home, "", h.dir, h.socketDir)
		id := openIntegrated(t, cs, "box", false, h.sshd.Log)
		editedEnterSteps(t, cs, id, t.TempDir(), "")
	})
	t.Run("openssh-zsh", func(t *testing.T) {
		zsh := lookShell(t, "zsh")
		h := newRemoteHost(t, "SetEnv SHELL="+zsh)
		cs := editServer(t, h.cfg, h.home, "", h.dir, h.socketDir)
		id := openIntegrated(t, cs, "box", false, h.sshd.Log)
		editedEnterSteps(t, cs, id, t.TempDir(), "")
	})
	t.Run("openssh-bash-agent", func(t *testing.T) {
		h := newRemoteHost(t, "SetEnv SHELL=/bin/bash")
		cs := editServer(t, h.cfg, h.home, h.exe, h.dir, h.socketDir)
		id := openIntegrated(t, cs, "box", true, h.sshd.Log)
		editedEnterSteps(t, cs, id, t.TempDir(), "")
	})
	t.Run("dropbear-bash", func(t *testing.T) {
		bash := lookShell(t, "bash")
		dropbeartest.AllowShell(t, bash)
		d := dropbeartest.Start(t, dropbeartest.Options{Shell: bash, Files: map[string]string{".bash_profile": "PS1='router$ '\n"}})
		cfg, home := dropbearConfig(t, d)
		cs := editServer(t, cfg, home, "", "", "")
		id := openIntegrated(t, cs, "router", false, d.Log)
		editedEnterSteps(t, cs, id, d.Home, d.Log())
	})
}

// TestEditedEnterDropbearAsh: BusyBox ash has no key bindings, so its hook
// cannot report the line it holds (locally or remote; it says so with a P
// mark): over Dropbear an Enter after editing keys is refused at once as an
// unknown line, nothing of the send typed, where before the keys were typed
// and the refusal came after a 3 s wait for a report ash never sends.
func TestEditedEnterDropbearAsh(t *testing.T) {
	r := newRouter(t)
	cs := editServer(t, r.cfg, r.home, "", "", "")
	id := openIntegrated(t, cs, "router", false, r.d.Log)
	var out session.Result
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "echo touch x", "enter": false}, &out); res.IsError {
		t.Fatalf("type echo: %+v %s", out, resultText(res))
	}
	res := call(t, cs, "send", map[string]any{"session_id": id, "keys": []string{"ctrl+a", "alt+d", "enter"}, "timeout_ms": 10000}, nil)
	if txt := resultText(res); !res.IsError || !strings.Contains(txt, "cannot be read") || !strings.Contains(txt, "cannot report") {
		t.Fatalf("ctrl+a alt+d enter at ash: %s; want it refused as a line ash cannot report", txt)
	}
	// Nothing was typed: the text is still at the prompt, to be cleared.
	if res := call(t, cs, "send", map[string]any{"session_id": id, "keys": []string{"ctrl+u"}}, &out); res.IsError {
		t.Fatalf("ctrl+u: %s", resultText(res))
	}
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "echo clean; (exit 5)"}, &out); res.IsError || out.Output != "clean" || out.ExitCode == nil || *out.ExitCode != 5 {
		t.Fatalf("the line after: %+v %s", out, resultText(res))
	}
}

// openIntegrated opens an SSH session to host and checks that the hook
// reports; log gives the server's log for a failure.
func openIntegrated(t *testing.T, cs *mcp.ClientSession, host string, persistent bool, log func() string) string {
	t.Helper()
	var open OpenOut
	res := call(t, cs, "open_ssh", map[string]any{"host": host, "persistent": persistent}, &open)
	if res.IsError || !open.Integrated || open.Persistent != persistent {
		t.Fatalf("open_ssh %s: %+v %s\nserver log:\n%s", host, open, resultText(res), log())
	}
	return open.ID
}

// lookShell finds a shell, skipping the test without it (failing under
// CI, which installs it).
func lookShell(t *testing.T, name string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing under CI", name)
		}
		t.Skipf("%s not installed", name)
	}
	return p
}

// dropbearConfig writes a known_hosts and an ssh_config naming d "router"
// into a home of the test's, and returns the config's path and that home.
func dropbearConfig(t *testing.T, d *dropbeartest.Dropbear) (cfg, home string) {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	home = t.TempDir()
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLines()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(home, "ssh_config")
	if err := os.WriteFile(cfg, []byte(d.ConfigBlock("router", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, home
}
