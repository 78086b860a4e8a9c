package session

import (
	"context"
	"errors"
	"fmt"

	"github.com/ttymux/ttymux/internal/policy"
)

// What a held line is for (Hold.Op).
const (
	OpSend     = "send"
	OpOpen     = "open"
	OpUpload   = "upload"
	OpDownload = "download"
	OpFanout   = "fanout"
)

// An Approver settles held lines. The gate calls Approve where a line is
// held — for a send while the session's input lock is held, so the line
// approved is exactly the line typed and nothing else is typed meanwhile;
// for an open before the session exists; for a fanout or a transfer before
// anything runs — and nowhere else: an approval does not climb up to be
// retried.
//
// Approve may block (it may ask a human) until ctx ends. It returns a
// Grant minted from h by h.Grant, or an error: a refusal, which the gate
// returns to its caller as it is (a value of the Approver's own type goes
// through unchanged, for the caller to recognise). It may be called
// concurrently for different sessions.
type Approver interface {
	Approve(ctx context.Context, h *Hold) (Grant, error)
}

// A Hold is a line the gate stopped: exactly what would run, where, and
// every reason it was held. Only the gate makes one, and only the Approver
// sees it.
type Hold struct {
	Op        string   // OpSend, OpOpen, OpUpload, OpDownload, OpFanout
	Line      string   // the whole line that would run, never cut; "" when Secret
	Secret    bool     // the text is secret: Line is empty
	Session   string   // the session ("" for an open, a fanout or a transfer by host)
	Host      string   // the policy's name for where it runs (several hosts: a list for people)
	Hosts     []string // a fanout's held hosts
	Transport string   // the session's or the open's transport kind
	// Reasons are all the reasons it was held, the strongest first.
	Reasons []string
	Rule    string // the gate rule or the pattern that decided first
	// Destructive is set when the destructive-command gate holds it.
	Destructive bool
	// Held is who may approve it: policy.Ask (the human) or policy.Confirm
	// (the model may); NoElicitation is the policy's answer when the client
	// cannot ask the human: policy.Confirm or policy.Deny.
	Held, NoElicitation string

	key   string // lineKey of the text, secret or not
	spent bool   // a Grant was taken for it
}

// Key identifies the held text (a hash: it never holds the text), the same
// for the same text, secret or not.
func (h *Hold) Key() string { return h.key }

// A Grant lets one Hold through once. The zero Grant lets nothing through,
// and a Grant minted from another Hold does not fit this one: only the
// Approver, given the Hold, can make the Grant that fits it.
type Grant struct {
	hold *Hold
	by   string
}

// Grant mints the Grant for h; by says who granted it (an audit decision
// such as approved_by_human).
func (h *Hold) Grant(by string) Grant { return Grant{hold: h, by: by} }

// By is who granted it.
func (g Grant) By() string { return g.by }

// errForeignGrant is returned when an Approver hands back a Grant that was
// not minted from the Hold it was given (or was used already).
var errForeignGrant = errors.New("the approval does not fit the held line")

func newHold(op, text string, secret bool, v policy.Verdict) *Hold {
	h := &Hold{
		Op: op, Line: text, Secret: secret, Reasons: v.Reasons, Rule: v.Rule,
		Destructive: v.Destructive, Held: v.Held, NoElicitation: v.NoElicitation, key: lineKey(text),
	}
	if len(h.Reasons) == 0 && v.Reason != "" {
		h.Reasons = []string{v.Reason}
	}
	if secret {
		h.Line = ""
	}
	return h
}

// gateError is the refusal for h: Denied when the policy refuses it
// outright, else held with nobody to ask.
func (h *Hold) gateError(denied bool) *GateError {
	ge := &GateError{
		Rule: h.Rule, Reasons: h.Reasons, Line: h.Line, Secret: h.Secret, Session: h.Session, Host: h.Host,
		Denied: denied, Held: h.Held, NoElicitation: h.NoElicitation, Destructive: h.Destructive,
	}
	if len(h.Reasons) > 0 {
		ge.Reason = h.Reasons[0]
	}
	return ge
}

// HeldError is the refusal of h when nobody approves it: the model reads
// it (it names confirm: true where the policy lets the model confirm).
func (h *Hold) HeldError() error { return h.gateError(false) }

// SetApprover sets the Approver when it could not be given in Options (it
// is made with the server that uses the Manager). Sessions made before
// keep none: their held lines are refused (fail closed).
func (m *Manager) SetApprover(a Approver) {
	m.mu.Lock()
	m.opts.Approver = a
	m.mu.Unlock()
}

func (m *Manager) approver() Approver {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.opts.Approver
}

// approve puts h to the Manager's Approver: nil when it granted h.
func (m *Manager) approve(ctx context.Context, h *Hold) error {
	return approve(ctx, m.approver(), h)
}

func approve(ctx context.Context, a Approver, h *Hold) error {
	if a == nil {
		return h.gateError(false)
	}
	g, err := a.Approve(ctx, h)
	if err != nil {
		return err
	}
	if g.hold != h || h.spent {
		return fmt.Errorf("%w: nothing was typed or run", errForeignGrant)
	}
	h.spent = true
	return nil
}

// gate judges text about to be typed into s and settles a hold with the
// Approver: nil when it may be typed. Send calls it with the input lock
// (sendMu) held.
func (s *Session) gate(ctx context.Context, text string, secret bool) error {
	h, err := s.judge(OpSend, text, secret)
	if h == nil {
		return err
	}
	return s.settle(ctx, h)
}

// settle puts a hold of s to the Approver. What it shows never quotes a
// secret typed earlier.
func (s *Session) settle(ctx context.Context, h *Hold) error {
	if !h.Secret {
		s.mu.Lock()
		h.Line = redact(h.Line, s.secrets)
		s.mu.Unlock()
	}
	return approve(ctx, s.approver, h)
}
