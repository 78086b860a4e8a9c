package verdict

import (
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

func markB() string { return "\x1b]133;B;ttymux=n1\x07" }

// TestManIsAPagerOnlyOnceShown (issue #13): man formats its page before
// its pager shows anything (seconds on a busy machine). While it formats
// it is running, not a pager; keys typed then go astray. It is a pager
// once the terminal shows one: the alternate screen, or the pager's prompt
// on the last line. Its pager sets echo off before it draws, so for man
// echo proves nothing; a pager itself in the foreground with echo off
// reads keys (less -X below a file name).
func TestManIsAPagerOnlyOnceShown(t *testing.T) {
	on, off := true, false
	for _, tt := range []struct {
		name  string
		fg    string
		echo  *bool
		alt   bool
		out   string
		state string
	}{
		{"man formats", "man", &on, false, "man ls\r\n", "running"},
		{"man's pager set echo off, drew nothing yet", "man", &off, false, "man ls\r\n", "running"},
		{"man's pager on the alternate screen", "man", &off, true, "man ls\r\n\x1b[?1049hLS(1)", "pager"},
		{"man's pager without the alternate screen", "man", &off, false, "man ls\r\nLS(1)\r\n Manual page ls(1) line 1 (press h for help or q to quit)", "pager"},
		{"less below a file name", "less", &off, false, "less f\r\nline\r\nf", "pager"},
		{"less before it set echo off", "less", &on, false, "less f\r\n", "running"},
		{"git's pager prompt", "git", &off, false, "git log\r\ncommit 1\r\n:", "pager"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTerm(n1, true)
			f.out(markD("0") + "$ " + markB())
			f.out(tt.out)
			f.conn.fg = &transport.Foreground{Pgid: 2, Name: tt.fg}
			f.conn.echo = tt.echo
			f.alt = tt.alt
			f.wait(time.Second)
			if st := f.t.Classify(); st.State != tt.state {
				t.Fatalf("state %q (%s), want %q", st.State, st.Describe(), tt.state)
			}
		})
	}
}

// TestUnsubmittedLineIsAHumanWait (issue #13): text typed without Enter,
// or keys that edit the line, at the hooked shell's prompt leave its line
// editor waiting for more keys: the wait ends after the short quiet, state
// prompt, with a note saying what the line holds and how to run it. A line
// sent with Enter is waited for.
func TestUnsubmittedLineIsAHumanWait(t *testing.T) {
	f := newFakeTerm(n1, true)
	sh := &transport.Foreground{Pgid: 1, Name: "bash", IsShell: true}
	f.conn.fg = sh
	f.out(markD("0") + "root@box:~# " + markB())
	typed := func(text string, noEnter bool) *Command {
		c := f.send(text, nil)
		c.NoEnter = noEnter
		f.wait(time.Millisecond) // the echo comes after the send
		return c
	}

	c := typed("echo E1", true)
	f.out("echo E1")
	f.wait(humanQuiet / 2)
	if st, left := f.t.HumanWait(c); st.State != "" || left <= 0 {
		t.Fatalf("before the quiet: %+v, %s", st, left)
	}
	f.wait(humanQuiet)
	st, _ := f.t.HumanWait(c)
	if st.State != "prompt" || !st.Unsubmitted || st.Line != "echo E1" {
		t.Fatalf("typed without Enter: %+v, want prompt holding echo E1", st)
	}
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete though nothing ran: %+v", v)
	}

	// ctrl+u: readline erases the line.
	c = typed("", true)
	f.out(strings.Repeat("\b", 7) + "\x1b[K")
	f.wait(humanQuiet)
	st, _ = f.t.HumanWait(c)
	if st.State != "prompt" || !st.Unsubmitted || st.Line != "" {
		t.Fatalf("after ctrl+u: %+v, want prompt with an empty line", st)
	}

	// A line sent with Enter is the hook's to decide.
	c = typed("sleep 5\n", false)
	f.out("sleep 5\r\n")
	f.wait(2 * humanQuietIdle)
	if st, _ := f.t.HumanWait(c); st.State != "" {
		t.Fatalf("a submitted line before its C mark: %+v", st)
	}
}

// TestShellLayerCutLine: without the hook, a shell that reads its terminal
// again is done after the short quiet only when its output ends the way
// its prompt does (the line the command was typed at, here one of no
// well-known shape); a line cut before its newline ("slept" whose "\r\n"
// is still on its way), or output ending in a newline (an empty prompt, or
// the prompt not delivered yet), needs the longer quiet.
func TestShellLayerCutLine(t *testing.T) {
	waits := true
	for _, tt := range []struct {
		prompt, tail string
		fast         bool
	}{
		{"", "slept", false},
		{"", "slept\r", false},
		{"", "slept\r\n", false},
		{"~ \u276f ", "slept", false},
		{"~ \u276f ", "slept\r\n", false},
		{"~ \u276f ", "slept\r\n~ \u276f ", true},
		{"~ \u276f ", "slept\r\n/tmp \u276f ", false},
	} {
		f := newFakeTerm("", true)
		f.conn.fg = &transport.Foreground{Pgid: 1, Name: "sh", IsShell: true}
		f.conn.waits = &waits
		f.out(tt.prompt)
		c := f.send("echo slept\n", nil)
		f.wait(time.Millisecond)
		f.out("echo slept\r\n" + tt.tail)
		if v, _ := f.t.Evaluate(c); v.Complete {
			t.Fatalf("%q: complete at once", tt.tail)
		}
		f.wait(ShellQuiet)
		if v, _ := f.t.Evaluate(c); v.Complete != tt.fast {
			t.Errorf("prompt %q, %q after %s: complete=%v", tt.prompt, tt.tail, ShellQuiet, v.Complete)
		}
		f.wait(ShellQuietBare)
		if v, _ := f.t.Evaluate(c); !v.Complete || v.Via != ViaShell {
			t.Errorf("prompt %q, %q after %s: %+v", tt.prompt, tt.tail, ShellQuiet+ShellQuietBare, v)
		}
	}
}
