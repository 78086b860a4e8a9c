package sshconf

import (
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"unicode"
)

// ParseJump parses a ProxyJump value (ssh_config(5), ssh -J): hops
// separated by commas, first hop first. A hop is [user@]host[:port], with
// an IPv6 address in brackets ("[::1]:2222", "user@[fe80::1]:22"), or an
// ssh://[user@]host[:port] URI. "none" (any case) yields nil.
//
// It follows OpenSSH's parse_jump: the user ends at the last '@' (so user
// names may contain '@'), the port may be a service name from
// /etc/services, and URI hosts must be domain names or IPv4 addresses. It
// is stricter where a value could only be a mistake or an option
// injection: empty '@'-separated parts of a user name ("a@@b"), white space,
// control characters, a host or user starting with '-', and port 0.
func ParseJump(s string) ([]Jump, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil, errors.New("empty ProxyJump")
	}
	if strings.EqualFold(s, "none") {
		return nil, nil
	}
	parts := strings.Split(s, ",")
	hops := make([]Jump, 0, len(parts))
	for _, p := range parts {
		j, err := parseHop(p)
		if err != nil {
			return nil, fmt.Errorf("bad ProxyJump hop %s: %w", quoteShort(p), err)
		}
		hops = append(hops, j)
	}
	return hops, nil
}

// String formats j as ParseJump reads it: [user@]host[:port], with the
// host in brackets when it contains ':' (an IPv6 address), or when it is a
// host named "none" standing alone, which would read as the keyword that
// disables ProxyJump (found by FuzzParseJump: "none:").
func (j Jump) String() string {
	var b strings.Builder
	if j.User != "" {
		b.WriteString(j.User)
		b.WriteByte('@')
	}
	if strings.Contains(j.Host, ":") || j.User == "" && j.Port == 0 && strings.EqualFold(j.Host, "none") {
		b.WriteByte('[')
		b.WriteString(j.Host)
		b.WriteByte(']')
	} else {
		b.WriteString(j.Host)
	}
	if j.Port != 0 {
		b.WriteByte(':')
		b.WriteString(strconv.Itoa(j.Port))
	}
	return b.String()
}

// formatJump joins hops with commas; nil formats as "none".
func formatJump(hops []Jump) string {
	if len(hops) == 0 {
		return "none"
	}
	s := make([]string, len(hops))
	for i, h := range hops {
		s[i] = h.String()
	}
	return strings.Join(s, ",")
}

func parseHop(p string) (Jump, error) {
	if p == "" {
		return Jump{}, errors.New("empty hop")
	}
	if rest, ok := strings.CutPrefix(p, "ssh://"); ok {
		return parseJumpURI(rest)
	}
	var j Jump
	rest := p
	// The user ends at the last '@' (misc.c parse_user_host_port).
	if i := strings.LastIndexByte(p, '@'); i >= 0 {
		j.User, rest = p[:i], p[i+1:]
		if err := checkJumpUser(j.User); err != nil {
			return Jump{}, err
		}
	}
	host, port, err := splitHostPort(rest, false)
	if err != nil {
		return Jump{}, err
	}
	j.Host, j.Port = host, port
	return j, nil
}

// parseJumpURI parses what follows "ssh://" (misc.c parse_uri): the user
// ends at the first '@' and is percent-decoded, ";params" after it are
// ignored, the host must be a domain name and no path may follow.
func parseJumpURI(rest string) (Jump, error) {
	var j Jump
	if i := strings.IndexByte(rest, '@'); i >= 0 {
		userinfo := rest[:i]
		rest = rest[i+1:]
		if k := strings.IndexByte(userinfo, ';'); k >= 0 {
			userinfo = userinfo[:k]
		}
		if userinfo == "" {
			return Jump{}, errors.New("empty user name in ssh:// URI")
		}
		u, err := url.PathUnescape(userinfo)
		if err != nil {
			return Jump{}, fmt.Errorf("user name in ssh:// URI: %w", err)
		}
		if strings.HasPrefix(u, "ssh://") {
			return Jump{}, errors.New("user name in ssh:// URI starts with ssh://")
		}
		if err := checkJumpUser(u); err != nil {
			return Jump{}, err
		}
		j.User = u
	}
	if k := strings.IndexByte(rest, '/'); k >= 0 {
		if rest[k+1:] != "" {
			return Jump{}, errors.New("ssh:// URI has a path; a jump host takes none")
		}
		rest = rest[:k]
	}
	host, port, err := splitHostPort(rest, true)
	if err != nil {
		return Jump{}, err
	}
	if strings.Contains(host, ":") {
		return Jump{}, errors.New("OpenSSH accepts only domain names and IPv4 addresses in ssh:// URIs; write the IPv6 hop as [addr]:port")
	}
	if err := checkDomain(host); err != nil {
		return Jump{}, err
	}
	j.Host, j.Port = strings.TrimSuffix(host, "."), port
	return j, nil
}

// splitHostPort splits host[:port] or [host][:port] (misc.c hpdelim).
// An empty port after ':' means none, as in OpenSSH.
func splitHostPort(s string, uri bool) (host string, port int, err error) {
	var portStr string
	if strings.HasPrefix(s, "[") {
		end := strings.IndexByte(s, ']')
		if end < 0 {
			return "", 0, errors.New("missing ']' after IPv6 address")
		}
		host = s[1:end]
		after := s[end+1:]
		switch {
		case after == "":
		case after[0] == ':':
			portStr = after[1:]
		default:
			return "", 0, fmt.Errorf("unexpected %s after ']'", quoteShort(after))
		}
	} else {
		host = s
		if i := strings.IndexByte(s, ':'); i >= 0 {
			host, portStr = s[:i], s[i+1:]
			if strings.Contains(portStr, ":") {
				return "", 0, errors.New("an IPv6 address needs brackets, as in [fe80::1]:22")
			}
		}
	}
	if err := checkJumpHost(host); err != nil {
		return "", 0, err
	}
	if portStr != "" {
		port, err = parsePort(portStr)
		if err != nil {
			return "", 0, err
		}
	}
	return host, port, nil
}

func checkJumpUser(u string) error {
	for part := range strings.SplitSeq(u, "@") {
		if part == "" {
			return errors.New("empty user name part (stray '@')")
		}
	}
	if strings.HasPrefix(u, "-") {
		return errors.New("user name starts with '-'")
	}
	if i := strings.IndexFunc(u, badNameRune); i >= 0 {
		return fmt.Errorf("user name contains %q", string([]rune(u[i:])[0]))
	}
	return nil
}

func checkJumpHost(h string) error {
	if h == "" {
		return errors.New("empty host name")
	}
	if strings.HasPrefix(h, "-") {
		return errors.New("host name starts with '-'")
	}
	if i := strings.IndexFunc(h, func(r rune) bool {
		return badNameRune(r) || strings.ContainsRune("@/[]#", r)
	}); i >= 0 {
		return fmt.Errorf("host name contains %q", string([]rune(h[i:])[0]))
	}
	return nil
}

// badNameRune reports runes that never belong in a user or host name of a
// jump hop: white space, control characters and the hop separator.
func badNameRune(r rune) bool {
	return r == ',' || unicode.IsSpace(r) || unicode.IsControl(r) || r == unicode.ReplacementChar
}

// checkDomain is misc.c valid_domain: letters, digits, '-', '_' and
// single dots, starting with a letter or digit.
func checkDomain(h string) error {
	if h == "" {
		return errors.New("empty host name")
	}
	if c := h[0]; !isAlnum(c) {
		return fmt.Errorf("host %q in ssh:// URI starts with an invalid character", h)
	}
	var last byte
	for i := 0; i < len(h); i++ {
		c := h[i]
		if c == '.' && last == '.' {
			return fmt.Errorf("host %q in ssh:// URI has consecutive dots", h)
		}
		if c != '.' && c != '-' && c != '_' && !isAlnum(c) {
			return fmt.Errorf("host %q in ssh:// URI contains %q", h, string(c))
		}
		last = c
	}
	return nil
}

func isAlnum(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9'
}
