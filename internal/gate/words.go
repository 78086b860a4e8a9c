package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// safeParams are parameters whose values the model cannot choose on a
// read-only host (no assignment runs there) and that never begin with
// '-': paths, names and numbers the shell or the login sets. $_ (the last
// word of the previous command) and $1… are not among them.
var safeParams = set("HOME", "USER", "LOGNAME", "HOSTNAME", "SHELL", "TMPDIR", "PWD", "OLDPWD", "?", "$", "#", "!",
	"UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "BASHPID")

// splitFree are the safe parameters that never hold a space (a number, or
// a value set at login); PWD and OLDPWD follow cd into any directory.
var splitFree = set("HOME", "USER", "LOGNAME", "HOSTNAME", "SHELL", "TMPDIR", "?", "$", "#", "!",
	"UID", "EUID", "PPID", "RANDOM", "LINENO", "SECONDS", "BASHPID")

// argOf reads a word as far as the line tells it. why is set when the
// word runs code when expanded ($(…), `…`, $((…)), <(…), ${x@P}, a
// subscript, ${x:=…}).
func argOf(w *syntax.Word) (arg, string) {
	var b strings.Builder
	a := arg{known: true}
	first := true // no character of the value is known yet
	for i, p := range w.Parts {
		pa, why := partOf(p, false, i == 0)
		if why != "" {
			return arg{}, why
		}
		b.WriteString(pa.s)
		if first && pa.s != "" || first && !pa.known {
			a.dash = pa.dash
			first = pa.known && pa.s == ""
		}
		a.known = a.known && pa.known
		a.multi = a.multi || pa.multi
		if pa.multi && pa.dash {
			a.dash = true // split pieces may begin with '-'
		}
	}
	a.s = b.String()
	if !a.known {
		a.s = wordText(w)
	}
	return a, ""
}

// wordText is the word as written, for reasons.
func wordText(w *syntax.Word) string {
	var b strings.Builder
	if err := syntax.NewPrinter().Print(&b, w); err != nil {
		return "…"
	}
	return b.String()
}

// partOf reads one part of a word.
func partOf(p syntax.WordPart, quoted, start bool) (arg, string) {
	switch p := p.(type) {
	case *syntax.Lit:
		return litOf(p.Value, quoted, start), ""
	case *syntax.SglQuoted:
		if p.Dollar {
			return arg{s: p.Value, dash: true}, "" // $'…' escapes: not read here
		}
		return arg{s: p.Value, known: true, dash: strings.HasPrefix(p.Value, "-")}, ""
	case *syntax.DblQuoted:
		a := arg{known: true}
		var b strings.Builder
		first := true
		for _, q := range p.Parts {
			qa, why := partOf(q, true, false)
			if why != "" {
				return arg{}, why
			}
			b.WriteString(qa.s)
			if first && qa.s != "" || first && !qa.known {
				a.dash = qa.dash
				first = qa.known && qa.s == ""
			}
			a.known = a.known && qa.known
		}
		a.s = b.String()
		return a, ""
	case *syntax.ParamExp:
		return paramOf(p, quoted)
	case *syntax.CmdSubst:
		return arg{}, "a command substitution ($(…) or `…`)"
	case *syntax.ArithmExp:
		return arg{}, "an arithmetic expansion ($((…)): a subscript in it may run a command)"
	case *syntax.ProcSubst:
		return arg{}, "a process substitution (<(…) or >(…))"
	case *syntax.ExtGlob:
		return arg{s: "…", multi: true, dash: start}, ""
	}
	return arg{}, "an expansion that is not known"
}

// litOf reads unquoted or double-quoted literal text: backslashes are
// undone; unquoted, a glob or a brace expansion may become several words
// (or an option, when the word begins with it), and a leading ~ a home.
func litOf(v string, quoted, start bool) arg {
	if quoted {
		s := unescape(v, true)
		return arg{s: s, known: true, dash: strings.HasPrefix(s, "-")}
	}
	a := arg{known: true}
	for i := 0; i < len(v); i++ {
		switch v[i] {
		case '\\':
			i++
		case '[':
			if !strings.Contains(v[i+1:], "]") {
				continue // a lone [ (the test command) is not a pattern
			}
			a.known, a.multi = false, true
			if i == 0 && start {
				a.dash = true
			}
		case '*', '?':
			a.known, a.multi = false, true
			if i == 0 && start {
				a.dash = true
			}
		case '{':
			if j := strings.IndexByte(v[i:], '}'); j > 0 && strings.ContainsAny(v[i:i+j], ",.") {
				a.known, a.multi = false, true
				if i == 0 && start {
					a.dash = true
				}
			}
		}
	}
	if start && strings.HasPrefix(v, "~") {
		a.known = false // ~, ~user, ~+: a path, never an option
	}
	a.s = unescape(v, false)
	if a.known || !a.multi {
		a.dash = a.dash || strings.HasPrefix(a.s, "-")
	}
	if strings.HasPrefix(v, "-") {
		a.dash = true
	}
	return a
}

// paramOf reads $NAME and ${…}: the forms that only expand a name (and
// ${#x}, ${x:-word}, ${x#pattern}, ${x/a/b}) are words the line does not
// tell; the forms that assign, evaluate a subscript or expand a prompt
// are refused.
func paramOf(p *syntax.ParamExp, quoted bool) (arg, string) {
	switch {
	case p.Param == nil || p.Flags != nil || p.NestedParam != nil || len(p.Modifiers) > 0 || p.Width || p.IsSet:
		return arg{}, "an expansion that is not known"
	case p.Index != nil:
		return arg{}, "a subscript (${a[…]}: it is arithmetic, which may run a command)"
	case p.Slice != nil:
		return arg{}, "a substring expansion (${a:…}: it is arithmetic, which may run a command)"
	case p.Excl || p.Names != 0:
		return arg{}, "an indirect expansion (${!…}: the name it reads may hold a subscript)"
	}
	if p.Exp != nil {
		switch p.Exp.Op {
		case syntax.AssignUnset, syntax.AssignUnsetOrNull:
			return arg{}, "an assignment (${" + p.Param.Value + ":=…})"
		case syntax.OtherParamOps:
			return arg{}, "a transformation (${" + p.Param.Value + "@…}: @P runs the prompt's expansions)"
		}
		if p.Exp.Word != nil {
			if _, why := argOf(p.Exp.Word); why != "" {
				return arg{}, why
			}
		}
	}
	if p.Repl != nil {
		for _, w := range []*syntax.Word{p.Repl.Orig, p.Repl.With} {
			if w != nil {
				if _, why := argOf(w); why != "" {
					return arg{}, why
				}
			}
		}
	}
	name := p.Param.Value
	plain := p.Exp == nil && p.Repl == nil
	a := arg{s: "$" + name, dash: !(plain && safeParams[name]) && !p.Length}
	if !quoted && !p.Length && !(plain && splitFree[name]) {
		a.multi, a.dash = true, true
	}
	return a, ""
}

// histExpansion reports whether line has a ! that an interactive bash
// replaces with words of its history before reading the line (histexpand):
// one outside single quotes, not after $, and not followed by a blank, =,
// (, " or the end. sort !$ f is sort -oF f after echo x -oF.
func histExpansion(line string) bool {
	single, double := false, false
	// A here-document's body is history-expanded line by line, whatever
	// its quotes: with one, no quote counts.
	heredoc := strings.Contains(line, "<<")
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case single:
			single = c != '\''
		case c == '\\':
			i++
		case c == '"' && !heredoc:
			double = !double
		case c == '\'' && !double && !heredoc:
			single = true
		case c == '!' && (i == 0 || line[i-1] != '$') && i+1 < len(line) && strings.IndexByte(" \t\n=(\"", line[i+1]) < 0:
			return true
		}
	}
	return false
}
