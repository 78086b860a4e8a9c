package agent

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"time"

	"github.com/ttymux/ttymux/remote-agent/agentproto"
)

// This file is the minimal client the ttymux-agent command needs (ls,
// stop). The full client, with streaming, is transport/agent.

// requestTimeout bounds Dial and a request when ctx has no deadline.
const requestTimeout = 10 * time.Second

// StatusError is a non-OK status an agent answered.
type StatusError struct {
	Status  agentproto.Status
	Message string
}

func (e *StatusError) Error() string {
	if e.Message == "" {
		return "agent answered " + e.Status.String()
	}
	return "agent answered " + e.Status.String() + ": " + e.Message
}

// Dial connects to the agent listening on path and exchanges the version
// headers. A version mismatch is a *agentproto.VersionError (wrapped) that
// names both versions. ctx bounds the dial and the exchange only.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	err = guard(ctx, c, func() error {
		if err := agentproto.WriteHeader(c); err != nil {
			return err
		}
		return agentproto.ReadHeader(c)
	})
	if err != nil {
		_ = c.Close() // err already set
		return nil, fmt.Errorf("agent on %s: %w", path, err)
	}
	return c, nil
}

// guard runs fn with c's deadline bound to ctx (or requestTimeout), then
// clears the deadline.
func guard(ctx context.Context, c net.Conn, fn func() error) error {
	dl, ok := ctx.Deadline()
	if !ok {
		dl = time.Now().Add(requestTimeout)
	}
	_ = c.SetDeadline(dl)
	stop := context.AfterFunc(ctx, func() { _ = c.SetDeadline(time.Unix(1, 0)) })
	err := fn()
	if !stop() && ctx.Err() != nil {
		return ctx.Err()
	}
	if err != nil {
		return err
	}
	return c.SetDeadline(time.Time{})
}

// request sends one request frame on a new connection and returns the
// decoded reply, which is want or a Reply (a refusal).
func request(ctx context.Context, path string, t agentproto.Type, payload []byte, want agentproto.Type) (any, error) {
	c, err := Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	defer c.Close()
	var m any
	err = guard(ctx, c, func() error {
		if err := agentproto.WriteFrame(c, t, payload); err != nil {
			return err
		}
		f, err := agentproto.ReadFrame(bufio.NewReader(c), nil)
		if err != nil {
			return err
		}
		if f.Type != want && f.Type != agentproto.TypeReply {
			return fmt.Errorf("%w: got %s in answer to %s", agentproto.ErrBadFrame, f.Type, t)
		}
		m, err = agentproto.Unmarshal(f)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("agent %s: %w", t, err)
	}
	if r, ok := m.(agentproto.Reply); ok && r.Status != agentproto.StatusOK {
		return nil, &StatusError{Status: r.Status, Message: r.Message}
	}
	return m, nil
}

// List returns the sessions of the agent on path.
func List(ctx context.Context, path string) ([]agentproto.SessionInfo, error) {
	m, err := request(ctx, path, agentproto.TypeList, nil, agentproto.TypeListReply)
	if err != nil {
		return nil, err
	}
	lr, ok := m.(agentproto.ListReply)
	if !ok {
		return nil, errors.New("agent List: unexpected answer")
	}
	return lr.Sessions, nil
}

// Kill asks the agent on path to end session id. A refusal is a
// *StatusError (StatusNotFound for an unknown id).
func Kill(ctx context.Context, path, id string) error {
	t, p := agentproto.Marshal(agentproto.Kill{ID: id})
	_, err := request(ctx, path, t, p, agentproto.TypeReply)
	return err
}

// Stop asks the agent on path to exit; without force it refuses while
// sessions run (a *StatusError with StatusBusy). Stop returns once the agent
// has acknowledged, not when it has exited.
func Stop(ctx context.Context, path string, force bool) error {
	t, p := agentproto.Marshal(agentproto.Stop{Force: force})
	_, err := request(ctx, path, t, p, agentproto.TypeReply)
	return err
}
