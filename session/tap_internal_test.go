package session

import (
	"errors"
	"io"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
)

// TestTapSeesThePromptMark: a tap watching for the session's prompt mark
// finds it split across reads and holds it and what follows for the
// session; its reader gets what came before, then a FarEndedError. Other
// marks (a command's start, another nonce's prompt) are the transfer's.
func TestTapSeesThePromptMark(t *testing.T) {
	const nonce = "0123abcd"
	tap := &Tap{s: &Session{terminal: terminal{det: verdict.NewDetector(nonce, 0)}}, wake: make(chan struct{})}
	tap.WatchEnd(true)
	rest := "55;ttymux=" + nonce + "\a\x1b[?2004h$ "
	before := "far data\r\n\x1b]133;C;ttymux=" + nonce + "\a\x1b]133;D;0;ttymux=ffff\agone\r\n\x1b]133;D;2"
	for _, p := range []string{"far data\r\n", "\x1b]133;C;ttymux=" + nonce + "\a", "\x1b]133;D;0;ttymux=ffff\a", "gone\r\n\x1b]133;D;2", rest, "more"} {
		tap.put([]byte(p))
	}
	got, err := io.ReadAll(tap)
	var fe *FarEndedError
	if !errors.As(err, &fe) || fe.Status != "255" || !tap.reached {
		t.Fatalf("read error %v (reached %v), want a FarEndedError with status 255", err, tap.reached)
	}
	if string(got) != before {
		t.Fatalf("the transfer read %q, want %q", got, before)
	}
	if want := "\x1b]133;D;2" + rest + "more"; string(tap.held) != want {
		t.Fatalf("held for the session: %q, want %q (the whole mark and what followed)", tap.held, want)
	}
	tap.WatchEnd(false) // the transfer returns: what it reached stays
	// The shell that came back reads the typed-ahead lines: a prompt each.
	tap.put([]byte("\r\n\x1b]133;D;0;ttymux=" + nonce + "\a$ \r\n\x1b]133;D;0;ttymux=" + nonce + "\a$ "))
	if got, want := string(tap.own()), "\x1b]133;D;255;ttymux="+nonce+"\a\x1b]133;D;0;ttymux="+nonce+"\a$ "; got != want {
		t.Fatalf("the session gets %q, want %q (the mark and the last prompt)", got, want)
	}
}

// TestTapReleaseWhileFlooded: a far end that floods the terminal past
// what a tap holds, while the transfer has stopped reading, does not keep
// the terminal from going back to the session: the pump's put gives up
// once Release has begun, and Release ends.
func TestTapReleaseWhileFlooded(t *testing.T) {
	s := &Session{terminal: terminal{now: time.Now}}
	s.sendMu.Lock() // as Borrow leaves it
	// The far end never goes quiet: Release waits out its limit, shortened
	// here (the default, 5 s, was this package's third slowest test).
	tap := &Tap{s: s, wake: make(chan struct{}), releaseLimit: 200 * time.Millisecond}
	s.tap = tap
	stop := make(chan struct{})
	pumped := make(chan struct{})
	go func() { // the pump: feedMu held across each put, as in pump
		defer close(pumped)
		chunk := make([]byte, 32<<10)
		for {
			select {
			case <-stop:
				return
			default:
			}
			s.feedMu.Lock()
			s.tapped(chunk)
			s.feedMu.Unlock()
		}
	}()
	released := make(chan struct{})
	go func() {
		tap.Release(10 * time.Millisecond)
		close(released)
	}()
	select {
	case <-released:
	case <-time.After(30 * time.Second):
		t.Fatal("Release did not end while the far end flooded")
	}
	close(stop)
	<-pumped
	if s.tap != nil {
		t.Fatal("the tap is still the session's after Release")
	}
}
