package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/secretpage"
	"github.com/ttymux/ttymux/session"
)

// A human in the loop (DESIGN.md, "A human in the loop"): a command line
// the gate or the policy holds is put to the human through the MCP client
// (form elicitation) when the client can ask; only the human's accept runs
// it, and the model's confirm: true is then not enough. A client that
// cannot ask gets the policy's no_elicitation answer.
//
// Two protocol revisions carry the question differently. At 2025-06-18
// (Claude Code today) the server sends elicitation/create during the call
// and waits for the answer, bounded by the call's timeout. At 2026-07-28
// a server may not send requests during a call: the call returns an
// input-required result and the client retries it with the answer
// (multi round-trip, go-sdk mrtr.go). The retry carries the request state
// ttymux gave it, which names one pending question for one line on one
// session: it is used once, and only before the call's timeout has passed.

// humanConfig is what newServerWith needs for the human in the loop.
type humanConfig struct {
	audit *audit.Log         // nil: no audit log
	pages *secretpage.Server // nil: one is made, listening from its first page
	now   func() time.Time
}

// human holds the questions asked through multi round-trip results and
// the audit log.
type human struct {
	audit *audit.Log
	log   *slog.Logger
	now   func() time.Time

	sec secretState // secrets from the human (secret.go)

	mu      sync.Mutex // mu protects the following
	pending map[string]pendingQuestion
}

type pendingQuestion struct {
	key      string // the held line's session.GateError.Key
	session  string
	deadline time.Time
}

func newHuman(c humanConfig, log *slog.Logger) *human {
	now := c.now
	if now == nil {
		now = time.Now
	}
	pages := c.pages
	if pages == nil {
		pages = secretpage.New(secretpage.Options{})
	}
	return &human{audit: c.audit, log: log, now: now, pending: map[string]pendingQuestion{},
		sec: secretState{asks: map[string]*secretAsk{}, boxes: map[string]*secretBox{}, pages: pages}}
}

// record writes an audit event; a failing audit log is logged, never
// fatal to the call.
func (hu *human) record(e audit.Event) {
	if err := hu.audit.Write(e); err != nil {
		hu.log.Warn("audit log", "err", err)
	}
}

// approval is the outcome of asking about a held line.
type approval struct {
	ok       bool
	decision string              // an audit decision
	result   *mcp.CallToolResult // an input-required result to return as is (multi round-trip)
	err      error               // why it was refused, for the model
}

// elicitForm reports whether the client can show the human a form.
func elicitForm(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	caps := req.ClientCapabilities()
	if caps == nil || caps.Elicitation == nil {
		return false
	}
	// Neither form nor url declared means form, for older clients.
	return caps.Elicitation.Form != nil || caps.Elicitation.URL == nil
}

// elicitURL reports whether the client can offer the human a URL.
func elicitURL(req *mcp.CallToolRequest) bool {
	if req == nil || req.Session == nil {
		return false
	}
	caps := req.ClientCapabilities()
	return caps != nil && caps.Elicitation != nil && caps.Elicitation.URL != nil
}

// multiRoundTrip reports whether the call speaks 2026-07-28 or later, where
// questions travel in input-required results.
func multiRoundTrip(req *mcp.CallToolRequest) bool {
	v := req.ProtocolVersion()
	return v == "" || v >= "2026-07-28"
}

// approvalSchema is the form: nothing to fill in, the human accepts or
// declines.
var approvalSchema = map[string]any{"type": "object", "properties": map[string]any{}}

// approvalMessage is what the human reads.
func approvalMessage(ge *session.GateError, transport string) string {
	var b strings.Builder
	b.WriteString("ttymux: the AI wants to run a command that was held for your approval.\n\n")
	if ge.Secret {
		b.WriteString("    (secret text the model typed; not shown)\n\n")
	} else {
		fmt.Fprintf(&b, "    %s\n\n", ge.Line)
	}
	where := ge.Host
	if ge.Session != "" {
		where = "session " + ge.Session + " on " + ge.Host
	} else {
		where = "a new " + transport + " session on " + ge.Host
	}
	fmt.Fprintf(&b, "Where: %s\nHeld because: %s\n\nAccept runs it. Decline refuses it and nothing is typed.", where, ge.Reason)
	return b.String()
}

// ask settles a held line: by the human (elicitation), by the model's
// confirm where the policy lets it, or by refusing. timeout bounds the
// wait for the human.
func (hu *human) ask(ctx context.Context, req *mcp.CallToolRequest, ge *session.GateError, transport string, confirm bool, timeout time.Duration) approval {
	command := ge.Line
	if ge.Secret {
		command = audit.Redacted
	}
	ev := audit.Event{Session: ge.Session, Host: ge.Host, Command: command, Reason: ge.Reason}
	if ge.Held == policy.Confirm || ge.Held == "" {
		// The policy lets the model approve: confirm: true is the old gate.
		if confirm {
			return approval{ok: true, decision: audit.ConfirmedByModel}
		}
		return approval{decision: audit.Held, err: ge}
	}
	if elicitForm(req) {
		if multiRoundTrip(req) {
			return hu.askRoundTrip(req, ge, transport, timeout, ev)
		}
		return hu.askNow(ctx, req, ge, transport, timeout, ev)
	}
	if ge.NoElicitation == policy.Confirm {
		if confirm {
			return approval{ok: true, decision: audit.ConfirmedByModel}
		}
		return approval{decision: audit.Held, err: ge}
	}
	return approval{decision: audit.DeniedByPolicy, err: fmt.Errorf("refused: %s needs a human's approval (%s), and this client cannot ask the human (it does not support elicitation); the policy (no_elicitation = \"deny\") does not let confirm: true run it. Nothing was typed. Ask the user to run it themselves, or to use a client that supports elicitation", quoted(ge), ge.Reason)}
}

// settle decides a line the gate stopped (err holds the *GateError): a
// policy deny refuses it, a hold is put to ask. When the line will not run,
// ev gets the decision and reason and is recorded; when it may run, the
// caller records ev after it ran. a.result, when set, is the call's result
// (a question for the client to come back with).
func (hu *human) settle(ctx context.Context, req *mcp.CallToolRequest, err error, ge *session.GateError, kind string, confirm bool, timeout time.Duration, ev *audit.Event) approval {
	a := approval{decision: audit.DeniedByPolicy, err: err}
	if !ge.Denied {
		a = hu.ask(ctx, req, ge, kind, confirm, timeout)
	}
	if a.result == nil && !a.ok {
		ev.Decision, ev.Reason = a.decision, ge.Reason
		hu.record(*ev)
	}
	return a
}

func quoted(ge *session.GateError) string {
	if ge.Secret {
		return "the secret text"
	}
	return fmt.Sprintf("%q", ge.Line)
}

// declined is the refusal the model reads when the human says no.
func declined(ge *session.GateError, how string) error {
	return fmt.Errorf("refused: the human %s %s; nothing was typed or run. Do not retry it unless the user asks you to", how, quoted(ge))
}

// askNow asks during the call (protocol 2025-06-18).
func (hu *human) askNow(ctx context.Context, req *mcp.CallToolRequest, ge *session.GateError, transport string, timeout time.Duration, ev audit.Event) approval {
	ev.Event, ev.Decision = "approval_asked", audit.Held
	hu.record(ev)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := req.Session.Elicit(ctx, &mcp.ElicitParams{Mode: "form", Message: approvalMessage(ge, transport), RequestedSchema: approvalSchema})
	ev.Event = "approval_answered"
	switch {
	case err != nil && ctx.Err() != nil:
		ev.Decision, ev.Reason = audit.DeclinedByHuman, "no answer within the call's timeout"
		hu.record(ev)
		return approval{decision: audit.DeclinedByHuman, err: fmt.Errorf("refused: the human did not answer within %s about %s; nothing was typed or run", timeout, quoted(ge))}
	case err != nil:
		hu.log.Warn("elicitation failed", "err", err)
		ev.Decision, ev.Reason = audit.DeclinedByHuman, "the question could not be asked"
		hu.record(ev)
		return approval{decision: audit.DeclinedByHuman, err: fmt.Errorf("refused: %s needs the human's approval and asking failed (%v); nothing was typed or run", quoted(ge), err)}
	}
	return hu.answered(ge, res, ev)
}

func (hu *human) answered(ge *session.GateError, res *mcp.ElicitResult, ev audit.Event) approval {
	ev.Event = "approval_answered"
	if res != nil && res.Action == "accept" {
		ev.Decision = audit.ApprovedByHuman
		hu.record(ev)
		return approval{ok: true, decision: audit.ApprovedByHuman}
	}
	how := "declined"
	if res == nil || res.Action != "decline" {
		how = "cancelled the question about"
	}
	ev.Decision, ev.Reason = audit.DeclinedByHuman, how
	hu.record(ev)
	return approval{decision: audit.DeclinedByHuman, err: declined(ge, how)}
}

// askRoundTrip asks through an input-required result (protocol
// 2026-07-28), or takes the answer from the retry that carries it.
func (hu *human) askRoundTrip(req *mcp.CallToolRequest, ge *session.GateError, transport string, timeout time.Duration, ev audit.Event) approval {
	if state := req.Params.RequestState; state != "" {
		hu.mu.Lock()
		q, ok := hu.pending[state]
		if ok && q.key == ge.Key() && q.session == ge.Session {
			delete(hu.pending, state) // one use
		} else {
			ok = false
		}
		hu.mu.Unlock()
		if ok {
			if hu.now().After(q.deadline) {
				ev.Event, ev.Decision, ev.Reason = "approval_answered", audit.DeclinedByHuman, "no answer within the call's timeout"
				hu.record(ev)
				return approval{decision: audit.DeclinedByHuman, err: fmt.Errorf("refused: the human did not answer within %s about %s; nothing was typed or run", timeout, quoted(ge))}
			}
			res, _ := req.Params.InputResponses["approve"].(*mcp.ElicitResult)
			return hu.answered(ge, res, ev)
		}
	}
	id := newID()
	hu.mu.Lock()
	now := hu.now()
	for k, q := range hu.pending {
		if now.After(q.deadline) {
			delete(hu.pending, k) // never answered
		}
	}
	hu.pending[id] = pendingQuestion{key: ge.Key(), session: ge.Session, deadline: now.Add(timeout)}
	hu.mu.Unlock()
	ev.Event, ev.Decision = "approval_asked", audit.Held
	hu.record(ev)
	return approval{result: &mcp.CallToolResult{
		InputRequests: mcp.InputRequestMap{"approve": &mcp.ElicitParams{Mode: "form", Message: approvalMessage(ge, transport), RequestedSchema: approvalSchema}},
		RequestState:  id,
	}}
}

// newID is a random 128-bit id, hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// sendCommand is how a send appears in the audit log.
func sendCommand(in SendIn) string {
	c := in.Text
	if in.Secret && c != "" {
		c = audit.Redacted
	}
	if in.Hex != "" && !in.Secret {
		c = strings.TrimSpace(c + " [hex " + in.Hex + "]")
	}
	if len(in.Keys) > 0 {
		c = strings.TrimSpace(c + " [" + strings.Join(in.Keys, " ") + "]")
	}
	if in.AskSecret != "" {
		c = strings.TrimSpace(c + " [secret from the human: " + in.AskSecret + "]")
	}
	return c
}

// sendWithApproval types through s.Send, settling held lines on the way.
func (h *handlers) sendWithApproval(ctx context.Context, req *mcp.CallToolRequest, in SendIn, s *session.Session, sreq session.SendRequest) (*mcp.CallToolResult, session.Result, error) {
	start := h.hu.now()
	ev := audit.Event{Event: "send", Session: s.ID(), Host: s.PolicyHost(), Command: sendCommand(in)}
	decision := audit.Ran
	timeout := sreq.Timeout
	if timeout <= 0 {
		timeout = session.DefaultTimeout
	}
	for range 4 {
		r, err := s.Send(ctx, sreq)
		var ge *session.GateError
		if errors.As(err, &ge) {
			a := h.hu.settle(ctx, req, err, ge, s.Info().Transport, in.Confirm, timeout, &ev)
			if a.result != nil || !a.ok {
				return a.result, session.Result{}, a.err
			}
			s.Approve(ge.Key())
			decision = a.decision
			continue
		}
		if err != nil {
			ev.Decision, ev.Reason = audit.Failed, "the send failed"
			h.hu.record(ev)
			return nil, session.Result{}, err
		}
		ev.Decision, ev.ExitCode, ev.DurationMS = decision, r.ExitCode, h.hu.now().Sub(start).Milliseconds()
		h.hu.record(ev)
		return textResult(summary(r)), forModel(r, in.Detail), nil
	}
	return nil, session.Result{}, errors.New("the line kept changing while it was approved; send it again")
}

// openWithApproval opens through the manager, settling a held command
// line (the program and its arguments, an SSH command) on the way.
func (h *handlers) openWithApproval(ctx context.Context, req *mcp.CallToolRequest, oreq session.OpenRequest, confirm bool) (*session.Session, *mcp.CallToolResult, error) {
	start := h.hu.now()
	ev := audit.Event{Event: "open", Host: h.mgr.OpenHost(oreq), Command: h.mgr.OpenLine(oreq)}
	if ev.Command == "" {
		ev.Command = "(" + oreq.Transport + " shell)"
	}
	decision := audit.Ran
	oreq.Confirm = false
	for {
		s, err := h.mgr.Open(ctx, oreq)
		var ge *session.GateError
		if errors.As(err, &ge) && !oreq.Confirm {
			a := h.hu.settle(ctx, req, err, ge, oreq.Transport, confirm, session.DefaultTimeout, &ev)
			if a.result != nil || !a.ok {
				return nil, a.result, a.err
			}
			decision, oreq.Confirm = a.decision, true
			continue
		}
		if err != nil {
			ev.Decision, ev.Reason = audit.Failed, "the open failed"
			h.hu.record(ev)
			return nil, nil, err
		}
		ev.Session, ev.Decision, ev.DurationMS = s.Info().ID, decision, h.hu.now().Sub(start).Milliseconds()
		h.hu.record(ev)
		return s, nil, nil
	}
}
