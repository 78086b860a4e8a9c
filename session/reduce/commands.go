package reduce

import (
	"fmt"
	"path"
	"strings"
	"unicode/utf8"
)

// A role is what a command reducer makes of one line of output.
type role uint8

const (
	rShow role = iota // shown; a fold may still elide it
	rDrop             // noise the command is known to print: hidden behind a marker
	rMust             // an error or a failure: never hidden by the reducer, kept by the fold
	rKey              // an outline line (a commit, a file's header): shown, and kept by the fold while there is room
)

// A cmdReducer knows the output of one command (or family of commands).
type cmdReducer struct {
	// name is reported in Result.Reducer: "git log", "go test".
	name string
	// classify sets roles[i] for every line (they start as rShow). It
	// must never set rDrop on a line that reports an error or a failure
	// of the command. It may return a function that describes a run of
	// dropped lines, i through j, for its marker ("12 more matches in
	// x.go"); nil means "N lines".
	classify func(lines []string, roles []role) (describe func(i, j int) string)
}

// generic is the role the generic rules give a line a reducer does not
// recognise: rMust if it looks like an error or a warning, else rShow.
func generic(s string) role {
	if looksLikeError(s) {
		return rMust
	}
	return rShow
}

// commandEntries runs reducer cr over r.lines and returns the entries for
// collapse and fold: each run of dropped lines becomes one kDrop marker
// (unless the marker would be longer than the lines it hides), and the
// lines between runs go through collapse as usual.
func (r *reducer) commandEntries(cr *cmdReducer) []entry {
	n := len(r.lines)
	roles := make([]role, n)
	describe := cr.classify(r.lines, roles)
	if describe == nil {
		describe = func(i, j int) string { return linesN(j - i + 1) }
	}
	if r.KeepPattern != nil {
		for i, s := range r.lines {
			if r.KeepPattern.MatchString(s) {
				roles[i] = rMust
			}
		}
	}
	for _, g := range r.Gaps {
		roles[g.Index] = rShow // a caller's marker: shown as written, or folded
	}
	r.roles, r.custom = roles, true
	// Each run of dropped lines gets a marker if the marker is shorter
	// than the lines. The first marker also carries the read call, once:
	// if what all the markers save does not pay for it, nothing is hidden.
	type run struct {
		i, j int // lines i to j-1
		text string
	}
	var runs []run
	saved, extra := 0, 0
	for i := 0; i < n; {
		if roles[i] != rDrop {
			i++
			continue
		}
		j, size := i, 0
		for j < n && roles[j] == rDrop {
			size += len(r.lines[j]) + 1
			j++
		}
		text := describe(i, j-1)
		if m := len(r.markerText(text, i, j-1, false)); size > m {
			if len(runs) == 0 {
				extra = len(r.markerText(text, i, j-1, true)) - m
			}
			runs = append(runs, run{i, j, text})
			saved += size - m
		} else {
			// A marker would cost more than the lines: show them.
			for k := i; k < j; k++ {
				roles[k] = rShow
			}
		}
		i = j
	}
	if saved <= extra {
		for _, u := range runs {
			for k := u.i; k < u.j; k++ {
				roles[k] = rShow
			}
		}
		runs = nil
	}
	var es []entry
	shown := 0 // start of the lines to show
	for _, u := range runs {
		es = r.collapse(es, shown, u.i)
		es = append(es, r.marker(kDrop, u.i, u.j-1, u.text))
		shown = u.j
	}
	return r.collapse(es, shown, n)
}

// dropText is the marker for a kDrop entry, with the read call if hint.
func (r *reducer) dropText(e entry, hint bool) string {
	return r.markerText(r.msgs[e.msg], int(e.from), int(e.to), hint)
}

// markerText says what input lines i through j are and which session
// lines: "[… 12 lines (session lines 40–51)]", with the read call when
// hint is set. Only the first marker of a result carries the call (as
// the fold's markers do): later ones name their session lines, which is
// the same call with other numbers, and stay short.
func (r *reducer) markerText(what string, i, j int, hint bool) string {
	const maxWhat = 200 // a description quotes output (a file name): keep it short
	if len(what) > maxWhat {
		k := maxWhat
		for k > 0 && !utf8.RuneStart(what[k]) {
			k--
		}
		what = what[:k] + "…"
	}
	what = strings.ToValidUTF8(what, "\uFFFD")
	from, to := r.span(i, j)
	call := ""
	if hint {
		call = r.readCall(from, to, ": %s to see them", "")
	}
	return fmt.Sprintf("[… %s (session lines %d–%d)%s]", what, from, to, call)
}

// commandReducer returns the reducer for the output of command line cmd,
// or nil if there is none or cmd is not plain enough to tell whose output
// it is. It looks through leading NAME=value assignments, wrappers (sudo,
// time, env, nice, nohup, timeout, stdbuf, command, exec, sh -c) and
// paths (/usr/bin/git). In a pipeline the output is the last command's, so
// the first command's reducer applies only when every later command passes
// lines through unchanged (cat, tee, less, head, tail): `git log | grep x`
// gets none. In a list (a; b, a && b) the commands other than cd, export
// and the like must all have the same reducer.
func commandReducer(cmd string) *cmdReducer {
	return reducerForLine(cmd, 0)
}

func reducerForLine(cmd string, depth int) *cmdReducer {
	if depth > 3 || strings.TrimSpace(cmd) == "" {
		return nil
	}
	pipes, ok := splitCommandLine(cmd)
	if !ok {
		return nil
	}
	var found *cmdReducer
	any := false
	for _, p := range pipes {
		argv := unwrap(p[0])
		if len(argv) == 0 {
			return nil
		}
		if len(p) == 1 && quietCommand(argv) {
			continue
		}
		for _, later := range p[1:] {
			if !passThrough(unwrap(later)) {
				return nil
			}
		}
		cr := pickReducer(argv, depth)
		if cr == nil || any && cr != found {
			return nil
		}
		found, any = cr, true
	}
	return found
}

// splitCommandLine splits a shell command line into pipelines (separated
// by ;, &&, || or newlines), each a list of commands (separated by | or
// |&), each a list of words with quotes removed and redirections dropped.
// It gives up (ok false) on what it does not follow: subshells, command
// substitution, here-documents, background jobs, unbalanced quotes.
func splitCommandLine(s string) (pipes [][][]string, ok bool) {
	var (
		word    strings.Builder
		inWord  bool
		argv    []string
		pipe    [][]string
		skipArg bool // the next word is a redirection's target
	)
	endWord := func() {
		if !inWord {
			return
		}
		if skipArg {
			skipArg = false
		} else {
			argv = append(argv, word.String())
		}
		word.Reset()
		inWord = false
	}
	endCmd := func() bool {
		endWord()
		if skipArg || len(argv) == 0 {
			return false
		}
		pipe = append(pipe, argv)
		argv = nil
		return true
	}
	endPipe := func() bool {
		if len(argv) == 0 && len(pipe) == 0 && !inWord {
			return true // empty statement: "a;;" is an error, but harmless here
		}
		if !endCmd() {
			return false
		}
		pipes = append(pipes, pipe)
		pipe = nil
		return true
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, false
			}
			word.WriteString(s[i+1 : i+1+j])
			inWord = true
			i += j + 1
		case c == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				switch {
				case s[i] == '\\' && i+1 < len(s) && strings.IndexByte("\"\\$`\n", s[i+1]) >= 0:
					i++
					word.WriteByte(s[i])
				case s[i] == '$' && i+1 < len(s) && s[i+1] == '(', s[i] == '`':
					return nil, false
				default:
					word.WriteByte(s[i])
				}
			}
			if i == len(s) {
				return nil, false
			}
			inWord = true
		case c == '\\':
			if i+1 < len(s) {
				i++
				if s[i] != '\n' {
					word.WriteByte(s[i])
					inWord = true
				}
			}
		case c == ' ' || c == '\t':
			endWord()
		case c == '#' && !inWord:
			// A comment runs to the end of the line.
			if j := strings.IndexByte(s[i:], '\n'); j >= 0 {
				i += j - 1
			} else {
				i = len(s)
			}
		case c == '\n' || c == ';':
			if !endPipe() {
				return nil, false
			}
		case c == '&':
			switch {
			case strings.HasPrefix(s[i:], "&&"):
				if !endPipe() {
					return nil, false
				}
				i++
			case strings.HasPrefix(s[i:], "&>"):
				endWord()
				i++
				if i+1 < len(s) && s[i+1] == '>' {
					i++
				}
				skipArg = true
			default:
				return nil, false // a background job prints its own lines
			}
		case c == '|':
			switch {
			case strings.HasPrefix(s[i:], "||"):
				if !endPipe() {
					return nil, false
				}
				i++
			default:
				if strings.HasPrefix(s[i:], "|&") {
					i++
				}
				if !endCmd() {
					return nil, false
				}
			}
		case c == '<' || c == '>':
			// A redirection, with an optional file descriptor before it
			// (2>, 2>&1): drop it and its target.
			if inWord && !allDigits(word.String()) {
				endWord()
			}
			word.Reset()
			inWord = false
			if c == '<' && strings.HasPrefix(s[i:], "<<") && !strings.HasPrefix(s[i:], "<<<") {
				return nil, false // a here-document
			}
			if (c == '<' || c == '>') && i+1 < len(s) && s[i+1] == '(' {
				return nil, false // process substitution
			}
			for i+1 < len(s) && (s[i+1] == '<' || s[i+1] == '>' || s[i+1] == '|') {
				i++
			}
			if i+1 < len(s) && s[i+1] == '&' {
				// >&2, 2>&1, >&-: a descriptor, not a file.
				i++
				for i+1 < len(s) && (isDigit(s[i+1]) || s[i+1] == '-') {
					i++
				}
				continue
			}
			skipArg = true
		case c == '(' || c == ')' || c == '`' || c == '$' && i+1 < len(s) && s[i+1] == '(':
			return nil, false
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if !endPipe() {
		return nil, false
	}
	return pipes, len(pipes) > 0
}

func allDigits(s string) bool {
	for i := 0; i < len(s); i++ {
		if !isDigit(s[i]) {
			return false
		}
	}
	return true
}

// isAssignment reports whether w is NAME=value.
func isAssignment(w string) bool {
	eq := strings.IndexByte(w, '=')
	if eq <= 0 {
		return false
	}
	for i := 0; i < eq; i++ {
		c := w[i]
		if !(c == '_' || c|0x20 >= 'a' && c|0x20 <= 'z' || i > 0 && isDigit(c)) {
			return false
		}
	}
	return true
}

// wrapperArgs lists, for commands that run another command, their options
// that take a separate argument.
var wrapperArgs = map[string]string{
	"sudo":       "-u -g -h -p -C -D -r -t -U -T --user --group --host --prompt --chdir --role --type --other-user --close-from",
	"doas":       "-u -C",
	"time":       "-o -f --output --format",
	"env":        "-u -C -S --unset --chdir --split-string",
	"nice":       "-n --adjustment",
	"ionice":     "-c -n -p -P -u --class --classdata",
	"nohup":      "",
	"command":    "",
	"exec":       "-a",
	"builtin":    "",
	"stdbuf":     "-i -o -e --input --output --error",
	"timeout":    "-s -k --signal --kill-after",
	"chrt":       "",
	"taskset":    "",
	"unbuffer":   "",
	"caffeinate": "",
}

// unwrap strips assignments and wrappers from argv and returns the command
// that produces the output, its first word reduced to a program name.
func unwrap(argv []string) []string {
	for len(argv) > 0 {
		if isAssignment(argv[0]) {
			argv = argv[1:]
			continue
		}
		name := progName(argv[0])
		withArg, ok := wrapperArgs[name]
		if !ok {
			break
		}
		argv = argv[1:]
		for len(argv) > 0 && strings.HasPrefix(argv[0], "-") && argv[0] != "-" {
			opt := argv[0]
			argv = argv[1:]
			if opt == "--" {
				break
			}
			if !strings.Contains(opt, "=") && len(argv) > 0 && containsWord(withArg, opt) {
				argv = argv[1:]
			}
		}
		switch name {
		case "timeout":
			if len(argv) > 0 {
				argv = argv[1:] // the duration
			}
		case "taskset":
			if len(argv) > 0 {
				argv = argv[1:] // the mask
			}
		case "chrt":
			if len(argv) > 0 && allDigits(argv[0]) {
				argv = argv[1:] // the priority
			}
		}
	}
	if len(argv) == 0 {
		return nil
	}
	out := append([]string{progName(argv[0])}, argv[1:]...)
	return out
}

func containsWord(list, w string) bool {
	for _, f := range strings.Fields(list) {
		if f == w {
			return true
		}
	}
	return false
}

// progName is the program name in a command's first word: its base name
// without a version suffix (python3.11 → python, gcc-12 → gcc, pip3 →
// pip), with a cross-compiler prefix removed (x86_64-linux-gnu-gcc → gcc).
func progName(w string) string {
	w = path.Base(w)
	if t := strings.TrimRight(w, "0123456789."); t != "" && t != w {
		w = strings.TrimSuffix(t, "-")
	}
	for _, cc := range []string{"gcc", "g++", "clang", "clang++", "cc", "c++", "ld", "ar", "as"} {
		if strings.HasSuffix(w, "-"+cc) {
			return cc
		}
	}
	return w
}

// quietCommand reports whether argv prints nothing worth a reducer of its
// own in a list (cd dir && make).
func quietCommand(argv []string) bool {
	switch argv[0] {
	case "cd", "pushd", "popd", "export", "unset", "set", "source", ".", "alias", "umask", "ulimit",
		"true", ":", "clear", "shopt", "hash", "unalias", "declare", "typeset", "local", "sleep":
		return true
	}
	return false
}

// passThrough reports whether a later command in a pipeline shows the
// earlier command's lines as they are (or some of them, whole).
func passThrough(argv []string) bool {
	if len(argv) == 0 {
		return false
	}
	switch argv[0] {
	case "tee":
		return true
	case "cat":
		// cat -n, -A and the like change the lines; a file adds its own.
		return len(argv) == 1 || len(argv) == 2 && (argv[1] == "-" || argv[1] == "-u")
	case "less", "more", "head", "tail":
		for i := 1; i < len(argv); i++ {
			a := argv[i]
			switch {
			case a == "-n" || a == "-c" || a == "--lines" || a == "--bytes":
				i++ // its value
			case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			default:
				return false // a file: its lines are not the command's
			}
		}
		return true
	}
	return false
}

// firstArg returns the first argument that is not an option, and the
// arguments after it.
func firstArg(args []string) (string, []string) {
	for i, a := range args {
		if !strings.HasPrefix(a, "-") {
			return a, args[i+1:]
		}
	}
	return "", nil
}

// pickReducer returns the reducer for the output of argv (already
// unwrapped), or nil.
func pickReducer(argv []string, depth int) *cmdReducer {
	prog, args := argv[0], argv[1:]
	switch prog {
	case "sh", "bash", "zsh", "dash", "ksh":
		for i, a := range args {
			if strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c") && i+1 < len(args) {
				return reducerForLine(args[i+1], depth+1)
			}
		}
		return nil
	case "git":
		return pickGit(args)
	case "go":
		switch sub, _ := firstArg(args); sub {
		case "test":
			return goTestReducer
		case "build", "install", "vet":
			return buildReducer
		}
	case "pytest", "py.test":
		return pytestReducer
	case "python", "py", "uv", "poetry", "pipenv", "pdm", "hatch":
		// python -m pytest, python -m pip install, uv run pytest.
		for i := 0; i+1 < len(args); i++ {
			if args[i] == "-m" || args[i] == "run" {
				switch progName(args[i+1]) {
				case "pytest", "py.test":
					return pytestReducer
				case "pip":
					return pickPip(args[i+2:])
				}
			}
		}
	case "pip":
		return pickPip(args)
	case "npm", "pnpm", "yarn", "bun":
		sub, _ := firstArg(args)
		switch sub {
		case "install", "i", "ci", "add", "update", "up", "upgrade", "in", "isntall", "install-clean", "rebuild":
			return npmReducer
		case "":
			if prog == "yarn" || prog == "pnpm" && len(args) == 0 {
				return npmReducer // plain yarn installs
			}
		}
	case "apt", "apt-get", "aptitude":
		switch sub, _ := firstArg(args); sub {
		case "install", "upgrade", "full-upgrade", "dist-upgrade", "update", "remove", "purge", "autoremove",
			"reinstall", "build-dep", "source":
			return aptReducer
		}
	case "dpkg":
		for _, a := range args {
			if a == "-i" || a == "--install" || a == "--configure" || a == "-r" || a == "--remove" || a == "-P" || a == "--purge" {
				return aptReducer
			}
		}
	case "make", "gmake", "bmake", "ninja", "gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "tsc", "javac",
		"nvcc", "icc", "icx", "zig", "meson", "scons", "mvn":
		return buildReducer
	case "cmake":
		for _, a := range args {
			if a == "--build" {
				return buildReducer
			}
		}
	case "cargo":
		switch sub, _ := firstArg(args); sub {
		case "build", "b", "check", "c", "clippy", "install", "rustc", "doc":
			return buildReducer
		}
	case "npx":
		if sub, _ := firstArg(args); progName(sub) == "tsc" {
			return buildReducer
		}
	case "grep", "egrep", "fgrep":
		for _, a := range args {
			if a == "--recursive" || a == "--dereference-recursive" || strings.HasPrefix(a, "--include") ||
				strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a, "rR") {
				return grepReducer
			}
		}
	case "rg", "ag", "ack":
		return grepReducer
	case "journalctl", "dmesg":
		return logReducer
	case "ls":
		for _, a := range args {
			if a == "--recursive" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "R") {
				return lsReducer
			}
		}
	}
	return nil
}

// pickGit returns the reducer for git's output, by subcommand.
func pickGit(args []string) *cmdReducer {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-C" || a == "-c" || a == "--git-dir" || a == "--work-tree" || a == "--namespace" ||
			a == "--config-env" || a == "--super-prefix" || a == "--exec-path" && i+1 < len(args) && !strings.HasPrefix(args[i+1], "-"):
			i++
		case strings.HasPrefix(a, "-"):
		default:
			switch a {
			case "status":
				return gitStatusReducer
			case "log", "whatchanged":
				return gitLogReducer
			case "show":
				return gitShowReducer
			case "diff":
				return gitDiffReducer
			case "grep":
				return grepReducer
			}
			return nil
		}
	}
	return nil
}

func pickPip(args []string) *cmdReducer {
	switch sub, _ := firstArg(args); sub {
	case "install", "download", "wheel", "uninstall":
		return pipReducer
	}
	return nil
}
