package sshconn_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// keyServer starts a server that accepts one fresh client key, trusted by a
// fresh client environment, with the host defined as "srv".
func keyServer(t *testing.T, opts serverOptions) (*testServer, *clientEnv) {
	t.Helper()
	e := newClientEnv(t)
	keyPath, signer := e.writeKey("id_ed25519")
	opts.Keys = append(opts.Keys, signer.PublicKey())
	s := startServer(t, opts)
	e.addHost("srv", s.Addr, keyPath)
	e.trustServer(s)
	return s, e
}

func TestShell(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Size: transport.Size{Rows: 30, Cols: 90}, Spec: transport.SSHParams{Host: "srv"}})
	s.events.wait(t, "pty xterm-256color 30x90")
	out := startReader(t, c)
	out.waitFor(t, "$ ", 5*time.Second)
	if _, err := io.WriteString(c, "echo hi-$((40+2))\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "hi-42", 5*time.Second)
	if _, err := io.WriteString(c, "exit 7\n"); err != nil {
		t.Fatal(err)
	}
	var ee *transport.ExitError
	if err := waitErr(t, c, 5*time.Second); !errors.As(err, &ee) || ee.Status != 7 {
		t.Fatalf("Wait = %v, want exit status 7", err)
	}
	if err := out.end(t, 5*time.Second); err != io.EOF {
		t.Fatalf("Read after exit = %v, want io.EOF", err)
	}
}

func TestExec(t *testing.T) {
	_, e := keyServer(t, serverOptions{})
	tests := []struct {
		name    string
		command string
		output  string
		status  int
		signal  transport.Signal
	}{
		{name: "success", command: "echo done", output: "done"},
		{name: "status", command: "echo failing; exit 3", output: "failing", status: 3},
		{name: "signal", command: "kill -TERM $$", status: 128 + 15, signal: "TERM"},
		{name: "stderr merged by the pty", command: "echo oops >&2; exit 1", output: "oops", status: 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := e.mustOpen(transport.Target{Command: tt.command, Spec: transport.SSHParams{Host: "srv"}})
			out := startReader(t, c)
			if err := out.end(t, 5*time.Second); err != io.EOF {
				t.Fatalf("Read ended with %v, want io.EOF", err)
			}
			if !strings.Contains(out.String(), tt.output) {
				t.Errorf("output %q lacks %q", out.String(), tt.output)
			}
			err := waitErr(t, c, 5*time.Second)
			if tt.status == 0 {
				if err != nil {
					t.Fatalf("Wait = %v, want nil", err)
				}
				return
			}
			var ee *transport.ExitError
			if !errors.As(err, &ee) || ee.Status != tt.status || ee.Signal != tt.signal {
				t.Fatalf("Wait = %#v, want status %d signal %q", err, tt.status, tt.signal)
			}
		})
	}
}

func TestEnvAndTerm(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Term: "vt100", Env: []string{"GREETING=hello there"}, Command: `printf '%s/%s\n' "$GREETING" "$TERM"`, Spec: transport.SSHParams{Host: "srv"}})
	out := startReader(t, c)
	out.waitFor(t, "hello there/vt100", 5*time.Second)
	s.events.wait(t, "env GREETING=hello there")
	if err := waitErr(t, c, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

func TestResize(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.SSHTarget("srv"))
	s.events.wait(t, "pty xterm-256color 40x120") // transport.DefaultSize
	out := startReader(t, c)
	out.waitFor(t, "$ ", 5*time.Second)
	if err := c.Resize(t.Context(), transport.Size{Rows: 50, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	s.events.wait(t, "window 50x100")
	if _, err := io.WriteString(c, "stty size\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "50 100", 5*time.Second)
	if err := c.Resize(t.Context(), transport.Size{Rows: 0, Cols: 100}); err == nil {
		t.Error("Resize to 0 rows succeeded")
	}
}

func TestSignal(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
	out := startReader(t, c)
	out.waitFor(t, "ready", 5*time.Second)
	if err := c.Signal(t.Context(), "SIGUSR1"); err != nil {
		t.Fatal(err)
	}
	s.events.wait(t, "signal USR1")
	var ee *transport.ExitError
	if err := waitErr(t, c, 5*time.Second); !errors.As(err, &ee) || ee.Signal != "USR1" || ee.Status != 128+10 {
		t.Fatalf("Wait = %v, want killed by USR1", err)
	}
	if err := c.Signal(t.Context(), "WINCH"); err == nil {
		t.Error("Signal(WINCH) succeeded; it is not an RFC 4254 signal name")
	}
}

// TestCloseUnblocks pins the Conn contract: Close unblocks a pending Read
// (a channel read alone would wait for the server's reply), Read and Write
// then fail with os.ErrClosed, Wait returns, and Close is idempotent.
func TestCloseUnblocks(t *testing.T) {
	_, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
	out := startReader(t, c)
	out.waitFor(t, "ready", 5*time.Second)
	var wg sync.WaitGroup
	for range 3 {
		wg.Go(func() { _ = c.Close() })
	}
	wg.Wait()
	if err := out.end(t, 3*time.Second); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close = %v, want os.ErrClosed", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Write after Close = %v, want os.ErrClosed", err)
	}
	if err := waitErr(t, c, 3*time.Second); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Wait after Close = %v, want os.ErrClosed", err)
	}
}

// TestPooling checks that sessions share one connection, which closes with
// its last session.
func TestPooling(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	var conns []*sshconn.Conn
	var mu sync.Mutex
	var wg sync.WaitGroup
	for range 5 {
		wg.Go(func() {
			c, err := e.open(transport.Target{Command: "exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
			if err != nil {
				t.Error(err)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	for _, c := range conns[1:] {
		if c.Client() != conns[0].Client() {
			t.Errorf("sessions on different connections: %s and %s", c.Client(), conns[0].Client())
		}
	}
	if n := s.conns.Load(); n != 1 {
		t.Errorf("server accepted %d connections, want 1", n)
	}
	if n := e.Dials.Load(); n != 1 {
		t.Errorf("opener dialled %d times, want 1", n)
	}
	first := conns[0].Client()
	for _, c := range conns {
		_ = c.Close()
	}
	c := e.mustOpen(transport.Target{Command: "true", Spec: transport.SSHParams{Host: "srv"}})
	if c.Client() == first {
		t.Errorf("after every session closed, a new session reused connection %s", first)
	}
	if n := s.conns.Load(); n != 2 {
		t.Errorf("server accepted %d connections, want 2", n)
	}
	// The pool key names user, host and port.
	if want := "tester@" + s.Addr + "#"; !strings.HasPrefix(c.Client(), want) {
		t.Errorf("Client() = %q, want prefix %q", c.Client(), want)
	}
}

func TestOpenerClose(t *testing.T) {
	_, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
	out := startReader(t, c)
	out.waitFor(t, "ready", 5*time.Second)
	if err := e.Opener.Close(); err != nil {
		t.Fatal(err)
	}
	if err := out.end(t, 3*time.Second); !errors.Is(err, sshconn.ErrOpenerClosed) {
		t.Errorf("Read after Opener.Close = %v, want ErrOpenerClosed", err)
	}
	if err := waitErr(t, c, 3*time.Second); !errors.Is(err, sshconn.ErrOpenerClosed) {
		t.Errorf("Wait after Opener.Close = %v, want ErrOpenerClosed", err)
	}
	if _, err := e.open(transport.SSHTarget("srv")); !errors.Is(err, sshconn.ErrOpenerClosed) {
		t.Errorf("Open after Close = %v, want ErrOpenerClosed", err)
	}
}

// TestKeepaliveBlackHole: with the traffic silently dropped, the keepalive
// notices within ServerAliveInterval × (ServerAliveCountMax+1) and every
// pending Read and Wait returns a *LinkError saying so.
func TestKeepaliveBlackHole(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	p := startProxy(t, s.Addr)
	e.setHost("srv", func(c *sshconf.Config) {
		c.ServerAliveInterval = 200 * time.Millisecond
		c.ServerAliveCountMax = 2
	})
	e.redirect(s.Addr, p.Addr)
	c := e.mustOpen(transport.SSHTarget("srv"))
	out := startReader(t, c)
	out.waitFor(t, "$ ", 5*time.Second)
	// Keepalive round trips on a healthy link must not kill it.
	s.events.waitCount(t, "keepalive", 4)
	if _, err := io.WriteString(c, "echo still-$((1+1))\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "still-2", 5*time.Second)

	start := time.Now()
	p.BlackHole()
	err := out.end(t, 3*time.Second)
	took := time.Since(start)
	var le *sshconn.LinkError
	if !errors.As(err, &le) || !le.BlackHoled {
		t.Fatalf("Read after black hole = %v, want a black-holed *LinkError", err)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("dead link noticed after %s, want about 600ms", took)
	}
	if werr := waitErr(t, c, time.Second); !errors.As(werr, &le) {
		t.Errorf("Wait = %v, want *LinkError", werr)
	}
	if !strings.Contains(err.Error(), "black-holing") {
		t.Errorf("message %q does not say the link is black-holed", err)
	}
	t.Logf("noticed after %s: %v", took, err)
}

// TestLinkReset: a connection reset ends sessions with a *LinkError, not a
// clean EOF, and the next Open dials again.
func TestLinkReset(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	p := startProxy(t, s.Addr)
	e.redirect(s.Addr, p.Addr)
	c := e.mustOpen(transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
	out := startReader(t, c)
	out.waitFor(t, "ready", 5*time.Second)
	p.Reset()
	var le *sshconn.LinkError
	if err := out.end(t, 3*time.Second); !errors.As(err, &le) || le.BlackHoled {
		t.Fatalf("Read after reset = %v, want *LinkError (not black-holed)", err)
	}
	if err := waitErr(t, c, 3*time.Second); !errors.As(err, &le) {
		t.Fatalf("Wait after reset = %v, want *LinkError", err)
	}
	c2 := e.mustOpen(transport.Target{Command: "echo again", Spec: transport.SSHParams{Host: "srv"}})
	if c2.Client() == c.Client() {
		t.Errorf("Open after the link died reused %s", c.Client())
	}
	startReader(t, c2).waitFor(t, "again", 5*time.Second)
	if err := waitErr(t, c2, 5*time.Second); err != nil {
		t.Fatal(err)
	}
}

// TestStalePooledConnection: without keepalives a black-holed pooled
// connection is not noticed, so opening a session on it must still be
// bounded by ctx, and the next Open must use a new connection.
func TestStalePooledConnection(t *testing.T) {
	s, e := keyServer(t, serverOptions{})
	p := startProxy(t, s.Addr)
	e.redirect(s.Addr, p.Addr)
	first := e.mustOpen(transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, first).waitFor(t, "ready", 5*time.Second)
	p.BlackHole()

	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := e.Opener.Open(ctx, transport.Target{Command: "true", Spec: transport.SSHParams{Host: "srv"}})
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "the next open uses a new one") {
		t.Fatalf("Open on a black-holed connection = %v, want a deadline error", err)
	}
	if took := time.Since(start); took > 2*time.Second {
		t.Errorf("Open took %s with a 300ms context", took)
	}
	c := e.mustOpen(transport.Target{Command: "echo fresh", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, c).waitFor(t, "fresh", 5*time.Second)
	if c.Client() == first.Client() {
		t.Errorf("the next Open reused the dead connection %s", first.Client())
	}
}

// TestNoExitStatus: a server that closes the session without an exit
// status while the connection is fine gives ErrNoExitStatus, not a
// *LinkError, and Read ends with io.EOF.
func TestNoExitStatus(t *testing.T) {
	_, e := keyServer(t, serverOptions{})
	c := e.mustOpen(transport.Target{Command: closeWithoutStatus, Spec: transport.SSHParams{Host: "srv"}})
	if err := startReader(t, c).end(t, 5*time.Second); err != io.EOF {
		t.Errorf("Read = %v, want io.EOF", err)
	}
	err := waitErr(t, c, 5*time.Second)
	var le *sshconn.LinkError
	if !errors.Is(err, sshconn.ErrNoExitStatus) || errors.As(err, &le) {
		t.Fatalf("Wait = %v, want ErrNoExitStatus", err)
	}
}
