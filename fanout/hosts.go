package fanout

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/BurntSushi/toml"

	"github.com/ttymux/ttymux/sshconf"
)

// MaxHosts is the most hosts one fanout runs on.
const MaxHosts = 5000

// Groups are named lists of hosts, from the [groups] table of hosts.toml:
//
//	[groups]
//	web  = ["web1", "web2", "web-canary*"]
//	db   = ["db?", "!db9"]
//	prod = ["web", "db"]          # a group may name groups
//
// A member is what a fanout's hosts parameter takes: an alias or host
// name, a pattern, a negation or a group.
type Groups map[string][]string

// GroupsFile is where groups are read from: $XDG_CONFIG_HOME/ttymux/hosts.toml,
// else ~/.config/ttymux/hosts.toml; "" when neither can be named.
func GroupsFile() string {
	dir := os.Getenv("XDG_CONFIG_HOME")
	if dir == "" || !filepath.IsAbs(dir) {
		home, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		dir = filepath.Join(home, ".config")
	}
	return filepath.Join(dir, "ttymux", "hosts.toml")
}

// LoadGroups reads the groups of a hosts.toml file. A missing file (or an
// empty path) is no groups. Anything but a [groups] table of string lists
// is an error naming the file, and the line where the TOML parser can say.
func LoadGroups(path string) (Groups, error) {
	if path == "" {
		return nil, nil
	}
	var f struct {
		Groups map[string][]string `toml:"groups"`
	}
	md, err := toml.DecodeFile(path, &f)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		var pe toml.ParseError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s:%d: %s", path, pe.Position.Line, pe.Message)
		}
		return nil, fmt.Errorf("%s: %w (want a [groups] table of string lists: web = [\"web1\", \"web2\"])", path, err)
	}
	if und := md.Undecoded(); len(und) > 0 {
		keys := make([]string, len(und))
		for i, k := range und {
			keys[i] = k.String()
		}
		return nil, fmt.Errorf("%s: unknown key %s: the file holds only a [groups] table (web = [\"web1\", \"web2\"])", path, strings.Join(keys, ", "))
	}
	for name, members := range f.Groups {
		if err := checkTerm(name); err != nil || strings.HasPrefix(name, "!") || hasWildcard(name) {
			return nil, fmt.Errorf("%s: group name %q: use letters, digits, '-', '_' and '.'", path, name)
		}
		for _, m := range members {
			if err := checkTerm(m); err != nil {
				return nil, fmt.Errorf("%s: group %s: %v", path, name, err)
			}
		}
	}
	return Groups(f.Groups), nil
}

// Select expands host patterns into the hosts to run on, in the order they
// are first named, each once. A pattern is
//
//   - a group name from groups: its members, expanded the same way (a
//     cycle of groups is an error naming it);
//   - a pattern with '*' or '?': the aliases (sshconf.HostAliases) it
//     matches, as ssh_config matches Host patterns; one matching none is
//     an error listing the aliases and groups there are;
//   - "!" and any of these: removes what it names from the hosts the other
//     patterns (of the same list: the call's, or a group's) selected;
//   - anything else: that alias or host name, as open_ssh takes it.
//
// A name that is both a group and an alias is the group.
func Select(patterns, aliases []string, groups Groups) ([]string, error) {
	s := &selector{aliases: aliases, groups: groups}
	hosts, err := s.list(patterns, nil)
	if err != nil {
		return nil, err
	}
	switch {
	case len(hosts) == 0:
		return nil, fmt.Errorf("hosts %q select no host (the negations remove every one)", patterns)
	case len(hosts) > MaxHosts:
		return nil, fmt.Errorf("hosts %q select %d hosts; a fanout runs on at most %d: split it", patterns, len(hosts), MaxHosts)
	}
	return hosts, nil
}

type selector struct {
	aliases []string
	groups  Groups
}

// list expands a list of patterns: the union of its positive terms minus
// its negated ones. stack is the chain of groups being expanded.
func (s *selector) list(patterns []string, stack []string) ([]string, error) {
	var out []string
	seen := map[string]bool{}
	drop := map[string]bool{}
	for _, p := range patterns {
		p = strings.TrimSpace(p)
		if err := checkTerm(p); err != nil {
			return nil, err
		}
		neg := strings.HasPrefix(p, "!")
		hosts, err := s.term(strings.TrimPrefix(p, "!"), neg, stack)
		if err != nil {
			return nil, err
		}
		for _, h := range hosts {
			switch {
			case neg:
				drop[h] = true
			case !seen[h]:
				seen[h] = true
				out = append(out, h)
			}
		}
	}
	return slices.DeleteFunc(out, func(h string) bool { return drop[h] }), nil
}

// term expands one pattern (without its '!').
func (s *selector) term(p string, neg bool, stack []string) ([]string, error) {
	if members, ok := s.groups[p]; ok {
		if i := slices.Index(stack, p); i >= 0 {
			return nil, fmt.Errorf("groups in hosts.toml form a cycle: %s", strings.Join(append(slices.Clone(stack[i:]), p), " → "))
		}
		return s.list(members, append(stack, p))
	}
	if !hasWildcard(p) {
		return []string{p}, nil
	}
	var out []string
	for _, a := range s.aliases {
		if sshconf.MatchPattern(a, p) {
			out = append(out, a)
		}
	}
	if len(out) == 0 && !neg {
		return nil, fmt.Errorf("host pattern %q matches no Host alias in your ssh_config; %s", p, s.known())
	}
	return out, nil
}

// known describes the aliases and groups there are, for an error.
func (s *selector) known() string {
	const show = 20
	var b strings.Builder
	switch n := len(s.aliases); {
	case n == 0:
		b.WriteString("it defines none (patterns match the literal names of Host lines, Include'd files too)")
	case n <= show:
		fmt.Fprintf(&b, "its aliases: %s", strings.Join(s.aliases, " "))
	default:
		fmt.Fprintf(&b, "its aliases: %s … and %d more", strings.Join(s.aliases[:show], " "), n-show)
	}
	if len(s.groups) > 0 {
		names := make([]string, 0, len(s.groups))
		for g := range s.groups {
			names = append(names, g)
		}
		sort.Strings(names)
		fmt.Fprintf(&b, "; groups (hosts.toml): %s", strings.Join(names, " "))
	}
	return b.String()
}

func hasWildcard(s string) bool { return strings.ContainsAny(s, "*?") }

// checkTerm refuses what cannot be a host, a pattern or a group: ssh's own
// host argument rule (no white space, quotes or shell metacharacters, no
// leading '-'), plus the '!' of a negation.
func checkTerm(p string) error {
	name := strings.TrimPrefix(p, "!")
	switch {
	case name == "":
		return fmt.Errorf("empty host pattern %q", p)
	case strings.Contains(name, ","):
		return fmt.Errorf("host pattern %q: give each host or pattern as its own list entry, not comma-separated", p)
	case strings.HasPrefix(name, "-") || strings.HasPrefix(name, "!"):
		return fmt.Errorf("host pattern %q: a host name may not start with '-' or '!!'", p)
	case strings.ContainsFunc(name, func(r rune) bool {
		return r <= ' ' || r == 0x7f || strings.ContainsRune("'\"`$\\;&<>|(){}", r)
	}):
		return fmt.Errorf("host pattern %q: no white space, quotes or shell metacharacters", p)
	case strings.Contains(name, "@"):
		return fmt.Errorf("host pattern %q: user@host is not taken; set User in ssh_config for the alias", p)
	}
	return nil
}
