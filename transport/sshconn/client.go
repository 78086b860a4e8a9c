package sshconn

import (
	"errors"
	"log/slog"
	"net"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// client is one pooled SSH connection (and the jump connections it runs
// through). Sessions hold references; the Opener closes it after the last
// one. It owns its goroutines (the watcher, the keepalive, and each
// session's setup and output goroutines) through wg, and shutdown waits for
// them.
type client struct {
	o    *Opener
	key  string // pool key
	id   string // key plus a serial number, for Conn.Client
	host string // alias, for messages
	addr string
	ssh  *ssh.Client
	hops []*ssh.Client // jump connections, first hop first
	log  *slog.Logger

	keepaliveInterval time.Duration
	keepaliveMax      int

	refs int // guarded by o.mu

	wg           sync.WaitGroup
	dead         chan struct{} // closed once the connection is gone
	shutdownOnce sync.Once

	mu      sync.Mutex // protects the following
	reason  error      // why the connection died; first cause wins
	closing bool       // shutdown has begun: no new goroutines
}

// spawn runs f on a goroutine shutdown waits for, unless shutdown has
// begun (then it reports false and does nothing).
func (c *client) spawn(f func()) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.closing {
		return false
	}
	c.wg.Go(f)
	return true
}

// watchedConn records the first read error of the transport's connection.
// x/crypto closes every channel when its reader fails, before Client.Wait
// returns, so without this a session could see a plain EOF before anyone
// knows the link died. The read error happens before the channel closes.
type watchedConn struct {
	net.Conn
	c *client
}

func (w *watchedConn) Read(b []byte) (int, error) {
	n, err := w.Conn.Read(b)
	if err != nil && w.c != nil {
		w.c.fail(err)
	}
	return n, err
}

// fail records why the connection is unusable, keeping the first cause.
func (c *client) fail(err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.reason == nil {
		c.reason = err
	}
}

// broken returns why the connection died, or nil while it is up.
func (c *client) broken() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.reason
}

// linkError turns the recorded cause into what sessions report.
func (c *client) linkError() error {
	err := c.broken()
	if err == nil {
		return nil
	}
	var le *LinkError
	if errors.As(err, &le) || errors.Is(err, ErrOpenerClosed) {
		return err
	}
	return &LinkError{Host: c.host, Addr: c.addr, Err: err}
}

// start launches the watcher and the keepalive; called once, under o.mu,
// as the client enters the pool.
func (c *client) start() {
	c.spawn(func() {
		err := c.ssh.Wait()
		if err == nil {
			err = errors.New("connection closed")
		}
		c.fail(err)
		close(c.dead)
		c.o.retire(c)
		// The jump connections only carry this one; close them too.
		for i := len(c.hops) - 1; i >= 0; i-- {
			_ = c.hops[i].Close() // best effort: the tunnel is gone already
		}
	})
	if c.keepaliveInterval > 0 {
		c.spawn(c.keepalive)
	}
}

// keepalive sends keepalive@openssh.com every interval, as ssh(1) does for
// ServerAliveInterval (ssh_config(5)). Any reply (sshd answers "failure")
// proves the link is up. A request still unanswered after keepaliveMax more
// intervals means the link is black-holed: the connection is closed, which
// ends every session on it with a *LinkError. Like ssh(1) it notices after
// (ServerAliveCountMax+1) intervals at most.
func (c *client) keepalive() {
	t := time.NewTicker(c.keepaliveInterval)
	defer t.Stop()
	var inflight sync.WaitGroup // the outstanding request
	defer inflight.Wait()       // it fails once the connection closes
	replied := make(chan struct{}, 1)
	pending, missed := false, 0
	for {
		select {
		case <-c.dead:
			return
		case <-replied:
			pending, missed = false, 0
		case <-t.C:
			if pending {
				if missed++; missed >= c.keepaliveMax {
					le := &LinkError{Host: c.host, Addr: c.addr, BlackHoled: true, Missed: missed, Interval: c.keepaliveInterval,
						Err: errors.New("no reply to keepalives")}
					c.fail(le)
					c.log.Warn("ssh keepalive timed out; closing the connection", "missed", missed, "interval", c.keepaliveInterval)
					_ = c.ssh.Close() // wakes the watcher and every session
					return
				}
				continue
			}
			pending = true
			inflight.Go(func() {
				if _, _, err := c.ssh.SendRequest("keepalive@openssh.com", true, nil); err == nil {
					select {
					case replied <- struct{}{}:
					default:
					}
				}
			})
		}
	}
}

// shutdown closes the connection (recording why, if it was still up) and
// waits for every goroutine it owns. Idempotent.
func (c *client) shutdown(why error) {
	c.shutdownOnce.Do(func() {
		if why == nil {
			why = errors.New("connection closed after its last session")
		}
		c.fail(why)
		c.mu.Lock()
		c.closing = true
		c.mu.Unlock()
		_ = c.ssh.Close() // the watcher closes the jump connections
		c.wg.Wait()
		for i := len(c.hops) - 1; i >= 0; i-- {
			_ = c.hops[i].Close() // idempotent with the watcher's close
		}
		c.log.Debug("ssh connection closed", "why", why)
	})
}
