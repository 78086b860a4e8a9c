package main

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"
)

// TestAttachFilter: what attach passes to a person's terminal, for each
// kind of sequence, whole and split at every byte (the filter keeps state
// across reads of the session).
func TestAttachFilter(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"text and colours", "a\x1b[1;31mred\x1b[0m\r\n", "a\x1b[1;31mred\x1b[0m\r\n"},
		{"cursor and modes", "\x1b[H\x1b[2J\x1b[?1049h\x1b[?25l\x1b(B", "\x1b[H\x1b[2J\x1b[?1049h\x1b[?25l\x1b(B"},
		{"OSC 52 clipboard (BEL)", "x\x1b]52;c;cm0gLXJmIH4=\x07y", "xy"},
		{"OSC 52 clipboard (ST)", "x\x1b]52;c;cm0gLXJmIH4=\x1b\\y", "xy"},
		{"title sanitised", "\x1b]2;ti\x01tl\u009b\x7fe\x07", "\x1b]2;title\x1b\\"},
		{"title bounded", "\x1b]0;" + strings.Repeat("t", 300) + "\x07", "\x1b]0;" + strings.Repeat("t", 256) + "\x1b\\"},
		{"colour query", "\x1b]11;?\x07ok", "ok"},
		{"OSC 7 and 133 kept", "\x1b]7;file://h/tmp\x07\x1b]133;A\x07", "\x1b]7;file://h/tmp\x1b\\\x1b]133;A\x1b\\"},
		{"DECRQSS", "\x1bP$q\"p\x1b\\after", "after"},
		{"XTGETTCAP", "\x1bP+q544e\x1b\\", ""},
		{"tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;eA==\x07\x1b\\z", "z"},
		{"APC PM SOS", "\x1b_G1\x1b\\\x1b^pm\x1b\\\x1bXsos\x1b\\.", "."},
		{"CSI 21 t", "\x1b[21t\x1b[14t\x1b[8;100;200t", ""},
		{"DA", "\x1b[c\x1b[0c\x1b[>c\x1b[=c", ""},
		{"DSR", "\x1b[5n\x1b[6n\x1b[?6n", ""},
		{"DECRQM XTVERSION kitty", "\x1b[?2004$p\x1b[>q\x1b[?u", ""},
		{"DECID", "\x1bZ", ""},
		{"not queries", "\x1b[5;10r\x1b[?2004h\x1b[>4;1m\x1b[2 q", "\x1b[5;10r\x1b[?2004h\x1b[>4;1m\x1b[2 q"},
		{"huge OSC dropped whole", "\x1b]52;c;" + strings.Repeat("A", 10000) + "\x07after", "after"},
		{"string aborted by ESC", "\x1b]52;c;abc\x1b[1mB", "\x1b[1mB"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for cut := 0; cut <= len(tc.in); cut++ {
				var f termFilter
				out := f.filter(nil, []byte(tc.in[:cut]))
				out = f.filter(out, []byte(tc.in[cut:]))
				if string(out) != tc.want {
					t.Fatalf("split at %d: %q, want %q", cut, out, tc.want)
				}
			}
		})
	}
}

// TestHumanAttachFilter is issue #14 finding 4 as reproduced: a session
// printed OSC 52 (a clipboard write), a title with control characters,
// DECRQSS, CSI 21 t, DA and DSR. `ttymux attach` passed them raw to the
// person's terminal, also when replaying the tail on attach, and a terminal
// that answers such queries typed the answers into the session. Now none
// reaches the terminal, from the tail or live; --raw passes them.
func TestHumanAttachFilter(t *testing.T) {
	sock := humanAgent(t)
	ai, ks, aiOut := humanSession(t, sock)
	evil := `printf '\033]52;c;cm0gLXJmIH4=\a\033]2;ti\001tle\a\033P$q"p\033\\\033[21t\033[c\033[6n'; echo done-$((6*7))` + "\r"
	if _, err := ai.Write([]byte(evil)); err != nil {
		t.Fatal(err)
	}
	aiOut.waitFor(t, "agent client", "done-42")
	bad := []string{"\x1b]52", "\x1bP", "\x1b[21t", "\x1b[c", "\x1b[6n", "\x01"}
	for _, raw := range []bool{false, true} {
		r, w, err := os.Pipe()
		if err != nil {
			t.Fatal(err)
		}
		pr, pw := io.Pipe()
		out := watch(pr)
		var errb syncBuffer
		code := make(chan int, 1)
		args := []string{"--socket", sock, ks.ID}
		if raw {
			args = append([]string{"--raw"}, args...)
		}
		go func() { code <- cmdAttach(args, r, pw, &errb) }()
		out.waitFor(t, "attach", "done-42") // the replayed tail
		// Live output too: the same sequences once attached.
		w.Write([]byte(strings.Replace(evil, "done-", "live-", 1)))
		out.waitFor(t, "attach", "live-42")
		w.Close()
		select {
		case <-code:
		case <-time.After(humanWait):
			t.Fatal("attach did not end with its stdin")
		}
		r.Close()
		pw.Close()
		<-out.done
		got := string(out.buf)
		if !strings.Contains(got, "done-42") || !strings.Contains(got, "live-42") {
			t.Fatalf("raw=%v: attach output lacks the tail or the live output: %q", raw, got)
		}
		for _, b := range bad {
			if strings.Contains(got, b) == !raw {
				t.Errorf("raw=%v: %q present=%v in %q", raw, b, !raw, got)
			}
		}
		if !raw && !strings.Contains(got, "\x1b]2;title") {
			t.Errorf("the sanitised title is missing: %q", got)
		}
	}
}
