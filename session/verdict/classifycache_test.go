package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// TestClassifyNeverStale: Classify keeps the log's rendered last line
// between calls, and nothing else. Output that arrives between two calls,
// a foreground that changes without output, the echo flag, the alternate
// screen and the clock all show in the second call.
func TestClassifyNeverStale(t *testing.T) {
	f := newFakeTerm("", false)
	f.conn.fg = &transport.Foreground{Name: "make"}
	f.out("building...\r\n")
	f.wait(time.Second)
	if st := f.t.Classify(); st.State != "running" || st.LastLine != "building..." {
		t.Fatalf("first: %q, last line %q", st.State, st.LastLine)
	}
	// New output: the last line and the state follow.
	f.out("Password: ")
	f.wait(time.Second)
	if st := f.t.Classify(); st.State != "password_prompt" || st.LastLine != "Password:" {
		t.Fatalf("after output: %q, last line %q", st.State, st.LastLine)
	}
	// No output: a program that took the terminal, then the echo flag,
	// then the alternate screen.
	f.out("\r\n$ ")
	f.conn.fg = &transport.Foreground{Name: "python3"}
	if st := f.t.Classify(); st.State != "repl" || st.Foreground != "python3" {
		t.Fatalf("foreground python3: %q [%s]", st.State, st.Foreground)
	}
	f.conn.fg = &transport.Foreground{Name: "less"}
	off := false
	f.conn.echo = &off
	if st := f.t.Classify(); st.State != "pager" {
		t.Fatalf("less, echo off: %q", st.State)
	}
	f.conn.echo = nil
	f.conn.fg = &transport.Foreground{Name: "vim"}
	f.alt = true
	if st := f.t.Classify(); st.State != "alt_screen" {
		t.Fatalf("alternate screen: %q", st.State)
	}
	// The clock: a known prompt is one once quiet, with no new output.
	f.alt = false
	f.conn.fg = &transport.Foreground{Name: "ssh"}
	f.out("\r\nuser@host:~$ ")
	if st := f.t.Classify(); st.State != "running" {
		t.Fatalf("prompt just printed: %q", st.State)
	}
	f.wait(time.Second)
	if st := f.t.Classify(); st.State != "prompt" || st.LastLine != "user@host:~$" {
		t.Fatalf("prompt, quiet: %q, last line %q", st.State, st.LastLine)
	}
	// Output of the same length as before still renders anew.
	f.out("x")
	if st := f.t.Classify(); !strings.HasSuffix(st.LastLine, "$ x") {
		t.Fatalf("after one more byte: last line %q", st.LastLine)
	}
}

// TestClassifyUnchangedRendersNothing: a second Classify of a terminal
// whose output has not changed neither copies the log's end nor renders
// it (8 allocations per call before the last line was kept, 2 after).
func TestClassifyUnchangedRendersNothing(t *testing.T) {
	f := newFakeTerm("", false)
	f.conn.fg = &transport.Foreground{Name: "make"}
	f.out(strings.Repeat("compiling a fairly long line of output, with \x1b[1mbold\x1b[0m\r\n", 60))
	f.wait(time.Second)
	f.t.Classify()
	allocs := testing.AllocsPerRun(50, func() { f.t.Classify() })
	t.Logf("%.0f allocations per Classify", allocs)
	if allocs > 3 {
		t.Fatalf("%.0f allocations per Classify of an unchanged terminal, want at most 3", allocs)
	}
}

// TestClassifyMatchesALineOnce: the pager pattern, matched at every
// Classify of a session whose foreground is not the shell (a running
// `sleep` in every list), is matched once per last line, and again once
// the line changes.
func TestClassifyMatchesALineOnce(t *testing.T) {
	orig := linePatterns[linePager]
	defer func() { linePatterns[linePager] = orig }()
	n := 0
	linePatterns[linePager] = func(s string) bool { n++; return orig(s) }
	f := newFakeTerm("", false)
	f.conn.fg = &transport.Foreground{Name: "sleep"}
	f.out("$ sleep 3\r\n")
	for range 3 {
		if st := f.t.Classify(); st.State != "running" {
			t.Fatalf("sleep: %q", st.State)
		}
	}
	if n != 1 {
		t.Fatalf("pager pattern matched %d times for one line, want 1", n)
	}
	f.out("(END)")
	f.conn.fg = &transport.Foreground{Name: "git"}
	if st := f.t.Classify(); st.State != "pager" || n != 2 {
		t.Fatalf("after (END): %q, pattern matched %d times, want 2", st.State, n)
	}
}
