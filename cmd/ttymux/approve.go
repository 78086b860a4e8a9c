package main

import (
	"cmp"
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
	"github.com/ttymux/ttymux/internal/visible"
	"github.com/ttymux/ttymux/session"
)

// A human in the loop (DESIGN.md, "A human in the loop"): a command line
// the gate or the policy holds is put to the Approver, the one place that
// settles holds (session.Approver, implemented here by *human). The gate
// calls it where the line is held — for a send with the session's input
// lock held — with a session.Hold: exactly what would run, where, and every
// reason. It answers with the Grant minted from that Hold, or a refusal:
//
//   - a grant the human gave earlier ("this exact command on this host for
//     10 minutes") covers it;
//   - the policy lets the model approve (held = "confirm"): the model's
//     confirm: true;
//   - the client can show a form: the human is asked. At 2025-06-18
//     (Claude Code today) the server sends elicitation/create during the
//     call and waits, bounded by the call's timeout. At 2026-07-28 a server
//     may not send requests during a call: the call ends with an
//     input-required result (askLater, which climbs up as the refusal) and
//     the client retries it with the answer (multi round-trip, go-sdk
//     mrtr.go). The retry carries the request state ttymux gave it, which
//     names one question for one line on one session and host: it is used
//     once, and only before the call's timeout has passed;
//   - else the policy's no_elicitation answer: confirm (the model's
//     confirm: true) or deny.
//
// Every question and answer is one audit event of a typed kind; the tool
// handler records its own event (send, open, upload …) with the decision
// the Approver reached, read back from the call (callInfo).

// humanConfig is what newServerWith needs for the human in the loop.
type humanConfig struct {
	audit *audit.Log         // nil: no audit log
	pages *secretpage.Server // nil: one is made, listening from its first page
	now   func() time.Time
	// console is the human's console for no_elicitation = "console"
	// (consolehold.go); the zero value finds it in the runtime directory.
	console consoleConfig
	// secretTargetWait is how long ask_secret waits for a password prompt
	// before it refuses (0: secretTargetWait). Tests whose terminal will
	// never ask set it short, to be refused without sitting out 3 s.
	secretTargetWait time.Duration
}

// human is the Approver: it holds the questions asked through multi
// round-trip results, the grants the human gave, and the audit log.
type human struct {
	audit   *audit.Log
	log     *slog.Logger
	now     func() time.Time
	console consoleConfig

	sec secretState // secrets from the human (secret.go)

	mu      sync.Mutex // mu protects the following
	pending map[string]pendingQuestion
	grants  map[string]time.Time // grantKey -> until
}

type pendingQuestion struct {
	key      string // the held text's session.Hold.Key
	session  string
	host     string
	deadline time.Time
}

// GrantFor is how long a grant the human gives in the approval form lasts.
const GrantFor = 10 * time.Minute

// grantField is the approval form's one field: the human, and only the
// human, may let this exact command run again on this host for GrantFor.
const grantField = "allow_10_min"

// maxShown bounds the command an approval form shows, after it is made
// visible: a longer one is not put to the human (nobody checks 16 KiB in a
// dialog), and the refusal says so.
const maxShown = 16 << 10

func newHuman(c humanConfig, log *slog.Logger) *human {
	now := c.now
	if now == nil {
		now = time.Now
	}
	pages := c.pages
	if pages == nil {
		pages = secretpage.New(secretpage.Options{})
	}
	return &human{audit: c.audit, log: log, now: now, console: c.console, pending: map[string]pendingQuestion{}, grants: map[string]time.Time{},
		sec: secretState{asks: map[string]*secretAsk{}, boxes: map[string]*secretBox{}, pages: pages, targetWait: cmp.Or(c.secretTargetWait, secretTargetWait)}}
}

// record writes an audit event; a failing audit log is logged, never
// fatal to the call.
func (hu *human) record(e audit.Event) {
	if err := hu.audit.Write(e); err != nil {
		hu.log.Warn("audit log", "err", err)
	}
}

// callInfo is what the Approver needs from the tool call a hold arises in,
// and what it decided, for the handler's own audit event. Handlers put it
// in the call's context (withCall); one call's holds are settled one at a
// time (the gate holds the input lock), so its fields need no lock.
type callInfo struct {
	req     *mcp.CallToolRequest // nil: no client to ask (a secret the page delivers)
	confirm bool                 // the model's confirm: true
	timeout time.Duration        // how long the human may take

	decision audit.Decision // how a hold was settled; "" when nothing was held
	reason   string         // why it was held
	refused  bool           // the Approver refused: the decision is the outcome
	note     string         // for the result: where the hold waited and what was decided
}

type callKey struct{}

func withCall(ctx context.Context, c *callInfo) context.Context {
	return context.WithValue(ctx, callKey{}, c)
}

func callFrom(ctx context.Context) *callInfo {
	if c, ok := ctx.Value(callKey{}).(*callInfo); ok {
		return c
	}
	return &callInfo{}
}

// askLater is the Approver's answer at 2026-07-28: not yet, the question
// is in res, an input-required result the call returns as is.
type askLater struct{ res *mcp.CallToolResult }

func (*askLater) Error() string { return "the question to the human is in the result" }

// questionIn returns the input-required result err carries, if any.
func questionIn(err error) *mcp.CallToolResult {
	var a *askLater
	if errors.As(err, &a) {
		return a.res
	}
	return nil
}

// outcome is the decision for a handler's audit event after the call's
// work ended with err.
func (c *callInfo) outcome(err error) (audit.Decision, string) {
	var ge *session.GateError
	switch {
	case err == nil:
		return cmp.Or(c.decision, audit.Ran), c.reason
	case c.refused:
		return c.decision, c.reason
	case errors.As(err, &ge) && ge.Denied:
		return audit.DeniedByPolicy, strings.Join(ge.Reasons, "; ")
	}
	return audit.Failed, err.Error()
}

// finish records a handler's event after its work ended with err (nothing
// when the call only asked the human a question).
func (hu *human) finish(ctx context.Context, ev audit.Event, start time.Time, err error) {
	if questionIn(err) != nil {
		return
	}
	ev.Decision, ev.Reason = callFrom(ctx).outcome(err)
	if err == nil {
		ev.DurationMS = hu.now().Sub(start).Milliseconds()
	}
	hu.record(ev)
}

// Approve settles a hold (session.Approver).
func (hu *human) Approve(ctx context.Context, h *session.Hold) (session.Grant, error) {
	c := callFrom(ctx)
	c.reason = strings.Join(h.Reasons, "; ")
	ev := audit.Event{Session: h.Session, Host: h.Host, Command: holdCommand(h), Reason: c.reason}
	grant := func(by audit.Decision) (session.Grant, error) {
		c.decision, c.refused = by, false
		return h.Grant(string(by)), nil
	}
	refuse := func(by audit.Decision, err error) (session.Grant, error) {
		c.decision, c.refused = by, true
		return session.Grant{}, err
	}
	if until, ok := hu.granted(h); ok {
		ev.Event, ev.Decision = audit.KindApprovalAnswered, audit.GrantedByHuman
		ev.Reason = fmt.Sprintf("%s; covered by the human's grant until %s", c.reason, until.Format(time.RFC3339))
		hu.record(ev)
		return grant(audit.GrantedByHuman)
	}
	modelMay := h.Held == policy.Confirm || h.Held == ""
	if !modelMay && elicitForm(c.req) {
		msg, err := approvalMessage(h)
		if err != nil {
			ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAsked, audit.Held, err.Error()
			hu.record(ev)
			return refuse(audit.Held, err)
		}
		a := hu.askHuman(ctx, c, h, msg, ev)
		if a.res != nil {
			return refuse(audit.Held, &askLater{a.res})
		}
		if a.err != nil {
			return refuse(audit.DeclinedByHuman, a.err)
		}
		if a.grant {
			hu.give(h)
		}
		return grant(audit.ApprovedByHuman)
	}
	if !modelMay && h.NoElicitation == policy.Console {
		// The human decides in the console they started; the model's
		// confirm: true does not count.
		if a, by := hu.askConsole(ctx, c, h, ev); a.err != nil {
			return refuse(by, a.err)
		}
		return grant(audit.ApprovedByHuman)
	}
	if modelMay || h.NoElicitation == policy.Confirm {
		// confirm: true is the model's; it never creates a grant.
		if c.confirm {
			return grant(audit.ConfirmedByModel)
		}
		return refuse(audit.Held, h.HeldError())
	}
	return refuse(audit.DeniedByPolicy, fmt.Errorf("refused: %s needs a human's approval (%s), and this client cannot ask the human (it does not support elicitation); the policy (no_elicitation = \"deny\") does not let confirm: true run it. Nothing was typed. Ask the user to run it themselves, or to use a client that supports elicitation", quoted(h), c.reason))
}

// grantKey names a grant: this exact text (its hash), for this kind of
// call, on this host (or this set of fanout hosts).
func grantKey(h *session.Hold) string { return h.Op + "\x00" + h.Host + "\x00" + h.Key() }

// granted reports whether a live grant covers h. A secret is never granted.
func (hu *human) granted(h *session.Hold) (time.Time, bool) {
	if h.Secret {
		return time.Time{}, false
	}
	hu.mu.Lock()
	defer hu.mu.Unlock()
	k := grantKey(h)
	until, ok := hu.grants[k]
	if ok && !hu.now().Before(until) {
		delete(hu.grants, k)
		return time.Time{}, false
	}
	return until, ok
}

// give records the human's grant for h, for GrantFor from now.
func (hu *human) give(h *session.Hold) {
	if h.Secret {
		return
	}
	hu.mu.Lock()
	defer hu.mu.Unlock()
	now := hu.now()
	for k, until := range hu.grants {
		if !now.Before(until) {
			delete(hu.grants, k)
		}
	}
	hu.grants[grantKey(h)] = now.Add(GrantFor)
}

// holdCommand is how a held line appears in the audit log.
func holdCommand(h *session.Hold) string {
	if h.Secret {
		return audit.Redacted
	}
	return h.Line
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

// approvalSchema is the form for h: accept or decline, and for a line that
// is not secret, a grant for GrantFor.
func approvalSchema(h *session.Hold) map[string]any {
	props := map[string]any{}
	if !h.Secret {
		props[grantField] = map[string]any{
			"type": "boolean", "default": false,
			"title":       "Also allow this exact command on " + visible.String(h.Host) + " for the next 10 minutes",
			"description": "Later calls with exactly this command line run without asking you again until then.",
		}
	}
	return map[string]any{"type": "object", "properties": props}
}

// approvalMessage is what the human reads: the whole command, made
// visible (never cut), where it would run, and every reason it was held.
// A command too long to show is not put to the human: the error says why.
func approvalMessage(h *session.Hold) (string, error) {
	var b strings.Builder
	b.WriteString("ttymux: the AI wants to run a command that was held for your approval.\n\n")
	shown := visible.String(h.Line)
	switch {
	case h.Secret:
		b.WriteString("    (secret text; not shown)\n\n")
	case len(shown) > maxShown:
		return "", fmt.Errorf("refused: the command is %d bytes as it would be shown, more than an approval form can show whole (%d); it was not put to the human and nothing was typed or run. Split it into shorter commands the human can read", len(shown), maxShown)
	default:
		fmt.Fprintf(&b, "    %s\n\n", shown)
		if shown != h.Line {
			b.WriteString("(Shown exactly: control characters as \\x1b, \\n …, invisible characters as \\u…, runs of spaces as ␠×N.)\n\n")
		}
	}
	fmt.Fprintf(&b, "Where: %s\n", where(h))
	if len(h.Reasons) == 1 {
		fmt.Fprintf(&b, "Held because: %s\n", visible.String(h.Reasons[0]))
	} else {
		b.WriteString("Held because:\n")
		for _, r := range h.Reasons {
			fmt.Fprintf(&b, "  - %s\n", visible.String(r))
		}
	}
	b.WriteString("\nAccept runs it. Decline refuses it and nothing is typed.")
	return b.String(), nil
}

func where(h *session.Hold) string {
	host := visible.String(h.Host)
	switch {
	case h.Op == session.OpFanout:
		return "fanout on " + host
	case h.Op == session.OpUpload || h.Op == session.OpDownload:
		s := h.Op + " on " + host
		if h.Session != "" {
			s += " (session " + h.Session + ")"
		}
		return s
	case h.Session != "":
		return "session " + h.Session + " on " + host
	}
	return "a new " + h.Transport + " session on " + host
}

// quoted names the held text for the model (cut: the model wrote it).
func quoted(h *session.Hold) string {
	if h.Secret {
		return "the secret text"
	}
	l := h.Line
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	return fmt.Sprintf("%q", l)
}

// declined is the refusal the model reads when the human says no.
func declined(h *session.Hold, how string) error {
	return fmt.Errorf("refused: the human %s %s; nothing was typed or run. Do not retry it unless the user asks you to", how, quoted(h))
}

// answer is how asking the human went.
type answer struct {
	grant bool                // accepted, with a grant for GrantFor
	res   *mcp.CallToolResult // a question to return (multi round-trip)
	err   error               // refused
}

// askHuman puts h to the human: during the call (2025-06-18), or by an
// input-required result, or from the answer the retry carries (2026-07-28).
func (hu *human) askHuman(ctx context.Context, c *callInfo, h *session.Hold, msg string, ev audit.Event) answer {
	timeout := cmp.Or(c.timeout, session.DefaultTimeout)
	ev.Via = audit.ViaElicitation
	params := &mcp.ElicitParams{Mode: "form", Message: msg, RequestedSchema: approvalSchema(h)}
	if multiRoundTrip(c.req) {
		if q, ok := hu.takePending(c.req.Params.RequestState, h); ok {
			if hu.now().After(q.deadline) {
				return hu.noAnswer(h, timeout, ev)
			}
			res, _ := c.req.Params.InputResponses["approve"].(*mcp.ElicitResult)
			return hu.answered(h, res, ev)
		}
		id := hu.putPending(h, timeout)
		ev.Event, ev.Decision = audit.KindApprovalAsked, audit.Held
		hu.record(ev)
		return answer{res: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"approve": params}, RequestState: id}}
	}
	ev.Event, ev.Decision = audit.KindApprovalAsked, audit.Held
	hu.record(ev)
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	res, err := c.req.Session.Elicit(ctx, params)
	switch {
	case err != nil && ctx.Err() != nil:
		return hu.noAnswer(h, timeout, ev)
	case err != nil:
		hu.log.Warn("elicitation failed", "err", err)
		ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAnswered, audit.DeclinedByHuman, "the question could not be asked"
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s needs the human's approval and asking failed (%v); nothing was typed or run", quoted(h), err)}
	}
	return hu.answered(h, res, ev)
}

func (hu *human) noAnswer(h *session.Hold, timeout time.Duration, ev audit.Event) answer {
	ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAnswered, audit.DeclinedByHuman, "no answer within the call's timeout"
	hu.record(ev)
	return answer{err: fmt.Errorf("refused: the human did not answer within %s about %s; nothing was typed or run", timeout, quoted(h))}
}

func (hu *human) answered(h *session.Hold, res *mcp.ElicitResult, ev audit.Event) answer {
	ev.Event = audit.KindApprovalAnswered
	if res != nil && res.Action == "accept" {
		g, _ := res.Content[grantField].(bool)
		ev.Decision = audit.ApprovedByHuman
		if g && !h.Secret {
			ev.Reason += fmt.Sprintf("; the human allowed this exact command on %s for %s", h.Host, GrantFor)
		}
		hu.record(ev)
		return answer{grant: g}
	}
	how := "declined"
	if res == nil || res.Action != "decline" {
		how = "cancelled the question about"
	}
	ev.Decision, ev.Reason = audit.DeclinedByHuman, how
	hu.record(ev)
	return answer{err: declined(h, how)}
}

// takePending finds the question the retry's request state names, for
// this very hold; it is used once.
func (hu *human) takePending(state string, h *session.Hold) (pendingQuestion, bool) {
	if state == "" {
		return pendingQuestion{}, false
	}
	hu.mu.Lock()
	defer hu.mu.Unlock()
	q, ok := hu.pending[state]
	if !ok || q.key != h.Key() || q.session != h.Session || q.host != h.Host {
		return pendingQuestion{}, false
	}
	delete(hu.pending, state)
	return q, true
}

func (hu *human) putPending(h *session.Hold, timeout time.Duration) string {
	id := newID()
	hu.mu.Lock()
	defer hu.mu.Unlock()
	now := hu.now()
	for k, q := range hu.pending {
		if now.After(q.deadline) {
			delete(hu.pending, k) // never answered
		}
	}
	hu.pending[id] = pendingQuestion{key: h.Key(), session: h.Session, host: h.Host, deadline: now.Add(timeout)}
	return id
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

// sendWithApproval types through s.Send; a held line is settled by the
// Approver inside it.
func (h *handlers) sendWithApproval(ctx context.Context, req *mcp.CallToolRequest, in SendIn, s *session.Session, sreq session.SendRequest) (*mcp.CallToolResult, session.Result, error) {
	start := h.hu.now()
	ctx = withCall(ctx, &callInfo{req: req, confirm: in.Confirm, timeout: cmp.Or(sreq.Timeout, session.DefaultTimeout)})
	r, err := s.Send(ctx, sreq)
	ev := audit.Event{Event: audit.KindSend, Session: s.ID(), Host: s.PolicyHost(), Command: sendCommand(in)}
	if err == nil {
		ev.ExitCode = r.ExitCode
	}
	h.hu.finish(ctx, ev, start, err)
	if q := questionIn(err); q != nil {
		return q, session.Result{}, nil
	}
	if err != nil {
		return nil, session.Result{}, err
	}
	r.Note = joinNote(callFrom(ctx).note, r.Note)
	return toolResult(r, in.Detail)
}

// openWithApproval opens through the manager; a held command line (the
// program and its arguments, an SSH command) is settled by the Approver
// inside it. A question for the client comes back as the result.
func (h *handlers) openWithApproval(ctx context.Context, req *mcp.CallToolRequest, oreq session.OpenRequest, confirm bool) (*session.Session, *mcp.CallToolResult, error) {
	start := h.hu.now()
	ctx = withCall(ctx, &callInfo{req: req, confirm: confirm, timeout: session.DefaultTimeout})
	ev := audit.Event{Event: audit.KindOpen, Host: h.mgr.OpenHost(oreq), Command: h.mgr.OpenLine(oreq)}
	if ev.Command == "" {
		ev.Command = "(" + oreq.Transport + " shell)"
	}
	s, err := h.mgr.Open(ctx, oreq)
	if err == nil {
		ev.Session = s.Info().ID
	}
	h.hu.finish(ctx, ev, start, err)
	if q := questionIn(err); q != nil {
		return nil, q, nil
	}
	return s, nil, err
}
