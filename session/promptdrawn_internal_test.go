package session

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

type connOpener struct{ c transport.Conn }

func (o connOpener) Open(context.Context, transport.Target) (transport.Conn, error) { return o.c, nil }

// TestOpenWaitsForThePromptOfAPS1Hook: a shell hooked through PS1 (ash,
// dash, mksh: the D mark carries c=0) prints its D before the prompt, and
// BusyBox ash asks for the cursor (ESC[6n) right after the prompt. Open
// returned at the D, so the first send could be typed before the query
// came and before its answer, which the command then read (echoed into its
// output as ^[[1;3R over SSH). Open now waits for the prompt's B mark, and
// the query asked at a shell's prompt is not answered at all (an answer
// typed there would be read as part of the next command line, #31): the
// command is written alone.
func TestOpenWaitsForThePromptOfAPS1Hook(t *testing.T) {
	c := newScriptConn()
	var mu sync.Mutex
	var writes []string
	c.onWrite = func(p []byte) {
		mu.Lock()
		writes = append(writes, string(p))
		mu.Unlock()
	}
	k := Kind{Name: "ssh", Opener: connOpener{c}, Prepare: func(o *Opening) { o.Nonce, o.Shell = testNonce, true }}
	m := NewManager(Options{Kinds: []Kind{k}, StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	c.emit("\x1b]133;D;0;c=0;ttymux=" + testNonce + "\x07")
	opened := make(chan *Session, 1)
	go func() {
		s, err := m.Open(t.Context(), OpenRequest{Transport: "ssh", Target: transport.SSHTarget("router")})
		if err != nil {
			t.Error(err)
		}
		opened <- s
	}()
	select {
	case <-opened:
		t.Fatal("Open returned before the prompt after the D mark was drawn")
	case <-time.After(100 * time.Millisecond):
	}
	c.emit("# \x1b]133;B;ttymux=" + testNonce + "\x07\x1b[6n")
	var s *Session
	select {
	case s = <-opened:
	case <-time.After(10 * time.Second):
		t.Fatal("Open did not return after the prompt")
	}
	if s == nil {
		t.FailNow()
	}
	if _, err := s.Send(t.Context(), SendRequest{Text: "echo hi", Enter: true}); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	got := strings.Join(writes, "|")
	if !strings.HasPrefix(got, "echo hi") || strings.Contains(got, "\x1b[") {
		t.Fatalf("writes %q: want the command alone, no answer to ESC[6n typed at the prompt", got)
	}
}
