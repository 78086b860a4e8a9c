// Package agentlink is the client side of one connection to a ttymux agent:
// the version exchange, deadlines bound to a context, and a request with its
// reply. Both clients of the agent use it: transport/agent (sessions,
// streaming) and the ttymux-agent command's own ls and stop (agentd's
// List, Kill and Stop), so the two cannot drift apart.
//
// It owns no dialling policy (which socket, whose peer, starting an agent:
// internal/agentsock and transport/agent) and no meaning of the messages
// (agentproto). It imports the standard library and agentproto only, so
// the agent binary may use it (STYLE.md, import rules).
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
	l.R, l.W = bufio.NewReaderSize(nc, 16<<10), bufio.NewWriterSize(nc, 4<<10)
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
	return l.Conn.SetDeadline(time.Time{})
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

// Close closes the connection.
func (l *Link) Close() error { return l.Conn.Close() }
