package local_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// testTimeout bounds every wait; generous because -race on two cores is slow.
const testTimeout = 15 * time.Second

func bashPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("these tests need bash: %v", err)
	}
	return p
}

// shellTarget is a deterministic interactive bash (upterm ftests
// getTestShell): no rc files, no readline, a fixed prompt and TERM.
func shellTarget(t testing.TB) transport.Target {
	return transport.Target{
		Args: []string{"--norc", "--noprofile", "--noediting"},
		Env:  []string{"PS1=$ ", "PS2=> ", "HOME=" + t.TempDir(), "HISTFILE=/dev/null", "LC_ALL=C"},
		Term: "xterm-256color",
	}
}

// open opens t with a bash Opener and closes the Conn when the test ends.
func open(t testing.TB, target transport.Target) *local.Conn {
	t.Helper()
	o := &local.Opener{Shell: bashPath(t)}
	c, err := o.Open(t.Context(), target)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*local.Conn)
}

// script runs a bash -c script.
func script(s string) transport.Target {
	return transport.Target{Command: "bash", Args: []string{"--norc", "--noprofile", "-c", s}, Term: "xterm-256color"}
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

func waitErr(t *testing.T, c transport.Conn) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- c.Wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(testTimeout):
		t.Fatalf("Wait did not return within %v", testTimeout)
		return nil
	}
}

func exitError(t *testing.T, err error) *transport.ExitError {
	t.Helper()
	var ee *transport.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Wait = %v (%T), want *transport.ExitError", err, err)
	}
	return ee
}

// crlf undoes the terminal's ONLCR output mapping.
func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

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
