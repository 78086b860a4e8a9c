package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/transport"
)

// Backoff bounds for re-attaching after the link to an agent broke.
const (
	reconnectFirst = 100 * time.Millisecond
	reconnectMax   = 5 * time.Second
)

// reattachFunc attaches to the session again, streaming from offset from.
type reattachFunc func(ctx context.Context, from int64) (*Conn, error)

// Resilient is a KeptConn that outlives the link to its agent: when the
// connection breaks (a remote host's SSH link dropped), Read keeps blocking
// while it re-attaches with backoff, from the offset of the next byte it
// owes, so output produced meanwhile arrives exactly once and in order.
// LinkState says "disconnected" while the link is down; Write fails then
// rather than queueing keystrokes for an unknown later.
//
// It gives up when the session is gone (the agent no longer holds it),
// when GiveUp has passed without a link, or on Close.
type Resilient struct {
	id       string
	reattach reattachFunc
	giveUp   time.Duration
	log      *slog.Logger

	mu        sync.Mutex // protects the following
	cur       *Conn
	othersWas int64 // TypedByOthers of the attachments before cur
	down      bool  // the link is broken; re-attaching
	downSince time.Time
	downErr   error  // why it broke
	meta      []byte // the last SetMeta, replayed after a re-attach
	metaSet   bool
	closed    bool
	closing   chan struct{} // closed by Close: wakes a backoff
	end       chan struct{} // closed when endErr is known
	endErr    error
	endOnce   sync.Once
}

var (
	_ transport.KeptConn     = (*Resilient)(nil)
	_ transport.Resizer      = (*Resilient)(nil)
	_ transport.Signaler     = (*Resilient)(nil)
	_ transport.Foregrounder = (*Resilient)(nil)
	_ transport.EchoReporter = (*Resilient)(nil)
	_ transport.LinkStater   = (*Resilient)(nil)
	_ transport.SharedInput  = (*Resilient)(nil)
	_ transport.PersonWriter = (*Resilient)(nil)
)

// NewResilient wraps c, a fresh attachment, so that Read re-attaches
// through reattach when the link breaks. giveUp bounds how long it tries
// (0: until Close).
func newResilient(c *Conn, reattach reattachFunc, giveUp time.Duration, log *slog.Logger) *Resilient {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Resilient{id: c.id, cur: c, reattach: reattach, giveUp: giveUp, log: log,
		closing: make(chan struct{}), end: make(chan struct{})}
}

// ID returns the session's id.
func (r *Resilient) ID() string { return r.id }

func (r *Resilient) conn() *Conn {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.cur
}

// Offset returns the offset of the next byte Read returns.
func (r *Resilient) Offset() int64 { return r.conn().Offset() }

func (r *Resilient) finish(err error) {
	r.endOnce.Do(func() {
		r.endErr = err
		close(r.end)
	})
}

// Read returns the session's output in order, across re-attaches. It
// returns io.EOF after the program's exit and its last output, a
// *transport.GapError for output the agent no longer held when it
// re-attached, and a final error matching ErrAgentLost when the session
// could not be reached again.
func (r *Resilient) Read(p []byte) (int, error) {
	for {
		c := r.conn()
		n, err := c.Read(p)
		if err == nil || n > 0 {
			return n, err
		}
		var gap *transport.GapError
		switch {
		case errors.As(err, &gap):
			return 0, err
		case err == io.EOF:
			r.finish(c.Wait())
			return 0, io.EOF
		case errors.Is(err, ErrDetached):
			r.finish(err)
			return 0, err
		case !errors.Is(err, ErrAgentLost):
			r.finish(err)
			return 0, err
		}
		if ferr := r.recover(c, err); ferr != nil {
			r.finish(ferr)
			return 0, ferr
		}
	}
}

// recover re-attaches after c's link broke with err, with backoff. It
// returns nil once a new attachment is current, or the final error.
func (r *Resilient) recover(c *Conn, err error) error {
	from := c.Offset()
	r.mu.Lock()
	r.down, r.downSince, r.downErr = true, time.Now(), err
	r.mu.Unlock()
	r.log.Warn("link to agent session lost; re-attaching", "session", r.id, "offset", from, "err", err)
	delay := reconnectFirst
	for attempt := 1; ; attempt++ {
		t := time.NewTimer(delay)
		select {
		case <-r.closing:
			t.Stop()
			return c.detachedErr()
		case <-t.C:
		}
		ctx, cancel := context.WithTimeout(context.Background(), agentlink.SetupTimeout)
		go func() { // Close wakes a dial in progress
			select {
			case <-r.closing:
				cancel()
			case <-ctx.Done():
			}
		}()
		nc, aerr := r.reattach(ctx, from)
		cancel()
		if aerr == nil {
			r.mu.Lock()
			if r.closed {
				r.mu.Unlock()
				_ = nc.Close()
				return c.detachedErr()
			}
			r.othersWas += r.cur.TypedByOthers()
			r.cur, r.down, r.downErr = nc, false, nil
			meta, metaSet := r.meta, r.metaSet
			r.mu.Unlock()
			if metaSet {
				_ = nc.SetMeta(meta) // a refusal is logged by Read
			}
			r.log.Info("re-attached to agent session", "session", r.id, "offset", from, "attempts", attempt)
			return nil
		}
		if errors.Is(aerr, transport.ErrNoSession) {
			return fmt.Errorf("session %s: %w: the agent no longer holds it (%v)", r.id, ErrAgentLost, aerr)
		}
		r.mu.Lock()
		closed, since := r.closed, r.downSince
		r.mu.Unlock()
		if closed {
			return c.detachedErr()
		}
		if r.giveUp > 0 && time.Since(since) >= r.giveUp {
			return fmt.Errorf("session %s: %w and could not be re-attached for %v (%v); it may still be running: attach it later", r.id, ErrAgentLost, r.giveUp.Round(time.Second), aerr)
		}
		r.log.Debug("re-attach failed; retrying", "session", r.id, "attempt", attempt, "err", aerr)
		delay = min(2*delay, reconnectMax)
	}
}

// LinkState reports transport.LinkDisconnected while re-attaching.
func (r *Resilient) LinkState() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.down {
		return transport.LinkDisconnected
	}
	return transport.LinkUp
}

func (r *Resilient) downError() error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.down {
		return nil
	}
	return fmt.Errorf("session %s: the link to its agent is down (%v) and is being re-established; output keeps being captured by the agent: read {wait: true} or try again shortly", r.id, r.downErr)
}

// Write sends p to the session's terminal. While the link is down it
// fails at once.
func (r *Resilient) Write(p []byte) (int, error) {
	if err := r.downError(); err != nil {
		return 0, err
	}
	return r.conn().Write(p)
}

// WritePerson sends keys a person typed through this client
// (Conn.WritePerson).
func (r *Resilient) WritePerson(p []byte) (int, error) {
	if err := r.downError(); err != nil {
		return 0, err
	}
	return r.conn().WritePerson(p)
}

// PersonCounted reports the current attachment's Conn.PersonCounted:
// keys typed while the link was down went uncounted.
func (r *Resilient) PersonCounted() (int64, bool) { return r.conn().PersonCounted() }

// Resize changes the session's window size.
func (r *Resilient) Resize(ctx context.Context, sz transport.Size) error {
	if err := r.downError(); err != nil {
		return err
	}
	return r.conn().Resize(ctx, sz)
}

// Signal sends sig to the session's foreground process group.
func (r *Resilient) Signal(ctx context.Context, sig transport.Signal) error {
	if err := r.downError(); err != nil {
		return err
	}
	return r.conn().Signal(ctx, sig)
}

// SetMeta replaces the session's metadata; while the link is down it is
// kept and sent after the re-attach.
func (r *Resilient) SetMeta(meta []byte) error {
	r.mu.Lock()
	r.meta, r.metaSet = append([]byte(nil), meta...), true
	down, c := r.down, r.cur
	r.mu.Unlock()
	if down {
		return nil
	}
	return c.SetMeta(meta)
}

// Redact masks output [from, to) in the agent's ring (Conn.Redact); while
// the link is down it fails, and the caller tries again later.
func (r *Resilient) Redact(from, to int64) error {
	if err := r.downError(); err != nil {
		return err
	}
	return r.conn().Redact(from, to)
}

// Foreground returns the foreground process the agent last reported.
func (r *Resilient) Foreground() (transport.Foreground, error) { return r.conn().Foreground() }

// TypedByOthers returns the input other clients wrote, across re-attaches.
func (r *Resilient) TypedByOthers() int64 {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.othersWas + r.cur.TypedByOthers()
}

// Echo returns the terminal's ECHO flag as the agent last reported it.
func (r *Resilient) Echo() (bool, error) { return r.conn().Echo() }

// Wait blocks until Read has returned its final error: nil or a
// *transport.ExitError after the program's exit, else why the session can
// no longer be read.
func (r *Resilient) Wait() error {
	<-r.end
	return r.endErr
}

// Close detaches; the session keeps running in the agent.
func (r *Resilient) Close() error {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil
	}
	r.closed = true
	close(r.closing)
	c := r.cur
	r.mu.Unlock()
	err := c.Close()
	r.finish(c.detachedErr())
	return err
}
