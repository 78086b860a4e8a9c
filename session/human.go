package session

import (
	"fmt"
	"strings"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// A person may type into a session the model drives: from the console
// (take-over) or with ttymux attach. The model must never take that
// person's command for its own, so the next result after it says plainly
// that a person typed, which command lines ran and what the screen shows
// now (issue #35).
//
// Three signals say a person typed:
//   - Input written with HumanWrite (the console driving a session this
//     server holds itself): counted as it is written.
//   - With ttymux's shell hook, a C mark (a command line accepted) that no
//     send of the model accounts for: it comes after the last D mark the
//     model's last command owes (command.owes). That needs no help from
//     whoever typed, so it covers a person attached to the agent too.
//   - For a session the agent keeps, the input its other clients wrote
//     (transport.SharedInput: ttymux attach, ttymux web), with or
//     without the hook.
//
// Another model's client — a second server attached to a session the agent
// keeps (a second window of a model) — types too. The agent counts its
// input for no one, and a person's keys typed through a server's console
// as a person's (agentproto.CapPersonInput), so where the agent tells them
// apart (transport.PersonWriter), command lines with no person's keys
// counted since the last such lines were another server's, and the note
// says so instead of "a person typed".
//
// What a person left on the line without Enter is personline.go's.

// humanLog is what a person typed that no result has told the model yet.
// s.mu guards it.
type humanLog struct {
	seen  int64    // marks before this offset were looked at
	lines []string // command lines a person ran, oldest first
	more  int      // lines left out of lines (maxHumanLines)
	// servers and serversMore are lines another server's model ran, as
	// lines and more.
	servers     []string
	serversMore int
	keys        int // bytes a person typed through HumanWrite, or another client of the agent
	// cleared says what a person left on the line that a send cleared
	// (personline.go).
	cleared string
	line    personLine
}

// personLine is what the model's next send must know of the shell's line
// after a person typed (personline.go). It outlives the note: a read tells
// the model a person typed, the send after it still finds their keys on
// the line.
type personLine struct {
	typed      bool   // a person typed since the model's last send looked
	fromOthers bool   // through another client of the agent: their keys are not known
	tail       []byte // HumanWrite's keys since the last Enter they typed
	edited     bool   // tail holds keys whose effect on the line is not known (arrows, tab)
	others     int64  // transport.SharedInput's count, as last taken
	marked     bool   // the recording's marker for the person's run of keys is written
	entered    bool   // the person pressed Enter; enterMarks is the marks' count then
	enterMarks int
}

// maxHumanLines bounds the command lines a note names.
const maxHumanLines = 5

// HumanWrite types p into the session for a person (the console's
// take-over): the model's next result says a person typed. A serial
// console the policy makes read-only takes nothing from a person either
// (a *ReadOnlyError): the policy is the user's word on the device.
func (s *Session) HumanWrite(p []byte) (int, error) {
	if err := s.inputRefused(); err != nil {
		return 0, err
	}
	visible := s.rec != nil && s.personKeysShown() // before this write's Enter
	s.mu.Lock()
	closed := s.closed
	s.humanTypedLocked(p)
	mark := !s.human.line.marked
	s.human.line.marked = true
	s.mu.Unlock()
	if closed {
		return 0, ErrClosed
	}
	s.recordPerson(p, mark, visible)
	if pw, ok := s.conn.(transport.PersonWriter); ok {
		return pw.WritePerson(p) // other servers on the session count them as a person's
	}
	return s.conn.Write(p)
}

// scanHumanLocked records the command lines a person ran before offset
// limit: C marks after the last D mark the model's last command owes.
// While that command still runs nothing is taken (a line typed into it is
// its input, or typed ahead of it). s.mu must be held.
func (s *Session) scanHumanLocked(limit int64) {
	if !s.det.Hooked() {
		return
	}
	marks := s.det.Marks()
	base := s.human.seen
	if c := s.cmd; c != nil {
		end, ok := ownedEnd(marks, c.SendOff, c.owes)
		if !ok {
			return
		}
		base = max(base, end)
	}
	// Whose lines these are is decided for all of them at once: a
	// person's keys counted since the last lines make them all a
	// person's (the keys of two lines may be counted before either
	// line's mark is scanned).
	// A line that starts before the agent's counts cover the input
	// (typed while no server was attached) is a person's.
	s.takeOthersLocked()
	servers := int64(-1) // lines from this offset on are another server's
	if pw, ok := s.conn.(transport.PersonWriter); ok && s.personKeys == s.personAtLines {
		if from, ok := pw.PersonCounted(); ok {
			servers = from
		}
	}
	found := false
	for i, m := range marks {
		if m.Kind != verdict.MarkCommand || m.Off < base || m.End > limit {
			continue
		}
		lines, more := &s.human.lines, &s.human.more
		if servers >= 0 && m.Off >= servers {
			lines, more = &s.human.servers, &s.human.serversMore
		}
		if len(*lines) == maxHumanLines {
			*lines = (*lines)[1:]
			*more++
		}
		*lines = append(*lines, s.typedLineLocked(marks[:i], m))
		found = true
	}
	if found {
		s.personAtLines = s.personKeys
	}
	s.human.seen = max(s.human.seen, limit)
}

// ownedEnd returns where the owes-th D mark at or after off ends (off
// itself for none owed), or false when the shell has not printed it yet.
func ownedEnd(marks []verdict.Mark, off int64, owes int) (int64, bool) {
	if owes <= 0 {
		return off, true
	}
	n := 0
	for _, m := range marks {
		if m.Kind == verdict.MarkDone && m.Off >= off {
			if n++; n == owes {
				return m.End, true
			}
		}
	}
	return 0, false
}

// typedLineLocked returns the command line the C mark c ran, as the
// terminal echoed it after its prompt: from the end of the prompt (its B
// mark, else the last mark before c) to c, rendered.
func (s *Session) typedLineLocked(before []verdict.Mark, c verdict.Mark) string {
	from := max(c.Off-4096, s.ring.Start())
	prompt := ""
	if n := len(before); n > 0 {
		// The prompt's A or D mark; its B mark (not kept with the
		// others) ends the prompt.
		p := before[n-1]
		from = max(from, p.End)
		if e, ok := s.det.PromptEndAfter(p.Off); ok && e <= c.Off && e > from {
			b, _ := s.ring.AppendRange(nil, from, e)
			prompt = lastText(reduce.Render(b))
			from = e
		}
	}
	b, _ := s.ring.AppendRange(nil, from, c.Off)
	line := lastText(reduce.Render(b))
	// Line editors redraw the prompt with the line (after a resize, a
	// ctrl+l): what follows it is the command.
	if prompt != "" {
		if _, after, ok := strings.Cut(line, prompt); ok {
			line = strings.TrimSpace(after)
		}
	}
	return redact(line, s.secrets)
}

// lastText returns the last line with text, trimmed.
func lastText(lines []string) string {
	for i := len(lines) - 1; i >= 0; i-- {
		if t := strings.TrimSpace(lines[i]); t != "" {
			return t
		}
	}
	return ""
}

// noteHuman adds to r what a person typed since the last result, once:
// the command lines that started in the output r returns, up to its
// NextOffset (the next result tells of later ones).
func (s *Session) noteHuman(r *Result) {
	s.mu.Lock()
	s.takeOthersLocked()
	limit := s.ring.End()
	if r.NextOffset > 0 {
		limit = min(limit, r.NextOffset)
	}
	s.scanHumanLocked(limit)
	h := s.human
	s.human = humanLog{seen: h.seen, line: h.line}
	secrets := s.secrets
	s.mu.Unlock()
	if len(h.servers) > 0 {
		var b strings.Builder
		b.WriteString("another ttymux server (a model's, not a person's) ran ")
		writeLines(&b, h.servers, h.serversMore)
		b.WriteString(" in this terminal since your last call (not your commands: what they printed is in this result, in earlier after a send)")
		r.Note = joinNote(r.Note, b.String())
	}
	if len(h.lines) == 0 && h.more == 0 && h.keys == 0 && h.cleared == "" {
		return
	}
	var b strings.Builder
	b.WriteString("a person typed in this terminal since your last call")
	if len(h.lines) > 0 {
		b.WriteString(" and ran ")
		writeLines(&b, h.lines, h.more)
		b.WriteString(" (not your commands: what they printed is in this result, in earlier after a send)")
	}
	if h.cleared != "" {
		b.WriteString("; " + h.cleared)
	}
	if tail := s.screenTail(secrets); tail != "" {
		fmt.Fprintf(&b, "; the screen now ends with:\n%s", tail)
	}
	r.Note = joinNote(r.Note, b.String())
}

// writeLines writes command lines quoted, after their count when more
// were left out.
func writeLines(b *strings.Builder, lines []string, more int) {
	if more > 0 {
		fmt.Fprintf(b, "%d command lines, the last: ", more+len(lines))
	}
	for i, l := range lines {
		if i > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(b, "%q", l)
	}
}

// screenTailLines is how many of the screen's last lines a note shows.
const screenTailLines = 5

// screenTail returns the last non-empty lines of the screen, redacted.
func (s *Session) screenTail(secrets []string) string {
	snap := s.scr.Snapshot()
	lines := snap.Lines
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	lines = lines[max(len(lines)-screenTailLines, 0):]
	return redact(strings.Join(lines, "\n"), secrets)
}

// scanHuman is scanHumanLocked taking s.mu.
func (s *Session) scanHuman(limit int64) {
	s.mu.Lock()
	s.scanHumanLocked(limit)
	s.mu.Unlock()
}
