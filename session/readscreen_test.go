package session_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
)

// TestInPlaceFramesAfterScreen pins issue #13 item 8 past the last screen
// a result returned: a program that redraws the normal screen in place
// (as top does: the cursor hidden, each frame from the cursor home,
// skipping the rows that did not change) drew its last frame and quit
// after the result that returned its screen. The result of the key that
// made it quit rendered that frame alone, its skipped rows (Mem, PID)
// blank; it renders over the screen the earlier result returned.
func TestInPlaceFramesAfterScreen(t *testing.T) {
	dir := t.TempDir()
	script := filepath.Join(dir, "frames.pl")
	prog := `$| = 1;
print "\e[?25l\e[H\e[2Jtop 1\e[K\r\nMem 1\e[K\r\nPID\e[K\r\np1\e[K";
<STDIN>;
print "\e[Htop 2\e[K\r\n\r\n\r\np2\e[K\e[24;1H\e[?25h\r\n";
`
	if err := os.WriteFile(script, []byte(prog), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "perl " + script})
	if r.Complete || r.Mode != "screen" || !strings.Contains(r.Output, "Mem 1") {
		t.Fatalf("first frame: %+v", r)
	}
	r = send(t, s, session.SendRequest{Keys: []string{"enter"}})
	out := r.Output
	if r.Earlier != nil {
		out = r.Earlier.Output + "\n" + out
	}
	if !r.Complete || !strings.Contains(out, "top 2\nMem 1\nPID\np2") {
		t.Fatalf("the last frame lost the rows it did not redraw: %+v\n%s", r, out)
	}
}

// TestCursorLeftHiddenReadsLines: a program that hid the cursor and drew
// from the cursor home, then exited without showing it again (a crashed
// full-screen program), leaves the shell's later output read as lines:
// sixty lines come back whole, not the screen's last rows.
func TestCursorLeftHiddenReadsLines(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: `printf '\033[?25l\033[H\033[2Jframe\r\n'`})
	if !r.Complete {
		t.Fatalf("printf: %+v", r)
	}
	r = send(t, s, session.SendRequest{Text: "seq 1 60"})
	if r.Mode == "screen" || !strings.HasPrefix(r.Output, "1\n2\n") || !strings.HasSuffix(r.Output, "\n60") {
		t.Fatalf("seq after the cursor was left hidden: %+v", r)
	}
}
