package gate

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A visitor is called for what a parsed script runs. Each callback returns
// false to stop the walk.
type visitor struct {
	// cmd gets every simple command with its words as the shell would
	// pass them (quotes removed), after the prefixes that run another
	// command are looked through (sudo rm … is rm …).
	cmd func(argv []string, depth int) bool
	// redirect gets every redirection with its target word.
	redirect func(op syntax.RedirOperator, target string) bool
	// pipeline gets the commands of each stage of every pipeline, once
	// for the whole pipeline (a|b|c is one call with three stages), so a
	// long pipeline costs its length, not its length squared.
	pipeline func(stages [][][]string) bool
	// alts: cmd also gets each other way the words of a wrapper may run a
	// command (wrapped).
	alts bool
	// funcDecl gets every function definition: its name, the commands of
	// its body, and whether the body pipes or backgrounds anything.
	funcDecl func(name string, body [][]string, piped bool) bool
}

// visit walks f in source order. Assignments on their own (d=/) are
// remembered and substituted into later words ($d).
func visit(f *syntax.File, depth int, v visitor) {
	vars := map[string]string{}
	stop := false
	inner := map[*syntax.BinaryCmd]bool{} // pipes already seen as part of a longer pipeline
	syntax.Walk(f, func(n syntax.Node) bool {
		if stop {
			return false
		}
		switch n := n.(type) {
		case *syntax.CallExpr:
			if len(n.Args) == 0 {
				for _, a := range n.Assigns {
					if a.Name != nil && a.Value != nil && !a.Append && a.Array == nil {
						vars[a.Name.Value] = wordString(a.Value, vars)
					}
				}
				return true
			}
			ws := words(n.Args, vars)
			cands := [][]string{unwrap(ws)}
			if v.alts {
				cands = wrapped(ws)
			}
			for _, argv := range cands {
				if len(argv) > 0 && v.cmd != nil && !v.cmd(argv, depth) {
					stop = true
					break
				}
			}
		case *syntax.Stmt:
			for _, r := range n.Redirs {
				if r.Word == nil || v.redirect == nil {
					continue
				}
				if !v.redirect(r.Op, wordString(r.Word, vars)) {
					stop = true
				}
			}
		case *syntax.BinaryCmd:
			if isPipe(n) && v.pipeline != nil && !inner[n] {
				var stages [][][]string
				for _, st := range pipeStages(n, inner, nil) {
					stages = append(stages, commandsOf(st, vars))
				}
				if !v.pipeline(stages) {
					stop = true
				}
			}
		case *syntax.FuncDecl:
			if n.Name != nil && n.Body != nil && v.funcDecl != nil {
				piped := false
				syntax.Walk(n.Body, func(m syntax.Node) bool {
					switch m := m.(type) {
					case *syntax.BinaryCmd:
						piped = piped || m.Op == syntax.Pipe || m.Op == syntax.PipeAll
					case *syntax.Stmt:
						piped = piped || m.Background
					}
					return true
				})
				if !v.funcDecl(n.Name.Value, commandsOf(n.Body, vars), piped) {
					stop = true
				}
			}
		}
		return !stop
	})
}

func isPipe(n *syntax.BinaryCmd) bool { return n.Op == syntax.Pipe || n.Op == syntax.PipeAll }

// pipeStages appends the stages of the pipeline n to out, in order, and
// marks the pipes inside it as seen.
func pipeStages(n *syntax.BinaryCmd, inner map[*syntax.BinaryCmd]bool, out []*syntax.Stmt) []*syntax.Stmt {
	// Iterative on the left (bash parses a|b|c as (a|b)|c): no recursion
	// as deep as the pipeline is long.
	var rights []*syntax.Stmt
	for {
		rights = append(rights, n.Y)
		b, ok := n.X.Cmd.(*syntax.BinaryCmd)
		if !ok || !isPipe(b) || len(n.X.Redirs) > 0 || n.X.Negated || n.X.Background {
			out = append(out, n.X)
			break
		}
		inner[b] = true
		n = b
	}
	for i := len(rights) - 1; i >= 0; i-- {
		if b, ok := rights[i].Cmd.(*syntax.BinaryCmd); ok && isPipe(b) && len(rights[i].Redirs) == 0 {
			inner[b] = true
			out = pipeStages(b, inner, out)
			continue
		}
		out = append(out, rights[i])
	}
	return out
}

// commandsOf returns the simple commands in n (prefixes looked through).
func commandsOf(n syntax.Node, vars map[string]string) [][]string {
	var out [][]string
	syntax.Walk(n, func(m syntax.Node) bool {
		if c, ok := m.(*syntax.CallExpr); ok && len(c.Args) > 0 {
			if argv := unwrap(words(c.Args, vars)); len(argv) > 0 {
				out = append(out, argv)
			}
		}
		return true
	})
	return out
}

func words(ws []*syntax.Word, vars map[string]string) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, wordString(w, vars))
	}
	return out
}

// wordString is the word as the shell passes it, quotes and escapes
// removed. A parameter not assigned on the line stays as written ($HOME,
// ${HOME}), a command substitution as $(…).
func wordString(w *syntax.Word, vars map[string]string) string {
	var b strings.Builder
	parts(&b, w.Parts, vars, false)
	return b.String()
}

func parts(b *strings.Builder, ps []syntax.WordPart, vars map[string]string, quoted bool) {
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, quoted))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			parts(b, p.Parts, vars, true)
		case *syntax.ParamExp:
			name := ""
			if p.Param != nil {
				name = p.Param.Value
			}
			val, ok := vars[name]
			plain := p.Exp == nil && p.Repl == nil && p.Slice == nil && p.Index == nil && !p.Length && !p.Excl
			switch {
			case ok && plain:
				b.WriteString(val)
			case p.Short:
				b.WriteString("$" + name)
			case plain:
				b.WriteString("${" + name + "}")
			default:
				b.WriteString("${" + name + "…}")
			}
		case *syntax.CmdSubst:
			b.WriteString("$(…)")
		default:
			b.WriteString("…")
		}
	}
}

// unescape removes the backslashes a shell removes: any escaped character
// outside quotes, and only \$ \` \" \\ inside double quotes.
func unescape(s string, quoted bool) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			n := s[i+1]
			if !quoted || strings.IndexByte("$`\"\\\n", n) >= 0 {
				if n != '\n' {
					b.WriteByte(n)
				}
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// A prefix is a command that runs the command in its arguments.
type prefix struct {
	withArg    string // options that take the next word as their value
	positional int    // words after the options and before the command (timeout's duration, chroot's directory)
	assigns    bool   // VAR=value words may come before the command
}

var prefixes = map[string]prefix{
	"sudo":        {withArg: " -u -g -C -h -p -r -t -U -D -R -T --user --group --close-from --host --prompt --role --type --other-user --chdir --chroot --command-timeout ", assigns: true},
	"doas":        {withArg: " -u -C -a "},
	"env":         {withArg: " -u -C -a --unset --chdir --argv0 --default-signal --ignore-signal --block-signal ", assigns: true},
	"nice":        {withArg: " -n --adjustment "},
	"ionice":      {withArg: " -c -n -p -P -u --class --classdata --pid --pgid --uid "},
	"timeout":     {withArg: " -s -k --signal --kill-after ", positional: 1},
	"nohup":       {},
	"time":        {withArg: " -f -o --format --output "},
	"exec":        {withArg: " -a "},
	"command":     {},
	"builtin":     {},
	"stdbuf":      {withArg: " -i -o -e --input --output --error "},
	"setsid":      {},
	"chroot":      {withArg: " --userspec --groups ", positional: 1},
	"flock":       {withArg: " -w -E --timeout --conflict-exit-code ", positional: 1},
	"xargs":       {withArg: " -I -n -P -L -s -d -E -a --max-args --max-procs --max-lines --max-chars --delimiter --arg-file --eof --process-slot-var "},
	"busybox":     {},
	"unbuffer":    {},
	"systemd-run": {withArg: " -p -u -E -M -H -S --unit --property --setenv --uid --gid --working-directory --description --slice --machine --host --nice --service-type --on-active --on-boot --on-startup --on-unit-active --on-unit-inactive --on-calendar --on-clock-change --timer-property --path-property --socket-property --expand-environment --background --json "},
	"runuser":     {withArg: " -u -g -G --user --group --supp-group -w --whitelist-environment "},
	"strace":      {withArg: " -o -p -e -s -u -E -P -a -b -I -O -S -U -X --output --attach --signal --trace --status --user --env --absolute-timestamps --detach-on --interruptible --summary-columns --summary-sort-by --const-print-style "},
	"ltrace":      {withArg: " -o -p -e -s -u -a -A -D -F -l -n -x -X -w --output --align --indent --library --config "},
	"caffeinate":  {withArg: " -t -w "},
	"nsenter":     {withArg: " -t --target -S -G --setuid --setgid -r -w --root --wd "},
	"unshare":     {withArg: " -S -G --setuid --setgid -R -w --root --wd --propagation --map-user --map-group --map-users --map-groups "},
	"taskset":     {withArg: " -c --cpu-list ", positional: 1},
	"chrt":        {positional: 1},
	"pkexec":      {withArg: " --user "},
	"prlimit":     {withArg: " -p --pid "},
	"cgexec":      {withArg: " -g "},
	"numactl":     {},
	"faketime":    {withArg: " -f ", positional: 1},
	"proxychains": {withArg: " -f "},
	"torsocks":    {},
	"catchsegv":   {},
	"dbus-launch": {},
	"xvfb-run":    {withArg: " -n -s -e -f -p --server-num --server-args --error-file --auth-file "},
}

// maxWrapped bounds the words after a wrapper's name that may start the
// command it runs (wrapped).
const maxWrapped = 12

// wrapped returns argv unwrapped (unwrap), and, when argv starts with a
// command that runs another, each later word (within maxWrapped) that may
// start that command, unwrapped in turn: an option whose value the table
// does not know (strace -b execve rm …) cannot then hide the command.
func wrapped(argv []string) [][]string {
	out := [][]string{unwrap(argv)}
	if len(argv) == 0 {
		return out
	}
	if _, ok := prefixes[base(argv[0])]; !ok {
		return out
	}
	for k := 1; k < len(argv) && k <= maxWrapped; k++ {
		w := argv[k]
		if strings.HasPrefix(w, "-") || isAssign(w) || w == "" {
			continue
		}
		if u := unwrap(argv[k:]); len(u) > 0 {
			out = append(out, u)
		}
	}
	return out
}

// unwrap looks through the prefixes of argv (sudo -u root env A=1 nice -n
// 5 rm … is rm …). It returns nil for command -v/-V, which only looks a
// name up.
func unwrap(argv []string) []string {
	for range 16 {
		if len(argv) == 0 {
			return nil
		}
		name := base(argv[0])
		p, ok := prefixes[name]
		if !ok {
			return argv
		}
		i := 1
		for i < len(argv) {
			w := argv[i]
			if w == "--" {
				i++
				break
			}
			if !strings.HasPrefix(w, "-") || w == "-" {
				if name == "env" && w == "-" {
					i++
					continue
				}
				break
			}
			if name == "command" && (w == "-v" || w == "-V") {
				return nil
			}
			if name == "env" && (w == "-S" || strings.HasPrefix(w, "--split-string")) {
				// env -S 'cmd args' splits its string into words.
				rest := argv[i+1:]
				s := ""
				if v, ok := strings.CutPrefix(w, "--split-string="); ok {
					s = v
				} else if len(rest) > 0 {
					s, rest = rest[0], rest[1:]
				}
				return unwrap(append(strings.Fields(s), rest...))
			}
			i++
			if strings.Contains(p.withArg, " "+w+" ") && !strings.Contains(w, "=") {
				i++ // the option's value
			}
		}
		if p.assigns {
			for i < len(argv) && isAssign(argv[i]) {
				i++
			}
		}
		i += p.positional
		if i >= len(argv) {
			return nil
		}
		argv = argv[i:]
	}
	return argv
}

func isAssign(w string) bool {
	k, _, ok := strings.Cut(w, "=")
	if !ok || k == "" {
		return false
	}
	for i, r := range k {
		if !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// nested returns the command lines argv runs as strings: sh -c STR, eval
// ARGS, su -c STR, ssh HOST CMD, watch CMD, flock … -c STR, find -exec
// CMD ;. Each is parsed as shell in turn.
func nested(argv []string) []string {
	name := base(argv[0])
	args := argv[1:]
	switch {
	case shells[name] && name != "busybox":
		for i, a := range args {
			if a == "--" || !strings.HasPrefix(a, "-") {
				break
			}
			if !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
				return []string{args[i+1]}
			}
		}
	case name == "eval":
		return []string{strings.Join(args, " ")}
	case name == "trap" && len(args) >= 2 && !strings.HasPrefix(args[0], "-"):
		return []string{args[0]} // trap CMD SIGNAL…: CMD runs later
	case name == "alias":
		var out []string
		for _, a := range args {
			if _, v, ok := strings.Cut(a, "="); ok {
				out = append(out, v)
			}
		}
		return out
	case name == "su" || name == "runuser" || name == "flock" || name == "script":
		for i, a := range args {
			if (a == "-c" || a == "--command") && i+1 < len(args) {
				return []string{args[i+1]}
			}
			if v, ok := strings.CutPrefix(a, "--command="); ok {
				return []string{v}
			}
		}
	case name == "ssh":
		const withArg = " -b -c -D -E -e -F -I -i -J -L -l -m -O -o -p -Q -R -S -W -w -B "
		for i := 0; i < len(args); i++ {
			a := args[i]
			if strings.HasPrefix(a, "-") {
				if strings.Contains(withArg, " "+a+" ") {
					i++
				}
				continue
			}
			if i+1 < len(args) {
				return []string{strings.Join(args[i+1:], " ")}
			}
			break
		}
	case name == "watch":
		for i, a := range args {
			if a == "-n" || a == "--interval" {
				continue
			}
			if !strings.HasPrefix(a, "-") && (i == 0 || (args[i-1] != "-n" && args[i-1] != "--interval")) {
				return []string{strings.Join(args[i:], " ")}
			}
		}
	case name == "find":
		var out []string
		for i := 0; i < len(args); i++ {
			switch args[i] {
			case "-exec", "-execdir", "-ok", "-okdir":
				var cmd []string
				for i++; i < len(args) && args[i] != ";" && args[i] != "+"; i++ {
					cmd = append(cmd, quote(args[i]))
				}
				out = append(out, strings.Join(cmd, " "))
			}
		}
		return out
	}
	return nil
}

// quote makes w one shell word again.
func quote(w string) string {
	if q, err := syntax.Quote(w, syntax.LangBash); err == nil {
		return q
	}
	return "'" + strings.ReplaceAll(w, "'", `'\''`) + "'"
}
