package session

import (
	"cmp"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	"github.com/ttymux/ttymux/internal/gate"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/transport"
)

// The gate looks at text about to be typed into any session, whatever the
// transport, and asks the policy (internal/policy, which reads the line
// with a shell parser in internal/gate) whether it runs, is held for
// approval or is refused. A held line is put to the Approver (approver.go)
// where it arises, while the session's input lock is held: it runs only
// with a Grant minted for that very Hold. There is no other way through.
// Who approves (the human through the MCP client, or the model's confirm
// where the policy lets it) is the Approver's business, in cmd.

// GateError is returned when a line is refused outright, or held while
// there is no Approver to ask.
type GateError struct {
	Rule    string   // what the rule guards against, or the policy pattern
	Reason  string   // why, for humans (never quotes secret text)
	Reasons []string // every reason, Reason first
	Line    string   // the offending line; empty when it was secret
	Secret  bool     // the text was secret: the error does not quote it
	Session string   // the session's id ("" for an open)
	Host    string   // the policy's name for where it runs: local, serial:PORT, the SSH host
	// Denied is set when the line is refused outright (a deny pattern, or
	// held = "deny"): nobody may approve it.
	Denied bool
	// Held is who may approve a held line: policy.Ask (the human) or
	// policy.Confirm (the model may); NoElicitation is what to do when the
	// client cannot ask the human.
	Held, NoElicitation string
	// Destructive is set when the destructive-command gate (not a policy
	// rule) holds the line.
	Destructive bool
}

func (e *GateError) Error() string {
	// The model wrote the line: a long one is cut here, where only the
	// model reads it (the human's approval form shows it whole).
	l := strings.TrimSpace(e.Line)
	if len(l) > 200 {
		l = l[:200] + "…"
	}
	what := fmt.Sprintf("%q", l)
	if e.Secret {
		what = "the secret text"
	}
	switch {
	case e.Denied:
		return fmt.Sprintf("refused: %s is not allowed (%s); nothing was typed or run", what, e.Reason)
	case e.Destructive && e.Secret:
		return fmt.Sprintf("refused: the secret text looks destructive (%s); nothing was typed. If it is a password that only looks like a command, repeat the call with confirm: true", e.Rule)
	case e.Destructive:
		return fmt.Sprintf("refused: %s looks destructive (%s); nothing was typed or run. If this is intended, repeat the call with confirm: true", what, e.Rule)
	}
	return fmt.Sprintf("held: %s needs approval (%s); nothing was typed or run. If this is intended, repeat the call with confirm: true", what, e.Reason)
}

// lineKey identifies a line without keeping its text.
func lineKey(line string) string {
	h := sha256.Sum256([]byte(line))
	return hex.EncodeToString(h[:16])
}

// PolicyHost is the name the policy matches this session by: "local",
// "serial:PORT", or the SSH host as given to open_ssh (its Kind's
// PolicyHost; a session an agent on another host keeps is matched by that
// host).
func (s *Session) PolicyHost() string { return cmp.Or(s.policyHost, s.transport) }

// judge is the policy's verdict on text typed into s: nil when it runs, a
// *GateError when it is refused, or the Hold to put to the Approver.
func (s *Session) judge(op, text string, secret bool) (*Hold, error) {
	host := s.PolicyHost()
	v := s.policy.Check(host, text, secret)
	if v.Decision == policy.Run {
		return nil, nil
	}
	h := newHold(op, text, secret, v)
	h.Session, h.Host, h.Transport = s.id, host, s.transport
	if v.Decision == policy.Refuse {
		return nil, s.redacted(h.gateError(true))
	}
	return h, nil
}

// redacted hides the session's secrets from what a refusal or a hold
// quotes: a held line may mention text typed earlier as a secret.
func (s *Session) redacted(ge *GateError) *GateError {
	if ge.Secret {
		return ge
	}
	s.mu.Lock()
	ge.Line = redact(ge.Line, s.secrets)
	s.mu.Unlock()
	return ge
}

// OpenHost is the name the policy matches an open by (see PolicyHost).
func (m *Manager) OpenHost(req OpenRequest) string {
	k, _ := m.kind(req.Transport)
	return k.policyHost(req.Target, "")
}

// OpenLine is the command line an open runs, as the policy sees it: the
// local program with its arguments (quoted as a shell would need), or the
// SSH command (Kind.OpenLine). An interactive shell is "".
func (m *Manager) OpenLine(req OpenRequest) string {
	k, _ := m.kind(req.Transport)
	return k.openLine(req.Target)
}

// ShellQuote quotes w for a POSIX shell when it needs it.
func ShellQuote(w string) string { return shellQuote(w) }

func shellQuote(w string) string {
	if w != "" && strings.IndexFunc(w, func(r rune) bool {
		return !(r == '/' || r == '.' || r == '-' || r == '_' || r == '=' || r == ':' || r == ',' || r == '+' || r == '@' ||
			r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) < 0 {
		return w
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}

// checkOpenGate applies the policy to what an open runs (OpenLine), and the
// destructive-command gate also to each argument (sh -c takes a command
// line) and each environment value a shell may execute (PROMPT_COMMAND,
// PS1 with $(…)); a held open is put to the Approver.
func (m *Manager) checkOpenGate(ctx context.Context, k Kind, t transport.Target) error {
	host := k.policyHost(t, "")
	line := k.openLine(t)
	v := m.opts.Policy.Check(host, line, false)
	if v.Decision == policy.Run {
		// On a read-only host the environment may run commands too
		// (PROMPT_COMMAND, BASH_ENV, PS1 with $(…)).
		if ev, kv := m.opts.Policy.CheckEnv(host, t.Env); ev.Decision != policy.Run {
			v, line = ev, kv
		}
	}
	if v.Decision == policy.Run && k.GateArgs {
		var texts []string
		texts = append(texts, t.Args...)
		for _, kv := range t.Env {
			_, val, _ := strings.Cut(kv, "=")
			texts = append(texts, val)
		}
		for _, x := range texts {
			if f := gate.CheckSecret(x); f != nil {
				d := m.opts.Policy.Check(host, "", false)
				v = policy.Verdict{Decision: policy.Hold, Reason: f.Rule, Reasons: []string{f.Rule}, Rule: f.Rule, Destructive: true, Held: d.Held, NoElicitation: d.NoElicitation}
				if v.Held == policy.Deny {
					v.Decision = policy.Refuse
				}
				line = x
				break
			}
		}
	}
	if v.Decision == policy.Run {
		return nil
	}
	h := newHold(OpOpen, line, false, v)
	h.Host, h.Transport = host, k.Name
	if v.Decision == policy.Refuse {
		return h.gateError(true)
	}
	return m.approve(ctx, h)
}

// gateOnly is the destructive-command gate alone (the default policy on a
// host without rules).
func gateOnly(text string) error {
	if f := gate.Check(text); f != nil {
		return &GateError{Rule: f.Rule, Reason: f.Rule, Line: f.Line, Destructive: true}
	}
	return nil
}

// A Command is a command line run outside any session: a fanout's on each
// of its hosts, or the line a file transfer stands for (`upload PATH`,
// `download PATH`).
type Command struct {
	Op      string   // OpFanout, OpUpload, OpDownload
	Line    string   // what the policy and the gate read
	Hosts   []string // where it runs, by their policy names
	Session string   // the session a transfer goes through, if any
}

// CheckCommand applies the policy for each host and the destructive-command
// gate to c, and puts the held hosts to the Approver together, as one Hold
// naming them all (one question, never one per host). It returns why each
// refused host is refused (a host absent from refused runs), and the
// Approver's answer when it refused the held ones: those hosts are then in
// refused too.
func (m *Manager) CheckCommand(ctx context.Context, c Command) (refused map[string]error, err error) {
	refused = map[string]error{}
	var held []string
	var hold *Hold
	for _, host := range c.Hosts {
		v := m.opts.Policy.Check(host, c.Line, false)
		switch v.Decision {
		case policy.Run:
			continue
		case policy.Refuse:
			h := newHold(c.Op, c.Line, false, v)
			h.Host, h.Session = host, c.Session
			refused[host] = h.gateError(true)
			continue
		}
		held = append(held, host)
		h := newHold(c.Op, c.Line, false, v)
		// The strictest rule asks: the human's approval over the model's;
		// the question carries every host's reasons.
		switch {
		case hold == nil:
			hold = h
		case hold.Held != policy.Ask && h.Held == policy.Ask:
			h.Reasons = mergeReasons(h.Reasons, hold.Reasons)
			hold = h
		default:
			hold.Reasons = mergeReasons(hold.Reasons, h.Reasons)
		}
	}
	if hold == nil {
		return refused, nil
	}
	hold.Hosts, hold.Host, hold.Session = held, hostNames(held), c.Session
	if err := m.approve(ctx, hold); err != nil {
		for _, host := range held {
			refused[host] = err
		}
		return refused, err
	}
	return refused, nil
}

func mergeReasons(a, b []string) []string {
	for _, r := range b {
		if !slices.Contains(a, r) {
			a = append(a, r)
		}
	}
	return a
}

// hostNames names hosts for a person: all of them up to eight, else the
// first eight and how many more.
func hostNames(hosts []string) string {
	const show = 8
	if len(hosts) <= show {
		return strings.Join(hosts, ", ")
	}
	return fmt.Sprintf("%s and %d more (%d hosts)", strings.Join(hosts[:show], ", "), len(hosts)-show, len(hosts))
}
