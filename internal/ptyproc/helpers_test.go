package ptyproc_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/ptyproc"
)

// testTimeout bounds every wait; generous because -race on two cores is slow.
const testTimeout = 15 * time.Second

func bashPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("these tests need bash: %v", err)
	}
	return p
}

// testEnv is a minimal, deterministic environment for a test shell
// (upterm ftests getTestShell).
func testEnv(t *testing.T) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"TERM=xterm-256color",
		"LC_ALL=C",
		"PS1=$ ",
		"PS2=> ",
		"HISTFILE=/dev/null",
	}
}

// shellSpec runs an interactive bash without rc files or readline, so the
// terminal stays in plain canonical mode with echo on.
func shellSpec(t *testing.T) ptyproc.Spec {
	return ptyproc.Spec{
		Path: bashPath(t),
		Args: []string{"--norc", "--noprofile", "--noediting"},
		Env:  testEnv(t),
		Rows: 24, Cols: 80,
	}
}

// scriptSpec runs script with bash -c.
func scriptSpec(t *testing.T, script string) ptyproc.Spec {
	s := shellSpec(t)
	s.Args = []string{"--norc", "--noprofile", "-c", script}
	return s
}

func start(t *testing.T, spec ptyproc.Spec) *ptyproc.Proc {
	t.Helper()
	p, err := ptyproc.Start(spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// output collects everything one goroutine reads from a terminal and lets
// the test wait for strings in it.
type output struct {
	done chan struct{} // closed when the reader has stopped

	// mu protects the following.
	mu   sync.Mutex
	buf  []byte
	pos  int           // how far expect has consumed buf
	wake chan struct{} // closed and replaced whenever buf grows or reading stops
	err  error         // why reading stopped (nil for io.EOF)
	end  bool
}

// pump starts the one reader of rc. Its cleanup closes rc and waits for the
// reader to finish.
func pump(t *testing.T, rc io.ReadCloser) *output {
	o := &output{done: make(chan struct{}), wake: make(chan struct{})}
	go func() {
		defer close(o.done)
		_, err := io.Copy(o, rc)
		o.mu.Lock()
		o.err, o.end = err, true
		close(o.wake)
		o.mu.Unlock()
	}()
	t.Cleanup(func() {
		_ = rc.Close()
		select {
		case <-o.done:
		case <-time.After(testTimeout):
			t.Error("reader did not stop after Close")
		}
	})
	return o
}

func (o *output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, b...)
	close(o.wake)
	o.wake = make(chan struct{})
	return len(b), nil
}

// expect waits until want appears in output not yet consumed, and consumes
// up to its end.
func (o *output) expect(t *testing.T, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	for {
		o.mu.Lock()
		if i := bytes.Index(o.buf[o.pos:], []byte(want)); i >= 0 {
			o.pos += i + len(want)
			o.mu.Unlock()
			return
		}
		wake, end, rest := o.wake, o.end, string(o.buf[o.pos:])
		o.mu.Unlock()
		if end {
			t.Fatalf("output ended before %q; unconsumed output: %q", want, rest)
		}
		select {
		case <-wake:
		case <-ctx.Done():
			t.Fatalf("no %q within %v; unconsumed output: %q", want, testTimeout, rest)
		}
	}
}

// wait waits for the reader to stop and returns everything read and the
// error that stopped it (nil for io.EOF).
func (o *output) wait(t *testing.T) (string, error) {
	t.Helper()
	select {
	case <-o.done:
	case <-time.After(testTimeout):
		t.Fatalf("no end of stream within %v", testTimeout)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf), o.err
}

// waitFor polls cond every few milliseconds until it holds.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), testTimeout)
	defer cancel()
	tick := time.NewTicker(5 * time.Millisecond)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		}
	}
}

// crlf undoes the terminal's ONLCR output mapping.
func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func waitErr(t *testing.T, p *ptyproc.Proc) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- p.Wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(testTimeout):
		t.Fatalf("Wait did not return within %v", testTimeout)
		return nil
	}
}

func exitError(t *testing.T, err error) *ptyproc.ExitError {
	t.Helper()
	var ee *ptyproc.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Wait = %v (%T), want *ptyproc.ExitError", err, err)
	}
	return ee
}
