package session

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
)

// The input is the session's second part: what is typed into the terminal
// and how. Send (io.go) checks the request and gates it (gate.go,
// approver.go), then, with the input lock held, composes the text and
// keys into steps of bytes and line controls (composeStepsLocked), types
// them (typeSteps, typeBytes, paced for a slow device) and writes each
// through the terminal (terminal.write: the Conn). Keys are in keys.go,
// line controls (BREAK, DTR/RTS) in linectl.go, the serial console's
// read-only rule in serialpolicy.go.

// input is what the session's input holds. Its one lock is sendMu, held
// for a whole send (sendMu is taken by Send, Borrow and sendEdited), so
// two sends never interleave and the gate's check and the Approver's
// answer hold for exactly what is typed.
type input struct {
	sendMu  sync.Mutex             // serialises Send: two sends never interleave
	pending string                 // text typed since the last Enter, for the gate (guarded by sendMu)
	pace    atomic.Pointer[Pacing] // how Send types by default (pacing.go); nil: at once

	// Set once when the session is made.
	enter      string         // what the Enter key sends: "\r", or the serial line ending
	policy     *policy.Policy // nil is the default
	policyHost string         // the policy's name for where it runs (Kind.PolicyHost)
	port       string         // the device it talks to (Kind.Port), or ""
	// approver settles held lines (approver.go); nil refuses them.
	approver Approver
}

// pacing returns how Send types by default.
func (in *input) pacing() Pacing {
	if p := in.pace.Load(); p != nil {
		return *p
	}
	return Pacing{}
}

// A sendStep is bytes to write, or a line control (break, dtr/rts) done in
// order between the bytes around it.
type sendStep struct {
	bytes string
	ctl   *lineControl
}

// composeStepsLocked encodes the text (with mark's sentinel, as a
// bracketed paste where that is right) and the keys into steps, and sets
// ty.typed, ty.markID and ty.lineDone. s.mu is held: the detector says
// whether the far end takes bracketed paste and application cursor keys.
func (s *Session) composeStepsLocked(req SendRequest, alt bool, ty *typing) ([]sendStep, error) {
	bracketed, appCursor := s.det.BracketedPaste(), s.det.AppCursor()
	var b strings.Builder
	text := strings.ReplaceAll(req.Text, "\r\n", "\n")
	if req.Mark && text != "" {
		// A second command line prints the first one's exit status after a
		// sentinel. Typed, the sentinel is split in two words, so its echo
		// can never match (markRe).
		ty.markID = newNonce()[:8]
		status := `"$?"`
		if s.fish || s.det.Shell() == "fish" {
			status = "$status" // fish rejects $? even in quotes
		}
		sentinel := fmt.Sprintf(`printf '\n%%s%%s:%%s\n' __TTYMUX_ MARK_%s %s`, ty.markID, status)
		text = strings.TrimRight(text, "\n")
		if sentinelOwnLine(text) {
			// A comment, a background job or several lines: the sentinel
			// goes on a line of its own.
			text += "\n" + sentinel
		} else {
			text += "; " + sentinel
		}
	}
	if text != "" {
		switch {
		case bracketed && req.Paste:
			b.WriteString("\x1b[200~" + text + "\x1b[201~")
		case bracketed && strings.Contains(text, "\n") && !alt:
			// A multi-line paste reaches the shell as one command line
			// rather than one command per line (bash, zsh, python ≥ 3.13).
			// A full-screen program gets keys instead: vim inserts a
			// paste as text, so "obeta" would not open a line (issue #13).
			b.WriteString("\x1b[200~" + text + "\x1b[201~")
		default:
			b.WriteString(strings.ReplaceAll(text, "\n", "\r"))
			ty.enters += strings.Count(text, "\n") + strings.Count(text, "\r")
		}
		ty.typed = text
		if req.Enter {
			b.WriteString(s.enter)
			ty.typed += "\n"
			ty.enters++
		}
	}
	b.Write(req.Bytes) // send's hex: exactly these bytes
	ty.enters += bytes.Count(req.Bytes, []byte("\r")) + bytes.Count(req.Bytes, []byte("\n"))
	// Keys become bytes, except line controls (break, dtr/rts), which are
	// done in order between the bytes around them.
	var steps []sendStep
	ty.lineDone = req.Enter && req.Text != ""
	for _, k := range req.Keys {
		if lc, ok, err := parseLineControl(k); ok || err != nil {
			if err != nil {
				return nil, err
			}
			steps = append(steps, sendStep{bytes: b.String()}, sendStep{ctl: &lc})
			b.Reset()
			continue
		}
		kb, err := encodeKey(k, appCursor)
		if err != nil {
			return nil, err
		}
		switch kb {
		case "\r", "\n", "\x03", "\x07", "\x15": // enter, ctrl+c, ctrl+g, ctrl+u
			ty.lineDone = true
		}
		switch kb {
		case "\r", "\n":
			ty.enters++
		case "\x03":
			ty.breaks++
		}
		if kb == "\r" {
			kb = s.enter
		}
		b.WriteString(kb)
	}
	return append(steps, sendStep{bytes: b.String()}), nil
}

// typeSteps writes the steps to the far end in order and records them
// (a secret send never is, keys included). It returns the line controls'
// notes.
func (s *Session) typeSteps(ctx context.Context, req SendRequest, steps []sendStep) ([]string, error) {
	var notes []string
	for _, st := range steps {
		if st.ctl != nil {
			note, err := s.doLineControl(ctx, *st.ctl)
			if err != nil {
				return notes, err
			}
			notes = append(notes, note)
			continue
		}
		if st.bytes == "" {
			continue
		}
		if err := s.typeBytes(ctx, []byte(st.bytes), req.Pacing); err != nil {
			return notes, fmt.Errorf("type into session %s: %w", s.id, err)
		}
		if !req.Secret {
			s.rec.Input([]byte(st.bytes))
		}
		s.othersRun.Store(false) // a person's keys after these start a new run (personline.go)
	}
	return notes, nil
}

// trackPending keeps the line typed since the last Enter, for the gate
// (guarded by sendMu).
func (in *input) trackPending(req SendRequest, lineDone bool) {
	if lineDone {
		in.pending = ""
		return
	}
	line := in.pending + req.Text
	in.pending = line[strings.LastIndexAny(line, "\r\n")+1:]
}

// typeBytes writes p to the far end, paced by override or, when it is
// nil, by the session's pacing. It stops early when ctx ends.
func (s *Session) typeBytes(ctx context.Context, p []byte, override *Pacing) error {
	pace := s.pacing()
	if override != nil {
		pace = *override
	}
	if pace.IsZero() {
		return s.write(p)
	}
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for i := 0; i < len(p); {
		// One write per byte, or per line when only lines are paced.
		j := i + 1
		if pace.Char <= 0 {
			for j < len(p) && !lineEnd(p, j-1) {
				j++
			}
		}
		if err := s.write(p[i:j]); err != nil {
			return err
		}
		d := pace.Char
		if lineEnd(p, j-1) && pace.Line > 0 {
			d = pace.Line
		}
		i = j
		if d <= 0 || i == len(p) {
			continue
		}
		t.Reset(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// lineEnd reports whether p[i] ends a line: LF, or CR not followed by LF.
func lineEnd(p []byte, i int) bool {
	return p[i] == '\n' || p[i] == '\r' && (i+1 == len(p) || p[i+1] != '\n')
}
