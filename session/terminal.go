package session

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/session/asciicast"
	"github.com/ttymux/ttymux/session/screen"
	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// A terminal is the session's first part: it owns one transport.Conn and
// the one goroutine that reads it. Every byte read goes, in order, to the
// output log (a ring addressed by absolute offset), the line index, the
// detector and the screen, and wakes whoever waits for a change. It offers
// that state held still (termSource, for the verdict), ranges of the log
// (ring, under mu) and waits (waitFor, Changed); the input writes through
// it (write), and the command layer reads it. Its lock is mu; feedMu only
// keeps the pump's order with a transfer that borrowed the terminal.
type terminal struct {
	conn  transport.Conn
	scr   *screen.Screen
	rec   *asciicast.Recorder // the asciicast recording, or nil; fed by the pump
	log   *slog.Logger
	now   func() time.Time
	shell bool // the top-level program is a shell (enables the shell layer)
	kept  bool // held by an agent: Close detaches, Kill ends it

	// term is the terminal as the verdict engine sees it (session/verdict):
	// it reads the log, the detector and the fields under mu through view,
	// the Conn and the screen.
	term verdict.Terminal

	feedMu sync.Mutex // held while output is handed to the tap or fed to the terminal, so both keep the terminal's order
	// othersRec is the other clients' input the recording has marked
	// (transport.SharedInput; guarded by feedMu); othersRun is set while
	// their run of keys is marked, until the model types (personline.go).
	othersRec int64
	othersRun atomic.Bool

	mu         sync.Mutex // mu protects the following, and the command layer's offsets (Session)
	ring       *ring.Ring
	lines      *ring.LineIndex
	times      *ring.Times // when each chunk arrived (timestamps.go)
	det        *verdict.Detector
	lastOutput time.Time
	size       transport.Size
	exited     bool
	exitErr    error
	exitCode   *int
	closed     bool
	gaps       int64 // output bytes the agent dropped for us

	// The shell hook as the output shows it (hook.go).
	ready     bool   // the shell integration has printed a D mark and was not found broken since
	hookLost  string // why the hook was found broken ("" while it works or has not reported yet); see hook.go
	hookNote  string // a note on hookLost the next result carries
	hookNoted bool   // hookNote was made: the session says it once
	hookless  bool   // the far end said no hook will load (verdict.Detector.Hookless)
	fish      bool   // the program is fish (the hook also says so: verdict.Detector.Shell)

	// The remote bootstrap's second stage (remote.go): the files it may
	// ask for until one is sent, and how far the output was searched.
	remoteFiles map[string][]byte
	remoteFrom  int64

	changed chan struct{} // closed and replaced on every change someone waits for
	watched bool          // someone took changed since it was last replaced
	marked  chan struct{} // closed and replaced on a new mark or the end

	secrets []string    // typed into the terminal; their echoes are masked as they arrive
	red     redactState // how far the output was searched for their echoes (redact.go)
	cwd     cwdTracker  // the directory OSC 7 last reported (transfer.go)
	tap     *Tap        // a transfer that borrowed the terminal (transfer.go)

	pumpDone chan struct{}
}

// start makes t the terminal of the session c describes, started at
// created. The session then starts its pump.
func (t *terminal) start(c sessionConfig, created time.Time) {
	r := ring.NewAt(c.ringSize, c.from)
	t.conn, t.log, t.now, t.rec = c.conn, c.log, time.Now, c.rec
	t.shell, t.fish, t.kept = c.shell, c.fish, c.kept
	t.ring = r
	t.lines = ring.NewLineIndexAt(r, max(c.fromLine, 1))
	t.times = ring.NewTimes(r)
	t.det = verdict.NewDetector(c.nonce, c.from)
	t.remoteFiles, t.remoteFrom = c.remoteFiles, c.from
	t.size = c.size
	t.lastOutput = created
	t.changed = make(chan struct{})
	t.marked = make(chan struct{})
	t.pumpDone = make(chan struct{})
	// The log keeps history; the emulator's scrollback costs about 15 KB a line,
	// so keep only a little of it.
	t.scr = screen.New(c.size.Rows, c.size.Cols, screen.Options{Reply: replyWriter{t}, Scrollback: 64})
	t.term = verdict.Terminal{
		Src: termSource{t}, Conn: t.conn, AltScreen: t.scr.AltScreen, Shell: t.shell,
		Now: func() time.Time { return t.now() }, // tests replace s.now
	}
}

// termSource is the terminal's output as the verdict engine reads it
// (verdict.Source): the log, the detector and what they do not say, held
// still under mu while the engine looks.
type termSource struct{ t *terminal }

func (ts termSource) View(f func(verdict.State)) {
	t := ts.t
	t.mu.Lock()
	defer t.mu.Unlock()
	f(verdict.State{Log: t.ring, Det: t.det, Held: verdict.Held{
		LastOutput: t.lastOutput, Exited: t.exited, ExitCode: t.exitCode, Ready: t.ready, HookLost: t.hookLost != "",
	}})
}

// replyWriter forwards the emulator's answers to terminal queries (cursor
// position, device attributes) to the far end, as a real terminal would,
// when a program that asked will read them (replies.go); else it drops them.
type replyWriter struct{ t *terminal }

func (w replyWriter) Write(p []byte) (int, error) {
	if !w.t.replyAllowed() {
		return len(p), nil
	}
	return w.t.conn.Write(p)
}

// Changed returns a channel closed at the session's next change (output,
// a mark, its end). Call it again for the change after that. It does not
// block.
func (t *terminal) Changed() <-chan struct{} {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.changedLocked()
}

// notifyLocked wakes every waiter. t.mu must be held.
func (t *terminal) notifyLocked() {
	if !t.watched {
		return // nobody holds the channel: no one to wake
	}
	close(t.changed)
	t.changed = make(chan struct{})
	t.watched = false
}

// changedLocked returns the channel closed on the next change. t.mu must be
// held.
func (t *terminal) changedLocked() <-chan struct{} {
	t.watched = true
	return t.changed
}

// notifyMarkLocked wakes the waiters that care only about shell-integration
// marks and the end of the session, which are rare, so that a flood of
// output does not wake them once per chunk. t.mu must be held.
func (t *terminal) notifyMarkLocked() {
	close(t.marked)
	t.marked = make(chan struct{})
}

// feed takes the terminal's output p, which arrived at at, into the
// terminal. t.feedMu must be held.
func (t *terminal) feed(p []byte, at time.Time) {
	// The screen first: whoever the log's new bytes wake (a verdict) must
	// find them on the screen too (the alternate screen switches a result
	// to the rendered screen).
	t.scr.Write(p)
	t.mu.Lock()
	t.ring.Write(p)
	t.lines.Write(p)
	t.times.Write(p, at)
	marks, dones := t.det.Count(), t.det.Dones()
	t.det.Write(p)
	t.cwd.Write(p)
	t.lastOutput = t.now()
	if t.det.Count() != marks {
		t.hookMarksLocked(dones) // hook.go
		t.notifyMarkLocked()
	}
	if !t.hookless && !t.ready && t.det.Hookless() {
		// No hook will load (a login shell the remote bootstrap has
		// none for): the lower layers judge from now on, and the open
		// need not wait for a mark.
		t.hookless = true
		t.det.SetNonce("")
		t.notifyMarkLocked()
	}
	t.notifyLocked()
	t.mu.Unlock()
	t.markOthers() // personline.go
	t.rec.Output(p)
	t.redactEchoes() // redact.go: a secret's echo is masked as it arrives
}

// pump is the terminal's one reader. It runs until the Conn reports the
// end of the stream, then records the exit status.
func (t *terminal) pump() {
	defer close(t.pumpDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := t.conn.Read(buf)
		at := t.now() // the chunk's arrival, before the screen takes its time
		if ar, ok := t.conn.(transport.ArrivalReporter); ok && n > 0 {
			// An agent that held the bytes while no server was attached
			// says when they came (read {timestamps} after a restart).
			if a, ok := ar.Arrival(); ok && a.Before(at) {
				at = a
			}
		}
		if n > 0 {
			t.feedMu.Lock()
			if !t.tapped(buf[:n]) {
				t.feed(buf[:n], at)
			}
			t.feedMu.Unlock()
		}
		if err != nil {
			var gap *transport.GapError
			if errors.As(err, &gap) {
				// The agent could not keep this client's output: record an
				// explicit gap, never a silent one.
				t.feedMu.Lock()
				t.mu.Lock()
				t.ring.Skip(gap.To - gap.From)
				t.lines.Skip(gap.To - gap.From)
				t.det.Skip(gap.To - gap.From)
				t.gaps += gap.To - gap.From
				t.notifyLocked()
				t.mu.Unlock()
				t.rec.Skip(gap.To - gap.From)
				t.feedMu.Unlock()
				t.log.Warn("output lost", "bytes", gap.To-gap.From)
				continue
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, ErrClosed) {
				t.log.Debug("read ended", "err", err)
			}
			break
		}
	}
	t.endTap()
	werr := t.conn.Wait()
	t.mu.Lock()
	t.exited = true
	t.exitErr = werr
	t.notifyMarkLocked()
	code := 0
	var ee *transport.ExitError
	switch {
	case werr == nil:
		t.exitCode = &code
	case errors.As(werr, &ee):
		code = ee.ExitStatus()
		t.exitCode = &code
	}
	t.notifyLocked()
	t.mu.Unlock()
	t.rec.Close()
	t.log.Info("session ended", "err", werr)
}

// Close ends the session: the far end is closed and the pump waited for.
// It is idempotent.
func (t *terminal) Close() error {
	t.mu.Lock()
	already := t.closed
	t.closed = true
	t.mu.Unlock()
	if already {
		<-t.pumpDone
		return nil
	}
	err := t.conn.Close()
	<-t.pumpDone
	_ = t.scr.Close() // best effort; nothing to report
	return err
}

// waitFor waits until cond, called with t.mu held, is true, ctx ends or d
// elapses. It reports whether cond became true.
func (t *terminal) waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		t.mu.Lock()
		ok, ch := cond(), t.changedLocked()
		t.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-timer.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// write types p into the far end: where the input's bytes go on the wire.
func (t *terminal) write(p []byte) error {
	_, err := t.conn.Write(p)
	return err
}

// resize changes the size of the screen and the recording once the far
// end's window has.
func (t *terminal) resize(sz transport.Size) {
	t.scr.Resize(sz.Rows, sz.Cols)
	t.mu.Lock()
	t.size = sz
	t.mu.Unlock()
	t.rec.Resize(sz.Rows, sz.Cols)
}

// foreground returns the far end's foreground program, if the transport can
// tell.
func (t *terminal) foreground() (transport.Foreground, bool) { return t.term.Foreground() }

// classify says what the terminal is doing now.
func (t *terminal) classify() verdict.Status { return t.term.Classify() }

func (t *terminal) lastOutputAt() time.Time {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.lastOutput
}

// isHookless reports whether the far end said no hook will load.
func (t *terminal) isHookless() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.hookless
}

// hookPrintsNoC reports whether the hook prints no C marks (a PS1 hook).
func (t *terminal) hookPrintsNoC() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.det.NoC()
}

// waitOutputAfterNoHook waits, at most d, until the far end has printed
// something after the mark that said no hook will load (the shell starts
// after it), or the session ended.
func (t *terminal) waitOutputAfterNoHook(ctx context.Context, d time.Duration) {
	t.waitFor(ctx, d, func() bool { return t.ring.End() > t.det.HooklessEnd() || t.exited })
}
