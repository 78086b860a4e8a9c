package agent

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"os"
	"syscall"
	"time"

	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/internal/agentsock"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/transport"
)

// Client reaches the ttymux agent on a Unix socket. It implements
// transport.Keeper. The zero value uses the per-user default socket and
// starts the agent on demand from the ttymux-agent binary installed next to
// this program or found in $PATH.
//
// A Client holds no connection: every method dials the socket, so one
// Client may be used by any number of goroutines and needs no Close.
type Client struct {
	// Socket is the agent's socket path; empty means DefaultSocket().
	Socket string
	// AgentPath is the ttymux-agent binary Create starts when no agent
	// listens. Empty means "ttymux-agent" next to os.Executable(), then
	// in $PATH.
	AgentPath string
	// StartArgs are extra arguments for "ttymux-agent serve" (for example
	// "--log", FILE or "--idle-exit", "10m").
	StartArgs []string
	// Logger receives debug and warning records; nil discards them.
	Logger *slog.Logger
	// Dial, when set, replaces the Unix socket: it makes the connection to
	// an agent that is already running (a remote agent reached over SSH).
	// Create then never starts an agent, and Socket, AgentPath and
	// StartArgs are unused.
	Dial func(ctx context.Context) (net.Conn, error)

	// dialLink, when set, replaces Dial and the header exchange: Remote
	// makes the whole link itself, proving the agent is the SSH user's
	// before handing it over.
	dialLink func(ctx context.Context) (*link, error)
}

var _ transport.Keeper = (*Client)(nil)

// Errors reported by this package. Check them with errors.Is.
var (
	// ErrNoAgent means nothing listens on the socket. Only Create starts
	// an agent; the other methods report this (Attach and Kill together
	// with transport.ErrNoSession).
	ErrNoAgent = errors.New("no ttymux agent is running")
	// ErrAgentNotFound means the agent had to be started and its binary
	// was not found.
	ErrAgentNotFound = errors.New("ttymux-agent binary not found")
	// ErrAgentLost is returned by a Conn's Read and Wait when the
	// connection to the agent broke. The session may still be running.
	ErrAgentLost = errors.New("connection to the ttymux agent was lost")
	// ErrDetached is returned by a Conn's Read and Wait after Close: the
	// session keeps running in the agent.
	ErrDetached = errors.New("detached from the agent session")
)

// refused gives an agent's refusal (a *agentlink.StatusError) its meaning
// here: an unknown session matches transport.ErrNoSession. Other errors
// pass unchanged.
func refused(err error) error {
	var se *agentlink.StatusError
	if errors.As(err, &se) && se.Status == agentproto.StatusNotFound {
		se.Err = transport.ErrNoSession
	}
	return err
}

// isRefusal reports whether err is the agent's answer rather than a
// failure on the way.
func isRefusal(err error) bool {
	var se *agentlink.StatusError
	return errors.As(err, &se)
}

func (c *Client) socket() string {
	if c.Socket != "" {
		return c.Socket
	}
	return DefaultSocket()
}

func (c *Client) logger() *slog.Logger {
	if c.Logger != nil {
		return c.Logger
	}
	return slog.New(slog.DiscardHandler)
}

// link is one connection to the agent after the header exchange (see
// internal/agentlink, which ttymux-agent's own client uses too).
type link = agentlink.Link

// absent reports whether err means nobody listens on the socket: the path
// (or its directory) is missing, or a stale socket file refuses.
func absent(err error) bool {
	return errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED)
}

// connect makes one attempt: check the directory and the socket, dial,
// check that the agent listening runs as us, exchange headers.
func connect(ctx context.Context, sock string) (*link, error) {
	if err := agentsock.CheckSocket(sock); err != nil {
		return nil, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return nil, err
	}
	if uid, err := agentsock.PeerUID(nc); err != nil || uid != os.Geteuid() {
		_ = nc.Close() // not ours to talk to
		if err == nil {
			err = fmt.Errorf("the process listening on %s runs as uid %d, not %d: refusing to use it", sock, uid, os.Geteuid())
		}
		return nil, err
	}
	return handshake(ctx, nc)
}

// handshake exchanges protocol headers on a new connection to an agent and
// returns it as a link; on failure it closes nc.
func handshake(ctx context.Context, nc net.Conn) (*link, error) {
	return agentlink.Handshake(ctx, nc)
}

// call sends req on l and reads the reply of type want, bounded by ctx. A
// refusal is a *agentlink.StatusError for op on session id (see
// Link.Request), matching transport.ErrNoSession for an unknown session.
func call(ctx context.Context, l *link, req any, want agentproto.Type, op, id string) (any, error) {
	t, p := agentproto.Marshal(req)
	m, err := l.Request(ctx, op, id, t, p, want)
	return m, refused(err)
}

// dial connects to a running agent; with none running it fails with
// ErrNoAgent.
func (c *Client) dial(ctx context.Context) (*link, error) {
	if c.Dial != nil || c.dialLink != nil {
		return c.dialFunc(ctx)
	}
	sock := c.socket()
	l, err := connect(ctx, sock)
	switch {
	case err == nil:
		return l, nil
	case absent(err):
		return nil, fmt.Errorf("%w on %s", ErrNoAgent, sock)
	}
	return nil, fmt.Errorf("connect to agent on %s: %w", sock, err)
}

// List describes every session the agent holds. No agent running means no
// sessions: List then returns nil and no error, and does not start one.
func (c *Client) List(ctx context.Context) ([]transport.KeptSession, error) {
	l, err := c.dial(ctx)
	if errors.Is(err, ErrNoAgent) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer l.Close()
	infos, err := l.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list agent sessions: %w", refused(err))
	}
	out := make([]transport.KeptSession, 0, len(infos))
	for _, si := range infos {
		out = append(out, keptSession(si))
	}
	return out, nil
}

// Ping checks that an agent of this protocol version answers on the socket
// (one List round trip). It never starts one: with none running the error
// matches ErrNoAgent.
func (c *Client) Ping(ctx context.Context) error {
	l, err := c.dial(ctx)
	if err != nil {
		return err
	}
	defer l.Close()
	if _, err := l.List(ctx); err != nil {
		return fmt.Errorf("ping agent: %w", refused(err))
	}
	return nil
}

// Kill ends a session: the agent hangs up its program. An unknown id (or
// no agent at all) is an error matching transport.ErrNoSession.
func (c *Client) Kill(ctx context.Context, id string) error {
	l, err := c.dial(ctx)
	if errors.Is(err, ErrNoAgent) {
		return fmt.Errorf("kill session %q: %w: %w", id, transport.ErrNoSession, err)
	}
	if err != nil {
		return err
	}
	defer l.Close()
	if err := refused(l.Kill(ctx, id)); err != nil {
		if isRefusal(err) {
			return err
		}
		return fmt.Errorf("kill session %q: %w", id, err)
	}
	return nil
}

// Stop asks the agent to exit and waits, bounded by ctx, until it no
// longer accepts connections. Without force the agent refuses while
// sessions are running (a *agentlink.StatusError with StatusBusy); with force it ends
// them. With no agent running the error matches ErrNoAgent.
func (c *Client) Stop(ctx context.Context, force bool) error {
	l, err := c.dial(ctx)
	if err != nil {
		return err
	}
	err = refused(l.Stop(ctx, force))
	_ = l.Close() // done with it either way
	if isRefusal(err) {
		return err
	}
	if err != nil {
		return fmt.Errorf("stop agent: %w", err)
	}
	if c.Dial != nil || c.dialLink != nil {
		return nil // not a local socket to watch
	}
	return c.waitGone(ctx)
}

// waitGone polls until nothing accepts on the socket.
func (c *Client) waitGone(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	sock := c.socket()
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		var d net.Dialer
		nc, err := d.DialContext(ctx, "unix", sock)
		if err != nil {
			if absent(err) {
				return nil
			}
			if ctx.Err() != nil {
				return fmt.Errorf("agent on %s acknowledged stop but still accepts connections: %w", sock, ctx.Err())
			}
			return fmt.Errorf("wait for agent on %s to stop: %w", sock, err)
		}
		_ = nc.Close() // only probing
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return fmt.Errorf("agent on %s acknowledged stop but still accepts connections: %w", sock, ctx.Err())
		}
	}
}

// Create starts a session in the agent and attaches to it from its first
// byte, starting the agent first if none runs (see the package
// documentation). An empty t.Term means "xterm-256color", what ttymux's
// screen emulates; a zero t.Size means transport.DefaultSize. An empty
// t.Dir and t.Env mean the agent's own working directory and environment.
// The connection is a model's (agentproto.Create.Model): what it types is
// not counted as a person's by the session's other clients.
func (c *Client) Create(ctx context.Context, t transport.Target, meta []byte) (transport.KeptConn, transport.KeptSession, error) {
	size := t.Size
	if size == (transport.Size{}) {
		size = transport.DefaultSize
	}
	if !size.Valid() {
		return nil, transport.KeptSession{}, fmt.Errorf("invalid window size %dx%d", size.Rows, size.Cols)
	}
	term := t.Term
	if term == "" {
		term = "xterm-256color"
	}
	req := agentproto.Create{Command: t.Command, Args: t.Args, Dir: t.Dir, Env: t.Env,
		Rows: size.Rows, Cols: size.Cols, Term: term, Meta: meta, Confine: t.Confine}
	switch p := t.Spec.(type) {
	case nil:
	case transport.SerialParams: // serial.go
		req = serialCreate(t, p, size, meta)
	default:
		return nil, transport.KeptSession{}, fmt.Errorf("the agent holds programs and serial ports, not sessions of kind %q", p.TransportKind())
	}
	req.Model = true // a server's session: its keys are no person's
	l, err := c.dialStart(ctx)
	if err != nil {
		return nil, transport.KeptSession{}, err
	}
	conn, ks, _, err := c.open(ctx, l, "create", "", req)
	if err != nil {
		return nil, transport.KeptSession{}, err
	}
	return conn, ks, nil
}

// Attach connects to a session the agent holds and streams its output from
// offset from; from < 0 means from the oldest byte the agent still holds.
// It never starts an agent: an unknown id, or no agent at all, is an error
// matching transport.ErrNoSession.
//
// Resume.FromLine is the 1-based number of the line holding Resume.From,
// as the agent counts lines; 0 means unknown (an older agent, attached
// other than at the oldest byte held). Like Create's, the connection is a
// model's; AttachTail's is a person's.
func (c *Client) Attach(ctx context.Context, id string, from int64) (transport.KeptConn, transport.KeptSession, transport.Resume, error) {
	req := agentproto.Attach{ID: id, From: from, Model: true}
	if from < 0 {
		req = agentproto.Attach{ID: id, FromStart: true, Model: true}
	}
	conn, ks, res, err := c.attach(ctx, req)
	if err != nil {
		return nil, ks, res, err // a nil *Conn must not become a non-nil interface
	}
	return conn, ks, res, nil
}

// AttachTail attaches for live output, first replaying up to tail bytes
// from before the end so a human's terminal can be redrawn. It never starts
// an agent.
func (c *Client) AttachTail(ctx context.Context, id string, tail int64) (*Conn, transport.KeptSession, transport.Resume, error) {
	return c.attach(ctx, agentproto.Attach{ID: id, FromEnd: true, Tail: tail})
}

func (c *Client) attach(ctx context.Context, req agentproto.Attach) (*Conn, transport.KeptSession, transport.Resume, error) {
	l, err := c.dial(ctx)
	if errors.Is(err, ErrNoAgent) {
		err = fmt.Errorf("attach session %q: %w: %w", req.ID, transport.ErrNoSession, err)
	}
	if err != nil {
		return nil, transport.KeptSession{}, transport.Resume{}, err
	}
	return c.open(ctx, l, "attach", req.ID, req)
}

// open sends a Create or Attach on l and, on success, hands l to a Conn.
func (c *Client) open(ctx context.Context, l *link, op, id string, req any) (*Conn, transport.KeptSession, transport.Resume, error) {
	m, err := call(ctx, l, req, agentproto.TypeAttachReply, op, id)
	if kindUnknown(req, m) { // serial.go
		err = c.olderAgent(ctx, req, m, err)
	}
	if err != nil {
		_ = l.Close() // best effort; err already set
		switch {
		case isRefusal(err):
		case id != "":
			err = fmt.Errorf("%s session %q: %w", op, id, err)
		default:
			err = fmt.Errorf("%s session: %w", op, err)
		}
		return nil, transport.KeptSession{}, transport.Resume{}, err
	}
	r := m.(agentproto.AttachReply)
	ks := keptSession(r.Session)
	res := transport.Resume{From: r.From, FromLine: r.FromLine, Lost: r.Lost}
	if res.FromLine == 0 && r.From == r.Session.Start {
		res.FromLine = r.Session.StartLine // an agent that predates FromLine
	}
	log := c.logger().With("session", ks.ID)
	log.Debug("agent session opened", "op", op, "from", r.From, "lost", r.Lost)
	conn := newConn(ks.ID, l, r.From, log)
	conn.kind = r.Kind
	conn.caps = r.Caps
	conn.countedFrom = r.Session.End
	return conn, ks, res, nil
}

// keptSession maps the agent's description to the transport's.
func keptSession(si agentproto.SessionInfo) transport.KeptSession {
	return transport.KeptSession{
		ID:         si.ID,
		Command:    si.Command,
		Pid:        si.Pid,
		Created:    time.UnixMilli(si.Created),
		Size:       transport.Size{Rows: si.Rows, Cols: si.Cols},
		Exited:     si.Exited,
		ExitStatus: si.ExitStatus,
		ExitSignal: transport.Signal(si.ExitSignal),
		Start:      si.Start,
		End:        si.End,
		StartLine:  si.StartLine,
		Clients:    si.Clients,
		Foreground: si.Foreground,
		Meta:       si.Meta,
		Confined:   si.Confined,
	}
}

// dialFunc connects through c.Dial and exchanges headers.
func (c *Client) dialFunc(ctx context.Context) (*link, error) {
	if c.dialLink != nil {
		return c.dialLink(ctx)
	}
	nc, err := c.Dial(ctx)
	if err != nil {
		return nil, err
	}
	return handshake(ctx, nc)
}
