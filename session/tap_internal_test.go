package session

import (
	"errors"
	"io"
	"testing"
)

// TestTapSeesThePromptMark: a tap watching for the session's prompt mark
// finds it split across reads and holds it and what follows for the
// session; its reader gets what came before, then a FarEndedError.
// Other marks (a command's start, another nonce) are the transfer's.
func TestTapSeesThePromptMark(t *testing.T) {
	const nonce = "0123abcd"
	mark := []byte(";ttymux=" + nonce + "\a")
	if i, _ := promptMark([]byte("x\x1b]133;C;ttymux="+nonce+"\a\x1b]133;D;0;ttymux=ffff\a"), mark); i >= 0 {
		t.Fatalf("promptMark found a C mark or another nonce's D at %d", i)
	}
	tap := &Tap{wake: make(chan struct{}), mark: mark}
	rest := "55;ttymux=" + nonce + "\a\x1b[?2004h$ "
	for _, p := range []string{"far data\r\n", "\x1b]133;C;ttymux=" + nonce + "\a", "gone\r\n\x1b]133;D;2", rest, "more"} {
		tap.put([]byte(p))
	}
	got, err := io.ReadAll(tap)
	var fe *FarEndedError
	if !errors.As(err, &fe) || fe.Status != "255" || !tap.reached {
		t.Fatalf("read error %v (reached %v), want a FarEndedError with status 255", err, tap.reached)
	}
	if want := "far data\r\n\x1b]133;C;ttymux=" + nonce + "\agone\r\n\x1b]133;D;2"; string(got) != want {
		t.Fatalf("the transfer read %q, want %q", got, want)
	}
	if want := "\x1b]133;D;2" + rest + "more"; string(tap.held) != want {
		t.Fatalf("held for the session: %q, want %q (the whole mark and what followed)", tap.held, want)
	}
	// The shell that came back reads the typed-ahead lines: a prompt each.
	tap.put([]byte("\r\n\x1b]133;D;0;ttymux=" + nonce + "\a$ \r\n\x1b]133;D;0;ttymux=" + nonce + "\a$ "))
	if got, want := string(tap.own()), "\x1b]133;D;255;ttymux="+nonce+"\a\x1b]133;D;0;ttymux="+nonce+"\a$ "; got != want {
		t.Fatalf("the session gets %q, want %q (the mark and the last prompt)", got, want)
	}
}
