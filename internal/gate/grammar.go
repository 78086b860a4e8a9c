package gate

import (
	"strings"
)

// The read-only check allows a command only when each of its words is
// understood: the option grammar of the command (getopt_long's rules:
// short options grouped and glued, long options and their unambiguous
// abbreviations, values glued or separate, the first operand naming a
// subcommand after global options that may take values) and what its
// operands do. Anything else is held. See commands.go for the grammars.

// An arg is one word of a command as far as the line tells it.
type arg struct {
	s     string // the value when known, else the word as written
	known bool   // s is exactly what the command gets
	multi bool   // may become several words, or none (a glob, an unquoted $VAR)
	dash  bool   // may begin with '-' (and so be read as an option)
}

func lit(s string) arg { return arg{s: s, known: true, dash: strings.HasPrefix(s, "-")} }

// optKind is what an option takes.
type optKind byte

const (
	flag    optKind = iota // no value
	value                  // a value, glued (-k1, --key=1) or the next word
	optVal                 // a value only when glued (-n5, --lines=5)
	twoVals                // the next two words (jq --arg NAME VALUE)
)

// An optSet is the options of one command, written as in its manual:
// "-a -k: -n:: --all --key= --color=? --arg=2", and "!" before the options
// that write or run something (held, but known, so that an abbreviation of
// them is not taken for another option).
type optSet struct {
	short map[byte]optKind
	long  map[string]optKind
	bad   map[string]bool // "-o", "--output"
	num   bool            // -NUM is an option (head -5)
}

func opts(spec string) *optSet {
	o := &optSet{short: map[byte]optKind{}, long: map[string]optKind{}, bad: map[string]bool{}}
	for _, f := range strings.Fields(spec) {
		bad := strings.HasPrefix(f, "!")
		f = strings.TrimPrefix(f, "!")
		if f == "-#" {
			o.num = true
			continue
		}
		if name, ok := strings.CutPrefix(f, "--"); ok {
			k := flag
			switch {
			case strings.HasSuffix(name, "=?"):
				k, name = optVal, strings.TrimSuffix(name, "=?")
			case strings.HasSuffix(name, "=2"):
				k, name = twoVals, strings.TrimSuffix(name, "=2")
			case strings.HasSuffix(name, "="):
				k, name = value, strings.TrimSuffix(name, "=")
			}
			o.long[name] = k
			if bad {
				o.bad["--"+name] = true
			}
			continue
		}
		c := f[1]
		k := flag
		switch {
		case strings.HasSuffix(f, "::"):
			k = optVal
		case strings.HasSuffix(f, ":"):
			k = value
		}
		o.short[c] = k
		if bad {
			o.bad["-"+string(c)] = true
		}
	}
	return o
}

// merge returns o with the options of p added (a subcommand's own options
// and the global ones, which cobra accepts anywhere).
func (o *optSet) merge(p *optSet) *optSet {
	m := &optSet{short: map[byte]optKind{}, long: map[string]optKind{}, bad: map[string]bool{}, num: o.num || p.num}
	for _, s := range []*optSet{o, p} {
		for k, v := range s.short {
			m.short[k] = v
		}
		for k, v := range s.long {
			m.long[k] = v
		}
		for k := range s.bad {
			m.bad[k] = true
		}
	}
	return m
}

// An opt is one option as used: its canonical name (-o, --output) and its
// value when it has one.
type opt struct {
	name string
	val  arg
	has  bool
}

// parsedArgs is a command's words read by its grammar.
type parsedArgs struct {
	opts     []opt
	operands []arg
	at       int // where options ended (posix), as an index of args
}

func (p *parsedArgs) has(names ...string) bool {
	for _, o := range p.opts {
		for _, n := range names {
			if o.name == n {
				return true
			}
		}
	}
	return false
}

// parseArgs reads args by the grammar o, as getopt_long does. With posix,
// options end at the first operand (POSIX getopt, and tools whose first
// operand is a subcommand); otherwise they may come anywhere before "--"
// (GNU permutation). A word the line does not tell (a glob, $VAR) that
// may begin with '-' could be any option: held unless anyOpt. It returns
// why the words are not understood, or "".
func parseArgs(o *optSet, args []arg, posix, anyOpt bool) (p parsedArgs, why string) {
	p = parsedArgs{at: -1}
	ended := false
	defer func() {
		if p.at < 0 {
			p.at = len(args)
		}
	}()
	for i := 0; i < len(args); i++ {
		a := args[i]
		if ended {
			p.operands = append(p.operands, a)
			continue
		}
		if !a.known {
			if a.dash && !anyOpt {
				return p, "`" + a.s + "` may expand to an option"
			}
			p.operands = append(p.operands, a)
			if posix {
				ended, p.at = true, i
			}
			continue
		}
		s := a.s
		switch {
		case s == "--":
			ended = true
			if posix {
				p.at = i + 1
			}
			continue
		case s == "-" || !strings.HasPrefix(s, "-"):
			p.operands = append(p.operands, a)
			if posix {
				ended, p.at = true, i
			}
			continue
		}
		if anyOpt {
			p.opts = append(p.opts, opt{name: s})
			continue
		}
		if name, ok := strings.CutPrefix(s, "--"); ok {
			name, val, eq := strings.Cut(name, "=")
			full, why := o.resolve(name)
			if why != "" {
				return p, why + " `" + s + "`"
			}
			u := opt{name: "--" + full}
			if o.bad[u.name] {
				return p, "`" + s + "` (" + u.name + ") writes or runs something"
			}
			switch k := o.long[full]; {
			case k == flag && eq:
				return p, "`" + s + "` takes no value"
			case eq:
				u.val, u.has = lit(val), true
				if k == twoVals {
					if i+1 >= len(args) {
						return p, "`" + s + "` needs another value"
					}
					i++
				}
			case k == value || k == twoVals:
				n := 1
				if k == twoVals {
					n = 2
				}
				for range n {
					if i+1 >= len(args) {
						return p, "`" + s + "` needs a value"
					}
					i++
					if args[i].multi {
						return p, "the value of " + u.name + " may be several words"
					}
					u.val, u.has = args[i], true
				}
			}
			p.opts = append(p.opts, u)
			continue
		}
		for j := 1; j < len(s); j++ {
			c := s[j]
			if o.num && j == 1 && c >= '0' && c <= '9' {
				for j+1 < len(s) && s[j+1] >= '0' && s[j+1] <= '9' {
					j++
				}
				p.opts = append(p.opts, opt{name: "-#"})
				continue
			}
			k, ok := o.short[c]
			name := "-" + string(c)
			if !ok {
				return p, "unknown option " + name + " in `" + s + "`"
			}
			if o.bad[name] {
				return p, name + " in `" + s + "` writes or runs something"
			}
			u := opt{name: name}
			switch k {
			case value, twoVals:
				if j+1 < len(s) {
					u.val, u.has = lit(s[j+1:]), true
				} else {
					if i+1 >= len(args) {
						return p, name + " needs a value"
					}
					i++
					if args[i].multi {
						return p, "the value of " + name + " may be several words"
					}
					u.val, u.has = args[i], true
				}
				j = len(s)
			case optVal:
				if j+1 < len(s) {
					u.val, u.has = lit(s[j+1:]), true
				}
				j = len(s)
			}
			p.opts = append(p.opts, u)
		}
	}
	return p, ""
}

// resolve finds the long option name abbreviates, as getopt_long does: an
// exact name, else the only option it begins (the known bad ones
// included, so that an abbreviation of one is never taken for another).
func (o *optSet) resolve(name string) (string, string) {
	if _, ok := o.long[name]; ok {
		return name, ""
	}
	found := ""
	for n := range o.long {
		if strings.HasPrefix(n, name) {
			if found != "" {
				return "", "ambiguous option"
			}
			found = n
		}
	}
	if found == "" || name == "" {
		return "", "unknown option"
	}
	return found, ""
}
