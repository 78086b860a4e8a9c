package policy

import (
	"fmt"
	"net"
	"path"
	"strings"
)

// Forward kinds, as CheckForward takes them.
const (
	ForwardLocal   = "local"   // -L: a port here reaching an address from the host
	ForwardReverse = "reverse" // -R: a port on the host reaching an address here
	ForwardSOCKS   = "socks"   // -D: any address from the host
)

// CheckForward decides a port forward over host's SSH connection. listen
// is the address the forward listens on here (local, socks) and target the
// address it reaches: from the host (local), here (reverse); socks reaches
// anything. A rule's forward key lists the addresses that may be reached
// ("127.0.0.1:5432", "*:80", "db.internal:*", "*" for any); without one:
//   - a local forward to the host's own loopback runs, anything else is held;
//   - reverse and socks forwards are held;
//   - on a read-only host a reverse forward is refused unless listed: it
//     lets the host reach into this machine.
//
// A listener here binds loopback only unless forward_listen_any is set.
func (p *Policy) CheckForward(host, kind, listen, target string) Verdict {
	var list []string
	var listSet, roSet, anySet bool
	readOnly, listenAny := false, false
	for _, r := range p.Rules {
		if !matchAnyHost(r.Hosts, []string{host}) {
			continue
		}
		if r.Forward != nil && !listSet {
			list, listSet = r.Forward, true
		}
		if r.ReadOnly != nil && !roSet {
			readOnly, roSet = *r.ReadOnly, true
		}
		if r.ForwardListenAny != nil && !anySet {
			listenAny, anySet = *r.ForwardListenAny, true
		}
	}
	e := p.forHost(host)
	v := Verdict{Decision: Run, Held: e.held, NoElicitation: e.noElicitation, Rule: "forward"}
	if kind != ForwardReverse && !listenAny && !loopback(listen) {
		v.Decision, v.Held = Refuse, Deny
		v.Reason = fmt.Sprintf("a forward may listen only on a loopback address here (127.0.0.1, ::1), not %s; the policy's forward_listen_any = true allows others", listen)
		return v
	}
	listed := listSet && forwardListed(list, kind, target)
	switch {
	case listed:
		return v
	case kind == ForwardReverse && readOnly:
		v.Decision, v.Held = Refuse, Deny
		v.Reason = fmt.Sprintf("%s is read-only: a reverse forward would let it reach %s on this machine; list the address in the rule's forward key to allow it", host, target)
	case kind == ForwardReverse:
		v.Decision = Hold
		v.Reason = fmt.Sprintf("a reverse forward lets %s reach %s on this machine", host, target)
	case kind == ForwardSOCKS:
		v.Decision = Hold
		v.Reason = fmt.Sprintf("a SOCKS forward reaches any address from %s", host)
	case listSet:
		v.Decision = Hold
		v.Reason = fmt.Sprintf("%s is not among the addresses the policy lets forwards to %s reach", target, host)
	case !loopback(target):
		v.Decision = Hold
		v.Reason = fmt.Sprintf("the forward reaches %s, beyond %s itself", target, host)
	default:
		return v
	}
	if v.Decision == Hold && e.held == Deny {
		v.Decision = Refuse
	}
	return v
}

// forwardListed reports whether a pattern allows target; "*" alone allows
// socks too.
func forwardListed(list []string, kind, target string) bool {
	for _, pat := range list {
		if pat == "*" {
			return true
		}
		if kind == ForwardSOCKS {
			continue
		}
		ph, pp, err := net.SplitHostPort(pat)
		if err != nil {
			continue
		}
		th, tp, err := net.SplitHostPort(target)
		if err != nil {
			continue
		}
		hm, _ := path.Match(strings.ToLower(ph), strings.ToLower(th))
		pm, _ := path.Match(pp, tp)
		if hm && pm {
			return true
		}
	}
	return false
}

// loopback reports whether addr's host is a loopback name or address.
func loopback(addr string) bool {
	h, _, err := net.SplitHostPort(addr)
	if err != nil {
		return false
	}
	if h == "localhost" {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

func checkForwardPattern(p string) error {
	if p == "*" {
		return nil
	}
	h, port, err := net.SplitHostPort(p)
	if err != nil || h == "" || port == "" {
		return fmt.Errorf("bad forward address %q: want host:port (patterns with * and ?, e.g. \"127.0.0.1:5432\", \"*:80\", \"db.internal:*\"), or \"*\" for any", p)
	}
	if _, err := path.Match(h, ""); err != nil {
		return fmt.Errorf("bad forward address %q: %v", p, err)
	}
	return nil
}
