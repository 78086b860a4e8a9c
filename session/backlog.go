package session

import (
	"context"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// catchUpMax bounds how long a send waits for the session's reader to take
// output the far end had already made.
const catchUpMax = 250 * time.Millisecond

// catchUp waits, at most catchUpMax, until the pump has read the output the
// kernel held when the send began (transport.Backlog: a local PTY, a serial
// port). Without it, output made before the send but read after it was
// typed (a console's prompt, a background job's line, on a loaded machine)
// would be taken for the send's own output, and could match its until.
func (s *Session) catchUp(ctx context.Context) {
	b, ok := s.conn.(transport.Backlog)
	if !ok {
		return
	}
	n, err := b.Unread()
	if err != nil || n <= 0 {
		return
	}
	s.mu.Lock()
	target := s.ring.End() + int64(n)
	s.mu.Unlock()
	t := time.NewTimer(catchUpMax)
	defer t.Stop()
	for {
		s.mu.Lock()
		if s.ring.End() >= target || s.exited || s.closed {
			s.mu.Unlock()
			return
		}
		ch := s.changedLocked()
		s.mu.Unlock()
		select {
		case <-ch:
		case <-t.C:
			s.log.Debug("send typed before the reader caught up", "unread", n)
			return
		case <-ctx.Done():
			return
		}
	}
}
