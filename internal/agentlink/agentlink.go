// Package agentlink is the one client of the ttymux agent's protocol: the
// version exchange, deadlines bound to a context, a request with its reply,
// the agent's refusals as a *StatusError, and the requests every user of
// the agent makes (List, Kill, Stop). transport/agent (sessions, streaming,
// remote hosts) and the ttymux-agent command's own ls and stop both speak
// through it, so they cannot drift apart.
//
// It owns no dialling policy beyond a plain Dial (which socket, whose peer,
// starting an agent, reaching one over SSH: internal/agentsock and
// transport/agent) and no meaning of the messages (agentproto). It imports
// the standard library and agentproto only, so the agent binary may use it
// (docs/architecture.md, import rules).
//
// A Link is used by one goroutine at a time for requests; once a stream
// runs on it, one goroutine reads (R) and writes are serialised by the
// caller.
package agentlink

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
)

// SetupTimeout bounds the version exchange and a request's reply when ctx
// has no deadline: an agent that accepts and never answers must not hang
// its client.
const SetupTimeout = 10 * time.Second

// A Link is a connection to an agent after the version exchange. R may
// already hold frames that followed a reply, so it must stay with the
// connection.
type Link struct {
	Conn net.Conn
	R    *bufio.Reader
	W    *bufio.Writer
}

// Handshake exchanges protocol headers on a new connection to an agent and
// returns it as a Link; on failure it closes nc. A version mismatch is a
// *agentproto.VersionError (wrapped) that names both versions. ctx bounds
// the exchange only.
func Handshake(ctx context.Context, nc net.Conn) (*Link, error) {
	l := &Link{Conn: nc}
	err := l.Guard(ctx, func() error {
		// Straight on the connection, not through buffers: nothing the
		// agent sends after its header can be read ahead by mistake.
		if err := agentproto.WriteHeader(nc); err != nil {
			return err
		}
		return agentproto.ReadHeader(nc)
	})
	if err != nil {
		_ = nc.Close() // best effort; err already set
		return nil, err
	}
	// Modest buffers: a server holds one link per session. Frames larger
	// than a buffer go through it in part and around it for the rest.
	l.R, l.W = bufio.NewReaderSize(reader(nc), 16<<10), bufio.NewWriterSize(nc, 4<<10)
	return l, nil
}

// Guard runs fn with the connection's deadline bound to ctx (or to
// SetupTimeout when ctx has none), then clears the deadline. A deadline
// error caused by ctx is reported as ctx's error.
func (l *Link) Guard(ctx context.Context, fn func() error) error {
	deadline, ok := ctx.Deadline()
	if !ok {
		deadline = time.Now().Add(SetupTimeout)
	}
	if err := l.Conn.SetDeadline(deadline); err != nil {
		return err
	}
	stop := context.AfterFunc(ctx, func() {
		_ = l.Conn.SetDeadline(time.Unix(1, 0)) // wakes fn; the error is fn's
	})
	err := fn()
	if !stop() && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			if ok { // ctx's deadline, which the connection may notice first
				return fmt.Errorf("agent did not answer: %w", context.DeadlineExceeded)
			}
			return fmt.Errorf("agent did not answer within %v: %w", SetupTimeout, err)
		}
		return err
	}
	// Clearing the deadline is best effort: the agent closes a connection
	// after its one reply to List, Kill and Stop, and a net.Pipe whose far
	// end closed (a remote agent's SSH channel, pipeConn) refuses
	// SetDeadline with io.ErrClosedPipe though the reply was read whole.
	// A later read or write on a closed link reports it itself.
	_ = l.Conn.SetDeadline(time.Time{})
	return nil
}

// Send writes one frame and flushes. The caller serialises writes.
func (l *Link) Send(t agentproto.Type, p []byte) error {
	if err := agentproto.WriteFrame(l.W, t, p); err != nil {
		return err
	}
	return l.W.Flush()
}

// Reply reads frames until one of type want or a Reply (a refusal), and
// decodes it, skipping types this client does not know (a receiver must:
// agentproto's doc, "Versioning").
func (l *Link) Reply(want agentproto.Type) (any, error) {
	for {
		f, err := agentproto.ReadFrame(l.R, nil)
		if err != nil {
			return nil, err
		}
		switch {
		case f.Type == want, f.Type == agentproto.TypeReply:
			return agentproto.Unmarshal(f)
		case f.Type > agentproto.TypeGap:
			continue // unknown to this version: skip
		}
		return nil, fmt.Errorf("%w: got %s while waiting for %s", agentproto.ErrBadFrame, f.Type, want)
	}
}

// Call sends a request frame and reads its reply of type want, bounded by
// ctx. The reply may instead be an agentproto.Reply: a refusal if its
// status is not StatusOK, which the caller turns into its own error.
func (l *Link) Call(ctx context.Context, t agentproto.Type, p []byte, want agentproto.Type) (any, error) {
	var m any
	err := l.Guard(ctx, func() error {
		var err error
		if err = l.Send(t, p); err == nil {
			m, err = l.Reply(want)
		}
		return err
	})
	return m, err
}

// StatusError is an agent's refusal of a request, with the enumerated
// status it answered.
type StatusError struct {
	Op      string // "create", "attach", "list", "kill", "stop", "set meta", …
	ID      string // the session, when the request named one
	Status  agentproto.Status
	Message string // the agent's explanation, possibly empty
	// Err is what the refusal means in the caller's own terms, for
	// errors.Is: transport/agent sets transport.ErrNoSession on a
	// StatusNotFound (this package may not import transport). Nil here.
	Err error
}

func (e *StatusError) Error() string {
	var s string
	switch e.Status {
	case agentproto.StatusNotFound:
		s = fmt.Sprintf("session %q is not held by the agent", e.ID)
	case agentproto.StatusForbidden:
		s = fmt.Sprintf("agent refused %s: forbidden", e.Op)
	case agentproto.StatusLimit:
		s = fmt.Sprintf("agent refused %s: its session limit is reached", e.Op)
	case agentproto.StatusBusy:
		s = fmt.Sprintf("agent refused %s: sessions are still running (stop with force to end them)", e.Op)
	default:
		s = fmt.Sprintf("agent %s failed (status %s)", e.Op, e.Status)
	}
	if e.Message != "" && e.Status != agentproto.StatusNotFound { // the agent's says the same
		s += ": " + e.Message
	}
	return s
}

// Unwrap returns Err.
func (e *StatusError) Unwrap() error { return e.Err }

// Dial connects to the agent listening on the Unix socket path and
// exchanges the version headers. It checks nothing about the socket or
// who listens on it: a client that must (transport/agent) checks with
// internal/agentsock and calls Handshake itself. A version mismatch is a
// *agentproto.VersionError (wrapped) that names both versions. ctx bounds
// the dial and the exchange only.
func Dial(ctx context.Context, path string) (*Link, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	l, err := Handshake(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("agent on %s: %w", path, err)
	}
	return l, nil
}

// Request sends a request frame and reads its reply of type want, bounded
// by ctx. A refusal is a *StatusError for op on session id: a Reply whose
// status is not OK (an agent may send one instead of any reply), or an
// AttachReply that neither created nor attached, which is returned with
// the error.
func (l *Link) Request(ctx context.Context, op, id string, t agentproto.Type, p []byte, want agentproto.Type) (any, error) {
	m, err := l.Call(ctx, t, p, want)
	if err != nil {
		return nil, err
	}
	switch r := m.(type) {
	case agentproto.Reply:
		if r.Status != agentproto.StatusOK {
			return nil, &StatusError{Op: op, ID: id, Status: r.Status, Message: r.Message}
		}
	case agentproto.AttachReply:
		if r.Status != agentproto.StatusCreated && r.Status != agentproto.StatusAttached {
			return m, &StatusError{Op: op, ID: id, Status: r.Status, Message: r.Message}
		}
	}
	return m, nil
}

// List describes every session the agent holds.
func (l *Link) List(ctx context.Context) ([]agentproto.SessionInfo, error) {
	m, err := l.Request(ctx, "list", "", agentproto.TypeList, nil, agentproto.TypeListReply)
	if err != nil {
		return nil, err
	}
	lr, ok := m.(agentproto.ListReply)
	if !ok {
		return nil, fmt.Errorf("%w: a %T answered list", agentproto.ErrBadFrame, m)
	}
	return lr.Sessions, nil
}

// Kill asks the agent to end session id. A refusal is a *StatusError
// (StatusNotFound for an unknown id).
func (l *Link) Kill(ctx context.Context, id string) error {
	t, p := agentproto.Marshal(agentproto.Kill{ID: id})
	_, err := l.Request(ctx, "kill", id, t, p, agentproto.TypeReply)
	return err
}

// Stop asks the agent to exit; without force it refuses while sessions run
// (a *StatusError with StatusBusy). Stop returns once the agent has
// acknowledged, not when it has exited.
func (l *Link) Stop(ctx context.Context, force bool) error {
	t, p := agentproto.Marshal(agentproto.Stop{Force: force})
	_, err := l.Request(ctx, "stop", "", t, p, agentproto.TypeReply)
	return err
}

// Close closes the connection.
func (l *Link) Close() error { return l.Conn.Close() }
