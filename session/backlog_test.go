package session

import (
	"log/slog"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// backlogConn is a scriptConn whose kernel queue the test fills: Unread
// reports bytes the device has sent that no Read has returned yet.
type backlogConn struct {
	*scriptConn
	mu     sync.Mutex
	unread int
	asked  chan struct{} // closed at the first Unread
	once   sync.Once
}

func (c *backlogConn) Unread() (int, error) {
	c.once.Do(func() { close(c.asked) })
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.unread, nil
}

// TestSendTakesTheBacklogFirst: a console printed its prompt just before a
// send, and the session's reader has not read it yet (a loaded machine).
// The send waits for the reader, so the prompt is not taken for the send's
// output, and until "# $" matches the answer's prompt, not that one.
func TestSendTakesTheBacklogFirst(t *testing.T) {
	c := &backlogConn{scriptConn: newScriptConn(), asked: make(chan struct{})}
	c.unread = len("\r\n# ")
	written := make(chan struct{})
	var wonce sync.Once
	c.onWrite = func(p []byte) {
		wonce.Do(func() { close(written) })
	}
	s := newSession(sessionConfig{
		id: "t1", transport: "serial", command: "serial /dev/ttyUSB0", conn: c, size: transport.DefaultSize,
		log: slog.New(slog.DiscardHandler),
	})
	t.Cleanup(func() { _ = s.Close() })
	go func() {
		// The prompt reaches the reader once the send looked at the queue
		// (or, without that look, once the send was typed: too late).
		select {
		case <-c.asked:
		case <-written:
		}
		c.mu.Lock()
		c.unread = 0
		c.mu.Unlock()
		c.emit("\r\n# ")
		<-written
		c.emit("uname -a\r\nLinux router\r\n# ")
	}()
	r, err := s.Send(t.Context(), SendRequest{Text: "uname -a", Until: "# $", Wait: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || r.Output != "Linux router\n# " && r.Output != "Linux router" {
		t.Fatalf("send after a prompt the reader had not read: complete=%v via=%q output=%q; want Linux router", r.Complete, r.Via, r.Output)
	}
}
