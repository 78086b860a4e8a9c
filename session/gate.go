package session

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	"github.com/ttymux/ttymux/internal/gate"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/transport"
)

// The gate looks at text about to be typed into any session, whatever the
// transport, and asks the policy (internal/policy, which reads the line
// with a shell parser in internal/gate) whether it runs, is held for
// approval or is refused. A held line is typed only after Approve for that
// exact line; there is no other bypass. Who approves (the human through the
// MCP client, or the model's confirm) is decided by the caller.

// GateError is returned when a line is held or refused.
type GateError struct {
	Rule    string // what the rule guards against, or the policy pattern
	Reason  string // why, for humans (never quotes secret text)
	Line    string // the offending line, trimmed; empty when it was secret
	Secret  bool   // the text was secret: the error does not quote it
	Session string // the session's id ("" for an open)
	Host    string // the policy's name for where it runs: local, serial:PORT, the SSH host
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
	key         string
}

func (e *GateError) Error() string {
	what := fmt.Sprintf("%q", e.Line)
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

// Key identifies the held line for Approve (a hash: it never holds the
// text).
func (e *GateError) Key() string { return e.key }

// lineKey identifies a line for Approve without keeping its text.
func lineKey(line string) string {
	h := sha256.Sum256([]byte(line))
	return hex.EncodeToString(h[:16])
}

// Approve lets the next Send whose line has key (GateError.Key) through the
// gate once. Lines refused outright (Denied) are never let through.
func (s *Session) Approve(key string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approved == nil {
		s.approved = map[string]int{}
	}
	s.approved[key]++
}

func (s *Session) takeApproval(key string) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.approved[key] == 0 {
		return false
	}
	if s.approved[key]--; s.approved[key] == 0 {
		delete(s.approved, key)
	}
	return true
}

// PolicyHost is the name the policy matches this session by: "local",
// "serial:PORT", or the SSH host as given to open_ssh (its Kind's
// PolicyHost; a session an agent on another host keeps is matched by that
// host).
func (s *Session) PolicyHost() string { return cmp.Or(s.policyHost, s.transport) }

// checkGate applies the policy and the destructive-command gate to text
// typed into s (Session.gate, in io.go, redacts the error).
func (s *Session) checkGate(text string, secret bool) error {
	host := s.PolicyHost()
	v := s.policy.Check(host, text, secret)
	if v.Decision == policy.Run {
		return nil
	}
	key := lineKey(text)
	if v.Decision == policy.Hold && s.takeApproval(key) {
		return nil
	}
	ge := &GateError{
		Rule: v.Rule, Reason: v.Reason, Line: trimLine(text), Session: s.id, Host: host,
		Denied: v.Decision == policy.Refuse, Held: v.Held, NoElicitation: v.NoElicitation,
		Destructive: v.Destructive, key: key,
	}
	if secret {
		ge.Line = ""
	}
	return ge
}

func trimLine(l string) string {
	l = strings.TrimSpace(l)
	if len(l) > 500 {
		l = l[:500] + "…"
	}
	return l
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
// PS1 with $(…)).
func (m *Manager) checkOpenGate(k Kind, t transport.Target) error {
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
				v = policy.Verdict{Decision: policy.Hold, Reason: f.Rule, Rule: f.Rule, Destructive: true}
				v.Held, v.NoElicitation = m.opts.Policy.Check(host, "", false).Held, m.opts.Policy.Check(host, "", false).NoElicitation
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
	return &GateError{
		Rule: v.Rule, Reason: v.Reason, Line: trimLine(line), Host: host,
		Denied: v.Decision == policy.Refuse, Held: v.Held, NoElicitation: v.NoElicitation,
		Destructive: v.Destructive, key: lineKey(line),
	}
}

// IsHeld reports whether err is a GateError for a line that may be
// approved.
func IsHeld(err error) (*GateError, bool) {
	var ge *GateError
	if errors.As(err, &ge) && !ge.Denied {
		return ge, true
	}
	return ge, false
}

// gateOnly is the destructive-command gate alone (the default policy on a
// host without rules).
func gateOnly(text string) error {
	if f := gate.Check(text); f != nil {
		return &GateError{Rule: f.Rule, Reason: f.Rule, Line: f.Line, Destructive: true}
	}
	return nil
}

// CheckCommand applies the policy for host and the destructive-command
// gate to a command line run outside any session (fanout's exec channels):
// nil when it may run, else a *GateError (Denied when refused outright, else
// held for approval, like a line typed into a session on that host).
func (m *Manager) CheckCommand(host, line string) error {
	v := m.opts.Policy.Check(host, line, false)
	if v.Decision == policy.Run {
		return nil
	}
	return &GateError{
		Rule: v.Rule, Reason: v.Reason, Line: trimLine(line), Host: host,
		Denied: v.Decision == policy.Refuse, Held: v.Held, NoElicitation: v.NoElicitation,
		Destructive: v.Destructive, key: lineKey(line),
	}
}
