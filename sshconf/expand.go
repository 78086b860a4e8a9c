package sshconf

import (
	"errors"
	"fmt"
	"math"
	"net"
	"os/user"
	"strconv"
	"strings"
)

// parsePort is misc.c a2port: a number from 1 to 65535 or a service name
// from /etc/services (a local lookup, never DNS).
func parsePort(s string) (int, error) {
	if n, err := strconv.Atoi(s); err == nil {
		if n < 1 || n > 65535 {
			return 0, fmt.Errorf("bad port %s", quoteShort(s))
		}
		return n, nil
	}
	if s == "" || strings.ContainsAny(s, " \t/") {
		return 0, fmt.Errorf("bad port %s", quoteShort(s))
	}
	n, err := net.LookupPort("tcp", s)
	if err != nil || n < 1 {
		return 0, fmt.Errorf("bad port %s", quoteShort(s))
	}
	return n, nil
}

// quoteShort quotes s for an error message, cut to a readable length.
func quoteShort(s string) string {
	const max = 64
	if len(s) > max {
		return strconv.Quote(s[:max]) + "…"
	}
	return strconv.Quote(s)
}

// parseFlag is readconf.c multistate_flag: yes, true, no, false.
func parseFlag(s string) (bool, error) {
	switch strings.ToLower(s) {
	case "yes", "true":
		return true, nil
	case "no", "false":
		return false, nil
	}
	return false, fmt.Errorf("unsupported option %s (want yes or no)", quoteShort(s))
}

// parseStrict is readconf.c multistate_strict_hostkey, normalised to the
// words ssh_config(5) uses.
func parseStrict(s string) (string, error) {
	switch strings.ToLower(s) {
	case "yes", "true":
		return "yes", nil
	case "no", "false", "off":
		return "no", nil
	case "ask":
		return "ask", nil
	case "accept-new":
		return "accept-new", nil
	}
	return "", fmt.Errorf("unsupported option %s (want yes, no, ask or accept-new)", quoteShort(s))
}

// parseCanonicalize is readconf.c multistate_canonicalizehostname.
func parseCanonicalize(s string) (string, error) {
	switch strings.ToLower(s) {
	case "yes", "true":
		return "yes", nil
	case "no", "false":
		return "no", nil
	case "always":
		return "always", nil
	}
	return "", fmt.Errorf("unsupported option %s (want yes, no or always)", quoteShort(s))
}

// parseCount is misc.c atoi_err: 0 to INT_MAX.
func parseCount(s string) (int, error) {
	n, err := strconv.ParseInt(s, 10, 32)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("bad integer %s", quoteShort(s))
	}
	return int(n), nil
}

// convtime is misc.c convtime: a sequence of numbers, each with an optional
// unit s, m, h, d or w (seconds when omitted), summed; "90", "1m30s".
func convtime(s string) (int, error) {
	bad := fmt.Errorf("invalid time value %s", quoteShort(s))
	if s == "" {
		return 0, bad
	}
	total := 0
	for s != "" {
		i := 0
		if s[0] == '+' || s[0] == '-' {
			i++
		}
		j := i
		for j < len(s) && '0' <= s[j] && s[j] <= '9' {
			j++
		}
		if j == i {
			return 0, bad
		}
		n, err := strconv.ParseInt(s[:j], 10, 64)
		if err != nil || n < 0 || n > math.MaxInt32 {
			return 0, bad
		}
		mult := int64(1)
		if j < len(s) {
			switch s[j] {
			case 's', 'S':
			case 'm', 'M':
				mult = 60
			case 'h', 'H':
				mult = 60 * 60
			case 'd', 'D':
				mult = 24 * 60 * 60
			case 'w', 'W':
				mult = 7 * 24 * 60 * 60
			default:
				return 0, bad
			}
			j++
		}
		if n > math.MaxInt32/mult || int64(total) > math.MaxInt32-n*mult {
			return 0, bad
		}
		total += int(n * mult)
		s = s[j:]
	}
	return total, nil
}

// tildeExpand is misc.c tilde_expand: "~" and "~/path" use home, "~user"
// that user's home directory; anything else is returned as is.
func tildeExpand(path, home string) (string, error) {
	if !strings.HasPrefix(path, "~") {
		return path, nil
	}
	rest := path[1:]
	var name string
	if !strings.HasPrefix(rest, "/") && rest != "" {
		name, rest, _ = strings.Cut(rest, "/")
		rest = "/" + rest
	}
	rest = strings.TrimLeft(rest, "/")
	dir := home
	if name != "" {
		u, err := user.Lookup(name)
		if err != nil {
			return "", fmt.Errorf("expand %q: no such user %q", path, name)
		}
		dir = u.HomeDir
	}
	if dir == "" {
		return "", fmt.Errorf("expand %q: no home directory", path)
	}
	if !strings.HasSuffix(dir, "/") {
		dir += "/"
	}
	return dir + rest, nil
}

// percentExpand is misc.c vdollar_percent_expand in one pass: %x from
// tokens, %% as %, and (when lookupEnv is not nil) ${VAR} from the
// environment. An unknown token, a lone trailing % and an unset variable
// are errors, as in OpenSSH.
func percentExpand(s string, tokens map[byte]string, lookupEnv func(string) (string, bool)) (string, error) {
	if !strings.ContainsAny(s, "%$") {
		return s, nil
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if lookupEnv != nil && c == '$' && i+1 < len(s) && s[i+1] == '{' {
			end := strings.IndexByte(s[i+2:], '}')
			if end < 0 {
				return "", fmt.Errorf("expand %q: environment variable is missing its closing '}'", s)
			}
			name := s[i+2 : i+2+end]
			if name == "" {
				return "", fmt.Errorf("expand %q: empty environment variable name", s)
			}
			v, ok := lookupEnv(name)
			if !ok {
				return "", fmt.Errorf("expand %q: environment variable ${%s} has no value", s, name)
			}
			b.WriteString(v)
			i += 2 + end
			continue
		}
		if c != '%' {
			b.WriteByte(c)
			continue
		}
		i++
		if i == len(s) {
			return "", fmt.Errorf("expand %q: lone %% at the end", s)
		}
		if s[i] == '%' {
			b.WriteByte('%')
			continue
		}
		v, ok := tokens[s[i]]
		if !ok {
			return "", fmt.Errorf("expand %q: unknown token %%%c", s, s[i])
		}
		b.WriteString(v)
	}
	return b.String(), nil
}

// argvSplit is misc.c argv_split with terminate_on_comment: arguments are
// separated by spaces and tabs, may be quoted with " or ', and an unquoted
// '#' at the start of an argument ends the line. A backslash escapes a
// quote, a backslash, or (outside quotes) a space.
func argvSplit(s string) ([]string, error) {
	var args []string
	i := 0
	for i < len(s) {
		if s[i] == ' ' || s[i] == '\t' {
			i++
			continue
		}
		if s[i] == '#' {
			break
		}
		var arg strings.Builder
		var quote byte
	token:
		for ; i < len(s); i++ {
			c := s[i]
			switch {
			case c == '\\' && i+1 < len(s) && (s[i+1] == '\'' || s[i+1] == '"' || s[i+1] == '\\' || quote == 0 && s[i+1] == ' '):
				i++
				arg.WriteByte(s[i])
			case quote == 0 && (c == ' ' || c == '\t'):
				break token
			case quote == 0 && (c == '"' || c == '\''):
				quote = c
			case quote != 0 && c == quote:
				quote = 0
			default:
				arg.WriteByte(c)
			}
		}
		if quote != 0 {
			return nil, errors.New("unterminated quote")
		}
		args = append(args, arg.String())
	}
	return args, nil
}
