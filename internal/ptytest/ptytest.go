// Package ptytest holds test helpers shared by the packages that start
// programs on PTYs (internal/ptyproc, transport/local) and by the
// throughput benchmarks (DrainSeq, their floor): one reader per terminal
// that collects its output and lets a test wait for strings in it, and a
// bounded Wait for the program's exit; every wait is bounded. It is
// imported only by tests.
package ptytest

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os/exec"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ttymux/ttymux/transport"
)

// Output collects everything one goroutine reads from a terminal and lets
// the test wait for strings in it.
type Output struct {
	timeout time.Duration
	done    chan struct{} // closed when the reader has stopped

	// mu protects the following.
	mu   sync.Mutex
	buf  []byte
	pos  int           // how far Expect has consumed buf
	wake chan struct{} // closed and replaced whenever buf grows or reading stops
	err  error         // why reading stopped (nil for io.EOF)
	end  bool
}

// Pump starts the one reader of rc; every wait is bounded by timeout. Its
// cleanup closes rc and waits for the reader to finish.
func Pump(t testing.TB, rc io.ReadCloser, timeout time.Duration) *Output {
	o := &Output{timeout: timeout, done: make(chan struct{}), wake: make(chan struct{})}
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
		case <-time.After(timeout):
			t.Error("reader did not stop after Close")
		}
	})
	return o
}

// Write records output; it is the reader's sink.
func (o *Output) Write(b []byte) (int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.buf = append(o.buf, b...)
	close(o.wake)
	o.wake = make(chan struct{})
	return len(b), nil
}

// Expect waits until want appears in output not yet consumed, and consumes
// up to its end.
func (o *Output) Expect(t testing.TB, want string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), o.timeout)
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
			t.Fatalf("no %q within %v; unconsumed output: %q", want, o.timeout, rest)
		}
	}
}

// Within is Expect with its own bound that reports instead of failing:
// true when want appeared (and was consumed) within d.
func (o *Output) Within(want string, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		o.mu.Lock()
		if i := bytes.Index(o.buf[o.pos:], []byte(want)); i >= 0 {
			o.pos += i + len(want)
			o.mu.Unlock()
			return true
		}
		wake, end := o.wake, o.end
		o.mu.Unlock()
		if end {
			return false
		}
		select {
		case <-wake:
		case <-t.C:
			return false
		}
	}
}

// Wait waits for the reader to stop and returns everything read and the
// error that stopped it (nil for io.EOF).
func (o *Output) Wait(t testing.TB) (string, error) {
	t.Helper()
	select {
	case <-o.done:
	case <-time.After(o.timeout):
		t.Fatalf("no end of stream within %v", o.timeout)
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf), o.err
}

// Done is closed when the reader has stopped.
func (o *Output) Done() <-chan struct{} { return o.done }

// String returns everything read so far.
func (o *Output) String() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return string(o.buf)
}

// Wait waits, at most timeout, for w's Wait (a ptyproc.Proc's or a
// transport.Conn's) and returns its result.
func Wait(t testing.TB, w interface{ Wait() error }, timeout time.Duration) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- w.Wait() }()
	select {
	case err := <-ch:
		return err
	case <-time.After(timeout):
		t.Fatalf("Wait did not return within %v", timeout)
		return nil
	}
}

// ExitError returns the *transport.ExitError in err, failing the test when
// there is none.
func ExitError(t testing.TB, err error) *transport.ExitError {
	t.Helper()
	var ee *transport.ExitError
	if !errors.As(err, &ee) {
		t.Fatalf("Wait = %v (%T), want *transport.ExitError", err, err)
	}
	return ee
}

// DrainSeq runs `seq 1 1000000` on a creack/pty PTY and reads it to the
// end (EIO once seq has exited): the floor the throughput benchmarks
// compare a session's drain with.
func DrainSeq(tb testing.TB) time.Duration {
	tb.Helper()
	t0 := time.Now()
	cmd := exec.Command("seq", "1", "1000000")
	f, err := pty.Start(cmd)
	if err != nil {
		tb.Fatal(err)
	}
	n, _ := io.Copy(io.Discard, f) // ends with EIO when seq's side closes
	d := time.Since(t0)
	_ = f.Close()
	if err := cmd.Wait(); err != nil {
		tb.Fatal(err)
	}
	if n != 7888896 { // 1000000 lines, "\r\n" each (ONLCR)
		tb.Fatalf("drained %d bytes", n)
	}
	return d
}
