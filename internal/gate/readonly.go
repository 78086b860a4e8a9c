package gate

import (
	"fmt"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// ReadOnly reports whether every command of line is known to only read,
// and when not, says what is not (the first thing found). Known means
// fully understood (grammar.go, commands.go): each command has a grammar
// of its options and operands, and a line is read-only only when every
// word fits one. Held: an unknown command or option, an assignment, an
// expansion that runs code ($(…), `…`, $((…)), <(…), ${x@P}, a
// subscript), a redirection other than to /dev/null or a descriptor, a
// loop, a function, a background job, and a word whose value the line
// does not tell standing where it could be an option.
func ReadOnly(line string) (bool, string) {
	return readOnly(line, 0, nil)
}

// ReadOnlyOr is ReadOnly where a command for which allowed (given the
// command's words joined by spaces; after sudo's options, the command it
// runs too) returns true counts as read-only too.
func ReadOnlyOr(line string, allowed func(cmd string) bool) (bool, string) {
	return readOnly(line, 0, allowed)
}

func readOnly(line string, depth int, allowed func(string) bool) (bool, string) {
	r := roReader{allowed: allowed, depth: depth}
	r.line(line)
	return r.why == "", r.why
}

// roReader reads a line by the read-only grammar; why is the first thing
// it did not understand.
type roReader struct {
	allowed func(string) bool
	depth   int
	why     string
}

func (r *roReader) hold(why string) bool {
	if r.why == "" {
		r.why = why
	}
	return false
}

func (r *roReader) line(line string) bool {
	line = strings.ReplaceAll(strings.ReplaceAll(line, "\r\n", "\n"), "\r", "\n")
	if i := strings.IndexFunc(line, func(c rune) bool { return c < 0x20 && c != '\n' || c == 0x7f }); i >= 0 {
		// The line editor acts on these before the shell reads the line:
		// ^U kills what came before, a tab completes, ESC sequences move.
		return r.hold(fmt.Sprintf("a control character (%q) that the line editor acts on", line[i]))
	}
	if r.depth == 0 && strings.HasPrefix(strings.TrimLeft(line, " "), "^") {
		return r.hold("a history substitution (^old^new)")
	}
	if r.depth == 0 && histExpansion(line) {
		return r.hold("a history expansion (!…: the shell replaces it with words of earlier lines)")
	}
	if tooLarge(line) {
		return r.hold("the line is too large to check")
	}
	if tooNested(line) {
		return r.hold("the line nests too deep to check")
	}
	f, err := parse(line)
	if err != nil {
		return r.hold("the line is not plain shell")
	}
	return r.stmts(f.Stmts)
}

// nested reads a command line run by another (sh -c, ssh HOST, eval).
func (r *roReader) nested(line string) bool {
	if r.depth >= maxDepth {
		return r.hold("commands nested too deep to check")
	}
	r.depth++
	defer func() { r.depth-- }()
	return r.line(line)
}

func (r *roReader) stmts(ss []*syntax.Stmt) bool {
	for _, s := range ss {
		if !r.stmt(s) {
			return false
		}
	}
	return true
}

func (r *roReader) stmt(s *syntax.Stmt) bool {
	if s.Background || s.Coprocess || s.Disown {
		return r.hold("a background job")
	}
	for _, rd := range s.Redirs {
		if !r.redirect(rd) {
			return false
		}
	}
	return r.command(s.Cmd)
}

func (r *roReader) command(c syntax.Command) bool {
	switch c := c.(type) {
	case nil:
		return true
	case *syntax.CallExpr:
		if len(c.Assigns) > 0 {
			return r.hold("an assignment (" + assignName(c.Assigns[0]) + "=)")
		}
		args := make([]arg, 0, len(c.Args))
		for _, w := range c.Args {
			a, why := argOf(w)
			if why != "" {
				return r.hold(why)
			}
			args = append(args, a)
		}
		return r.call(args)
	case *syntax.BinaryCmd:
		// Left-nested pipelines (a|b|c) are walked without recursing as
		// deep as they are long.
		var rights []*syntax.Stmt
		for {
			rights = append(rights, c.Y)
			x, ok := c.X.Cmd.(*syntax.BinaryCmd)
			if !ok || len(c.X.Redirs) > 0 || c.X.Background || c.X.Negated {
				if !r.stmt(c.X) {
					return false
				}
				break
			}
			c = x
		}
		for i := len(rights) - 1; i >= 0; i-- {
			if !r.stmt(rights[i]) {
				return false
			}
		}
		return true
	case *syntax.Subshell:
		return r.stmts(c.Stmts)
	case *syntax.Block:
		return r.stmts(c.Stmts)
	case *syntax.IfClause:
		for ; c != nil; c = c.Else {
			if !r.stmts(c.Cond) || !r.stmts(c.Then) {
				return false
			}
		}
		return true
	case *syntax.TestClause:
		return r.test(c.X)
	case *syntax.DeclClause:
		return r.hold("a declaration (" + c.Variant.Value + ")")
	case *syntax.ForClause, *syntax.WhileClause:
		return r.hold("a loop (it assigns its variable, and runs its body many times)")
	case *syntax.FuncDecl:
		return r.hold("a function definition")
	case *syntax.ArithmCmd, *syntax.LetClause:
		return r.hold("arithmetic (a subscript in it may run a command)")
	}
	return r.hold("a compound command that is not known to only read")
}

func assignName(a *syntax.Assign) string {
	if a.Name != nil {
		return a.Name.Value
	}
	return "…"
}

// test reads a [[ … ]] expression: comparisons of strings and files only
// (-eq and the like, and -v, evaluate their operands as arithmetic).
func (r *roReader) test(x syntax.TestExpr) bool {
	switch x := x.(type) {
	case *syntax.BinaryTest:
		switch x.Op {
		case syntax.TsEql, syntax.TsNeq, syntax.TsLeq, syntax.TsGeq, syntax.TsLss, syntax.TsGtr:
			return r.hold("an arithmetic comparison in [[ ]] (a subscript in it may run a command)")
		}
		return r.test(x.X) && r.test(x.Y)
	case *syntax.UnaryTest:
		if x.Op == syntax.TsVarSet || x.Op == syntax.TsRefVar {
			return r.hold("[[ -v ]] (a subscript in it may run a command)")
		}
		return r.test(x.X)
	case *syntax.ParenTest:
		return r.test(x.X)
	case *syntax.Word:
		_, why := argOf(x)
		if why != "" {
			return r.hold(why)
		}
		return true
	}
	return r.hold("a test that is not known")
}

// redirect allows reading, here-documents, descriptors, and output to
// /dev/null, /dev/stdout or /dev/stderr.
func (r *roReader) redirect(rd *syntax.Redirect) bool {
	if rd.N != nil && strings.Trim(rd.N.Value, "0123456789") != "" {
		return r.hold("a redirection that assigns a variable ({" + rd.N.Value + "})")
	}
	if rd.Hdoc != nil {
		if _, why := argOf(rd.Hdoc); why != "" {
			return r.hold(why)
		}
	}
	if rd.Word == nil {
		return true
	}
	a, why := argOf(rd.Word)
	if why != "" {
		return r.hold(why)
	}
	switch rd.Op {
	case syntax.RdrIn, syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
		return true
	case syntax.DplIn, syntax.DplOut:
		if a.known && (strings.Trim(a.s, "0123456789") == "" || a.s == "-" || strings.Trim(strings.TrimSuffix(a.s, "-"), "0123456789") == "") && a.s != "" {
			return true
		}
		if a.known && (a.s == "/dev/null") {
			return true
		}
		return r.hold("output redirected to " + a.s + " (>& WORD writes a file)")
	case syntax.RdrOut, syntax.AppOut, syntax.RdrClob, syntax.AppClob, syntax.RdrAll, syntax.AppAll,
		syntax.RdrAllClob, syntax.AppAllClob:
		if a.known && (a.s == "/dev/null" || a.s == "/dev/stdout" || a.s == "/dev/stderr") {
			return true
		}
		return r.hold("output redirected to " + a.s)
	}
	return r.hold("a redirection (" + rd.Op.String() + ") that may write")
}

// call reads one simple command.
func (r *roReader) call(args []arg) bool {
	if len(args) == 0 {
		return true
	}
	if !args[0].known || args[0].multi {
		return r.hold("a command name that is not known (" + args[0].s + ")")
	}
	if r.allowed != nil && r.allowed(argsText(args)) {
		return true
	}
	if strings.Contains(args[0].s, "/") && !systemBin.MatchString(args[0].s) {
		// ./test, ~/bin/cat: a program named like a reader, not the reader.
		return r.hold("`" + args[0].s + "` is a program by path, not a known command")
	}
	name := base(args[0].s)
	rest := args[1:]
	switch name {
	case "sudo":
		return r.sudo(rest)
	case "sh", "bash", "dash":
		return r.shellC(name, rest)
	case "eval":
		s, ok := joinKnown(rest)
		if !ok {
			return r.hold("eval of words that are not known")
		}
		return r.nested(s)
	case "ssh":
		return r.ssh(rest)
	}
	c := readOnlyCommands()[name]
	if c == nil {
		return r.hold("`" + argsTextMax(args) + "`: " + name + " is not known to only read")
	}
	if why := apply(c, rest); why != "" {
		return r.hold("`" + argsTextMax(args) + "`: " + why)
	}
	return true
}

// systemBin is where the commands of the grammar live: /bin/ls is ls,
// ./ls or ~/bin/ls is some other program.
var systemBin = lazyRE(`^/(?:usr/)?(?:local/)?s?bin/[^/]+$`)

// apply reads args by c; "" when they only read.
func apply(c *command, args []arg) string {
	if c.words != nil {
		return c.words(args)
	}
	if c.subs != nil {
		i, why := firstOperandAt(c.opts, args)
		if why != "" {
			return why
		}
		if i == len(args) {
			if c.noSub == nil {
				return "no subcommand"
			}
			return apply(c.noSub, args[:i])
		}
		sub := args[i]
		if !sub.known {
			return "the subcommand `" + sub.s + "` is not known"
		}
		sc := c.subs[sub.s]
		if sc == nil {
			return "the subcommand " + sub.s + " is not known to only read"
		}
		if c.global {
			cc := *sc
			cc.opts = sc.opts.merge(c.opts)
			sc = &cc
		}
		return apply(sc, args[i+1:])
	}
	posix := c.posix || c.maxOperands > 0
	p, why := parseArgs(c.opts, args, posix, c.anyOpt)
	if why != "" {
		return why
	}
	switch {
	case c.maxOperands < 0 && len(p.operands) > 0:
		return "it takes no operand here"
	case c.maxOperands > 0 && len(p.operands) > c.maxOperands:
		return "too many operands (the last may be written)"
	case c.maxOperands > 0 && len(p.operands) > 0 && p.operands[len(p.operands)-1].multi:
		return "an operand may be several words (the last may be written)"
	}
	if c.check != nil {
		return c.check(&p)
	}
	return ""
}

// firstOperandAt is where the first operand (the subcommand) is, after
// the global options o, whose values are skipped.
func firstOperandAt(o *optSet, args []arg) (int, string) {
	p, why := parseArgs(o, args, true, false)
	return p.at, why
}

// sudo reads sudo's options and then the command it runs.
var sudoOpts = opts("-n --non-interactive -u: --user= -g: --group= -H --set-home -k --reset-timestamp -S --stdin -p: --prompt= -P --preserve-groups -D: --chdir= !-e !--edit !-s !--shell !-i !--login !-A !--askpass !-b !--background !-E !--preserve-env=? !-C: !-R: !--chroot= !-T: !-h: !--host= !-l !--list !-v !--validate !-K !--remove-timestamp")

func (r *roReader) sudo(args []arg) bool {
	i, why := firstOperandAt(sudoOpts, args)
	if why == "" {
		_, why = parseArgs(sudoOpts, args[:i], true, false)
	}
	if why != "" {
		return r.hold("sudo: " + why)
	}
	if i == len(args) {
		return r.hold("sudo without a command")
	}
	if args[i].known && isAssign(args[i].s) {
		return r.hold("an assignment given to sudo (" + args[i].s + ")")
	}
	if r.depth >= maxDepth {
		return r.hold("commands nested too deep to check")
	}
	r.depth++
	defer func() { r.depth-- }()
	return r.call(args[i:])
}

// shellC reads sh -c STRING: the string is read as a line in turn.
func (r *roReader) shellC(name string, args []arg) bool {
	if len(args) < 2 || !args[0].known || !strings.HasPrefix(args[0].s, "-") || strings.HasPrefix(args[0].s, "--") ||
		!strings.Contains(args[0].s, "c") || strings.Trim(args[0].s, "-celu") != "" || !args[1].known {
		return r.hold(name + " other than " + name + " -c 'known commands'")
	}
	return r.nested(args[1].s)
}

var sshOpts = opts("-4 -6 -C -q -v -t -T -x -n -N -k -a -p: -l: -i: -o: -c: -m: -b: -B: -E: -F: -J: -W: -e:")

// sshOptions are the -o options that only choose how to connect;
// ProxyCommand, LocalCommand, PermitLocalCommand, KnownHostsCommand and
// the like run programs here.
var sshOptions = set("connecttimeout", "batchmode", "port", "user", "loglevel", "serveraliveinterval",
	"serveralivecountmax", "stricthostkeychecking", "connectionattempts", "compression", "identitiesonly",
	"passwordauthentication", "pubkeyauthentication", "preferredauthentications", "numberofpasswordprompts",
	"requesttty", "addressfamily", "checkhostip", "tcpkeepalive", "visualhostkey", "ciphers", "macs",
	"kexalgorithms", "hostkeyalgorithms")

// ssh reads ssh [OPTIONS] HOST [COMMAND…]: the command is read as a line.
func (r *roReader) ssh(args []arg) bool {
	p, why := parseArgs(sshOpts, args, true, false)
	if why != "" {
		return r.hold("ssh: " + why)
	}
	for _, o := range p.opts {
		switch o.name {
		case "-E", "-F", "-J", "-W", "-B", "-b", "-e", "-m", "-c":
			return r.hold("ssh " + o.name + " is not known to only connect")
		case "-o":
			k, _, _ := strings.Cut(strings.ToLower(o.val.s), "=")
			k, _, _ = strings.Cut(k, " ")
			if !o.val.known || !sshOptions[strings.TrimSpace(k)] {
				return r.hold("ssh -o " + o.val.s + " is not known to only connect (ProxyCommand, LocalCommand … run programs)")
			}
		}
	}
	if len(p.operands) == 0 || !p.operands[0].known || strings.HasPrefix(p.operands[0].s, "-") {
		return r.hold("ssh without a known host")
	}
	if len(p.operands) == 1 {
		return r.hold("ssh without a command opens a shell")
	}
	s, ok := joinKnown(p.operands[1:])
	if !ok {
		return r.hold("an ssh command that is not known")
	}
	return r.nested(s)
}

func joinKnown(args []arg) (string, bool) {
	ws := make([]string, 0, len(args))
	for _, a := range args {
		if !a.known {
			return "", false
		}
		ws = append(ws, a.s)
	}
	return strings.Join(ws, " "), true
}

func argsText(args []arg) string {
	ws := make([]string, 0, len(args))
	for _, a := range args {
		ws = append(ws, a.s)
	}
	return strings.Join(ws, " ")
}

func argsTextMax(args []arg) string {
	s := argsText(args)
	if len(s) > 80 {
		s = s[:80] + "…"
	}
	return s
}

// Commands returns the simple commands line runs, each as its words joined
// by spaces with prefixes looked through (sudo -u x systemctl stop y is
// "systemctl stop y"), including those in strings run by sh -c, eval, ssh …
// A line that does not parse gives nil.
func Commands(line string) []string {
	var out []string
	commands(line, 0, &out)
	return out
}

func commands(line string, depth int, out *[]string) {
	if tooLarge(line) || tooNested(line) {
		return
	}
	f, err := parse(line)
	if err != nil {
		return
	}
	visit(f, depth, visitor{cmd: func(argv []string, depth int) bool {
		*out = append(*out, strings.Join(argv, " "))
		if depth < maxDepth {
			for _, s := range nested(argv) {
				commands(s, depth+1, out)
			}
		}
		return len(*out) < 1000
	}})
}
