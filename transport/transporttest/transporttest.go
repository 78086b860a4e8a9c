// Package transporttest is a conformance suite for transport.Conn, in the
// spirit of golang.org/x/net/nettest.TestConn: every transport runs the
// same checks of the interface's contract instead of a copy of its own.
package transporttest

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// Options adjust the suite to a transport.
type Options struct {
	// Closed reports whether err is what Read and Write return once the
	// Conn is closed; nil means errors.Is(err, os.ErrClosed).
	Closed func(err error) bool
	// Waited reports whether err is what Wait returns once the Conn is
	// closed (nil for a port, the hangup's exit for a PTY, the closed
	// error for a link); nil accepts any answer: Wait must only return.
	Waited func(err error) bool
	// Bound bounds each wait (default 20 s; a busy machine under -race).
	Bound time.Duration
}

// HungUp reports whether err is the exit of a program killed by SIGHUP:
// what Wait returns once a PTY's Conn is closed (Options.Waited).
func HungUp(err error) bool {
	var ee *transport.ExitError
	return errors.As(err, &ee) && ee.Signal == "HUP"
}

// Open returns a new Conn whose far end echoes what is written to it (a
// terminal running cat, a device looped back). The suite closes it.
type Open func(t *testing.T) transport.Conn

// TestConn runs the conformance checks, each as a subtest on a Conn of its
// own.
func TestConn(t *testing.T, open Open, o Options) {
	if o.Closed == nil {
		o.Closed = func(err error) bool { return errors.Is(err, os.ErrClosed) }
	}
	if o.Waited == nil {
		o.Waited = func(error) bool { return true }
	}
	if o.Bound == 0 {
		o.Bound = 20 * time.Second
	}
	t.Run("Echo", func(t *testing.T) { testEcho(t, open, o) })
	t.Run("CloseUnblocksRead", func(t *testing.T) { testCloseUnblocksRead(t, open, o) })
	t.Run("AfterClose", func(t *testing.T) { testAfterClose(t, open, o) })
	t.Run("ConcurrentClose", func(t *testing.T) { testConcurrentClose(t, open, o) })
}

// reader reads c in the background, collecting what arrives.
type reader struct {
	mu      sync.Mutex
	buf     []byte
	err     error
	changed chan struct{}
}

func startReader(c transport.Conn) *reader {
	r := &reader{changed: make(chan struct{})}
	go func() {
		b := make([]byte, 4096)
		for {
			n, err := c.Read(b)
			r.mu.Lock()
			r.buf = append(r.buf, b[:n]...)
			if err != nil {
				r.err = err
			}
			close(r.changed)
			r.changed = make(chan struct{})
			r.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return r
}

// waitFor waits until s has arrived.
func (r *reader) waitFor(t *testing.T, s string, bound time.Duration) {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		r.mu.Lock()
		ok, err, ch := bytes.Contains(r.buf, []byte(s)), r.err, r.changed
		r.mu.Unlock()
		if ok {
			return
		}
		if err != nil {
			t.Fatalf("Read failed before %q arrived: %v", s, err)
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("%q did not arrive within %v", s, bound)
		}
	}
}

// waitErr waits for Read to fail and returns its error.
func (r *reader) waitErr(t *testing.T, bound time.Duration) error {
	t.Helper()
	timer := time.NewTimer(bound)
	defer timer.Stop()
	for {
		r.mu.Lock()
		err, ch := r.err, r.changed
		r.mu.Unlock()
		if err != nil {
			return err
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("a pending Read did not end within %v of Close", bound)
		}
	}
}

func token() string {
	var b [6]byte
	rand.Read(b[:])
	return "tt-" + hex.EncodeToString(b[:])
}

// within fails the test when f does not return within bound.
func within(t *testing.T, what string, bound time.Duration, f func()) {
	t.Helper()
	done := make(chan struct{})
	go func() { defer close(done); f() }()
	select {
	case <-done:
	case <-time.After(bound):
		t.Fatalf("%s did not return within %v", what, bound)
	}
}

func testEcho(t *testing.T, open Open, o Options) {
	c := open(t)
	defer c.Close()
	r := startReader(c)
	for range 3 {
		s := token()
		if _, err := c.Write([]byte(s + "\n")); err != nil {
			t.Fatal(err)
		}
		r.waitFor(t, s, o.Bound)
	}
}

// testCloseUnblocksRead: a Read waiting on a quiet Conn ends when the
// Conn is closed, with the transport's closed error.
func testCloseUnblocksRead(t *testing.T, open Open, o Options) {
	c := open(t)
	r := startReader(c)
	s := token()
	if _, err := c.Write([]byte(s + "\n")); err != nil {
		t.Fatal(err)
	}
	r.waitFor(t, s, o.Bound) // the reader is in Read now, or about to be
	within(t, "Close", o.Bound, func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := r.waitErr(t, o.Bound); !o.Closed(err) {
		t.Errorf("Read after Close = %v, want the closed error", err)
	}
}

// testAfterClose: Close may run concurrently and again, Wait returns what
// the transport says, Read and Write fail with the closed error.
func testAfterClose(t *testing.T, open Open, o Options) {
	c := open(t)
	within(t, "Close", o.Bound, func() {
		var wg sync.WaitGroup
		for range 3 {
			wg.Go(func() { c.Close() })
		}
		wg.Wait()
	})
	within(t, "a second Close", o.Bound, func() { c.Close() })
	var err error
	within(t, "Wait after Close", o.Bound, func() { err = c.Wait() })
	if !o.Waited(err) {
		t.Errorf("Wait after Close = %v, not what this transport returns", err)
	}
	if _, err := c.Write([]byte("x")); err == nil || !o.Closed(err) {
		t.Errorf("Write after Close = %v, want the closed error", err)
	}
	within(t, "Read after Close", o.Bound, func() { _, err = c.Read(make([]byte, 16)) })
	if err == nil || !o.Closed(err) {
		t.Errorf("Read after Close = %v, want the closed error", err)
	}
}

// testConcurrentClose: Close racing a writer and a reader ends both,
// without a data race (run with -race).
func testConcurrentClose(t *testing.T, open Open, o Options) {
	c := open(t)
	r := startReader(c)
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case <-stop:
				return
			default:
			}
			if _, err := c.Write([]byte("x\n")); err != nil {
				return
			}
		}
	})
	r.waitFor(t, "x", o.Bound)
	within(t, "Close", o.Bound, func() { c.Close() })
	close(stop)
	within(t, "the writer", o.Bound, wg.Wait)
	r.waitErr(t, o.Bound)
}
