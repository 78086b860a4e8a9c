package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// remoteHost is a real sshd on 127.0.0.1 playing a remote host that
// ttymux deploys its agent to, with the agent's files and socket in
// temporary directories.
type remoteHost struct {
	sshd                *sshdtest.SSHD
	cfg, home           string
	dir, socketDir, exe string
}

func newRemoteHost(t testing.TB, sshdConfig ...string) *remoteHost {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: append([]string{"Subsystem sftp internal-sftp"}, sshdConfig...)})
	h := &remoteHost{sshd: d, home: t.TempDir(), dir: filepath.Join(t.TempDir(), "agent"), socketDir: filepath.Join(shortTempDir(t), "s")}
	known := filepath.Join(h.home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	h.cfg = filepath.Join(h.home, "ssh_config")
	if err := os.WriteFile(h.cfg, []byte(d.ConfigBlock("box", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	h.exe = filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent")
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := &agent.Client{Socket: filepath.Join(h.socketDir, "agent-v1.sock")}
		if err := c.Stop(ctx, true); err != nil && !errors.Is(err, agent.ErrNoAgent) {
			t.Logf("stop the deployed agent: %v", err)
		}
	})
	return h
}

// server starts a ttymux MCP server (in memory) that reaches the host as
// "box"; each call is a fresh server, as after a restart.
func (h *remoteHost) server(t testing.TB) (*mcp.ClientSession, func(name string, args map[string]any, out any) string) {
	t.Helper()
	cs := connect(t, newServer(h.manager(t), nil), nil)
	return cs, func(name string, args map[string]any, out any) string {
		t.Helper()
		res := call(t, cs, name, args, out)
		if res.IsError {
			t.Fatalf("%s %v: %s\nsshd log:\n%s", name, args, resultText(res), h.sshd.Log())
		}
		return resultText(res)
	}
}

// manager is a server's session manager that reaches the host as "box".
func (h *remoteHost) manager(t testing.TB) *session.Manager {
	t.Helper()
	op := &sshconn.Opener{Config: sshconf.Options{ConfigFile: h.cfg, Home: h.home}}
	rs := &remotes{ssh: op, localAgent: h.exe, dir: h.dir, socketDir: h.socketDir, agents: t.TempDir()}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": op}),
		StateDir: t.TempDir(),
		Remote:   rs.keeper,
	})
	t.Cleanup(func() {
		m.CloseAll()
		_ = op.Close()
	})
	return m
}

// readUntil reads new output until want appears in it, collecting every
// read's output.
func readUntil(t *testing.T, do func(string, map[string]any, any) string, id, want string) string {
	t.Helper()
	var all strings.Builder
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		var r session.Result
		do("read", map[string]any{"session_id": id, "wait": true, "timeout_ms": 1000}, &r)
		all.WriteString(r.Output)
		all.WriteString("\n")
		if strings.Contains(all.String(), want) {
			return all.String()
		}
	}
	t.Fatalf("no %q within 30s; got:\n%s", want, all.String())
	return ""
}

// ticks checks that tick-a … tick-b each appear exactly once, in order, as
// output lines.
func ticks(t *testing.T, out string, a, b int) {
	t.Helper()
	next := a
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimSpace(line)
		if !strings.HasPrefix(line, "tick-") {
			continue
		}
		if line != fmt.Sprintf("tick-%d", next) {
			t.Fatalf("got %q, want tick-%d; output:\n%s", line, next, out)
		}
		next++
	}
	if next != b+1 {
		t.Fatalf("ticks ended at %d, want %d; output:\n%s", next-1, b, out)
	}
}

// TestPersistentSSHSurvivesLinkAndRestart is the remote-agent issue's
// acceptance test: a persistent session on a real sshd prints ticks; the
// sshd process carrying the connection is killed halfway, ttymux
// reconnects, and every tick arrives exactly once. Then the same across a
// detach, a server restart and attach {host, session_id}.
func TestPersistentSSHSurvivesLinkAndRestart(t *testing.T) {
	h := newRemoteHost(t)
	_, do := h.server(t)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "box", "persistent": true}, &open)
	if !open.Persistent || !strings.HasPrefix(open.ID, "box/") {
		t.Fatalf("open_ssh persistent: %+v", open)
	}
	if !open.Integrated {
		t.Fatalf("remote shell not integrated: %+v", open)
	}
	var r session.Result
	do("send", map[string]any{"session_id": open.ID, "text": "echo $((6*7))"}, &r)
	if r.Output != "42" || r.Via != session.ViaExitCode {
		t.Fatalf("echo: %+v", r)
	}

	loop := "for i in $(seq 1 100); do echo tick-$i; sleep 0.05; done"
	do("send", map[string]any{"session_id": open.ID, "text": loop, "wait": false}, nil)
	out := readUntil(t, do, open.ID, "tick-50")
	pids := h.sshd.ConnectionPids()
	if len(pids) == 0 {
		t.Fatal("no sshd connection process to kill")
	}
	for _, pid := range pids {
		_ = syscall.Kill(pid, syscall.SIGKILL)
	}
	do("read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 30000}, &r)
	if !r.Complete || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("after the link was killed: %+v", r)
	}
	ticks(t, out+r.Output, 1, 100)

	// Detach halfway through a second run; restart; attach.
	loop = "for i in $(seq 101 200); do echo tick-$i; sleep 0.02; done"
	do("send", map[string]any{"session_id": open.ID, "text": loop, "wait": false}, nil)
	out = readUntil(t, do, open.ID, "tick-120")
	do("detach", map[string]any{"session_id": open.ID}, nil)

	_, do2 := h.server(t) // a new server process, as after a restart
	var list ListOut
	do2("list", map[string]any{"host": "box"}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].ID != open.ID {
		t.Fatalf("list {host}: %+v", list.Sessions)
	}
	var att OpenOut
	rid := strings.TrimPrefix(open.ID, "box/")
	do2("attach", map[string]any{"host": "box", "session_id": rid}, &att)
	if att.ID != open.ID {
		t.Fatalf("attach: %+v", att)
	}
	do2("read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 30000}, &r)
	if !r.Complete || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("after restart: %+v", r)
	}
	ticks(t, out+att.Output+"\n"+r.Output, 101, 200)
	do2("close", map[string]any{"session_id": open.ID}, nil)
}

// BenchmarkEchoRemotePersistent: echo round trip through the MCP layer (in
// memory) to a persistent session held by the agent deployed on a host
// reached over SSH on loopback.
func BenchmarkEchoRemotePersistent(b *testing.B) {
	// The remote login shell skips the user's rc files (which on a
	// developer's machine may run a prompt hook costing milliseconds):
	// this measures ttymux, not ~/.bashrc.
	h := newRemoteHost(b, "SetEnv TTYMUX_NORC=1")
	cs, do := h.server(b)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "box", "persistent": true}, &open)
	if !open.Persistent || !open.Integrated {
		b.Fatalf("open_ssh: %+v", open)
	}
	args := map[string]any{"session_id": open.ID, "text": "echo x"}
	ctx := context.Background()
	var durs []time.Duration
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: args})
		durs = append(durs, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("send: %v %v", err, res)
		}
		if sc := res.StructuredContent.(map[string]any); sc["output"] != "x" || sc["via"] != "exit-code" {
			b.Fatalf("send result: %v", sc)
		}
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "median-µs")
}

// TestCloseRemotePersistentEndsIt pins issue #13's close bug: close of a
// persistent SSH session ("box/sN") answered closed: true while the kill
// went to the agent as "box/sN", an id it does not know, and the session
// kept running on the host. close must end it where it lives.
func TestCloseRemotePersistentEndsIt(t *testing.T) {
	h := newRemoteHost(t)
	_, do := h.server(t)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "box", "persistent": true}, &open)
	if !open.Persistent || !strings.HasPrefix(open.ID, "box/") {
		t.Fatalf("open_ssh persistent: %+v", open)
	}
	var out CloseOut
	do("close", map[string]any{"session_id": open.ID}, &out)
	if !out.Closed {
		t.Fatalf("close: %+v", out)
	}
	var list ListOut
	// The agent records the exit asynchronously; no event reaches the client.
	if !testwait.Poll(t.Context(), 15*time.Second, func() bool {
		list = ListOut{}
		do("list", map[string]any{"host": "box"}, &list)
		for _, s := range list.Sessions {
			if s.ID == open.ID && s.State != "exited" {
				return false
			}
		}
		return true
	}) {
		t.Fatalf("after close the host's agent still runs %s: %+v", open.ID, list.Sessions)
	}
}
