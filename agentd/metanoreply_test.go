package agentd

import (
	"fmt"
	"testing"

	"github.com/ttymux/ttymux/agentd/agentproto"
)

// TestSetMetaNoReply: the agent advertises CapMetaNoReply in its
// AttachReply and stores a SetMeta with NoReply without answering it,
// while a SetMeta without it (an older client's, which does not know the
// field) is still answered, in order (issue #17).
func TestSetMetaNoReply(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	if tc.rep.Caps&agentproto.CapMetaNoReply == 0 {
		t.Fatalf("AttachReply caps %b, want CapMetaNoReply", tc.rep.Caps)
	}
	tc.send(agentproto.SetMeta{Meta: []byte("quiet"), NoReply: true})
	tc.send(agentproto.SetMeta{Meta: make([]byte, MaxMeta+1), NoReply: true}) // refused, silently
	tc.send(agentproto.SetMeta{Meta: []byte("answered")})
	tc.until("the answered SetMeta's reply", func() bool { return len(tc.replies) == 1 })
	if tc.replies[0].Status != agentproto.StatusOK {
		t.Errorf("reply %+v: it answers the oversized NoReply SetMeta, not the last one", tc.replies[0])
	}
	if s, _ := ta.info(t, "s1"); string(s.Meta) != "answered" {
		t.Errorf("Meta = %q, want answered", s.Meta)
	}
	tc.send(agentproto.SetMeta{Meta: []byte("quiet again"), NoReply: true})
	tc.send(agentproto.SetMeta{Meta: []byte("last")})
	tc.until("the second reply", func() bool { return len(tc.replies) == 2 })
	tc.input("echo done-$((6*7))\r")
	tc.waitOutput("done-42")
	if len(tc.replies) != 2 {
		t.Errorf("%d replies, want 2: a NoReply SetMeta was answered", len(tc.replies))
	}
	// Frames are applied in order: once the echo's output is back, the
	// NoReply SetMeta before it is stored.
	tc.send(agentproto.SetMeta{Meta: []byte("stored quietly"), NoReply: true})
	tc.input("echo again-$((6*7))\r")
	tc.waitOutput("again-42")
	if s, _ := ta.info(t, "s1"); string(s.Meta) != "stored quietly" {
		t.Errorf("Meta = %q, want the NoReply SetMeta's", s.Meta)
	}
	if len(tc.replies) != 2 {
		t.Errorf("%d replies, want 2", len(tc.replies))
	}
}

// TestMetaSentBeforeLeavingIsKept: a client that stores its read position
// and detaches while output is still streaming to it (a server shutting
// down mid-command) leaves with its metadata stored, however the agent's
// writer and reader race: the writer's failed write must not throw away
// frames the client sent before it went. Before, a restarted server now
// and then resumed from the previous read position and returned output
// twice (session TestRestartResumesExactly).
func TestMetaSentBeforeLeavingIsKept(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	tc.input("yes flood-of-output\r") // never ends; nobody reads it below
	tc.waitOutput("flood-of-output\r\n")
	tc.sendFrame(agentproto.TypeDetach, nil)
	_ = tc.c.Close()
	ta.ev.wait(t, EventDetached, "s1")
	for i := range 40 {
		c := ta.attach(t, agentproto.Attach{ID: "s1", FromEnd: true}, agentproto.StatusAttached)
		want := fmt.Sprintf("read-off-%d", i)
		c.send(agentproto.SetMeta{Meta: []byte(want), NoReply: true})
		c.sendFrame(agentproto.TypeDetach, nil)
		_ = c.c.Close()
		ta.ev.wait(t, EventDetached, "s1")
		if s, _ := ta.info(t, "s1"); string(s.Meta) != want {
			t.Fatalf("attach %d: Meta = %q, want %q: the agent dropped a SetMeta sent before the client left", i, s.Meta, want)
		}
	}
}
