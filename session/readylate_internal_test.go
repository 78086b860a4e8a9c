package session

import (
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// lateReaderConn plays a local shell whose first prompt, D mark included,
// is in the kernel when open's ready wait ends, but not read yet (a
// loaded machine's reader is late): the shell waits for input, and the
// output is delivered only once the session asks the kernel what it holds
// (Unread).
type lateReaderConn struct {
	*scriptConn
	mu      sync.Mutex
	pending string
}

func (c *lateReaderConn) ShellWaitsForInput() (bool, error) { return true, nil }

func (c *lateReaderConn) Unread() (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := len(c.pending)
	if n > 0 {
		c.emit(c.pending)
		c.pending = ""
	}
	return n, nil
}

// TestReadyWaitTakesWhatTheKernelHolds: slow-rc-6s of the rc corpus
// (an rc file longer than the 5 s ready wait) failed now and then under
// load: when the rc file ended, the wait, extended while the startup
// files ran, found the shell waiting for input and gave the hook up
// before the reader had taken the D mark the shell had printed; the first
// command then ended on that mark with the output in the next result.
// The wait now takes what the kernel holds first. On the old code the
// session here opens without the hook.
func TestReadyWaitTakesWhatTheKernelHolds(t *testing.T) {
	c := &lateReaderConn{scriptConn: newScriptConn(), pending: markD("0") + "$ "}
	k := Kind{Name: "local", Opener: connOpener{c}, Prepare: func(o *Opening) { o.Nonce, o.Shell = testNonce, true }}
	m := NewManager(Options{Kinds: []Kind{k}, StateDir: t.TempDir(), ReadyTimeout: 50 * time.Millisecond})
	t.Cleanup(m.CloseAll)
	s, err := m.Open(t.Context(), OpenRequest{Transport: "local", Target: transport.Target{Command: "/bin/bash"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Info().Integrated {
		t.Fatalf("opened without the hook (%s), its D mark unread in the kernel", s.HookProblem())
	}
}

// startupConn plays a shell whose startup files run past the ready
// timeout (sleep 6 in .bashrc: the kernel says it is busy), then, between
// the end of the startup files and its first prompt, says it waits for
// input a while before it prints the D mark (what slow-rc-6s of the rc
// corpus met on a loaded machine).
type startupConn struct {
	*scriptConn
	mu      sync.Mutex
	calls   int
	waiting bool
}

func (c *startupConn) ShellWaitsForInput() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.calls++
	if c.calls == 10 { // the startup files end
		c.waiting = true
		time.AfterFunc(100*time.Millisecond, func() { c.emit(markD("0") + "$ ") })
	}
	return c.waiting, nil
}

// TestReadyWaitGraceAfterStartupFiles: once startup files that ran past
// the ready timeout end, open waits a moment for the first prompt's D
// mark; the old wait gave the hook up at the first look that found the
// shell waiting (slow-rc-6s failed 2 runs of 3 so under load, its first
// command then ending on the first prompt's D).
func TestReadyWaitGraceAfterStartupFiles(t *testing.T) {
	c := &startupConn{scriptConn: newScriptConn()}
	k := Kind{Name: "local", Opener: connOpener{c}, Prepare: func(o *Opening) { o.Nonce, o.Shell = testNonce, true }}
	m := NewManager(Options{Kinds: []Kind{k}, StateDir: t.TempDir(), ReadyTimeout: 50 * time.Millisecond})
	t.Cleanup(m.CloseAll)
	s, err := m.Open(t.Context(), OpenRequest{Transport: "local", Target: transport.Target{Command: "/bin/bash"}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Info().Integrated {
		t.Fatalf("opened without the hook (%s): the D mark came 100 ms after the startup files ended", s.HookProblem())
	}
}
