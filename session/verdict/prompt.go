package verdict

import (
	"bytes"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
)

// The prompt layer: for whatever ttymux has no hook in — a REPL, a shell
// typed into the session (ssh, docker exec, su), a serial console — the
// command is finished when a prompt is back at the cursor, after the
// command's output started, and output has been quiet for a moment. The
// prompt is learned from the line the text was typed at; a line of the
// same shape (a changed cwd in "user@host:~/dir$ ") or a well-known prompt
// (">>> ", "postgres=# ", "=> ") counts too.

// promptQuiet is how long output must be quiet after the prompt the
// command was typed at reappears; knownQuiet is for a prompt recognised by
// its shape only, which deserves more caution.
const (
	promptQuiet = 30 * time.Millisecond
	knownQuiet  = 150 * time.Millisecond
	maxPrompt   = 120
)

// knownPromptRe matches lines that end like an interactive prompt.
var knownPromptRe = lazyRE(`(?:^(?:>>>|\.\.\.|In \[\d+\]:|irb\([^)]*\):\d+:\d+[>*]|[\w-]+[=\-(][#>]|mysql>|MariaDB \[[^\]]*\]>|sqlite>|ghci>|=>|>|\(gdb\)|\(Pdb\)|redis[^>]*>|[\w-]*>)|[$#%>\]])\s?$`)

// arrowRe matches a line ending in an arrow after a space ("HEAD -> ",
// "link -> target", "x => y"): output text, never a prompt, though it ends
// in '>'.
var arrowRe = lazyRE(`\s[-=]>$`)

// LearnPrompt returns the text at the cursor if it looks like a prompt:
// the last, unterminated line of log, short, ending like a prompt, with its
// trailing spaces (the prompt is complete only with them). The caller holds
// log still (inside Source.View, or under the lock that guards it).
func LearnPrompt(log Log) string {
	end := log.End()
	b, _ := log.AppendRange(nil, max(log.Start(), end-1024), end)
	i := bytes.LastIndexByte(b, '\n')
	if i == len(b)-1 {
		return "" // the cursor is at the start of an empty line
	}
	lines := reduce.Render(b[i+1:])
	if len(lines) == 0 {
		return ""
	}
	raw := lines[len(lines)-1]
	p := strings.TrimRight(raw, " ")
	if p == "" || len(p) > maxPrompt || !isPromptLine(p) {
		return ""
	}
	return raw
}

// promptBack looks at the last, unterminated line of the command's output.
// It returns where that line starts and whether the command is complete: the
// line is a prompt and output has been quiet long enough. at < 0 means no
// prompt is at the cursor.
//
// A prompt is complete only with its trailing space, when the prompt the
// command was typed at had one (as nearly all do), so that a line cut just
// after a '>', '#', '$' or '%' is not taken for one; a device whose prompts
// end without a space ("Router#") is recognised by its learned prompt. A
// full-screen program (the alternate screen, or the cursor hidden since the
// send) is never at a prompt: its last line in the byte stream is whatever
// it drew last, not a line waiting for input.
func (t *Terminal) promptBack(c *Command, end int64, quiet time.Duration) (at int64, ok bool) {
	if t.AltScreen() {
		return -1, false
	}
	var hidden bool
	var b []byte
	t.Src.View(func(st State) {
		hidden = st.Det.CursorHiddenSince(c.SendOff)
		b, _ = st.Log.AppendRange(nil, max(c.Anchor, end-1024), end)
	})
	if hidden {
		return -1, false
	}
	i := bytes.LastIndexByte(b, '\n')
	if i == len(b)-1 {
		return -1, false
	}
	line := b[i+1:]
	if i < 0 && int64(len(b)) < end-c.Anchor {
		return -1, false // a line longer than we look at is no prompt
	}
	lines := reduce.Render(line)
	if len(lines) == 0 {
		return -1, false
	}
	raw := lines[len(lines)-1]
	got := strings.TrimRight(raw, " ")
	if got == "" || len(got) > maxPrompt || isPasswordLine(got) || isConfirmLine(got) {
		return -1, false
	}
	spaced := len(raw) > len(got)
	learned := strings.TrimRight(c.Prompt, " ")
	learnedSpaced := len(c.Prompt) > len(learned)
	need := knownQuiet
	switch {
	case learned != "" && (got == learned || samePromptShape(got, learned)) && spaced == learnedSpaced:
		need = promptQuiet
	case isPromptLine(got) && !arrowRe().MatchString(got) && (spaced || learned != "" && !learnedSpaced):
	default:
		return -1, false
	}
	return end - int64(len(line)), quiet >= need
}

// samePromptShape reports whether two prompts differ only in their middle,
// as "user@host:~/src$" and "user@host:/tmp$" do after a cd: the same text
// up to the first ':' or space (at least 2 characters) and the same last
// character.
func samePromptShape(a, b string) bool {
	if a == "" || b == "" || a[len(a)-1] != b[len(b)-1] {
		return false
	}
	head := func(s string) string {
		if i := strings.IndexAny(s, ": "); i >= 2 {
			return s[:i]
		}
		return ""
	}
	ha := head(a)
	return ha != "" && ha == head(b)
}

// lazyRE compiles a pattern when it is first used, not at package init:
// every ttymux process links this package, and a server pays for its init
// before it can answer a client's first tools/list (issue #37); a server
// that never runs a command never needs these patterns.
func lazyRE(src string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(src) })
}

// The patterns below are not anchored at the start, so RE2's backtracker
// tries them from every position of a line; a match needs the line to end
// in one of a few bytes, which is checked first. list classifies every
// session and each send its terminal twice (issue #37).
// TestPatternPrefilters holds each check to its pattern.

// isPromptLine is knownPromptRe().MatchString: every alternative ends in
// one of >.:*#)$%] before at most one space.
func isPromptLine(s string) bool {
	return endsIn(s, 1, ">.:*#)$%]") && knownPromptRe().MatchString(s)
}

// isPasswordLine is passwordRe().MatchString: ':' before spaces.
func isPasswordLine(s string) bool { return endsIn(s, -1, ":") && passwordRe().MatchString(s) }

// isConfirmLine is confirmRe().MatchString: ']', ')' or '?' before spaces.
func isConfirmLine(s string) bool { return endsIn(s, -1, "])?") && confirmRe().MatchString(s) }

// isInputPromptLine is inputPromptRe().MatchString: ':' or '?' before at
// most one space.
func isInputPromptLine(s string) bool {
	return endsIn(s, 1, ":?") && inputPromptRe().MatchString(s)
}

// endsIn reports whether s, without at most n trailing spaces (all with
// n < 0; RE2's \s: tab, newline, form feed, carriage return, space), ends
// in a byte of set.
func endsIn(s string, n int, set string) bool {
	for i := 0; (n < 0 || i < n) && s != ""; i++ {
		switch s[len(s)-1] {
		case '\t', '\n', '\f', '\r', ' ':
			s = s[:len(s)-1]
			continue
		}
		break
	}
	return s != "" && strings.IndexByte(set, s[len(s)-1]) >= 0
}
