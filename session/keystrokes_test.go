package session_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// TestAltScreenTextIsKeystrokes pins issue #13's vim bug: multi-line text
// sent to vim in normal mode was bracketed-pasted, so vim inserted "obeta"
// as text instead of opening a line. On the alternate screen text is typed
// as keys (each newline an Enter) unless paste: true.
func TestAltScreenTextIsKeystrokes(t *testing.T) {
	if _, err := exec.LookPath("vim"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("vim missing under CI")
		}
		t.Skip("vim not installed")
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	file := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(file, []byte("alpha\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// vim enables bracketed paste by itself for an xterm; -u NONE keeps
	// the user's vimrc out, -n the swap file.
	r := send(t, s, session.SendRequest{Text: "vim -u NONE -N -n " + file, Until: "alpha"})
	if !r.Complete || r.Mode != "screen" {
		t.Fatalf("vim start: %+v", r)
	}
	r, err := s.Send(t.Context(), session.SendRequest{Text: "obeta\ngamma", Wait: true, Until: "gamma", Timeout: 10 * time.Second})
	if err != nil || !r.Complete || r.Via != session.ViaUntil {
		t.Fatalf("typing into vim: %+v %v", r, err)
	}
	if _, err := s.Send(t.Context(), session.SendRequest{Keys: []string{"esc"}}); err != nil {
		t.Fatal(err)
	}
	r = send(t, s, session.SendRequest{Text: ":wq"})
	if !r.Complete || r.Via != session.ViaExitCode {
		t.Fatalf(":wq: %+v", r)
	}
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if string(b) != "alpha\nbeta\ngamma\n" {
		t.Fatalf("file holds %q, want alpha/beta/gamma on three lines", b)
	}
}
