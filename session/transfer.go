package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// What file transfers (cmd/ttymux upload and download) need from a session:
// where it lives, its current directory, and, for a transfer through the
// terminal, the terminal itself for a while.

// Opener returns the Opener of the Kind registered by that name, or nil;
// the file tools reach the SSH connection pool through it.
func (m *Manager) Opener(name string) transport.Opener { return m.kinds[name].Opener }

// Place says where a session's files are.
type Place struct {
	// Transport is the session's Kind's name ("local", "ssh", …): its
	// Files say how files reach it (Manager.Kind).
	Transport string
	// Target is what the session was opened with (for SSH: host, user,
	// port, jump and credentials, enough to reach its pooled connection).
	Target transport.Target
	// Kept: the session is held by an agent (local or on the host).
	Kept bool
	// Foreground is the program in the foreground when it is not the
	// session's shell ("ssh", "docker"), when the transport can tell.
	Foreground string
}

// Place returns where the session's files are.
func (s *Session) Place() Place {
	p := Place{Transport: s.transport, Target: s.target, Kept: s.kept}
	if fg, ok := s.foreground(); ok && !fg.IsShell {
		p.Foreground = path.Base(fg.Name)
	}
	return p
}

// Cwd returns the session's current directory: the one its shell last
// reported with OSC 7 (ttymux's hook sends it with every prompt), else, when
// the shell is at its prompt, what `pwd` prints. It fails when neither can
// tell; a running program is never interrupted to ask.
func (s *Session) Cwd(ctx context.Context) (string, error) {
	s.mu.Lock()
	cwd := s.cwd.dir
	s.mu.Unlock()
	if cwd != "" {
		return cwd, nil
	}
	if !s.shell {
		return "", errors.New("the session does not run a shell that reports its directory")
	}
	// A prompt counts only after a short quiet time: right after a
	// command the state may still read "running".
	deadline := s.now().Add(time.Second)
	for {
		st := s.classify()
		if st.State == "prompt" {
			break
		}
		if st.State != "running" || st.Foreground != "" || s.now().After(deadline) {
			return "", fmt.Errorf("the session's shell is not at its prompt (state %s)", st.State)
		}
		select {
		case <-ctx.Done():
			return "", ctx.Err()
		case <-time.After(50 * time.Millisecond):
		}
	}
	r, err := s.Send(ctx, SendRequest{Text: "pwd", Enter: true, Wait: true, Timeout: 5 * time.Second})
	if err != nil {
		return "", err
	}
	lines := strings.Split(strings.TrimSpace(r.Output), "\n")
	last := strings.TrimSpace(lines[len(lines)-1])
	if !r.Complete || !strings.HasPrefix(last, "/") {
		return "", fmt.Errorf("pwd answered %q", truncateNote(r.Output))
	}
	return last, nil
}

func truncateNote(s string) string {
	if len(s) > 100 {
		return s[:100] + "…"
	}
	return s
}

// cwdTracker follows OSC 7 ("ESC ] 7 ; file://host/path BEL", or ST) in
// the output, across reads split anywhere. The last one seen wins.
type cwdTracker struct {
	dir   string
	state int // 0 text, 1 ESC, 2 ESC ], 3 ESC ] 7, 4 payload, 5 ESC in payload
	buf   []byte
}

const maxOSC7 = 4096

func (c *cwdTracker) Write(p []byte) {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch c.state {
		case 0:
			// Outside a sequence only ESC matters: skip to it at the
			// speed of bytes.IndexByte (a flood is mostly text).
			k := bytes.IndexByte(p[i:], 0x1b)
			if k < 0 {
				return
			}
			i += k
			c.state = 1
		case 1:
			c.state = 0
			if b == ']' {
				c.state = 2
			} else if b == 0x1b {
				c.state = 1
			}
		case 2:
			c.state = 0
			if b == '7' {
				c.state = 3
			}
		case 3:
			c.state = 0
			if b == ';' {
				c.state, c.buf = 4, c.buf[:0]
			}
		case 4:
			switch {
			case b == 0x07:
				c.finish()
			case b == 0x1b:
				c.state = 5
			case len(c.buf) >= maxOSC7 || b < 0x20:
				c.state = 0
			default:
				c.buf = append(c.buf, b)
			}
		case 5:
			if b == '\\' {
				c.finish()
			} else {
				c.state = 0
			}
		}
	}
}

func (c *cwdTracker) finish() {
	c.state = 0
	if d := parseOSC7(string(c.buf)); d != "" {
		c.dir = d
	}
}

// parseOSC7 returns the path of an OSC 7 payload "file://host/path"
// (percent-encoded, as terminals expect; ttymux's hook encodes only '%').
func parseOSC7(s string) string {
	rest, ok := strings.CutPrefix(s, "file://")
	if !ok {
		return ""
	}
	i := strings.IndexByte(rest, '/')
	if i < 0 {
		return ""
	}
	p, err := url.PathUnescape(rest[i:])
	if err != nil {
		p = rest[i:]
	}
	return p
}

// A Tap is a session's terminal, lent to a transfer: writes go to the far
// end, and the far end's output comes to Read instead of the session's log,
// screen and verdict, so the next read and send see nothing of the
// transfer. Release gives the terminal back.
type Tap struct {
	s *Session

	mu       sync.Mutex // protects the following
	buf      bytes.Buffer
	wake     chan struct{} // closed and replaced when bytes arrive or the session ends
	deadline time.Time
	ended    bool
	watch    *verdict.Detector // the session's marks in what was put while watching (WatchEnd); nil when not
	watched  int64             // bytes put while watching: the offset of the next
	tail     []byte            // the last bytes put while watching: the start of a mark split across puts
	back     *FarEndedError    // the prompt mark was seen
	held     []byte            // the mark and what followed it, the session's if the reader reaches the mark
	heldAt   int64             // the watch offset of held[0]
	markEnd  int64             // the watch offset just past the mark
	reached  bool              // the reader got back
	released bool              // Release has begun: the transfer reads no more

	// releaseLimit bounds Release's wait for quiet (0: releaseLimit).
	releaseLimit time.Duration
}

// releaseLimit is how long Release waits for a far end that never goes
// quiet.
const releaseLimit = 5 * time.Second

// tailKeep is how much of what was put the tap keeps to hand a mark split
// across puts to the session whole: more than a mark can be.
const tailKeep = 160

// maxTap bounds what a tap holds while its reader is slow; past it the
// pump waits, as a terminal would stop reading.
const maxTap = 16 << 20

// ErrTapTimeout is a Tap read that hit its deadline (os.ErrDeadlineExceeded,
// as for files and connections).
var ErrTapTimeout = os.ErrDeadlineExceeded

// Borrow lends the terminal to a transfer until Release: no send runs
// meanwhile (sends wait for the terminal), and the output goes to the Tap.
func (s *Session) Borrow(ctx context.Context) (*Tap, error) {
	if err := s.inputRefused(); err != nil { // serialpolicy.go: a read-only console takes no file either
		return nil, err
	}
	if err := lockCtx(ctx, &s.sendMu); err != nil {
		return nil, err
	}
	s.mu.Lock()
	if s.exited || s.closed {
		s.mu.Unlock()
		s.sendMu.Unlock()
		return nil, fmt.Errorf("session %s has ended", s.id)
	}
	t := &Tap{s: s, wake: make(chan struct{})}
	s.tap = t
	s.mu.Unlock()
	return t, nil
}

// lockCtx takes mu, giving up when ctx ends.
func lockCtx(ctx context.Context, mu *sync.Mutex) error {
	for {
		if mu.TryLock() {
			return nil
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(5 * time.Millisecond):
		}
	}
}

// Release ends the loan after the far end has been quiet for quiet: what
// it printed until then (the shell's next prompt) goes nowhere, and output
// from then on goes to the session again.
func (t *Tap) Release(quiet time.Duration) {
	s := t.s
	// A far end that never goes quiet (a clock in the prompt) gets the
	// terminal back after a few seconds anyway.
	lim := t.releaseLimit
	if lim == 0 {
		lim = releaseLimit
	}
	limit := time.After(lim)
	for {
		t.mu.Lock()
		ch := t.wake
		t.buf.Reset()
		t.mu.Unlock()
		select {
		case <-ch:
			select {
			case <-limit:
			default:
				continue
			}
		case <-time.After(quiet):
		}
		break
	}
	t.mu.Lock()
	t.released = true // a put waiting for room gives up, letting go of feedMu
	t.mu.Unlock()
	s.feedMu.Lock()
	t.mu.Lock()
	var own []byte
	if t.reached {
		own = t.own()
	}
	t.mu.Unlock()
	s.mu.Lock()
	if s.tap == t {
		s.tap = nil
	}
	s.lastOutput = s.now()
	s.mu.Unlock()
	if len(own) > 0 {
		s.feed(own, s.now())
	}
	s.feedMu.Unlock()
	s.sendMu.Unlock()
}

// own returns what of the held output goes to the session when the
// transfer's reader reached the prompt mark: the mark, whose verdict then
// sees the command (the nested ssh) end, and the shell's last prompt.
// The rest is the shell that came back reading what the transfer had
// typed ahead (comments to it, a prompt each), part of the transfer like
// all it swallows. t.mu must be held.
func (t *Tap) own() []byte {
	at := func(off int64) int { return int(min(max(off-t.heldAt, 0), int64(len(t.held)))) }
	mark, rest := t.held[:at(t.markEnd)], t.held[at(t.markEnd):]
	ms := t.watch.Marks()
	for i := len(ms) - 1; i >= 0 && ms[i].Off >= t.markEnd; i-- {
		if ms[i].Kind == verdict.MarkDone {
			rest = t.held[at(ms[i].Off):]
			break
		}
	}
	return append(mark[:len(mark):len(mark)], rest...)
}

// Write types p into the terminal.
func (t *Tap) Write(p []byte) (int, error) { return t.s.conn.Write(p) }

// A FarEndedError is a transfer's read after a shell of the session (its
// own, or a nested one with the session's integration) printed its prompt
// mark while the transfer was under way: what the transfer typed into has
// ended, a nested ssh or docker exec that died, say.
type FarEndedError struct {
	Status string // the exit status in the mark
}

func (e *FarEndedError) Error() string {
	return fmt.Sprintf("the terminal came back to a shell prompt mid-transfer (the last command exited %s): what the transfer typed into (a nested ssh, docker exec or su) has ended and the file was not completed; read the session to see, start that program again, then retry", e.Status)
}

// FarEnded marks the error for the transfer, which then types nothing
// more (no ctrl+c into the shell that is back).
func (e *FarEndedError) FarEnded() bool { return true }

// WatchEnd starts (on) or stops watching for the session's own prompt
// mark. A transfer watches once the far end has answered: from then on a
// prompt mark means the far end is gone, so Read fails with a
// *FarEndedError after what came before the mark, and at Release the mark
// and all that followed go to the session, whose verdict sees the command
// end. A mark the reader never reached (a nested shell with the session's
// integration, at its prompt after the transfer's last answer) is
// swallowed with the rest. Without the session's integration there is no
// mark to watch for.
func (t *Tap) WatchEnd(on bool) {
	var d *verdict.Detector
	if on {
		t.s.mu.Lock()
		if n := t.s.det.Nonce(); n != "" {
			d = verdict.NewDetector(n, 0)
		}
		t.s.mu.Unlock()
	}
	t.mu.Lock()
	if t.back == nil { // once seen, the mark stays what the reader gets to
		t.watch, t.watched, t.tail = d, 0, nil
	}
	t.mu.Unlock()
}

// SetReadDeadline bounds Read; the zero time means no bound.
func (t *Tap) SetReadDeadline(d time.Time) error {
	t.mu.Lock()
	t.deadline = d
	t.mu.Unlock()
	return nil
}

// Read returns the far end's output.
func (t *Tap) Read(p []byte) (int, error) {
	for {
		t.mu.Lock()
		if t.buf.Len() > 0 {
			n, _ := t.buf.Read(p)
			t.mu.Unlock()
			return n, nil
		}
		if t.back != nil {
			t.reached = true
			t.mu.Unlock()
			return 0, t.back
		}
		if t.ended {
			t.mu.Unlock()
			return 0, fmt.Errorf("session %s ended during the transfer", t.s.id)
		}
		ch, dl := t.wake, t.deadline
		t.mu.Unlock()
		var timeout <-chan time.Time
		if !dl.IsZero() {
			d := time.Until(dl)
			if d <= 0 {
				return 0, ErrTapTimeout
			}
			tm := time.NewTimer(d)
			timeout = tm.C
			defer tm.Stop()
		}
		select {
		case <-ch:
		case <-timeout:
			return 0, ErrTapTimeout
		}
	}
}

// put is the pump handing output to the tap. Once the session's prompt
// mark was seen while watching (WatchEnd), the mark and what follows are
// held back from the reader.
func (t *Tap) put(p []byte) {
	t.mu.Lock()
	if t.watch != nil {
		start := t.watched
		t.watch.Write(p)
		t.watched += int64(len(p))
		if t.back != nil {
			if len(t.held) < maxTap {
				t.held = append(t.held, p...)
			}
			close(t.wake) // Release waits for quiet
			t.wake = make(chan struct{})
			t.mu.Unlock()
			return
		}
		if m, ok := t.watch.FirstAfter(verdict.MarkDone, 0); ok {
			// The mark and what follows are the session's; a mark that
			// began in an earlier put is whole in the tail.
			b := append(t.tail, p...)
			bAt := start - int64(len(t.tail))
			from := max(m.Off-bAt, 0)
			t.held, t.heldAt, t.markEnd = append([]byte(nil), b[from:]...), bAt+from, m.End
			t.back = &FarEndedError{Status: strconv.Itoa(m.Status)}
			p = p[:max(m.Off-start, 0)] // the mark's start already put went to the reader
			t.tail = nil
		} else if len(p) >= tailKeep {
			t.tail = append(t.tail[:0], p[len(p)-tailKeep:]...)
		} else {
			t.tail = append(t.tail, p...)
			t.tail = t.tail[max(0, len(t.tail)-tailKeep):]
		}
	}
	t.mu.Unlock()
	for {
		t.mu.Lock()
		if t.released {
			// Nobody reads any more: swallowed, like all the far end
			// printed before the terminal went back to the session.
			t.mu.Unlock()
			return
		}
		if t.buf.Len() < maxTap {
			t.buf.Write(p)
			close(t.wake)
			t.wake = make(chan struct{})
			t.mu.Unlock()
			return
		}
		t.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}

func (t *Tap) end() {
	t.mu.Lock()
	t.ended = true
	close(t.wake)
	t.wake = make(chan struct{})
	t.mu.Unlock()
}

// tapped hands p to the tap when a transfer has borrowed the terminal,
// and reports whether it did. Called by the pump, with t.feedMu held.
func (t *terminal) tapped(p []byte) bool {
	t.mu.Lock()
	tp := t.tap
	t.mu.Unlock()
	if tp == nil {
		return false
	}
	tp.put(p)
	return true
}

// endTap wakes a transfer's reader when the session ends.
func (t *terminal) endTap() {
	t.mu.Lock()
	tp := t.tap
	t.mu.Unlock()
	if tp != nil {
		tp.end()
	}
}
