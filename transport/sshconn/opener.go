package sshconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os/user"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
)

// defaultHandshakeTimeout bounds connecting and the SSH handshake when
// neither Opener.HandshakeTimeout nor ConnectTimeout is set.
const defaultHandshakeTimeout = 15 * time.Second

// defaultTerm is what ttymux's screen emulates.
const defaultTerm = "xterm-256color"

// Opener opens SSH sessions and pools the connections they run on. The zero
// value is ready to use; its fields must not change after the first Open.
// Close it to end every connection.
type Opener struct {
	// Config says where the OpenSSH configuration comes from.
	Config sshconf.Options
	// Logger receives connection events (connected, host key recorded,
	// keepalive failures). nil discards them. Secrets are never logged.
	Logger *slog.Logger
	// Dial makes the TCP connection to the first host (the target, or the
	// first jump host). nil means a net.Dialer.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// HandshakeTimeout bounds the TCP connect plus the SSH handshake and
	// authentication of each hop. Zero means the host's ConnectTimeout,
	// else 15s.
	HandshakeTimeout time.Duration

	// resolve is sshconf.Resolve; tests replace it (export_test.go).
	resolve func(ctx context.Context, host string, ov sshconf.Overrides, opts sshconf.Options) (sshconf.Config, error)

	khMu sync.Mutex // serialises appends to known_hosts files

	mu sync.Mutex // protects the following
	// pool holds the connection new sessions of a key go to. A connection
	// that died, or that the server refused more sessions on, leaves the
	// pool but lives on until its last session closes.
	pool    map[string]*client
	dialing map[string]chan struct{} // closed when that key's dial ends
	all     map[*client]struct{}     // every live connection, for Close
	serial  int
	closed  bool
}

var (
	_ transport.Opener   = (*Opener)(nil)
	_ transport.Conn     = (*Conn)(nil)
	_ transport.Resizer  = (*Conn)(nil)
	_ transport.Signaler = (*Conn)(nil)
)

func (o *Opener) logger() *slog.Logger {
	if o.Logger != nil {
		return o.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// Open starts a session on t.Host: the login shell when t.Command is empty,
// else t.Command (with a pty either way). It reuses a live connection to the
// same user, host, port and jump chain, or makes one: resolve the host with
// sshconf, connect (through each ProxyJump hop), verify the host key against
// known_hosts and authenticate. ctx bounds this setup only.
//
// Errors are typed (see errors.go): *NameError, *RefusedError,
// *TimeoutError, *DialError, *UnknownHostKeyError, *HostKeyChangedError,
// *AuthError, and *JumpError around any of them for a hop.
func (o *Opener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	if t.SSH().Host == "" {
		return nil, errors.New("ssh: no host given")
	}
	size := t.Size
	if size == (transport.Size{}) {
		size = transport.DefaultSize
	}
	if !size.Valid() {
		return nil, fmt.Errorf("invalid window size %dx%d", size.Rows, size.Cols)
	}
	for _, kv := range t.Env {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("environment entry %q: want KEY=value", kv)
		}
	}
	cfg, hops, err := o.resolveChain(ctx, t)
	if err != nil {
		return nil, err
	}
	key := poolKey(&cfg, hops)
	// Two tries: a pooled connection may turn out dead, or full (sshd's
	// MaxSessions), when the session is opened on it.
	for attempt := 0; ; attempt++ {
		c, err := o.acquire(ctx, key, func() (*client, error) { return o.connect(ctx, t, &cfg, hops) })
		if err != nil {
			return nil, err
		}
		conn, err := c.openSession(ctx, t, size)
		if err == nil {
			return conn, nil
		}
		var oce *ssh.OpenChannelError
		retry := attempt == 0 && ctx.Err() == nil && (c.broken() != nil || errors.As(err, &oce) || errors.Is(err, io.EOF))
		if retry {
			o.retire(c)
		}
		o.release(c)
		if !retry {
			return nil, err
		}
	}
}

// resolveChain resolves the target and each jump hop. Hops are resolved
// with their own config but without their own ProxyJump: the chain is the
// target's (docs/ssh.md).
func (o *Opener) resolveChain(ctx context.Context, t transport.Target) (sshconf.Config, []sshconf.Config, error) {
	resolve := o.resolve
	if resolve == nil {
		resolve = sshconf.Resolve
	}
	p := t.SSH()
	cfg, err := resolve(ctx, p.Host, sshconf.Overrides{User: p.User, Port: p.Port, IdentityFile: p.IdentityFile, Jump: p.Jump}, o.Config)
	if err != nil {
		return cfg, nil, fmt.Errorf("ssh: resolve host %q: %w", p.Host, err)
	}
	fillDefaults(&cfg, p.Host, o.Config.LocalUser)
	if err := noProxyCommand(&cfg); err != nil {
		return cfg, nil, err
	}
	var hops []sshconf.Config
	for i, j := range cfg.ProxyJump {
		hc, err := resolve(ctx, j.Host, sshconf.Overrides{User: j.User, Port: j.Port, Jump: "none"}, o.Config)
		if err != nil {
			return cfg, nil, &JumpError{Hop: i + 1, Hops: len(cfg.ProxyJump), Host: j.Host, Err: fmt.Errorf("resolve: %w", err)}
		}
		fillDefaults(&hc, j.Host, o.Config.LocalUser)
		if err := noProxyCommand(&hc); err != nil {
			return cfg, nil, &JumpError{Hop: i + 1, Hops: len(cfg.ProxyJump), Host: j.Host, Err: err}
		}
		hops = append(hops, hc)
	}
	return cfg, hops, nil
}

// noProxyCommand refuses a host that ssh(1) would reach through a
// ProxyCommand: dialling it directly instead could bypass the route the
// user configured.
func noProxyCommand(c *sshconf.Config) error {
	if c.ProxyCommand == "" || c.ProxyCommand == "none" {
		return nil
	}
	return fmt.Errorf("ssh: %s is configured to connect through ProxyCommand %q, which ttymux does not run; express the route as ProxyJump in ~/.ssh/config, or pass jump (a ProxyJump chain) to override it", c.Alias, c.ProxyCommand)
}

// fillDefaults covers fields a resolver may leave empty.
func fillDefaults(c *sshconf.Config, host, localUser string) {
	if c.Alias == "" {
		c.Alias = host
	}
	if c.HostName == "" {
		c.HostName = host
	}
	if c.Port == 0 {
		c.Port = 22
	}
	if c.User == "" {
		c.User = localUser
	}
	if c.User == "" {
		if u, err := user.Current(); err == nil {
			c.User = u.Username
		}
	}
}

// addr is the host:port of c.
func addr(c *sshconf.Config) string {
	return net.JoinHostPort(c.HostName, strconv.Itoa(c.Port))
}

// poolKey identifies a connection: user, host, port and the jump chain, and
// what decides whom the connection trusts and is trusted as: the host key
// lookup (HostKeyAlias, known_hosts files, StrictHostKeyChecking) and the
// identity files. Two aliases for one address share a connection only when
// both agree on those, so each alias's own known_hosts check and its own key
// (an authorized_keys entry may restrict one key and not another) apply.
func poolKey(c *sshconf.Config, hops []sshconf.Config) string {
	var b strings.Builder
	b.WriteString(c.User + "@" + addr(c))
	for i, h := range hops {
		if i == 0 {
			b.WriteString(" via ")
		} else {
			b.WriteString(",")
		}
		b.WriteString(h.User + "@" + addr(&h))
	}
	writeTrust(&b, c)
	for i := range hops {
		writeTrust(&b, &hops[i])
	}
	return b.String()
}

// writeTrust appends the settings of c that a pooled connection must share.
func writeTrust(b *strings.Builder, c *sshconf.Config) {
	fmt.Fprintf(b, " [%s|%s|%q|%q|%q|%t]", c.HostKeyAlias, c.StrictHostKeyChecking,
		c.UserKnownHostsFiles, c.GlobalKnownHostsFiles, c.IdentityFiles, c.IdentitiesOnly)
}

// connName names a connection in logs: user@host:port, without the trust
// settings of its pool key.
func connName(key string) string {
	name, _, _ := strings.Cut(key, " [")
	return name
}

// acquire returns the pooled connection for key with a reference taken, or
// dials one. Concurrent Opens of one key wait for a single dial; if that
// dial fails, each waiter dials itself (its Target may differ, e.g. in
// AcceptNewHostKey).
func (o *Opener) acquire(ctx context.Context, key string, dial func() (*client, error)) (*client, error) {
	for {
		o.mu.Lock()
		if o.closed {
			o.mu.Unlock()
			return nil, ErrOpenerClosed
		}
		if c := o.pool[key]; c != nil {
			c.refs++
			o.mu.Unlock()
			return c, nil
		}
		if wait, ok := o.dialing[key]; ok {
			o.mu.Unlock()
			select {
			case <-wait:
				continue
			case <-ctx.Done():
				return nil, ctx.Err()
			}
		}
		done := make(chan struct{})
		if o.dialing == nil {
			o.dialing = map[string]chan struct{}{}
		}
		o.dialing[key] = done
		o.mu.Unlock()

		c, err := dial()

		o.mu.Lock()
		delete(o.dialing, key)
		close(done)
		if err == nil && o.closed {
			err = ErrOpenerClosed
		}
		if err != nil {
			o.mu.Unlock()
			if c != nil {
				c.shutdown(ErrOpenerClosed)
			}
			return nil, err
		}
		if o.pool == nil {
			o.pool = map[string]*client{}
			o.all = map[*client]struct{}{}
		}
		o.pool[key] = c
		o.all[c] = struct{}{}
		c.refs = 1
		c.start()
		o.mu.Unlock()
		return c, nil
	}
}

// retire takes c out of the pool so new sessions get a new connection; c
// lives on until its last session closes.
func (o *Opener) retire(c *client) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.pool[c.key] == c {
		delete(o.pool, c.key)
	}
}

// release drops a reference to c and closes it after the last one.
func (o *Opener) release(c *client) {
	o.mu.Lock()
	c.refs--
	last := c.refs == 0
	if last {
		if o.pool[c.key] == c {
			delete(o.pool, c.key)
		}
		delete(o.all, c)
	}
	o.mu.Unlock()
	if last {
		c.shutdown(nil)
	}
}

// Close closes every connection the Opener made, which ends their sessions
// (Read and Wait then return an error wrapping ErrOpenerClosed), and waits
// for their goroutines. Open fails afterwards. Close is idempotent.
func (o *Opener) Close() error {
	o.mu.Lock()
	o.closed = true
	all := make([]*client, 0, len(o.all))
	for c := range o.all {
		all = append(all, c)
	}
	o.all, o.pool = nil, nil
	o.mu.Unlock()
	for _, c := range all {
		c.shutdown(ErrOpenerClosed)
	}
	return nil
}

// nextSerial numbers connections, for Conn.Client.
func (o *Opener) nextSerial() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.serial++
	return o.serial
}
