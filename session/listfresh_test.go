package session_test

import (
	"context"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// TestListSeesChangeBetweenLists: list keeps each session's rendered last
// line from one list to the next; a session that printed, started a
// program or went back to its prompt in between shows that in the next
// list, never the state of the one before.
func TestListSeesChangeBetweenLists(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	state := func() session.Info {
		t.Helper()
		for _, i := range m.List(ctx) {
			if i.ID == s.ID() {
				return i
			}
		}
		t.Fatalf("session %s not listed", s.ID())
		return session.Info{}
	}
	send(t, s, session.SendRequest{Text: "echo one"})
	first := state()
	if first.State != "prompt" {
		t.Fatalf("after echo: %q", first.State)
	}
	if again := state(); again.State != "prompt" || again.Bytes != first.Bytes {
		t.Fatalf("unchanged session listed twice: %+v, then %+v", first, again)
	}
	if r := send(t, s, session.SendRequest{Text: "read -s -p 'Password: ' pw"}); r.State != "password_prompt" {
		t.Fatalf("read -s: send says %q", r.State)
	}
	if i := state(); i.State != "password_prompt" || i.Bytes == first.Bytes {
		t.Fatalf("list after the password prompt: %q, %d bytes (was %d)", i.State, i.Bytes, first.Bytes)
	}
	send(t, s, session.SendRequest{Text: "x", Secret: true})
	if i := state(); i.State != "prompt" {
		t.Fatalf("list after the answer: %q", i.State)
	}
}
