// Package forward holds TCP port forwards over a host's pooled SSH
// connection, like OpenSSH's -L (a local port reaching an address from the
// host), -R (a port on the host reaching an address here) and -D (a local
// SOCKS5 proxy whose connections leave from the host).
//
// A forward outlives the connection it was made on: when the link drops,
// the forward asks for a new one (with backoff) and carries on; a local
// listener stays open meanwhile and refuses nothing, it closes each
// connection it cannot carry. What happened is in the forward's Info.
package forward

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Link is what a forward needs of a pooled SSH connection: opening a
// direct-tcpip channel (Dial), asking the server for a tcpip-forward
// (Listen), knowing when the connection is gone, and giving it back.
type Link interface {
	Dial(network, addr string) (net.Conn, error)
	Listen(network, addr string) (net.Listener, error)
	Done() <-chan struct{}
	Release()
}

// Kind is the direction of a forward.
type Kind int

const (
	Local   Kind = iota // -L: listen here, connect from the host
	Reverse             // -R: listen on the host, connect from here
	SOCKS               // -D: a SOCKS5 proxy here, connect from the host
)

func (k Kind) String() string {
	switch k {
	case Reverse:
		return "reverse"
	case SOCKS:
		return "socks"
	}
	return "local"
}

// Spec says what to forward. Local is where the listener is for Local and
// SOCKS (here) and where connections go for Reverse (here); Remote is where
// connections go for Local (from the host) and where the listener is for
// Reverse (on the host). SOCKS has no Remote.
type Spec struct {
	Kind   Kind
	Local  string // host:port; port 0 picks a free one
	Remote string // host:port
}

// Options configure a Forward.
type Options struct {
	// Connect returns a link to the forward's host; it is called once at
	// Start and again after each link drop. Required.
	Connect func(ctx context.Context) (Link, error)
	// Host names the host, for messages.
	Host   string
	Logger *slog.Logger
	// Backoff bounds the wait between reconnect attempts (default 1 s,
	// doubling up to 30 s).
	MaxBackoff time.Duration
}

// Info is a snapshot of a forward, for list and the audit log.
type Info struct {
	Kind        string `json:"kind"`
	Local       string `json:"local"`            // the address to use (Local, SOCKS) or where connections go (Reverse)
	Remote      string `json:"remote,omitempty"` // on the host
	Host        string `json:"host"`
	Connections int64  `json:"connections"` // carried so far
	Failed      int64  `json:"failed,omitempty"`
	Bytes       int64  `json:"bytes"` // both directions
	State       string `json:"state"` // up, reconnecting, closed
	Note        string `json:"note,omitempty"`
}

// A Forward is one running forward. Its methods may be called from any
// goroutine.
type Forward struct {
	spec Spec
	opts Options
	log  *slog.Logger

	ln   net.Listener // the local listener (Local, SOCKS)
	addr string       // the address a user reaches: ln's, or the host's listener's

	ctx    context.Context
	cancel context.CancelFunc
	wg     sync.WaitGroup

	conns, failed, bytes atomic.Int64

	mu     sync.Mutex // protects the following
	link   Link       // nil while reconnecting
	rl     net.Listener
	state  string
	note   string
	active map[net.Conn]struct{}
}

// Start opens the forward: the local listener (Local, SOCKS) or the
// host's (Reverse), on a link from opts.Connect. ctx bounds the setup only.
func Start(ctx context.Context, spec Spec, opts Options) (*Forward, error) {
	if opts.Connect == nil {
		return nil, errors.New("forward: no Connect")
	}
	if err := spec.check(); err != nil {
		return nil, err
	}
	f := &Forward{spec: spec, opts: opts, log: opts.Logger, state: "up", active: map[net.Conn]struct{}{}}
	if f.log == nil {
		f.log = slog.New(slog.DiscardHandler)
	}
	l, err := opts.Connect(ctx)
	if err != nil {
		return nil, err
	}
	f.link = l
	f.ctx, f.cancel = context.WithCancel(context.Background())
	switch spec.Kind {
	case Local, SOCKS:
		var lc net.ListenConfig
		ln, err := lc.Listen(ctx, "tcp", spec.Local)
		if err != nil {
			l.Release()
			f.cancel()
			return nil, fmt.Errorf("listen on %s here: %w", spec.Local, err)
		}
		f.ln, f.addr = ln, ln.Addr().String()
		f.wg.Go(func() { f.acceptLocal(ln) })
	case Reverse:
		rl, err := l.Listen("tcp", spec.Remote)
		if err != nil {
			l.Release()
			f.cancel()
			return nil, fmt.Errorf("listen on %s on %s (the server refused the tcpip-forward request: sshd needs AllowTcpForwarding yes or remote; a port below 1024 needs root there): %w", spec.Remote, opts.Host, err)
		}
		f.rl, f.addr = rl, rl.Addr().String()
		f.wg.Go(func() { f.acceptReverse(rl) })
	}
	f.wg.Go(f.watch)
	return f, nil
}

func (s Spec) check() error {
	switch s.Kind {
	case Local, SOCKS:
		if _, _, err := net.SplitHostPort(s.Local); err != nil {
			return fmt.Errorf("local %q: want host:port, e.g. 127.0.0.1:15432 (port 0: any free port)", s.Local)
		}
	case Reverse:
		if _, _, err := net.SplitHostPort(s.Local); err != nil {
			return fmt.Errorf("local %q: want the host:port here that the host's connections reach, e.g. 127.0.0.1:8080", s.Local)
		}
	default:
		return fmt.Errorf("forward: unknown kind %d", s.Kind)
	}
	if s.Kind == SOCKS {
		return nil
	}
	if _, p, err := net.SplitHostPort(s.Remote); err != nil || p == "" {
		return fmt.Errorf("remote %q: want host:port, e.g. 127.0.0.1:5432", s.Remote)
	}
	return nil
}

// Addr is the address to use: the local listener's for Local and SOCKS, the
// host's listener's for Reverse (as the server reported it).
func (f *Forward) Addr() string { return f.addr }

// Spec returns what the forward was started with.
func (f *Forward) Spec() Spec { return f.spec }

// Info returns a snapshot.
func (f *Forward) Info() Info {
	f.mu.Lock()
	state, note := f.state, f.note
	f.mu.Unlock()
	in := Info{Kind: f.spec.Kind.String(), Host: f.opts.Host, State: state, Note: note,
		Connections: f.conns.Load(), Failed: f.failed.Load(), Bytes: f.bytes.Load()}
	switch f.spec.Kind {
	case Local:
		in.Local, in.Remote = f.addr, f.spec.Remote
	case SOCKS:
		in.Local = f.addr
	case Reverse:
		in.Local, in.Remote = f.spec.Local, f.addr
	}
	return in
}

// Done is closed when the forward has closed.
func (f *Forward) Done() <-chan struct{} { return f.ctx.Done() }

// Close stops the forward: its listeners, every connection it carries, and
// its hold on the link. It waits for its goroutines.
func (f *Forward) Close() error {
	f.cancel()
	if f.ln != nil {
		f.ln.Close()
	}
	f.mu.Lock()
	f.state = "closed"
	if f.rl != nil {
		f.rl.Close()
	}
	for c := range f.active {
		c.Close()
	}
	f.mu.Unlock()
	f.wg.Wait()
	f.mu.Lock()
	if f.link != nil {
		f.link.Release()
		f.link = nil
	}
	f.mu.Unlock()
	return nil
}

// current returns the link, or nil while reconnecting.
func (f *Forward) current() Link {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.link
}

// track adds c to the connections Close ends; false when already closed.
func (f *Forward) track(c net.Conn) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.ctx.Err() != nil {
		return false
	}
	f.active[c] = struct{}{}
	return true
}

func (f *Forward) untrack(c net.Conn) {
	f.mu.Lock()
	delete(f.active, c)
	f.mu.Unlock()
}

// acceptLocal serves the local listener until it closes.
func (f *Forward) acceptLocal(ln net.Listener) {
	for {
		c, err := ln.Accept()
		if err != nil {
			if f.ctx.Err() == nil {
				f.setNote("the listener here failed: " + err.Error())
			}
			return
		}
		f.wg.Go(func() {
			if f.spec.Kind == SOCKS {
				f.serveSOCKS(c)
				return
			}
			f.carry(c, func() (net.Conn, error) { return f.dialHost(f.spec.Remote) })
		})
	}
}

// dialHost opens a connection from the host to addr.
func (f *Forward) dialHost(addr string) (net.Conn, error) {
	l := f.current()
	if l == nil {
		return nil, fmt.Errorf("the link to %s is down (reconnecting)", f.opts.Host)
	}
	return l.Dial("tcp", addr)
}

// acceptReverse serves the host's listener until it closes (the forward
// closed, or the link dropped: watch then listens again on the new link).
func (f *Forward) acceptReverse(rl net.Listener) {
	for {
		c, err := rl.Accept()
		if err != nil {
			return
		}
		f.wg.Go(func() {
			f.carry(c, func() (net.Conn, error) {
				var d net.Dialer
				ctx, cancel := context.WithTimeout(f.ctx, 10*time.Second)
				defer cancel()
				return d.DialContext(ctx, "tcp", f.spec.Local)
			})
		})
	}
}

// carry connects c to what dial returns and copies both ways until both
// sides have ended.
func (f *Forward) carry(c net.Conn, dial func() (net.Conn, error)) {
	if !f.track(c) {
		c.Close()
		return
	}
	defer f.untrack(c)
	defer c.Close()
	o, err := dial()
	if err != nil {
		f.failed.Add(1)
		f.log.Debug("forward: connection not carried", "host", f.opts.Host, "err", err)
		return
	}
	f.conns.Add(1)
	f.pipe(c, o)
}

// pipe copies between a and b until both directions end, then closes o.
func (f *Forward) pipe(a, b net.Conn) {
	if !f.track(b) {
		b.Close()
		return
	}
	defer f.untrack(b)
	defer b.Close()
	var wg sync.WaitGroup
	wg.Go(func() { f.copyHalf(b, a) })
	f.copyHalf(a, b)
	wg.Wait()
}

// copyHalf copies src to dst and then half-closes dst, so that a client
// that shuts down its sending side (an HTTP/1.0 request, a dump piped to
// nc) still gets its answer.
func (f *Forward) copyHalf(dst, src net.Conn) {
	io.Copy(counter{dst, &f.bytes}, src)
	if cw, ok := dst.(interface{ CloseWrite() error }); ok {
		cw.CloseWrite()
	} else {
		dst.Close()
	}
}

func (f *Forward) setNote(n string) {
	f.mu.Lock()
	f.note = n
	f.mu.Unlock()
}

// watch waits for the link to drop and gets a new one, until the forward
// closes.
func (f *Forward) watch() {
	for {
		l := f.current()
		if l == nil {
			return
		}
		select {
		case <-f.ctx.Done():
			return
		case <-l.Done():
		}
		f.mu.Lock()
		f.link, f.state = nil, "reconnecting"
		if f.rl != nil {
			f.rl.Close()
			f.rl = nil
		}
		f.mu.Unlock()
		l.Release()
		f.log.Info("forward: link dropped, reconnecting", "host", f.opts.Host, "kind", f.spec.Kind.String())
		if !f.reconnect() {
			return
		}
	}
}

// reconnect gets a new link (and, for Reverse, the host's listener on it)
// with backoff; false when the forward closed first.
func (f *Forward) reconnect() bool {
	wait, most := time.Second, f.opts.MaxBackoff
	if most <= 0 {
		most = 30 * time.Second
	}
	for attempt := 1; ; attempt++ {
		ctx, cancel := context.WithTimeout(f.ctx, 30*time.Second)
		l, err := f.opts.Connect(ctx)
		cancel()
		if err == nil {
			if err = f.resume(l); err == nil {
				return true
			}
		}
		if f.ctx.Err() != nil {
			return false
		}
		f.setNote(fmt.Sprintf("the link to %s dropped; reconnecting failed %d times (last: %v); still trying", f.opts.Host, attempt, err))
		t := time.NewTimer(wait)
		select {
		case <-f.ctx.Done():
			t.Stop()
			return false
		case <-t.C:
		}
		wait = min(2*wait, most)
	}
}

// resume puts l in place (and listens on the host again for Reverse, on the
// same address as before).
func (f *Forward) resume(l Link) error {
	var rl net.Listener
	if f.spec.Kind == Reverse {
		var err error
		if rl, err = l.Listen("tcp", f.addr); err != nil {
			l.Release()
			return fmt.Errorf("listen on %s on %s again: %w", f.addr, f.opts.Host, err)
		}
	}
	f.mu.Lock()
	if f.ctx.Err() != nil {
		f.mu.Unlock()
		if rl != nil {
			rl.Close()
		}
		l.Release()
		return f.ctx.Err()
	}
	f.link, f.rl, f.state, f.note = l, rl, "up", "the link to "+f.opts.Host+" dropped and was re-established"
	f.mu.Unlock()
	if rl != nil {
		f.wg.Go(func() { f.acceptReverse(rl) })
	}
	f.log.Info("forward: link re-established", "host", f.opts.Host)
	return nil
}

// counter counts the bytes written through it, as they go (list shows a
// long transfer moving).
type counter struct {
	w io.Writer
	n *atomic.Int64
}

func (c counter) Write(b []byte) (int, error) {
	n, err := c.w.Write(b)
	c.n.Add(int64(n))
	return n, err
}
