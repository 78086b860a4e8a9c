package sshconn_test

import (
	"bytes"
	"context"
	"errors"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// TestSSHDExec runs commands in exec channels (no pty) on one pooled
// connection: output with stderr merged, exit statuses, no pty, and a
// command stopped by its context.
func TestSSHDExec(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)
	ctx, cancel := context.WithTimeout(t.Context(), 2*time.Minute)
	defer cancel()
	l, err := e.Opener.Link(ctx, transport.SSHTarget("box"))
	if err != nil {
		t.Fatal(err)
	}
	defer l.Release()

	tests := []struct {
		name, command, out string
		status             int
	}{
		{"stdout", "echo hello", "hello\n", 0},
		{"stderr merged", "echo oops >&2; exit 3", "oops\n", 3},
		{"no pty", "test -t 0 || echo no-tty", "no-tty\n", 0},
		{"killed by a signal", "kill -TERM $$", "", 143},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out bytes.Buffer
			err := l.Exec(ctx, tt.command, &out)
			var ee *transport.ExitError
			switch {
			case tt.status == 0 && err != nil:
				t.Fatalf("Exec = %v", err)
			case tt.status != 0 && (!errors.As(err, &ee) || ee.Status != tt.status):
				t.Fatalf("Exec = %v, want exit status %d", err, tt.status)
			}
			if out.String() != tt.out {
				t.Fatalf("output %q, want %q", out.String(), tt.out)
			}
		})
	}

	// A command that outlives its context is stopped; Exec returns at
	// once, and the connection stays usable.
	sctx, scancel := context.WithTimeout(ctx, 300*time.Millisecond)
	defer scancel()
	start := time.Now()
	var out bytes.Buffer
	err = l.Exec(sctx, "exec sleep 5", &out)
	var se *sshconn.StoppedError
	if !errors.As(err, &se) || !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "timed out") {
		t.Fatalf("Exec = %v, want a *StoppedError for the deadline", err)
	}
	if el := time.Since(start); el > 4*time.Second {
		t.Fatalf("Exec returned after %s, want soon after the 300ms deadline", el)
	}
	// Cancelled once it has printed: what it printed is kept.
	cctx, ccancel := context.WithCancel(ctx)
	defer ccancel()
	sw := &signalWriter{want: "started", seen: make(chan struct{})}
	go func() {
		select {
		case <-sw.seen:
			ccancel()
		case <-ctx.Done():
		}
	}()
	err = l.Exec(cctx, "echo started; exec sleep 5", sw)
	if !errors.As(err, &se) || !errors.Is(err, context.Canceled) || !strings.Contains(err.Error(), "cancelled") {
		t.Fatalf("Exec = %v, want a *StoppedError for the cancellation", err)
	}
	if got := sw.String(); got != "started\n" {
		t.Fatalf("output before the stop: %q", got)
	}
	// sshd signals nothing for a root login (session.c
	// session_signal_req needs privilege separation).
	if want := os.Geteuid() != 0; se.Killed != want {
		t.Errorf("Killed = %v, want %v: %v", se.Killed, want, err)
	}
	out.Reset()
	if err := l.Exec(ctx, "echo again", &out); err != nil || out.String() != "again\n" {
		t.Fatalf("after a stop: %v %q", err, out.String())
	}
	if n := d.Count("Accepted publickey"); n != 1 {
		t.Errorf("sshd logged %d authentications, want 1", n)
	}
}

// signalWriter collects output and closes seen once it holds want.
type signalWriter struct {
	mu   sync.Mutex
	b    bytes.Buffer
	want string
	seen chan struct{}
	once sync.Once
}

func (w *signalWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.b.Write(p)
	if strings.Contains(w.b.String(), w.want) {
		w.once.Do(func() { close(w.seen) })
	}
	return len(p), nil
}

func (w *signalWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}
