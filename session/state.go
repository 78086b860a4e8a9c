package session

import (
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"path/filepath"
	"regexp"
	"strings"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/transport"
)

// status is what the terminal is doing, for results that are not complete.
type status struct {
	state      string // prompt, running, password_prompt, confirm_prompt, pager, repl, alt_screen, input_prompt, disconnected, exited
	foreground string
	lastLine   string
	// What classify read of the terminal, for a caller that needs it too
	// (Send): each read is an ioctl or a /proc read.
	fg      transport.Foreground
	fgOK    bool
	echoOff bool
}

func (st status) describe() string {
	d := st.state
	if st.foreground != "" {
		d += ": " + st.foreground
	}
	if st.lastLine != "" {
		d += fmt.Sprintf(", last line %q", st.lastLine)
	}
	return d
}

var (
	passwordRe = regexp.MustCompile(`(?i)(password|passphrase|passcode|\bpin\b|verification code|token)[^:\n]{0,60}:\s*$`)
	confirmRe  = regexp.MustCompile(`(?i)(\[y/n\]|\[y/N\]|\(y/n\)|\[yes/no\]|\(yes/no(/\[fingerprint\])?\)|continue\?|proceed\?|are you sure.*\?)\s*$`)
	pagerRe    = regexp.MustCompile(`^(:|\(END\)|--More--.*|.*lines \d+-\d+.*)\s*$`)
)

// inputPromptRe matches the last line of a program that asks for a line
// of input ("Name: ", "Overwrite? ").
var inputPromptRe = regexp.MustCompile(`\S[:?]\s?$`)

// echoOff reports whether the terminal's ECHO flag is known to be off:
// a program edits its input line itself (readline in a shell or REPL, a
// full-screen program) or reads a password.
func (s *Session) echoOff() bool {
	known, off := s.echoState()
	return known && off
}

// echoState reports whether the terminal's ECHO flag can be read (local
// and agent PTYs) and whether it is off.
func (s *Session) echoState() (known, off bool) {
	if er, ok := s.conn.(transport.EchoReporter); ok {
		if on, err := er.Echo(); err == nil {
			return true, !on
		}
	}
	return false, false
}

var pagers = map[string]bool{"less": true, "more": true, "most": true, "pg": true, "man": true}

var repls = map[string]bool{
	"python": true, "python3": true, "ipython": true, "ipython3": true, "node": true, "irb": true,
	"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "redis-cli": true, "ghci": true,
	"lua": true, "R": true, "erl": true, "iex": true, "bc": true, "gdb": true, "mongosh": true,
}

// classify says what the terminal is doing now.
func (s *Session) classify() status {
	s.mu.Lock()
	exited := s.exited
	end := s.ring.End()
	tail, _ := s.ring.AppendRange(nil, max(s.ring.Start(), end-2048), end)
	lastMark, hasMark := s.det.Last()
	s.mu.Unlock()
	var st status
	if exited {
		st.state = "exited"
		return st
	}
	fg, fgOK := s.foreground()
	st.fg, st.fgOK = fg, fgOK
	if fgOK && !fg.IsShell {
		st.foreground = fg.Name
	}
	lines := reduce.Render(tail)
	if n := len(lines); n > 0 {
		st.lastLine = strings.TrimRight(lines[n-1], " ")
		if len(st.lastLine) > 120 {
			st.lastLine = st.lastLine[len(st.lastLine)-120:]
		}
	}
	echoOff := s.echoOff()
	st.echoOff = echoOff
	open := len(tail) > 0 && tail[len(tail)-1] != '\n' // the cursor is on the last line, after its text
	name := filepath.Base(fg.Name)
	if ls, ok := s.conn.(transport.LinkStater); ok && ls.LinkState() == transport.LinkDisconnected {
		st.state = "disconnected"
		return st
	}
	switch {
	case s.scr.AltScreen():
		// A pager started by another program (psql, git) is not the
		// foreground group's leader: its prompt line tells.
		if pagers[name] || (fgOK && !fg.IsShell && pagerRe.MatchString(st.lastLine)) {
			st.state = "pager"
		} else {
			st.state = "alt_screen"
		}
	case passwordRe.MatchString(st.lastLine):
		st.state = "password_prompt"
	case confirmRe.MatchString(st.lastLine):
		st.state = "confirm_prompt"
	case pagers[name] || (fgOK && !fg.IsShell && pagerRe.MatchString(st.lastLine)):
		// Before the ECHO test below: a pager's ":" prompt has echo off too.
		st.state = "pager"
	case echoOff && fgOK && !fg.IsShell && strings.HasSuffix(st.lastLine, ":"):
		st.state = "password_prompt"
	case repls[name] || strings.HasPrefix(name, "python"):
		st.state = "repl"
	case hasMark && lastMark.Kind != verdict.MarkCommand && (!fgOK || fg.IsShell):
		st.state = "prompt"
	case !hasMark && s.shell && fgOK && fg.IsShell && s.now().Sub(s.lastOutputAt()) >= shellQuiet:
		st.state = "prompt"
	case st.lastLine != "" && len(st.lastLine) <= maxPrompt && knownPromptRe.MatchString(st.lastLine) && s.now().Sub(s.lastOutputAt()) >= knownQuiet:
		// A shell typed into the session (ssh, docker exec) waits at its
		// prompt.
		st.state = "prompt"
	case open && len(st.lastLine) <= maxPrompt && inputPromptRe.MatchString(st.lastLine) && s.now().Sub(s.lastOutputAt()) >= humanQuiet:
		// "Name: ", "Continue? ": a program (read -p, input()) waits for
		// a line.
		st.state = "input_prompt"
	default:
		st.state = "running"
	}
	return st
}

func (s *Session) lastOutputAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastOutput
}
