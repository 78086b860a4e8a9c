// Package policy reads ttymux's policy file (policy.toml) and decides, for
// a command line about to be typed into a session on a host, whether it
// runs, is held for approval, or is refused.
//
// The file:
//
//	[defaults]
//	held = "ask"               # a held command: ask (the human), confirm (the model may), deny
//	no_elicitation = "confirm" # when the client cannot ask the human: confirm, deny or console
//
//	[[rule]]                   # first matching rule wins for each of its keys
//	hosts = ["prod-*", "db?"]  # ssh_config-style patterns; "local" and "serial:*" too
//	read_only = true           # commands not known to be read-only are held
//	deny  = ['^systemctl (stop|disable)\b']  # RE2 on each command: refused outright
//	ask   = ['^kubectl delete\b']             # held
//	allow = ['^systemctl restart nginx$']     # counts as read-only
//
//	[serial]                   # serial consoles (serial.go)
//	ports = ["/dev/serial/by-id/usb-FTDI*"]   # the only ports open_serial may open
//
// On a serial host ("serial:PORT") read_only means more: nothing at all is
// typed into the console (see SerialReadOnly).
//
// A Policy is immutable once loaded and safe for concurrent use.
package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"

	"github.com/BurntSushi/toml"
)

// Settings for a held command (held) and for a client that cannot ask the
// human (no_elicitation).
const (
	Ask     = "ask"     // put it to the human
	Confirm = "confirm" // the model's confirm: true runs it
	Deny    = "deny"    // refuse it
	// Console (no_elicitation only): the command waits for the human in
	// the console they started (ttymux web), bounded by the call's
	// timeout.
	Console = "console"
)

// A Policy is the parsed policy file.
type Policy struct {
	File          string // where it was read from; "" for the built-in default
	Held          string // Ask, Confirm or Deny
	NoElicitation string // Confirm, Deny or Console
	Rules         []Rule
	// SerialPorts are the patterns of the ports open_serial may open; nil
	// means any (see SerialPortAllowed).
	SerialPorts []string
	// Names returns every name a host goes by, host first, or nil for a
	// host of one name: a rule written for any of them applies. The
	// transports say (session.Kind.PolicyNames; SerialHostNames for a
	// serial device); nil: every host is its one name.
	Names func(host string) []string
}

// A Rule applies to the hosts its patterns match. Unset keys (nil) fall
// through to the next matching rule, then to the defaults.
type Rule struct {
	Hosts         []string
	ReadOnly      *bool
	Deny          []*regexp.Regexp
	Ask           []*regexp.Regexp
	Allow         []*regexp.Regexp
	Held          string
	NoElicitation string
	// Forward lists the addresses forwards may reach (forward.go); nil
	// falls through.
	Forward []string
	// ForwardListenAny lets a forward's listener here bind a
	// non-loopback address.
	ForwardListenAny *bool
	Line             int // where the rule starts in the file
}

// Default is the policy without a file: every held command asks the human
// when the client can, else the model's confirm: true runs it.
func Default() *Policy {
	return &Policy{Held: Ask, NoElicitation: Confirm}
}

// DefaultPath is $XDG_CONFIG_HOME/ttymux/policy.toml (~/.config/… when
// unset).
func DefaultPath() string {
	d := os.Getenv("XDG_CONFIG_HOME")
	if d == "" || !filepath.IsAbs(d) {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		d = filepath.Join(h, ".config")
	}
	return filepath.Join(d, "ttymux", "policy.toml")
}

// Load reads the policy in file. With explicit false, a missing file is
// the Default policy (the file is optional); an explicitly named file must
// exist.
func Load(file string, explicit bool) (*Policy, error) {
	data, err := os.ReadFile(file)
	if errors.Is(err, os.ErrNotExist) && !explicit {
		return Default(), nil
	}
	if err != nil {
		return nil, fmt.Errorf("read policy: %w", err)
	}
	return Parse(file, data)
}

// A ParseError names the file, line and key of a bad policy.
type ParseError struct {
	File string
	Line int    // 0 when unknown
	Key  string // the key, as section.key; "" when unknown
	Msg  string
}

func (e *ParseError) Error() string {
	var b strings.Builder
	b.WriteString(cmpOr(e.File, "policy"))
	if e.Line > 0 {
		fmt.Fprintf(&b, ":%d", e.Line)
	}
	if e.Key != "" {
		fmt.Fprintf(&b, ": key %s", e.Key)
	}
	b.WriteString(": " + e.Msg)
	return b.String()
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

type fileRule struct {
	Hosts         []string `toml:"hosts"`
	ReadOnly      *bool    `toml:"read_only"`
	Deny          []string `toml:"deny"`
	Ask           []string `toml:"ask"`
	Allow         []string `toml:"allow"`
	Held          string   `toml:"held"`
	NoElicitation string   `toml:"no_elicitation"`
	Forward       []string `toml:"forward"`
	ListenAny     *bool    `toml:"forward_listen_any"`
}

type fileFormat struct {
	Defaults struct {
		Held          string `toml:"held"`
		NoElicitation string `toml:"no_elicitation"`
	} `toml:"defaults"`
	Rule   []fileRule `toml:"rule"`
	Serial struct {
		Ports []string `toml:"ports"`
	} `toml:"serial"`
}

// typeErr is the text of BurntSushi/toml's type mismatch errors.
var typeErr = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^toml: line (\d+) \(last key "([^"]*)"\): (.*)$`) })

// maxPattern bounds one pattern, as send's until is bounded.
const maxPattern = 1000

// Parse reads a policy from data; name is the file name for errors.
func Parse(name string, data []byte) (*Policy, error) {
	var ff fileFormat
	md, err := toml.Decode(string(data), &ff)
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, &ParseError{File: name, Line: pe.Position.Line, Key: pe.LastKey, Msg: pe.Message}
		}
		// Type mismatches come as plain errors that carry the position
		// only in their text ("toml: line 2 (last key "rule.hosts"): …").
		pe2 := &ParseError{File: name, Msg: err.Error()}
		if m := typeErr().FindStringSubmatch(err.Error()); m != nil {
			fmt.Sscan(m[1], &pe2.Line)
			pe2.Key, pe2.Msg = m[2], m[3]
		}
		return nil, pe2
	}
	if u := md.Undecoded(); len(u) > 0 {
		k := u[0]
		line, key := lineOf(data, k), keyName(k)
		if len(k) == 2 && k[0] == "rule" {
			// Undecoded keys of an array of tables carry no index.
			for i := range ff.Rule {
				if l := lineOf(data, toml.Key{"rule", fmt.Sprint(i), k[1]}); l > 0 {
					line, key = l, fmt.Sprintf("rule[%d].%s", i+1, k[1])
					break
				}
			}
		}
		return nil, &ParseError{File: name, Line: line, Key: key, Msg: "unknown key (known: [defaults] held, no_elicitation; [[rule]] hosts, read_only, deny, ask, allow, held, no_elicitation, forward, forward_listen_any; [serial] ports)"}
	}
	p := &Policy{File: name, Held: cmpOr(ff.Defaults.Held, Ask), NoElicitation: cmpOr(ff.Defaults.NoElicitation, Confirm)}
	if err := checkSetting(p.Held, Ask, Confirm, Deny); err != nil {
		return nil, &ParseError{File: name, Line: lineOf(data, toml.Key{"defaults", "held"}), Key: "defaults.held", Msg: err.Error()}
	}
	if err := checkSetting(p.NoElicitation, Confirm, Deny, Console); err != nil {
		return nil, &ParseError{File: name, Line: lineOf(data, toml.Key{"defaults", "no_elicitation"}), Key: "defaults.no_elicitation", Msg: err.Error()}
	}
	if ports := ff.Serial.Ports; ports != nil {
		for _, pat := range ports {
			if err := checkPortPattern(pat); err != nil {
				return nil, &ParseError{File: name, Line: lineOf(data, toml.Key{"serial", "ports"}), Key: "serial.ports", Msg: err.Error()}
			}
		}
		p.SerialPorts = ports
	}
	for i, fr := range ff.Rule {
		bad := func(key, msg string) error {
			return &ParseError{File: name, Line: lineOf(data, toml.Key{"rule", fmt.Sprint(i), key}), Key: fmt.Sprintf("rule[%d].%s", i+1, key), Msg: msg}
		}
		r := Rule{Hosts: fr.Hosts, ReadOnly: fr.ReadOnly, Held: fr.Held, NoElicitation: fr.NoElicitation, ForwardListenAny: fr.ListenAny, Line: ruleLine(data, i)}
		if len(fr.Hosts) == 0 {
			return nil, &ParseError{File: name, Line: r.Line, Key: fmt.Sprintf("rule[%d].hosts", i+1), Msg: `every rule needs hosts, e.g. hosts = ["prod-*"] (or ["*"] for all, "local", "serial:*")`}
		}
		for _, h := range fr.Hosts {
			if strings.TrimSpace(h) == "" || strings.TrimPrefix(h, "!") == "" || strings.ContainsAny(h, " \t\n") {
				return nil, bad("hosts", fmt.Sprintf("bad host pattern %q: use ssh_config patterns (* and ?, ! to exclude)", h))
			}
		}
		if fr.Held != "" {
			if err := checkSetting(fr.Held, Ask, Confirm, Deny); err != nil {
				return nil, bad("held", err.Error())
			}
		}
		if fr.NoElicitation != "" {
			if err := checkSetting(fr.NoElicitation, Confirm, Deny, Console); err != nil {
				return nil, bad("no_elicitation", err.Error())
			}
		}
		for _, l := range []struct {
			key  string
			src  []string
			dest *[]*regexp.Regexp
		}{{"deny", fr.Deny, &r.Deny}, {"ask", fr.Ask, &r.Ask}, {"allow", fr.Allow, &r.Allow}} {
			if l.src == nil {
				continue
			}
			*l.dest = []*regexp.Regexp{}
			for _, s := range l.src {
				if len(s) > maxPattern {
					return nil, bad(l.key, fmt.Sprintf("pattern longer than %d characters", maxPattern))
				}
				re, err := regexp.Compile(s)
				if err != nil {
					return nil, bad(l.key, fmt.Sprintf("bad regular expression %q: %v", s, err))
				}
				*l.dest = append(*l.dest, re)
			}
		}
		if fr.Forward != nil {
			r.Forward = []string{}
			for _, a := range fr.Forward {
				if err := checkForwardPattern(a); err != nil {
					return nil, bad("forward", err.Error())
				}
				r.Forward = append(r.Forward, a)
			}
		}
		p.Rules = append(p.Rules, r)
	}
	return p, nil
}

func checkSetting(v string, allowed ...string) error {
	if slices.Contains(allowed, v) {
		return nil
	}
	return fmt.Errorf("%q is not one of %s", v, strings.Join(allowed, ", "))
}

func keyName(k toml.Key) string {
	if len(k) >= 3 && k[0] == "rule" {
		var n int
		fmt.Sscan(k[1], &n)
		return fmt.Sprintf("rule[%d].%s", n+1, strings.Join(k[2:], "."))
	}
	return k.String()
}

// lineOf finds the line of key in data: TOML tables are found by their
// headers ([defaults], the n-th [[rule]]), then the key's "name =" line.
// BurntSushi/toml keeps key positions private, and the files are small.
func lineOf(data []byte, k toml.Key) int {
	if len(k) == 0 {
		return 0
	}
	want, keyAt := "", 0
	idx := -1
	switch {
	case len(k) >= 3 && k[0] == "rule":
		fmt.Sscan(k[1], &idx)
		want, keyAt = "[[rule]]", 2
	case len(k) >= 2:
		want, keyAt = "["+k[0]+"]", 1
	default:
		want, keyAt = "", 0
	}
	in, seen := want == "", -1
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(line)
		if strings.HasPrefix(t, "[") {
			h := strings.ReplaceAll(strings.SplitN(t, "#", 2)[0], " ", "")
			if h == want {
				seen++
				in = idx < 0 || seen == idx
				if keyAt >= len(k) {
					return i + 1
				}
				continue
			}
			in = false
			continue
		}
		if in && keyAt < len(k) {
			name, _, ok := strings.Cut(t, "=")
			if ok && strings.Trim(strings.TrimSpace(name), `"'`) == k[keyAt] {
				return i + 1
			}
		}
	}
	return 0
}

// ruleLine is the line of the i-th [[rule]] header.
func ruleLine(data []byte, i int) int {
	seen := -1
	for n, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(strings.ReplaceAll(strings.TrimSpace(line), " ", ""), "[[rule]]") {
			seen++
			if seen == i {
				return n + 1
			}
		}
	}
	return 0
}
