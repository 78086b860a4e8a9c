package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path"
	"strings"
	"sync"
	"time"

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
	// Transport is "local", "ssh" or "serial".
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
	for _, b := range p {
		switch c.state {
		case 0:
			if b == 0x1b {
				c.state = 1
			}
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
}

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
	limit := time.After(5 * time.Second)
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
	s.mu.Lock()
	if s.tap == t {
		s.tap = nil
	}
	s.lastOutput = s.now()
	s.mu.Unlock()
	s.sendMu.Unlock()
}

// Write types p into the terminal.
func (t *Tap) Write(p []byte) (int, error) { return t.s.conn.Write(p) }

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

// put is the pump handing output to the tap.
func (t *Tap) put(p []byte) {
	for {
		t.mu.Lock()
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
// and reports whether it did. Called by the pump.
func (s *Session) tapped(p []byte) bool {
	s.mu.Lock()
	t := s.tap
	s.mu.Unlock()
	if t == nil {
		return false
	}
	t.put(p)
	return true
}

// endTap wakes a transfer's reader when the session ends.
func (s *Session) endTap() {
	s.mu.Lock()
	t := s.tap
	s.mu.Unlock()
	if t != nil {
		t.end()
	}
}
