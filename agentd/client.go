package agentd

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
)

// This file is the minimal client the ttymux-agent command needs (ls,
// stop). The full client, with streaming, is transport/agent; both speak
// through internal/agentlink.

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
	l, err := dial(ctx, path)
	if err != nil {
		return nil, err
	}
	return l.Conn, nil // Handshake reads nothing past the header
}

func dial(ctx context.Context, path string) (*agentlink.Link, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, err
	}
	l, err := agentlink.Handshake(ctx, c)
	if err != nil {
		return nil, fmt.Errorf("agent on %s: %w", path, err)
	}
	return l, nil
}

// request sends one request frame on a new connection and returns the
// decoded reply, which is want or a Reply (a refusal).
func request(ctx context.Context, path string, t agentproto.Type, payload []byte, want agentproto.Type) (any, error) {
	l, err := dial(ctx, path)
	if err != nil {
		return nil, err
	}
	defer l.Close()
	m, err := l.Call(ctx, t, payload, want)
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
