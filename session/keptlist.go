package session

import (
	"context"
	"sync"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// keptFresh is how old the local agent's session list may be before List
// asks the agent again, in the background: the answer List gives meanwhile
// is the one it has.
const keptFresh = time.Second

// keptTimeout bounds a background refresh, which CloseAll waits for.
const keptTimeout = 3 * time.Second

// keptList is the local agent's session list as List last learnt it, so
// that list answers from this server's own state instead of a connection,
// handshake and round trip to the agent each time (issue #17). It matters
// only for the sessions this server has not attached ("detached"): those
// change when another server or a human's ttymux attaches, opens or closes
// one, which the background refresh sees within keptFresh, and when this
// server detaches or closes one, which marks the list stale (changed) so the
// next List asks at once.
type keptList struct {
	mu       sync.Mutex // mu protects the following
	sessions []transport.KeptSession
	at       time.Time // when sessions was learnt; zero: ask before answering
	gen      uint64    // bumped by changed: an answer asked for before is not kept
	fetching bool      // a background refresh runs

	wg sync.WaitGroup // the background refresh (waited for by wait)
}

// changed says this server changed the agent's sessions (a detach, a
// close): the next List asks the agent.
func (c *keptList) changed() {
	c.mu.Lock()
	c.gen++
	c.at = time.Time{}
	c.mu.Unlock()
}

// wait waits for a background refresh to end.
func (c *keptList) wait() { c.wg.Wait() }

// keptSessions returns the sessions k holds: the list learnt within
// keptFresh, or an older one while a refresh runs in the background, or,
// when none is known or this server changed them, k's answer now.
func (c *keptList) keptSessions(ctx context.Context, k transport.Keeper, log func(error)) []transport.KeptSession {
	c.mu.Lock()
	if !c.at.IsZero() {
		ss := c.sessions
		if time.Since(c.at) > keptFresh && !c.fetching {
			c.fetching = true
			gen := c.gen
			c.wg.Go(func() {
				// Not the caller's ctx: the call has been answered.
				ctx, cancel := context.WithTimeout(context.Background(), keptTimeout)
				defer cancel()
				c.fetch(ctx, k, gen, log)
				c.mu.Lock()
				c.fetching = false
				c.mu.Unlock()
			})
		}
		c.mu.Unlock()
		return ss
	}
	gen := c.gen
	c.mu.Unlock()
	return c.fetch(ctx, k, gen, log)
}

// fetch asks k and keeps the answer unless the list changed meanwhile. An
// agent that cannot answer holds no sessions this server can show, as
// before the list was kept.
func (c *keptList) fetch(ctx context.Context, k transport.Keeper, gen uint64, log func(error)) []transport.KeptSession {
	ss, err := k.List(ctx)
	if err != nil {
		log(err)
		ss = nil
	}
	c.mu.Lock()
	if c.gen == gen {
		c.sessions, c.at = ss, time.Now()
	}
	c.mu.Unlock()
	return ss
}
