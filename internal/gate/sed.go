package gate

import "strings"

// sedCheck allows sed with scripts read here (-e, --expression, or the
// first operand) that only print: no w, W or e command, no s///w or
// s///e, no script file (-f), no -i.
func sedCheck(p *parsedArgs) string {
	var scripts []arg
	for _, o := range p.opts {
		if o.name == "-e" || o.name == "--expression" {
			scripts = append(scripts, o.val)
		}
	}
	if len(scripts) == 0 {
		if len(p.operands) == 0 {
			return "sed without a script"
		}
		scripts = p.operands[:1]
	}
	for _, s := range scripts {
		if !s.known {
			return "a sed script that is not known (" + s.s + ")"
		}
		if why := sedScript(s.s); why != "" {
			return why
		}
	}
	return ""
}

// sedScript reads a GNU sed script; "" when it only prints (r and R read a
// file, which is allowed).
func sedScript(s string) string {
	i := 0
	skip := func(set string) {
		for i < len(s) && strings.IndexByte(set, s[i]) >= 0 {
			i++
		}
	}
	// delimited reads up to the unescaped delimiter d, and past it.
	delimited := func(d byte) bool {
		for ; i < len(s); i++ {
			switch s[i] {
			case '\\':
				i++
			case d:
				i++
				return true
			}
		}
		return false
	}
	label := func() string {
		skip(" \t")
		for i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' {
			c := s[i]
			if !(c == '_' || c == '-' || c == '.' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9') {
				return "a sed label that is not plain"
			}
			i++
		}
		return ""
	}
	addr := func() string {
		if i >= len(s) {
			return ""
		}
		switch c := s[i]; {
		case c >= '0' && c <= '9':
			skip("0123456789")
			if i < len(s) && s[i] == '~' {
				i++
				skip("0123456789")
			}
		case c == '$':
			i++
		case c == '/' || c == '\\':
			d := byte('/')
			if c == '\\' {
				if i+1 >= len(s) || s[i+1] == '\n' || s[i+1] == '\\' {
					return "a sed address that is not known"
				}
				d = s[i+1]
				i++
			}
			i++
			if !delimited(d) {
				return "an unfinished sed address"
			}
			skip("IM")
		}
		return ""
	}
	for {
		skip(" \t\n;")
		if i >= len(s) {
			return ""
		}
		if s[i] == '#' {
			for i < len(s) && s[i] != '\n' {
				i++
			}
			continue
		}
		if why := addr(); why != "" {
			return why
		}
		skip(" \t")
		if i < len(s) && s[i] == ',' {
			i++
			skip(" \t")
			if i < len(s) && (s[i] == '+' || s[i] == '~') {
				i++
				skip("0123456789")
			} else if why := addr(); why != "" {
				return why
			}
		}
		skip(" \t")
		if i < len(s) && s[i] == '!' {
			i++
			skip(" \t")
		}
		if i >= len(s) {
			return "a sed address without a command"
		}
		c := s[i]
		i++
		switch c {
		case '{', '}':
			continue
		case '=', 'd', 'D', 'g', 'G', 'h', 'H', 'n', 'N', 'p', 'P', 'x', 'z', 'F':
		case 'q', 'Q', 'l', 'L':
			skip(" \t")
			skip("0123456789")
		case ':', 'b', 't', 'T':
			if why := label(); why != "" {
				return why
			}
		case 'a', 'i', 'c', 'r', 'R':
			// Text (or a file name to read) to the end of the line; a
			// backslash-newline continues it.
			for i < len(s) && s[i] != '\n' {
				if s[i] == '\\' {
					i++
				}
				i++
			}
		case 's', 'y':
			if i >= len(s) || s[i] == '\n' || s[i] == '\\' {
				return "a sed " + string(c) + " command that is not known"
			}
			d := s[i]
			i++
			if !delimited(d) || !delimited(d) {
				return "an unfinished sed " + string(c) + " command"
			}
			if c == 's' {
				for i < len(s) && strings.IndexByte("gpiImM0123456789", s[i]) >= 0 {
					i++
				}
				if i < len(s) && (s[i] == 'w' || s[i] == 'e') {
					return "sed s///" + string(s[i]) + " writes a file or runs a command"
				}
			}
		case 'w', 'W':
			return "sed " + string(c) + " writes a file"
		case 'e':
			return "sed e runs a command"
		default:
			return "the sed command " + string(c) + " is not known"
		}
		skip(" \t")
		if i < len(s) && s[i] != ';' && s[i] != '\n' && s[i] != '}' && s[i] != '#' {
			return "sed text after a command that is not known"
		}
	}
}
