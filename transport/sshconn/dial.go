package sshconn

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"syscall"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
)

// connect makes the connection for cfg, through hops (first hop first).
// The returned client has not started its goroutines yet.
func (o *Opener) connect(ctx context.Context, t transport.Target, cfg *sshconf.Config, hops []sshconf.Config) (*client, error) {
	var chain []*ssh.Client
	closeChain := func() {
		for i := len(chain) - 1; i >= 0; i-- {
			_ = chain[i].Close() // best effort: the dial already failed
		}
	}
	var via *ssh.Client
	for i := range hops {
		h := &hops[i]
		sc, err := o.handshake(ctx, via, h, t, false, nil)
		if err != nil {
			closeChain()
			return nil, o.hopError(i, hops, err)
		}
		chain = append(chain, sc)
		via = sc
	}
	c := &client{
		o:    o,
		key:  poolKey(cfg, hops),
		host: cfg.Alias,
		addr: addr(cfg),
		hops: chain,
		dead: make(chan struct{}),
	}
	sc, err := o.handshake(ctx, via, cfg, t, true, c)
	if err != nil {
		closeChain()
		if len(hops) > 0 {
			return nil, o.hopError(len(hops), hops, err)
		}
		return nil, err
	}
	c.ssh = sc
	c.id = fmt.Sprintf("%s#%d", connName(c.key), o.nextSerial())
	c.log = o.logger().With("conn", c.id)
	c.keepaliveInterval = cfg.ServerAliveInterval
	c.keepaliveMax = cfg.ServerAliveCountMax
	if c.keepaliveMax <= 0 {
		c.keepaliveMax = 3 // ssh_config(5) default
	}
	c.log.Info("ssh connected", "host", cfg.Alias, "addr", c.addr, "user", cfg.User, "hops", len(hops))
	return c, nil
}

// forwardError marks a failure of the previous hop to open the tunnel.
type forwardError struct {
	next string
	err  error
}

func (e *forwardError) Error() string { return e.err.Error() }
func (e *forwardError) Unwrap() error { return e.err }

// hopError attributes err to a hop. i indexes hops for a failure reaching
// hop i; i == len(hops) means the target failed, which is the last hop's
// fault only when it could not open the tunnel.
func (o *Opener) hopError(i int, hops []sshconf.Config, err error) error {
	var fe *forwardError
	if errors.As(err, &fe) {
		return &JumpError{Hop: i, Hops: len(hops), Host: hops[i-1].Alias, Next: fe.next, Err: fe.err}
	}
	if i == len(hops) {
		return err // the target itself failed: host key, auth, handshake
	}
	return &JumpError{Hop: i + 1, Hops: len(hops), Host: hops[i].Alias, Err: err}
}

// handshakeTimeout is the budget for connecting plus the SSH handshake.
func (o *Opener) handshakeTimeout(cfg *sshconf.Config) time.Duration {
	switch {
	case o.HandshakeTimeout > 0:
		return o.HandshakeTimeout
	case cfg.ConnectTimeout > 0:
		return cfg.ConnectTimeout
	}
	return defaultHandshakeTimeout
}

// handshake connects to cfg directly or through via (a direct-tcpip
// channel), then runs the SSH handshake: host key check and
// authentication. c, when set, gets its watchedConn wired in.
func (o *Opener) handshake(ctx context.Context, via *ssh.Client, cfg *sshconf.Config, t transport.Target, target bool, c *client) (*ssh.Client, error) {
	a := addr(cfg)
	// The attempts (identity files read, encrypted ones unlocked with the
	// password, the SSH agent asked for its keys) are prepared before the
	// budget below starts: they are local work, and unlocking a key can
	// take seconds on a busy machine.
	home := o.Config.Home
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	auth := newAuthRun(authInput{
		cfg:          cfg,
		password:     t.SSH().Password,
		sendPassword: target,
		home:         home,
		agentSock:    os.Getenv("SSH_AUTH_SOCK"),
	})
	defer auth.close()
	timeout := o.handshakeTimeout(cfg)
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()

	var nc net.Conn
	var err error
	if via == nil {
		dial := o.Dial
		if dial == nil {
			dial = (&net.Dialer{}).DialContext
		}
		dctx, connectBudget := hctx, timeout
		if cfg.ConnectTimeout > 0 && cfg.ConnectTimeout < timeout {
			connectBudget = cfg.ConnectTimeout
			var cancel context.CancelFunc
			dctx, cancel = context.WithTimeout(hctx, cfg.ConnectTimeout)
			defer cancel()
		}
		nc, err = dial(dctx, "tcp", a)
		if err != nil {
			return nil, dialError(ctx, cfg, a, connectBudget, err)
		}
	} else {
		nc, err = via.DialContext(hctx, "tcp", a)
		if err != nil {
			if ctx.Err() != nil {
				return nil, ctx.Err()
			}
			if hctx.Err() != nil {
				err = &TimeoutError{Host: cfg.Alias, Addr: a, Phase: "connect", After: timeout, Err: err}
			}
			return nil, &forwardError{next: a, err: err}
		}
	}

	hk, err := newHostKeys(cfg, a, t.SSH().AcceptNewHostKey, &o.khMu)
	if err != nil {
		_ = nc.Close() // best effort; err says why
		return nil, err
	}
	hk.logf = o.logger().Info
	conf := &ssh.ClientConfig{
		User:              cfg.User,
		HostKeyCallback:   hk.callback,
		HostKeyAlgorithms: hk.algorithms(),
		AuthCallback:      auth.callback,
	}

	wc := &watchedConn{Conn: nc, c: c}
	// ClientConfig.Timeout bounds only the TCP connect: a server that
	// accepts and never speaks would hang NewClientConn. Bound the whole
	// handshake with a deadline on the connection, or by closing it where
	// deadlines are not supported (direct-tcpip channels).
	deadline, _ := hctx.Deadline()
	useDeadline := nc.SetDeadline(deadline) == nil
	stop := context.AfterFunc(hctx, func() {
		if useDeadline {
			_ = nc.SetDeadline(time.Unix(1, 0)) // wake pending I/O now
		} else {
			_ = nc.Close()
		}
	})
	sconn, chans, reqs, err := ssh.NewClientConn(wc, a, conf)
	if !stop() && err == nil {
		// The deadline fired as the handshake finished, and its callback
		// may still poison the connection: count it as a timeout.
		_ = sconn.Close() // best effort; reported as a timeout
		err = context.DeadlineExceeded
	}
	if err == nil && useDeadline {
		err = nc.SetDeadline(time.Time{})
		if err != nil {
			_ = sconn.Close() // best effort; err says why
		}
	}
	if err != nil {
		// The connection's deadline may fire a moment before hctx's timer.
		timedOut := hctx.Err() != nil || errors.Is(err, os.ErrDeadlineExceeded) || !time.Now().Before(deadline)
		return nil, handshakeError(ctx, timedOut, cfg, a, timeout, hk, auth, err)
	}
	o.logger().Debug("ssh authenticated", "host", cfg.Alias, "user", cfg.User, "method", auth.succeeded())
	return ssh.NewClient(sconn, chans, reqs), nil
}

// handshakeError picks the most useful explanation of a failed handshake.
func handshakeError(ctx context.Context, timedOut bool, cfg *sshconf.Config, a string, budget time.Duration, hk *hostKeys, auth *authRun, err error) error {
	switch {
	case hk.err != nil:
		return hk.err
	case auth.err != nil:
		return auth.err
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err()
	case timedOut:
		return &TimeoutError{Host: cfg.Alias, Addr: a, Phase: "handshake", After: budget, Err: err}
	case auth.started:
		// The server ended authentication itself (MaxAuthTries) or the link
		// broke during it.
		return auth.failure(err)
	}
	return &DialError{Host: cfg.Alias, Addr: a, Err: fmt.Errorf("ssh handshake: %w", err)}
}

// dialError classifies a failed TCP connect.
func dialError(ctx context.Context, cfg *sshconf.Config, a string, budget time.Duration, err error) error {
	var dnsErr *net.DNSError
	var ne net.Error
	switch {
	case ctx.Err() != nil && !errors.Is(ctx.Err(), context.DeadlineExceeded):
		return ctx.Err()
	case errors.As(err, &dnsErr) && !dnsErr.IsTimeout:
		return &NameError{Host: cfg.Alias, Name: cfg.HostName, Err: err}
	case errors.Is(err, syscall.ECONNREFUSED):
		return &RefusedError{Host: cfg.Alias, Addr: a, Err: err}
	case errors.Is(err, context.DeadlineExceeded) || (errors.As(err, &ne) && ne.Timeout()):
		return &TimeoutError{Host: cfg.Alias, Addr: a, Phase: "connect", After: budget, Err: err}
	}
	return &DialError{Host: cfg.Alias, Addr: a, Err: err}
}
