package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
)

// TestQueryAnswersNotTypedAtThePrompt: a file holding terminal queries
// (cursor position, device attributes), printed by cat, leaves nothing in
// the shell's input: the next command line runs as sent. On the old code
// the emulator's answers (";1R", "62;1;6;22c" …) were typed into the
// terminal and glued in front of the next line. A program that asks from
// raw mode still gets its answer.
func TestQueryAnswersNotTypedAtThePrompt(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	f := filepath.Join(t.TempDir(), "hostile")
	if err := os.WriteFile(f, []byte("title\x1b[6n\x1b[c\x1b[>c\x1b[5n\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, cat := range []string{"cat " + f, "cat " + f + "; sleep 0.3"} {
		send(t, s, session.SendRequest{Text: cat})
		r := send(t, s, session.SendRequest{Text: "echo clean"})
		if r.Output != "clean" || r.ExitCode == nil || *r.ExitCode != 0 {
			t.Fatalf("the line after %q: output %q, exit %v; want clean, 0", cat, r.Output, r.ExitCode)
		}
	}
	// A program that asks, from raw mode, gets the cursor position.
	ask := `python3 -c 'import os,sys,termios,tty
old=termios.tcgetattr(0); tty.setraw(0); os.write(1,b"\x1b[6n"); a=b""
while not a.endswith(b"R"): a+=os.read(0,1)
termios.tcsetattr(0,termios.TCSADRAIN,old); print("answer", a[1:].decode())'`
	r := send(t, s, session.SendRequest{Text: ask})
	if !strings.Contains(r.Output, "answer [") || !strings.HasSuffix(r.Output, "R") {
		t.Fatalf("a raw-mode program's query: %q", r.Output)
	}
}
