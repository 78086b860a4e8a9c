package session

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"unicode/utf8"

	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// A person who types without pressing Enter leaves their keys on the
// line, and the model's next text would join them: "foo" left at the
// prompt made the model's "make" run as "foomake" (issue #35). So the
// model's first send after a person typed looks at the line first:
//
//   - at ttymux's hooked bash or zsh prompt the shell says the line it
//     holds (the L mark, editline.go); elsewhere the person's own keys
//     (HumanWrite) tell it, or, when they came through another client of
//     the agent, the screen's cursor line after the prompt;
//   - a line left empty (the person pressed Enter, or cleared it) changes
//     nothing;
//   - text is typed after the line is cleared (the hook's kill key, or
//     ctrl+e ctrl+u in a shell known to take them), and the send's note
//     says what the person left, which did not run;
//   - keys (which act on the line: enter would run it) and text where no
//     clear is known (a serial console, a program) are refused with an
//     error naming the line; the model then knows it, and its next send
//     is typed as asked (a later Enter is judged on the whole line, as
//     after the model's own text typed without Enter).

// clearLineKeys empty the line in the shells shellKind knows: ctrl+e goes
// to the end of the line, ctrl+u kills back to its start (readline, zle,
// fish, mksh, BusyBox ash and tcsh; ^U is the tty's kill character in a
// shell without a line editor, dash, where ^E is killed with the rest).
const clearLineKeys = "\x05\x15"

// discardKeys empty the line being edited: a send that starts with one
// is typed as asked after a person left keys there.
var discardKeys = map[string]bool{"ctrl+c": true, "ctrl+u": true}

// maxTail bounds the person's keys kept for the line.
const maxTail = 4096

// editTail applies the person's keys p to tail, the line they typed since
// their last Enter. Keys whose effect it cannot follow (arrows, tab,
// ctrl+w) set edited: the line is then read elsewhere.
func editTail(tail []byte, edited bool, p []byte) ([]byte, bool) {
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\r' || c == '\n' || c == 0x03:
			tail, edited = tail[:0], false // submitted, or discarded with ctrl+c
		case c == 0x15:
			tail = tail[:0] // ctrl+u kills back from the cursor
		case c == 0x7f || c == 0x08:
			if len(tail) > 0 {
				_, n := utf8.DecodeLastRune(tail)
				tail = tail[:len(tail)-n]
			}
		case c == 0x1b:
			n, paste := escLen(p[i:])
			i += n - 1
			edited = edited || !paste
		case c < 0x20:
			edited = true
		default:
			if len(tail) < maxTail {
				tail = append(tail, c)
			} else {
				edited = true
			}
		}
	}
	return tail, edited
}

// escLen returns the length of the escape sequence at the start of p (at
// least 1) and whether it is a bracketed paste's start or end, which
// leaves the pasted text as typed.
func escLen(p []byte) (int, bool) {
	if len(p) < 2 {
		return len(p), false
	}
	switch p[1] {
	case '[':
		for j := 2; j < len(p); j++ {
			if p[j] >= 0x40 && p[j] <= 0x7e {
				seq := string(p[2 : j+1])
				return j + 1, seq == "200~" || seq == "201~"
			}
		}
		return len(p), false
	case 'O':
		return min(3, len(p)), false
	}
	return 2, false
}

// takeOthersLocked counts the input other clients of the agent wrote
// (ttymux attach, the console of ttymux web) as a person's. s.mu must be
// held.
func (s *Session) takeOthersLocked() {
	si, ok := s.conn.(transport.SharedInput)
	if !ok {
		return
	}
	n := si.TypedByOthers()
	if d := n - s.human.line.others; d > 0 {
		s.human.keys += int(d)
		s.personKeys += d
		s.human.line.typed, s.human.line.fromOthers = true, true
	}
	s.human.line.others = n
}

// personLineCheck looks at the line before the model's send req is typed,
// once after a person typed. What it clears is told by the next result
// (noteHuman), this send's or, should it fail, the next call's; an error
// means nothing of req may be typed.
func (s *Session) personLineCheck(ctx context.Context, req SendRequest) error {
	if req.lineChecked {
		return nil
	}
	s.mu.Lock()
	s.takeOthersLocked()
	pl := s.human.line
	s.human.line = personLine{others: pl.others}
	s.mu.Unlock()
	if !pl.typed {
		return nil
	}
	left := s.personLeft(ctx, pl)
	if left.line == "" {
		return nil
	}
	what := fmt.Sprintf("%q %s", redact(left.line, s.secretList()), left.where)
	if req.Text != "" && left.clear != "" {
		s.sendMu.Lock()
		err := s.write([]byte(left.clear))
		s.pending = ""
		s.sendMu.Unlock()
		if err != nil {
			return fmt.Errorf("clear the line a person left in session %s: %w", s.id, err)
		}
		s.mu.Lock()
		s.human.cleared = fmt.Sprintf("a person left %s without pressing Enter; it did not run, and ttymux cleared it before typing your text (send it yourself if it should run)", what)
		s.mu.Unlock()
		return nil
	}
	if req.Text == "" && len(req.Keys) > 0 && discardKeys[normKey(req.Keys[0])] {
		// ctrl+c or ctrl+u first: the model's keys empty the line
		// themselves.
		s.mu.Lock()
		s.human.cleared = fmt.Sprintf("a person left %s without pressing Enter; it did not run, and your %s cleared it", what, req.Keys[0])
		s.mu.Unlock()
		return nil
	}
	// The model learns the line here, so its next send is typed as
	// asked; an Enter then is judged on the whole line (pending), and
	// refused where the line cannot be read (editline.go).
	s.sendMu.Lock()
	if s.pending == "" {
		s.pending = left.line
	}
	s.sendMu.Unlock()
	why := "your keys would act on it (enter would run it)"
	if req.Text != "" {
		why = "your text would join it and ttymux knows no key that clears a line here"
	}
	return fmt.Errorf("a person left %s without pressing Enter (it did not run); nothing of this send was typed, since %s: clear the line (keys [\"ctrl+e\", \"ctrl+u\"], or what clears a line there), then send your command; to run their line, send it yourself as text", what, why)
}

// leftLine is what a person left on the line.
type leftLine struct {
	line  string // "" for nothing
	where string // "on the shell's line", "(as the screen shows it) on the line of sh"
	clear string // the keys that empty it; "" for none known
}

// personLeft returns what a person left on the line.
func (s *Session) personLeft(ctx context.Context, pl personLine) leftLine {
	if !pl.fromOthers && !pl.edited && len(pl.tail) == 0 {
		return leftLine{} // the person's own keys ended with Enter (or ctrl+c)
	}
	st := s.classify()
	if at, noLine := s.atHookedPrompt(); at && !noLine && s.lineKeys(st) {
		if line, err := s.editorLine(ctx); err == nil {
			s.sendMu.Lock()
			mine := s.pending
			s.sendMu.Unlock()
			if line == mine {
				return leftLine{}
			}
			return leftLine{line: line, where: "on the shell's line", clear: lineKillKey}
		}
	}
	if s.scr.AltScreen() {
		return leftLine{} // a full-screen program's keys are commands, not a line (vim's dd)
	}
	var l leftLine
	if st.FGOK && shellKind(st.FG.Name) != "" {
		l.clear = clearLineKeys
	}
	l.where = "on the line"
	if st.FGOK && st.FG.Name != "" {
		l.where = "on the line of " + st.FG.Name
	}
	switch {
	case !pl.fromOthers && !pl.edited:
		l.line = string(pl.tail) // the person's own keys say it
	default:
		// Keys through another client, or edited: the screen's cursor
		// line, after the prompt the model's last command was typed at.
		l.line = s.cursorLineText()
		l.where = "(as the screen shows it) " + l.where
	}
	return l
}

// lineKeys reports whether the hooked shell st shows may bind the hook's
// line keys: bash, zsh and fish do (shellinit); the POSIX hook does not
// (its P mark says line=0, which atHookedPrompt reports), and asking it
// would only wait editorLineWait. Over SSH the foreground is not known:
// the hook's own P mark decides.
func (s *Session) lineKeys(st verdict.Status) bool {
	if !st.FGOK {
		return true
	}
	k := shellKind(st.FG.Name)
	return k == "bash" || k == "zsh" || k == "fish"
}

// cursorLineText returns the text on the screen's cursor line after the
// prompt, redacted: "" when the line is a prompt alone or shows none. The
// prompt is the one the last command was typed at, or else what ends like
// one ("$ ", "# ", "> ", "% ") early on the line.
func (s *Session) cursorLineText() string {
	snap := s.scr.Snapshot()
	if snap.AltScreen || snap.CursorRow < 0 || snap.CursorRow >= len(snap.Lines) {
		return ""
	}
	row := strings.TrimSpace(snap.Lines[snap.CursorRow])
	s.mu.Lock()
	here := strings.TrimSpace(verdict.LearnPrompt(s.ring))
	prompt := ""
	if s.cmd != nil {
		prompt = strings.TrimSpace(s.cmd.Prompt)
	}
	secrets := s.secrets
	s.mu.Unlock()
	if row == "" || row == here || row == prompt {
		return ""
	}
	if _, after, ok := strings.Cut(row, prompt); ok && prompt != "" {
		return redact(strings.TrimSpace(after), secrets)
	}
	// No prompt on the line: a program's output (a progress line), not
	// a line being edited.
	i := promptEndRe().FindStringIndex(row)
	if i == nil {
		return ""
	}
	return redact(strings.TrimSpace(row[i[1]:]), secrets)
}

// promptEndRe finds the end of a prompt near the start of a line.
var promptEndRe = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^.{0,80}?[$#>%] `) })

// secretList returns the session's secrets.
func (s *Session) secretList() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.secrets
}

// markOthers marks in the recording where keys another client of the
// agent typed (ttymux attach, ttymux web) start: their count arrives
// ahead of their echo, so the marker goes before it. The keys themselves
// are in the output only: the server never has them. t.feedMu is held.
func (t *terminal) markOthers() {
	if t.rec == nil {
		return
	}
	si, ok := t.conn.(transport.SharedInput)
	if !ok {
		return
	}
	n := si.TypedByOthers()
	if n <= t.othersRec {
		return
	}
	t.othersRec = n
	if !t.othersRun.Swap(true) {
		t.rec.Marker("a person typed")
	}
}

// personMask stands in the recording for keys a person typed where they
// may be a secret.
const personMask = "********"

// recordPerson records a person's keys p (HumanWrite): a marker at the
// start of their run of keys, then the keys as an input event where the
// terminal shows what is typed (the hooked shell's line editor, a program
// with echo on), up to their first Enter, and masked after it and
// elsewhere: a `read -s` or a password prompt takes keys with echo off.
func (s *Session) recordPerson(p []byte, mark, visible bool) {
	if s.rec == nil || len(p) == 0 {
		return
	}
	if mark {
		s.rec.Marker("a person typed")
	}
	shown := 0
	if visible {
		shown = len(p)
		if i := strings.IndexAny(string(p), "\r\n"); i >= 0 {
			shown = i + 1
		}
	}
	s.rec.Input(p[:shown])
	if shown < len(p) {
		s.rec.Input([]byte(personMask))
	}
}

// personKeysShown reports whether what a person types now is shown by the
// terminal: the hooked shell reads a command line at its prompt (and has
// printed a mark since the person's last Enter, so the line is not typed
// ahead of a command that may ask for a password), or a program reads
// with echo on.
func (s *Session) personKeysShown() bool {
	s.mu.Lock()
	after := !s.human.line.entered || s.det.Count() > s.human.line.enterMarks
	s.mu.Unlock()
	if at, _ := s.atHookedPrompt(); at && after {
		return true
	}
	if er, ok := s.conn.(transport.EchoReporter); ok {
		on, err := er.Echo()
		return err == nil && on && after
	}
	return false
}

// humanTypedLocked records a person's keys p in s.human. s.mu must be
// held.
func (s *Session) humanTypedLocked(p []byte) {
	l := &s.human.line
	s.human.keys += len(p)
	s.personKeys += int64(len(p))
	l.typed = true
	l.tail, l.edited = editTail(l.tail, l.edited, p)
	if strings.ContainsAny(string(p), "\r\n") {
		l.entered, l.enterMarks = true, s.det.Count()
	}
}
