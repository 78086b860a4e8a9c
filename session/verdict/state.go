package verdict

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/transport"
)

// A Status is what the terminal is doing, as results and list report it.
type Status struct {
	State      string // prompt, running, password_prompt, confirm_prompt, pager, repl, alt_screen, input_prompt, disconnected, exited
	Foreground string // the foreground program, when it is not the shell
	LastLine   string // the last line of output, rendered (at most 120 bytes)
	// What Classify read of the terminal, for a caller that needs it too
	// (Send): each read is an ioctl or a /proc read.
	FG      transport.Foreground
	FGOK    bool
	EchoOff bool
	// Unsubmitted: the state is prompt and the shell's line editor holds
	// what a send typed without Enter (or a key recalled or edited): it
	// waits for more keys. Line is the line after the prompt, "" when empty.
	Unsubmitted bool
	Line        string
}

// Describe says the status in a few words, for notes.
func (st Status) Describe() string {
	d := st.State
	if st.Foreground != "" {
		d += ": " + st.Foreground
	}
	if st.LastLine != "" {
		d += fmt.Sprintf(", last line %q", st.LastLine)
	}
	return d
}

var (
	passwordRe = lazyRE(`(?i)(password|passphrase|passcode|\bpin\b|verification code|token)[^:\n]{0,60}:\s*$`)
	confirmRe  = lazyRE(`(?i)(\[y/n\]|\[y/N\]|\(y/n\)|\[yes/no\]|\(yes/no(/\[fingerprint\])?\)|continue\?|proceed\?|are you sure.*\?)\s*$`)
	pagerRe    = lazyRE(`^(:|\(END\)|--More--.*|.*lines \d+-\d+.*|.*\(press h for help or q to quit\))\s*$`)
)

// inputPromptRe matches the last line of a program that asks for a line
// of input ("Name: ", "Overwrite? ").
var inputPromptRe = lazyRE(`\S[:?]\s?$`)

// pagers are the pagers themselves, and pagerHosts programs that run one
// once they have something to show: man formats the page first (seconds
// on a busy machine), and keys typed meanwhile go astray (issue #13). Both
// are a pager only when the terminal shows one: the alternate screen, or a
// pager's prompt on the last line; a pager itself also when the terminal's
// echo is off (it reads keys, as less -X does below a file name). man's own
// pager is not the foreground group's leader, and sets echo off before it
// draws: for man, echo proves nothing.
var (
	pagers     = map[string]bool{"less": true, "more": true, "most": true, "pg": true}
	pagerHosts = map[string]bool{"man": true}
)

var repls = map[string]bool{
	"python": true, "python3": true, "ipython": true, "ipython3": true, "node": true, "irb": true,
	"psql": true, "mysql": true, "mariadb": true, "sqlite3": true, "redis-cli": true, "ghci": true,
	"lua": true, "R": true, "erl": true, "iex": true, "bc": true, "gdb": true, "mongosh": true,
}

// tailLine is what Classify reads of the log's end: its last 2 KiB
// [from, end), their last line rendered, and whether the cursor is on it.
// The log only grows and never changes what it holds, so the same range is
// the same line: Classify renders it again only when output arrived.
type tailLine struct {
	from, end int64
	last      string // rendered, right spaces trimmed, at most 120 bytes
	open      bool   // the tail does not end in a newline
	// known holds the line patterns' answers for last, asked once each:
	// bit 2p says pattern p was asked, bit 2p+1 its answer. Two callers
	// that ask at once find the same answer.
	known atomic.Uint32
}

// The patterns Classify asks of the last line, each a function of the
// line alone.
const (
	linePager = iota
	linePassword
	lineConfirm
	linePrompt
	lineInputPrompt
)

var linePatterns = [...]func(string) bool{
	linePager:       func(s string) bool { return pagerRe().MatchString(s) },
	linePassword:    isPasswordLine,
	lineConfirm:     isConfirmLine,
	linePrompt:      isPromptLine,
	lineInputPrompt: isInputPromptLine,
}

// is reports whether the last line matches pattern p, matching it only
// the first time it is asked of this line.
func (l *tailLine) is(p int) bool {
	asked, yes := uint32(1)<<(2*p), uint32(1)<<(2*p+1)
	if k := l.known.Load(); k&asked != 0 {
		return k&yes != 0
	}
	v := linePatterns[p](l.last)
	if v {
		asked |= yes
	}
	l.known.Or(asked)
	return v
}

// Classify says what the terminal is doing now. Only the log's last line
// is kept from one call to the next (tailLine, keyed on the log's end);
// the foreground, the echo flag, the alternate screen, the marks and the
// clock are read at every call, so a state is never older than the call.
func (t *Terminal) Classify() Status {
	var q struct { // one allocation for what the view reads
		h        Held
		tail     []byte
		line     *tailLine
		fresh    bool
		lastMark Mark
		hasMark  bool
	}
	t.Src.View(func(st State) {
		q.h = st.Held
		end := st.Log.End()
		from := max(st.Log.Start(), end-2048)
		if c := t.tail.Load(); c != nil && c.from == from && c.end == end {
			q.line = c
		} else {
			q.tail, _ = st.Log.AppendRange(nil, from, end)
			q.line, q.fresh = &tailLine{from: from, end: end}, true
		}
		q.lastMark, q.hasMark = st.Det.Last()
	})
	if q.fresh {
		q.line.renderTail(q.tail)
		t.tail.Store(q.line)
	}
	h, line, lastMark, hasMark := q.h, q.line, q.lastMark, q.hasMark
	if h.HookLost {
		hasMark = false // a broken hook's marks say nothing of now
	}
	var st Status
	if h.Exited {
		st.State = "exited"
		return st
	}
	// Quiet is read when a rule needs it, after the slower reads above.
	quiet := func() time.Duration { return t.Now().Sub(t.held().LastOutput) }
	fg, fgOK := t.Foreground()
	st.FG, st.FGOK = fg, fgOK
	if fgOK && !fg.IsShell {
		st.Foreground = fg.Name
	}
	st.LastLine = line.last
	echoOff := t.EchoOff()
	st.EchoOff = echoOff
	open := line.open
	name := filepath.Base(fg.Name)
	if ls, ok := t.Conn.(transport.LinkStater); ok && ls.LinkState() == transport.LinkDisconnected {
		st.State = "disconnected"
		return st
	}
	// A pager started by another program (psql, git) is not the
	// foreground group's leader: its prompt line tells.
	pagerShown := fgOK && !fg.IsShell && line.is(linePager)
	switch {
	case t.AltScreen():
		if pagers[name] || pagerHosts[name] || pagerShown {
			st.State = "pager"
		} else {
			st.State = "alt_screen"
		}
	case line.is(linePassword):
		st.State = "password_prompt"
	case line.is(lineConfirm):
		st.State = "confirm_prompt"
	case pagers[name] && echoOff || pagerShown:
		// Before the ECHO test below: a pager's ":" prompt has echo off too.
		st.State = "pager"
	case echoOff && fgOK && !fg.IsShell && strings.HasSuffix(st.LastLine, ":"):
		st.State = "password_prompt"
	case repls[name] || strings.HasPrefix(name, "python"):
		st.State = "repl"
	case hasMark && lastMark.Kind != MarkCommand && (!fgOK || fg.IsShell):
		st.State = "prompt"
	case !hasMark && t.Shell && fgOK && fg.IsShell && quiet() >= ShellQuiet:
		st.State = "prompt"
	case st.LastLine != "" && len(st.LastLine) <= maxPrompt && line.is(linePrompt) && quiet() >= knownQuiet:
		// A shell typed into the session (ssh, docker exec) waits at its
		// prompt.
		st.State = "prompt"
	case open && len(st.LastLine) <= maxPrompt && line.is(lineInputPrompt) && quiet() >= humanQuiet:
		// "Name: ", "Continue? ": a program (read -p, input()) waits for
		// a line.
		st.State = "input_prompt"
	default:
		st.State = "running"
	}
	return st
}

// renderTail sets l's last line and open from the tail's bytes.
func (l *tailLine) renderTail(tail []byte) {
	lines := reduce.Render(tail)
	if n := len(lines); n > 0 {
		l.last = strings.TrimRight(lines[n-1], " ")
		if len(l.last) > 120 {
			l.last = l.last[len(l.last)-120:]
		}
	}
	l.open = len(tail) > 0 && tail[len(tail)-1] != '\n' // the cursor is on the last line, after its text
}

// WaitsForInput reports whether the terminal's state says a program waits
// for input, so that text sent now is its input rather than a command line
// typed ahead for the shell. inCommand: the hook saw a command start and
// not end (a prompt at the cursor is then a nested shell's or REPL's).
func (st Status) WaitsForInput(inCommand bool) bool {
	switch st.State {
	case "password_prompt", "confirm_prompt", "pager", "alt_screen", "repl", "input_prompt":
		return true
	case "prompt":
		return inCommand
	}
	return false
}

// secretQuiet is how long a program other than the shell must have been
// quiet, with the terminal still echoing, before it is taken to read with
// echo on.
const secretQuiet = 2 * time.Second

// WaitsForSecret reports whether the terminal, a command running, waits
// for input a secret may answer. last is when output last arrived.
func (t *Terminal) WaitsForSecret(last time.Time) bool {
	if t.EchoOff() {
		return true
	}
	if fg, ok := t.Foreground(); ok && fg.IsShell {
		// The kernel knows whether the shell (read) reads.
		if w, ok := t.shellWaits(); ok {
			return w
		}
	}
	switch t.Classify().State {
	case "password_prompt", "input_prompt", "confirm_prompt":
		return true // it asks, in so many words
	}
	return t.Now().Sub(last) >= secretQuiet
}
