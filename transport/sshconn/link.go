package sshconn

import (
	"context"
	"errors"
	"sync"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/transport"
)

// A Link is a reference to one pooled SSH connection, for callers that need
// more of it than a terminal session: running commands, uploading files,
// reaching a Unix socket on the host (direct-streamlocal). It keeps the
// connection open until Release, sharing it with every session to the same
// user, host, port and jump chain.
type Link struct {
	o    *Opener
	c    *client
	once sync.Once
}

// Link returns a reference to the pooled connection to t's host, dialling
// (and authenticating, and verifying the host key) as Open does when none is
// up. Only t's SSH fields matter. Release it when done.
func (o *Opener) Link(ctx context.Context, t transport.Target) (*Link, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.SSH().Host == "" {
		return nil, errors.New("ssh: no host given")
	}
	cfg, hops, err := o.resolveChain(ctx, t)
	if err != nil {
		return nil, err
	}
	key := poolKey(&cfg, hops)
	for attempt := 0; ; attempt++ {
		c, err := o.acquire(ctx, key, func() (*client, error) { return o.connect(ctx, t, &cfg, hops) })
		if err != nil {
			return nil, err
		}
		if c.broken() == nil || attempt > 0 {
			return &Link{o: o, c: c}, nil
		}
		// A pooled connection that died since: take a fresh one.
		o.retire(c)
		o.release(c)
	}
}

// Client returns the SSH client. Do not Close it: Release the Link.
func (l *Link) Client() *ssh.Client { return l.c.ssh }

// Done is closed when the connection is gone (the link dropped, a
// keepalive timed out, or the Opener closed).
func (l *Link) Done() <-chan struct{} { return l.c.dead }

// Err says why the connection is gone (a *LinkError, or an error wrapping
// ErrOpenerClosed), or nil while it is up.
func (l *Link) Err() error { return l.c.linkError() }

// Host is the host's alias, for messages.
func (l *Link) Host() string { return l.c.host }

// Release drops the reference; the connection closes after its last user.
// Release is idempotent.
func (l *Link) Release() { l.once.Do(func() { l.o.release(l.c) }) }
