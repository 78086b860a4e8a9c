package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
)

// startAgent runs an agent server in-process on a private socket and
// returns a client for it.
func startAgent(t testing.TB) *agent.Client {
	t.Helper()
	return startAgentWith(t, agentd.Options{Shell: "/bin/bash"})
}

// startAgentWith is startAgent with opts (a small ring, say).
func startAgentWith(t testing.TB, opts agentd.Options) *agent.Client {
	t.Helper()
	dir, err := os.MkdirTemp("", "ttm") // short: socket paths are limited to 108 bytes
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	sock := filepath.Join(dir, "run", "agent.sock")
	l, err := agentd.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := agentd.NewServer(opts)
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return &agent.Client{Socket: sock, AgentPath: "/nonexistent/ttymux-agent"}
}

func newPersistentManager(t testing.TB, k transport.Keeper) *session.Manager {
	t.Helper()
	m := session.NewManager(session.Options{
		Kinds:    []session.Kind{session.LocalKind(&local.Opener{})},
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		Keeper:   k,
	})
	t.Cleanup(m.CloseAll)
	return m
}

// TestRestartResumesExactly: a command prints ticks while the first server
// goes away mid-command; a second server, given only the session_id,
// returns the rest of the ticks — every tick exactly once over both — and
// the shell state set before.
func TestRestartResumesExactly(t *testing.T) {
	k := startAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m1 := newPersistentManager(t, k)
	s, err := m1.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true, Name: "ticker",
		Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Persistent() || !s.Info().Integrated {
		t.Fatalf("not persistent or not integrated: %+v note %q", s.Info(), s.OpenNote())
	}
	id := s.ID()
	if r := send(t, s, session.SendRequest{Text: "export KEPT=yes"}); !r.Complete {
		t.Fatalf("export: %+v", r)
	}
	r1 := send(t, s, session.SendRequest{Text: "for i in $(seq 1 50); do echo tick-$i; sleep 0.02; done", Timeout: 300 * time.Millisecond})
	if r1.Complete {
		t.Fatalf("loop finished within 300 ms: %+v", r1)
	}
	m1.CloseAll() // the first server goes away mid-command

	m2 := newPersistentManager(t, k)
	list := m2.List(ctx)
	if len(list) != 1 || list[0].ID != id || list[0].State != "detached" || list[0].Name != "ticker" {
		t.Fatalf("second server's list: %+v", list)
	}
	s2, err := m2.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s2.Read(ctx, session.ReadRequest{Wait: true, Timeout: 20 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Complete || r2.Via != session.ViaExitCode {
		t.Fatalf("read after restart: %+v", r2)
	}
	all := strings.Split(strings.TrimSpace(r1.Output+"\n"+r2.Output), "\n")
	var ticks []string
	for _, l := range all {
		if l != "" {
			ticks = append(ticks, l)
		}
	}
	if len(ticks) != 50 {
		t.Fatalf("got %d ticks, want 50 exactly once:\nfirst server: %q\nsecond: %q", len(ticks), r1.Output, r2.Output)
	}
	for i, l := range ticks {
		if l != fmt.Sprintf("tick-%d", i+1) {
			t.Fatalf("tick %d is %q:\nfirst server: %q\nsecond: %q", i+1, l, r1.Output, r2.Output)
		}
	}
	if r := send(t, s2, session.SendRequest{Text: "echo $KEPT"}); r.Output != "yes" || r.Via != session.ViaExitCode {
		t.Fatalf("state after restart: %+v", r)
	}
	// By name too, and close ends it in the agent.
	if _, err := m2.Get(ctx, "ticker"); err != nil {
		t.Fatalf("get by name: %v", err)
	}
	if _, err := m2.Close(ctx, id); err != nil {
		t.Fatal(err)
	}
	kept, err := k.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range kept {
		if ks.ID == id && !ks.Exited {
			t.Fatalf("closed session still running in the agent: %+v", ks)
		}
	}
}

func TestDetachAttach(t *testing.T) {
	k := startAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m := newPersistentManager(t, k)
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true,
		Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	// The job's line is longer than any prompt (with the hook's marks: a
	// prompt drawn after the detach is some 160 bytes), so the wait below
	// cannot mistake a prompt for it.
	send(t, s, session.SendRequest{Text: "cd /tmp; (sleep 0.3; echo made-while-detached-$(printf '%0280d' 0)) &", Timeout: 5 * time.Second})
	info, err := m.Detach(ctx, id)
	if err != nil || info.State != "detached" {
		t.Fatalf("detach: %+v %v", info, err)
	}
	// Wait for the background job's output to exist in the agent.
	// Polling another process's state.
	if !testwait.Poll(ctx, 10*time.Second, func() bool {
		kept, err := k.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		return len(kept) == 1 && kept[0].End > info.Bytes+300
	}) {
		t.Fatal("output made while detached never reached the agent")
	}
	s2, err := m.Attach(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	r, err := s2.Read(ctx, session.ReadRequest{})
	if err != nil || !strings.Contains(r.Output, "made-while-detached") {
		t.Fatalf("read after attach: %q %v", r.Output, err)
	}
	if r := send(t, s2, session.SendRequest{Text: "pwd"}); r.Output != "/tmp" {
		t.Fatalf("pwd after reattach: %q", r.Output)
	}
	// An in-process session cannot be detached.
	p, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Command: "cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Detach(ctx, p.ID()); err == nil || !strings.Contains(err.Error(), "persistent: true") {
		t.Fatalf("detach of an in-process session: %v", err)
	}
}

func TestPersistentFallsBackWithoutAgent(t *testing.T) {
	m := newPersistentManager(t, &agent.Client{Socket: filepath.Join(t.TempDir(), "none.sock"), AgentPath: "/nonexistent/ttymux-agent"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true,
		Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Persistent() || !strings.Contains(s.OpenNote(), "not persistent") {
		t.Fatalf("persistent=%v note=%q", s.Persistent(), s.OpenNote())
	}
	if r := send(t, s, session.SendRequest{Text: "echo works"}); r.Output != "works" {
		t.Fatalf("fallback session: %q", r.Output)
	}
}

// TestOutputLostInTheAgentDoesNotWedge pins issue #13's wedge after an
// agent-side loss: a flood overran the agent's (small) ring while no
// server was attached, the attach resumed past the loss, and the verdict's
// mark offsets lagged the log's by what was lost, so every later command
// timed out with empty output. The loss is reported and the next command
// completes.
func TestOutputLostInTheAgentDoesNotWedge(t *testing.T) {
	k := startAgentWith(t, agentd.Options{Shell: "/bin/bash", RingSize: 64 << 10})
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	m1 := newPersistentManager(t, k)
	s, err := m1.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true,
		Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	id := s.ID()
	if _, err := s.Send(ctx, session.SendRequest{Text: "sleep 0.5; yes | head -c 2000000; echo END", Enter: true}); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, s, "head -c 2000000") // typed: the shell has the line before the detach
	m1.CloseAll()                       // detached: the flood overruns the agent's ring
	var kept []transport.KeptSession
	// The agent announces nothing to a detached client.
	if !testwait.Poll(ctx, 30*time.Second, func() bool {
		var err error
		if kept, err = k.List(ctx); err != nil {
			t.Fatal(err)
		}
		return len(kept) == 1 && kept[0].End > 2000000 && kept[0].Foreground == "bash"
	}) {
		t.Fatalf("the flood did not finish: %+v", kept)
	}
	m2 := newPersistentManager(t, k)
	s2, err := m2.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(s2.OpenNote(), "left the agent's log") {
		t.Fatalf("the loss is not reported: note %q", s2.OpenNote())
	}
	r := send(t, s2, session.SendRequest{Text: "echo alive", Timeout: 10 * time.Second})
	if !r.Complete || r.Via != session.ViaExitCode || r.Output != "alive" {
		t.Fatalf("after the loss: complete=%v via=%q output=%q note=%q", r.Complete, r.Via, r.Output, r.Note)
	}
}
