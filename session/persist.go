package session

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// meta is what ttymux stores with a session kept by an agent, so that a
// restarted server picks it up exactly where the last one left it: the same
// name, the shell integration's nonce, what the model has already been
// shown, and the command it is waiting on. Enter is what the Enter key
// sends (a serial session's line_ending); empty means "\r".
type meta struct {
	Name       string `json:"name,omitempty"`
	Transport  string `json:"transport,omitempty"`
	Host       string `json:"host,omitempty"` // an SSH session's host, as given to open_ssh
	Nonce      string `json:"nonce,omitempty"`
	Shell      bool   `json:"shell,omitempty"`
	Integrated bool   `json:"integrated,omitempty"`
	Enter      string `json:"enter,omitempty"`
	ReadOff    int64  `json:"read_off"`
	// The last command sent, for read {wait: true} after a restart.
	CmdOff      int64 `json:"cmd_off,omitempty"`
	CmdAtPrompt bool  `json:"cmd_at_prompt,omitempty"`
	CmdAnchor   int64 `json:"cmd_anchor,omitempty"`
	HasCmd      bool  `json:"has_cmd,omitempty"`
	// What became of it: its result was returned (and what decided), so
	// a restarted server never reports its end again in earlier; nobody
	// waited for it to the end; 1 + the D marks it owes (0: an older
	// server stored none, taken as one).
	CmdReported bool   `json:"cmd_reported,omitempty"`
	CmdVia      string `json:"cmd_via,omitempty"`
	CmdTimedOut bool   `json:"cmd_timed_out,omitempty"`
	CmdInput    bool   `json:"cmd_input,omitempty"`
	CmdMarks    int    `json:"cmd_marks,omitempty"`
	// The recording: its file, the output offset it holds everything
	// before and the file size at that point (a restarted server cuts the
	// file back to it and records the rest from the replay), and why it
	// stopped, if it did.
	RecPath string `json:"rec_path,omitempty"`
	RecOff  int64  `json:"rec_off,omitempty"`
	RecSize int64  `json:"rec_size,omitempty"`
	RecNote string `json:"rec_note,omitempty"`
	// How Send types into it (open_serial's char_delay_ms, line_delay_ms).
	PaceChar time.Duration `json:"pace_char,omitempty"`
	PaceLine time.Duration `json:"pace_line,omitempty"`
}

func decodeMeta(b []byte) meta {
	var m meta
	_ = json.Unmarshal(b, &m) // a session made by someone else has none: zero meta
	return m
}

func (m meta) encode() []byte {
	b, _ := json.Marshal(m) // plain fields: cannot fail
	return b
}

// command rebuilds the pending command an earlier server was waiting on.
func (m meta) command() *command {
	if !m.HasCmd {
		return nil
	}
	c := newCommand(m.CmdOff, time.Now(), "", nil)
	c.AtPrompt = m.CmdAtPrompt
	c.owes = 1 // its D mark, unless it came already
	if m.CmdMarks > 0 {
		c.owes = m.CmdMarks - 1
	}
	if m.CmdAnchor > 0 {
		c.Anchor = m.CmdAnchor
	}
	c.reported, c.reportedVia = m.CmdReported, m.CmdVia
	c.timedOut, c.input = m.CmdTimedOut, m.CmdInput
	return c
}

// keptConn is what a kept session's Conn offers beyond transport.Conn.
type keptConn interface {
	SetMeta(meta []byte) error
}

// persist stores the session's current metadata with the agent when it
// changed. It is cheap: one small frame on the agent socket.
func (s *Session) persist() {
	s.redactEchoes() // redact.go: secrets' echoes masked here and in the agent
	if !s.kept {
		return
	}
	kc, ok := s.conn.(keptConn)
	if !ok {
		return
	}
	// Taking the metadata and storing it is one step: two goroutines that
	// persist at once (a result and the recorder's writer) must not let the
	// older snapshot reach the agent last, or a restarted server resumes
	// from a read position the model has moved past.
	s.storeMu.Lock()
	defer s.storeMu.Unlock()
	s.mu.Lock()
	m := s.meta
	m.ReadOff = s.readOff
	m.Integrated = m.Integrated || s.ready
	if s.hookless {
		m.Nonce = "" // no hook loaded: a server attaching later expects no marks
	}
	if c := s.cmd; c != nil {
		m.HasCmd, m.CmdOff, m.CmdAtPrompt = true, c.SendOff, c.AtPrompt
		m.CmdAnchor = max(c.Anchor, 0)
		m.CmdReported, m.CmdVia, m.CmdTimedOut, m.CmdInput = c.reported, c.reportedVia, c.timedOut, c.input
		m.CmdMarks = c.owes + 1
	}
	pace := s.pacing()
	m.PaceChar, m.PaceLine = pace.Char, pace.Line
	if s.rec != nil {
		m.RecPath, m.RecOff, m.RecSize, m.RecNote = s.rec.State()
	}
	changed := m != s.meta
	s.meta = m
	s.mu.Unlock()
	if !changed {
		return
	}
	if err := kc.SetMeta(m.encode()); err != nil {
		s.log.Warn("store session metadata with the agent", "err", err)
	}
}

// waitCaughtUp waits until the replay of a kept session's output has reached
// end (the agent's end offset when we attached), the session ended, or d
// elapsed.
func (s *Session) waitCaughtUp(ctx context.Context, end int64, d time.Duration) {
	s.waitFor(ctx, d, func() bool { return s.ring.End() >= end || s.exited })
}

// Kill ends the session where it lives: a kept session in the agent that
// holds it (the remote agent for "host/sN", which knows it as "sN"), an
// in-process one by hanging up. A kept session the agent could not end is
// an error, and the session stays attached so that close can be tried
// again; one the agent no longer holds has ended already.
func (s *Session) Kill(ctx context.Context) error {
	if s.kept && s.keeper != nil {
		if err := s.keeper.Kill(ctx, keeperID(s.id)); err != nil && !errors.Is(err, transport.ErrNoSession) {
			return fmt.Errorf("end session %s in its agent: %w", s.id, err)
		}
	}
	if err := s.Close(); err != nil {
		// Hung up all the same; the error is the far end's last word.
		s.log.Debug("close after kill", "err", err)
	}
	return nil
}

// keeperID is how the keeper of a kept session knows it: a remote agent
// knows "host/sN" as "sN".
func keeperID(id string) string {
	if _, rid, ok := SplitID(id); ok {
		return rid
	}
	return id
}

// Persistent reports whether the session is kept by an agent and survives
// the server.
func (s *Session) Persistent() bool { return s.kept }
