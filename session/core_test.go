package session

import (
	"context"
	"errors"
	"github.com/ttymux/ttymux/session/verdict"
	"io"
	"log/slog"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
)

// scriptConn is a Conn whose output the test writes, and whose input goes
// to a callback: a shell played by the test, to make what a real one does
// only under load or by chance (an agent's gap) happen every time.
type scriptConn struct {
	emitted atomic.Int64 // output offset after what was emitted
	out     chan readItem
	done    chan struct{}
	once    sync.Once
	onWrite func(p []byte) // called from Write; may call emit

	mu sync.Mutex // protects fg
	fg *transport.Foreground
}

// setForeground makes Foreground report fg; nil means unknown.
func (c *scriptConn) setForeground(fg *transport.Foreground) {
	c.mu.Lock()
	c.fg = fg
	c.mu.Unlock()
}

func (c *scriptConn) Foreground() (transport.Foreground, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.fg == nil {
		return transport.Foreground{}, errors.New("foreground unknown")
	}
	return *c.fg, nil
}

type readItem struct {
	b   []byte
	err error
}

func newScriptConn() *scriptConn {
	return &scriptConn{out: make(chan readItem, 256), done: make(chan struct{})}
}

func (c *scriptConn) emit(s string) {
	c.emitted.Add(int64(len(s)))
	c.out <- readItem{b: []byte(s)}
}

// gap makes the next Read report that n bytes were lost.
func (c *scriptConn) gap(n int64) {
	end := c.emitted.Add(n)
	c.out <- readItem{err: &transport.GapError{From: end - n, To: end}}
}

func (c *scriptConn) Close() error         { c.once.Do(func() { close(c.done) }); return nil }
func (c *scriptConn) Wait() error          { <-c.done; return nil }
func (c *scriptConn) SetMeta([]byte) error { return nil }

func (c *scriptConn) Read(p []byte) (int, error) {
	select {
	case it := <-c.out:
		if it.err != nil {
			return 0, it.err
		}
		return copy(p, it.b), nil
	case <-c.done:
		return 0, io.EOF
	}
}

func (c *scriptConn) Write(p []byte) (int, error) {
	if c.onWrite != nil {
		c.onWrite(p)
	}
	return len(p), nil
}

// hooked plays a bash with ttymux's hook (nonce "n0n"): D mark, prompt.
const testNonce = "n0n"

func markD(status string) string { return "\x1b]133;D;" + status + ";ttymux=" + testNonce + "\x07" }
func markC() string              { return "\x1b]133;C;ttymux=" + testNonce + "\x07" }

func newScriptSession(t *testing.T, c *scriptConn, ringSize int) *Session {
	t.Helper()
	s := newSession(sessionConfig{
		id: "t1", transport: "local", command: "bash", conn: c, size: transport.DefaultSize,
		ringSize: ringSize, nonce: testNonce, shell: true, log: slog.New(slog.DiscardHandler),
	})
	t.Cleanup(func() { _ = s.Close() })
	c.emit(markD("0") + "$ ")
	if !s.waitReady(t.Context(), 10*time.Second) {
		t.Fatal("the scripted shell's first mark was not seen")
	}
	return s
}

// TestGapResynchronises pins issue #13's wedge: after the agent reported
// an output gap, the detector's offsets lagged the log's by the gap, so no
// later mark was ever "after the send" and every command timed out with
// empty output. The gap is reported once and the next command completes.
func TestGapResynchronises(t *testing.T) {
	c := newScriptConn()
	s := newScriptSession(t, c, 1<<20)
	r, err := s.Send(t.Context(), SendRequest{Text: "yes | head -c 200000000; echo END", Enter: true, Wait: false})
	if err != nil {
		t.Fatal(err)
	}
	c.emit("yes | head -c 200000000; echo END\r\n" + markC() + strings.Repeat("y\r\n", 1000))
	c.gap(5000)
	c.emit(strings.Repeat("y\r\n", 10) + "END\r\n" + markD("0") + "$ ")
	c.onWrite = func(p []byte) {
		if string(p) == "echo alive\r" {
			c.emit("echo alive\r\n" + markC() + "alive\r\n" + markD("0") + "$ ")
		}
	}
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	r, err = s.Read(ctx, ReadRequest{Wait: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Via != ViaExitCode || r.Gap < 5000 {
		t.Fatalf("the flood: complete=%v via=%q gap=%d, want complete by exit-code with the gap reported", r.Complete, r.Via, r.Gap)
	}
	r, err = s.Send(ctx, SendRequest{Text: "echo alive", Enter: true, Wait: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Via != ViaExitCode || r.Output != "alive" || r.Gap != 0 {
		t.Fatalf("after the gap: complete=%v via=%q output=%q gap=%d note=%q, want alive by exit-code and no gap again", r.Complete, r.Via, r.Output, r.Gap, r.Note)
	}
}

// failingKeeper is a Keeper whose Kill fails, as an unreachable agent's
// would.
type failingKeeper struct{ conn *scriptConn }

func (k *failingKeeper) Create(context.Context, transport.Target, []byte) (transport.KeptConn, transport.KeptSession, error) {
	return k.conn, transport.KeptSession{ID: "s1"}, nil
}

func (k *failingKeeper) Attach(context.Context, string, int64) (transport.KeptConn, transport.KeptSession, transport.Resume, error) {
	return nil, transport.KeptSession{}, transport.Resume{}, transport.ErrNoSession
}

func (k *failingKeeper) List(context.Context) ([]transport.KeptSession, error) { return nil, nil }

func (k *failingKeeper) Kill(context.Context, string) error {
	return errors.New("agent unreachable")
}

// TestCloseKillFailureIsAnError pins the other half of issue #13's close
// bug: a kill the agent could not do was answered closed: true. It is an
// error, and the session stays so that close can be tried again.
func TestCloseKillFailureIsAnError(t *testing.T) {
	k := &failingKeeper{conn: newScriptConn()}
	m := NewManager(Options{Kinds: []Kind{LocalKind(nil)}, StateDir: t.TempDir(), Keeper: k})
	t.Cleanup(m.CloseAll)
	s, err := m.Open(t.Context(), OpenRequest{Transport: "local", Persistent: true, Target: transport.Target{Command: "cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Close(t.Context(), s.ID()); err == nil || !strings.Contains(err.Error(), "agent unreachable") {
		t.Fatalf("close with a failing kill: %v, want the agent's error", err)
	}
	if got, err := m.Get(t.Context(), s.ID()); err != nil || got != s {
		t.Fatalf("after a failed close the session is gone: %v", err)
	}
}

// TestShellLayerQuietCountsFromShellBack pins the false verdict issue #13
// saw on a busy machine (TestShellLayerWithoutIntegration: complete via
// shell with empty output): after "sleep 0.5; echo slept" the output had
// been quiet for half a second when sleep ended, so the instant the shell
// took the terminal back, before it ran echo, the command was called
// finished. Quiet must count from when the shell is back.
func TestShellLayerQuietCountsFromShellBack(t *testing.T) {
	c := newScriptConn()
	s := newSession(sessionConfig{
		id: "t1", transport: "local", command: "dash", conn: c, size: transport.DefaultSize,
		ringSize: 1 << 20, shell: true, log: slog.New(slog.DiscardHandler),
	})
	t.Cleanup(func() { _ = s.Close() })
	shell := &transport.Foreground{Pgid: 1, Name: "dash", IsShell: true}
	c.setForeground(shell)
	if _, err := s.Send(t.Context(), SendRequest{Text: "sleep 0.5; echo slept", Enter: true}); err != nil {
		t.Fatal(err)
	}
	s.mu.Lock()
	cmd := s.cmd
	s.mu.Unlock()
	c.setForeground(&transport.Foreground{Pgid: 2, Name: "sleep"})
	c.emit("sleep 0.5; echo slept\r\n")
	// Wait until the echo is in and has been quiet well past every quiet
	// the shell layer uses, with sleep owning the terminal.
	if !testwait.Poll(t.Context(), 10*time.Second, func() bool {
		v, _, _, _ := s.evaluate(cmd)
		if v.Complete {
			t.Fatalf("complete via %s while sleep runs", v.Via)
		}
		return cmd.RanProgram() && cmd.Anchor >= 0 && time.Since(s.lastOutputAt()) > 2*verdict.ShellQuietBare
	}) {
		t.Fatal("the echo was not taken")
	}
	c.setForeground(shell) // sleep ended; the shell has yet to run echo
	if v, _, _, _ := s.evaluate(cmd); v.Complete {
		t.Fatalf("complete via %s the instant the shell took the terminal back, before echo ran", v.Via)
	}
	c.emit("slept\r\n")
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	v := s.await(ctx, cmd, 5*time.Second, nil)
	if !v.Complete || v.Via != ViaShell {
		t.Fatalf("after echo: complete=%v via=%q", v.Complete, v.Via)
	}
}

// killRecorder is a remote agent's Keeper that remembers which ids it was
// asked to kill.
type killRecorder struct {
	failingKeeper
	killed []string
}

func (k *killRecorder) Kill(_ context.Context, id string) error {
	k.killed = append(k.killed, id)
	return nil
}

// TestFailedOpenKillsTheRemoteSessionByItsAgentsID: an open whose
// recording cannot be made ends the session it had created in a remote
// agent, which knows "box/s1" as "s1".
func TestFailedOpenKillsTheRemoteSessionByItsAgentsID(t *testing.T) {
	k := &killRecorder{failingKeeper: failingKeeper{conn: newScriptConn()}}
	kind := LocalKind(nil)
	kind.Name = "remote-test"
	kind.Keep = func(_ context.Context, _ Keepers, o *Opening) (transport.Keeper, transport.Target, string, error) {
		return k, o.Target, "box", nil
	}
	m := NewManager(Options{Kinds: []Kind{kind}, StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	bad := filepath.Join(t.TempDir(), "missing-dir", "rec.cast")
	_, err := m.Open(t.Context(), OpenRequest{Transport: "remote-test", Persistent: true, RecordPath: bad,
		Target: transport.Target{Command: "cat"}})
	if err == nil {
		t.Fatal("open with a recording path in a missing directory succeeded")
	}
	if !slices.Equal(k.killed, []string{"s1"}) {
		t.Fatalf("kills after the failed open: %q, want [s1] (the agent's own id)", k.killed)
	}
}

// TestJoinNote: notes join with "; " and an empty one adds nothing (a
// send's own notes with no note from the read ended in a dangling "; ").
func TestJoinNote(t *testing.T) {
	for _, tc := range [][3]string{{"", "", ""}, {"a", "", "a"}, {"", "b", "b"}, {"a", "b", "a; b"}} {
		if got := joinNote(tc[0], tc[1]); got != tc[2] {
			t.Errorf("joinNote(%q, %q) = %q, want %q", tc[0], tc[1], got, tc[2])
		}
	}
}
