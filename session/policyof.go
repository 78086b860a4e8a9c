package session

import (
	"context"

	"github.com/ttymux/ttymux/internal/policy"
)

// Policy returns the policy the manager checks commands against, for
// decisions made outside a session (port forwards).
func (m *Manager) Policy() *policy.Policy {
	if m.opts.Policy == nil {
		return policy.Default()
	}
	return m.opts.Policy
}

// OpForward is the Hold.Op of a port forward.
const OpForward = "forward"

// A ForwardCheck is a port forward to decide: Line says what it does as
// ssh's options would ("ssh -L 127.0.0.1:0:127.0.0.1:5432 db1"), for the
// human and the audit log.
type ForwardCheck struct {
	Host, Session  string
	Kind           string // policy.ForwardLocal, ForwardReverse, ForwardSOCKS
	Listen, Target string
	Line           string
}

// CheckForward decides a forward by the policy and settles a hold with the
// Approver, as a held command is: nil when it may open.
func (m *Manager) CheckForward(ctx context.Context, f ForwardCheck) error {
	v := m.Policy().CheckForward(f.Host, f.Kind, f.Listen, f.Target)
	if v.Decision == policy.Run {
		return nil
	}
	h := newHold(OpForward, f.Line, false, v)
	h.Host, h.Session, h.Transport = f.Host, f.Session, "ssh"
	if v.Decision == policy.Refuse {
		return h.gateError(true)
	}
	return m.approve(ctx, h)
}
