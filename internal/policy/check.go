package policy

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ttymux/ttymux/internal/gate"
	"github.com/ttymux/ttymux/sshconf"
)

// A Decision is what happens to a command line.
type Decision int

const (
	Run    Decision = iota // type it
	Hold                   // it needs approval (Verdict.Held says whose)
	Refuse                 // refused outright, whoever would approve
)

// A Verdict is the decision for one command line on one host.
type Verdict struct {
	Decision Decision
	// Reason says why it is held or refused; it quotes the line only
	// where the caller gave it (never for secret text).
	Reason string
	// Held is who may approve a held line: Ask (the human), Confirm (the
	// model may) or Deny (nobody: it is refused).
	Held string
	// NoElicitation is what to do with a line held for the human when the
	// client cannot ask: Confirm, Deny or Console.
	NoElicitation string
	// Destructive is set when the gate (not the policy) holds the line.
	Destructive bool
	Rule        string // the gate rule or the pattern that decided
	// Reasons are all the reasons a held line is held, Reason first: the
	// gate's rule, each ask pattern it matches, the read-only check. A
	// human approving it must see every objection, not just the first.
	Reasons []string
}

// effective is the settings that apply to one host.
type effective struct {
	readOnly            bool
	deny, ask, allow    []*regexp.Regexp
	held, noElicitation string
}

func (p *Policy) forHost(host string) effective {
	e := effective{held: p.Held, noElicitation: p.NoElicitation}
	var roSet, denySet, askSet, allowSet, heldSet, neSet bool
	// A host may go by several names (a serial device: the path it was
	// opened by, the device it resolves to, its /dev/serial/by-id links): a
	// rule written for any of them is the host's rule, whichever name the
	// model used. Which names those are is the transports' to say (Names).
	hosts := p.namesOf(host)
	for _, r := range p.Rules {
		if !matchAnyHost(r.Hosts, hosts) {
			continue
		}
		if r.ReadOnly != nil && !roSet {
			e.readOnly, roSet = *r.ReadOnly, true
		}
		if r.Deny != nil && !denySet {
			e.deny, denySet = r.Deny, true
		}
		if r.Ask != nil && !askSet {
			e.ask, askSet = r.Ask, true
		}
		if r.Allow != nil && !allowSet {
			e.allow, allowSet = r.Allow, true
		}
		if r.Held != "" && !heldSet {
			e.held, heldSet = r.Held, true
		}
		if r.NoElicitation != "" && !neSet {
			e.noElicitation, neSet = r.NoElicitation, true
		}
	}
	return e
}

// namesOf returns every name host goes by, host first.
func (p *Policy) namesOf(host string) []string {
	if p.Names != nil {
		if names := p.Names(host); len(names) > 0 {
			return names
		}
	}
	return []string{host}
}

// WithNames returns a copy of p (the default when nil) whose hosts go by
// the names names gives (Policy.Names).
func (p *Policy) WithNames(names func(host string) []string) *Policy {
	if p == nil {
		p = Default()
	}
	c := *p
	c.Names = names
	return &c
}

// Check decides what happens to line, typed into a session on host ("local",
// "serial:/dev/ttyUSB0", or the SSH host as given). secret is set for text
// the model marked secret: it is checked the same way, but the Reason never
// quotes it.
func (p *Policy) Check(host, line string, secret bool) Verdict {
	if p == nil {
		p = Default()
	}
	e := p.forHost(host)
	v := Verdict{Held: e.held, NoElicitation: e.noElicitation}
	cmds := gate.Commands(line)
	match := func(res []*regexp.Regexp) string {
		for _, re := range res {
			if re.MatchString(line) {
				return re.String()
			}
			for _, c := range cmds {
				if re.MatchString(c) {
					return re.String()
				}
			}
		}
		return ""
	}
	if m := match(e.deny); m != "" {
		v.Decision, v.Rule = Refuse, m
		v.Reason = fmt.Sprintf("the policy for %s denies commands matching %s", host, m)
		return v
	}
	var f *gate.Finding
	if secret {
		f = gate.CheckSecret(line)
	} else {
		f = gate.Check(line)
	}
	if f != nil {
		v.Decision, v.Rule, v.Destructive = Hold, f.Rule, true
		v.Reasons = append(v.Reasons, f.Rule)
	}
	allowed := func(c string) bool {
		for _, re := range e.allow {
			if re.MatchString(c) {
				return true
			}
		}
		return false
	}
	for _, re := range e.ask {
		m := re.String()
		if match([]*regexp.Regexp{re}) == "" {
			continue
		}
		if v.Decision != Hold {
			v.Decision, v.Rule = Hold, m
		}
		v.Reasons = append(v.Reasons, fmt.Sprintf("the policy for %s asks before commands matching %s", host, m))
	}
	if e.readOnly {
		whole := false
		for _, re := range e.allow {
			whole = whole || re.MatchString(line)
		}
		if !whole {
			if ok, why := gate.ReadOnlyOr(line, allowed); !ok {
				if v.Decision != Hold {
					v.Decision, v.Rule = Hold, "read_only"
				}
				if secret {
					why = "the secret text"
				}
				v.Reasons = append(v.Reasons, fmt.Sprintf("%s is read-only and %s is not known to be read-only", host, quoteWhy(why)))
			}
		}
	}
	if v.Decision != Hold {
		return v
	}
	v.Reason = v.Reasons[0]
	return v.held()
}

// envHarmless are the environment variables an open may set on a
// read-only host: they choose the terminal, the language, the time zone
// and the home. Any other may run a command (PROMPT_COMMAND, BASH_ENV,
// ENV, PS0, PAGER, EDITOR, GIT_PAGER, LD_PRELOAD …) and is held.
var envHarmless = map[string]bool{"TERM": true, "COLORTERM": true, "LANG": true, "LANGUAGE": true, "TZ": true,
	"NO_COLOR": true, "FORCE_COLOR": true, "CLICOLOR": true, "COLUMNS": true, "LINES": true, "HOME": true,
	"USER": true, "LOGNAME": true, "TMPDIR": true, "PS1": true, "PS2": true}

// CheckEnv decides whether an open may set env (NAME=value entries) on
// host: on a read-only host only the variables of envHarmless, and a
// prompt (PS1, PS2) only without $(…), `…`, ${…} or $[…] (which run
// commands, or arithmetic, at each prompt). It returns the Verdict and the entry it is about.
func (p *Policy) CheckEnv(host string, env []string) (Verdict, string) {
	if p == nil {
		p = Default()
	}
	e := p.forHost(host)
	v := Verdict{Held: e.held, NoElicitation: e.noElicitation}
	if !e.readOnly {
		return v, ""
	}
	for _, kv := range env {
		name, val, _ := strings.Cut(kv, "=")
		ok := envHarmless[name] || strings.HasPrefix(name, "LC_")
		if ok && (name == "PS1" || name == "PS2") && (strings.Contains(val, "`") || strings.Contains(val, "$(") ||
			strings.Contains(val, "${") || strings.Contains(val, "$[")) {
			ok = false
		}
		if !ok {
			v.Decision, v.Rule = Hold, "read_only"
			v.Reason = fmt.Sprintf("%s is read-only and the environment variable %s is not known to be harmless (PROMPT_COMMAND, BASH_ENV, a prompt with $(…) … run commands)", host, name)
			return v.held(), kv
		}
	}
	return v, ""
}

func quoteWhy(why string) string {
	if strings.HasPrefix(why, "the ") || strings.HasPrefix(why, "output ") || strings.HasPrefix(why, "a ") {
		return why
	}
	return "`" + why + "`"
}

// held turns a Hold whose Held is Deny into a Refuse.
func (v Verdict) held() Verdict {
	if v.Held == Deny {
		v.Decision = Refuse
		v.Reason += " (the policy refuses held commands)"
	}
	return v
}

// MatchHost reports whether host matches the ssh_config-style patterns:
// * and ? are wildcards, a pattern starting with ! excludes, and at least
// one pattern without ! must match (ssh_config(5), PATTERNS).
func MatchHost(patterns []string, host string) bool {
	ok := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		if globMatch(strings.TrimPrefix(p, "!"), host) {
			if neg {
				return false
			}
			ok = true
		}
	}
	return ok
}

// matchAnyHost is MatchHost for one thing known by several names: some
// name must match a pattern, and no name may be excluded by a ! pattern.
func matchAnyHost(patterns, hosts []string) bool {
	ok := false
	for _, h := range hosts {
		for _, p := range patterns {
			neg := strings.HasPrefix(p, "!")
			if globMatch(strings.TrimPrefix(p, "!"), h) {
				if neg {
					return false
				}
				ok = true
			}
		}
	}
	return ok
}

// globMatch matches * (any run) and ? (one character), case-insensitively
// as OpenSSH does for host names.
func globMatch(pat, s string) bool {
	return sshconf.MatchPattern(strings.ToLower(s), strings.ToLower(pat))
}

// Describe is a short human description of the policy, for ttymux doctor.
func (p *Policy) Describe() string {
	var b strings.Builder
	if p.File == "" {
		b.WriteString("built-in default (no policy file)")
	} else {
		b.WriteString(p.File)
	}
	fmt.Fprintf(&b, "\n  held = %s, no_elicitation = %s", p.Held, p.NoElicitation)
	if p.SerialPorts != nil {
		fmt.Fprintf(&b, "\n  serial ports allowed: %s", strings.Join(p.SerialPorts, ", "))
	}
	for i, r := range p.Rules {
		fmt.Fprintf(&b, "\n  rule %d (line %d): hosts %s", i+1, r.Line, strings.Join(r.Hosts, ", "))
		if r.ReadOnly != nil {
			fmt.Fprintf(&b, "; read_only = %v", *r.ReadOnly)
		}
		for _, l := range []struct {
			k  string
			rs []*regexp.Regexp
		}{{"deny", r.Deny}, {"ask", r.Ask}, {"allow", r.Allow}} {
			if len(l.rs) > 0 {
				fmt.Fprintf(&b, "; %s %d pattern(s)", l.k, len(l.rs))
			}
		}
		if r.Held != "" {
			fmt.Fprintf(&b, "; held = %s", r.Held)
		}
		if r.NoElicitation != "" {
			fmt.Fprintf(&b, "; no_elicitation = %s", r.NoElicitation)
		}
	}
	return b.String()
}
