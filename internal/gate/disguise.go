package gate

import (
	"os"
	"path"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The rules here close the disguises of issue #31 in the families the gate
// claims: a download run without a pipe, shell hooks set to run later,
// commands behind wrapper options, writes to kernel control files and
// devices, mass kills, and ttymux's own files and processes.

// RuleSelf is the rule for lines that would switch ttymux's safeguards
// off: writing its policy, audit log or state, or signalling its
// processes. It holds on every host, read-only or not.
const RuleSelf = "changing ttymux's own policy, audit log or state, or signalling ttymux's processes"

// hookVars are variables whose value a shell runs later: at each prompt
// (PROMPT_COMMAND, and the prompts, whose $(…) run), before each command
// (PS0), or at the start of every non-interactive shell (BASH_ENV, ENV).
var hookVars = set("PROMPT_COMMAND", "PS0", "PS1", "PS2", "PS3", "PS4", "BASH_ENV", "ENV", "precmd_functions",
	"preexec_functions", "chpwd_functions", "PROMPT", "RPROMPT", "RPS1", "PROMPT_COMMANDS")

// hookCheck reads what an assignment to a hook variable will run: the
// value of PROMPT_COMMAND as a command line, a prompt's $(…) and
// backquotes as the shell expands them. BASH_ENV and ENV name a file every
// later shell runs, which the gate cannot read: set to anything but empty,
// they are held.
func hookCheck(f *syntax.File, src string, depth int) *Finding {
	var found *Finding
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		a, ok := n.(*syntax.Assign)
		if !ok || a.Name == nil || !hookVars[a.Name.Value] {
			return true
		}
		var vals []string
		// Each value twice: expansions as the words they may give, and as
		// command separators (${X:+x;}rm … is rm … once X is set).
		if a.Value != nil {
			vals = append(vals, hookValue(a.Value.Parts, false), hookValue(a.Value.Parts, true))
		}
		if a.Array != nil {
			for _, e := range a.Array.Elems {
				if e.Value != nil {
					vals = append(vals, hookValue(e.Value.Parts, false), hookValue(e.Value.Parts, true))
				}
			}
		}
		name := a.Name.Value
		for _, v := range vals {
			var line string
			switch {
			case name == "BASH_ENV" || name == "ENV":
				if v != "" {
					found = finding("setting "+name+" (a file every later shell runs, unseen by the gate)", src)
					return false
				}
				continue
			case strings.HasPrefix(name, "PROMPT_COMMAND") || strings.HasSuffix(name, "_functions"):
				line = v
			default:
				line = `: "` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(v) + `"`
			}
			if depth >= maxDepth {
				found = finding(RuleUnparsable, src)
				return false
			}
			g, err := parse(line)
			if err != nil {
				found = finding("a shell hook ("+name+") that cannot be read", src)
				return false
			}
			if fd := walkCheck(g, src, depth+1); fd != nil {
				found = fd
				return false
			}
		}
		return true
	})
	return found
}

// hookValue is the text a hook variable is set to, with each expansion
// (${PROMPT_COMMAND:+;$PROMPT_COMMAND}, $(…)) as a plain word: what an
// expansion holds was set earlier, or runs now and is checked as such.
func hookValue(ps []syntax.WordPart, sep bool) string {
	var b strings.Builder
	for _, p := range ps {
		switch p := p.(type) {
		case *syntax.Lit:
			b.WriteString(unescape(p.Value, false))
		case *syntax.SglQuoted:
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			for _, q := range p.Parts {
				if l, ok := q.(*syntax.Lit); ok {
					b.WriteString(unescape(l.Value, true))
				} else {
					b.WriteString(hookParam(q, sep))
				}
			}
		default:
			b.WriteString(hookParam(p, sep))
		}
	}
	return b.String()
}

// hookParam is $NAME for a plain parameter ($HOME stays $HOME, for rm -rf
// $HOME), else a neutral word.
func hookParam(p syntax.WordPart, sep bool) string {
	if sep {
		return "\n"
	}
	pe, ok := p.(*syntax.ParamExp)
	switch {
	case !ok || pe.Param == nil:
	case pe.Exp != nil && pe.Exp.Word != nil:
		return hookValue(pe.Exp.Word.Parts, false) // ${X:+word}, ${X:-word}
	case pe.Exp == nil && pe.Repl == nil && pe.Slice == nil && pe.Index == nil && !pe.Excl && !pe.Length:
		return "$" + pe.Param.Value
	}
	return "x"
}

// downloadRun finds a download run by a shell without a pipe: bash
// <(curl …), sh -c "$(curl …)", . <(curl …), sh < <(curl …), bash <<<
// "$(curl …)", and curl -o f … && sh f (a file a download wrote, run later
// on the line).
func downloadRun(f *syntax.File, src string) *Finding {
	var found *Finding
	written := map[string]bool{}
	syntax.Walk(f, func(n syntax.Node) bool {
		if found != nil {
			return false
		}
		st, ok := n.(*syntax.Stmt)
		if !ok {
			return true
		}
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(c.Args) == 0 {
			return true
		}
		argv := unwrap(words(c.Args, nil))
		if len(argv) == 0 {
			return true
		}
		if isDownload(argv) {
			for _, w := range downloadOutputs(argv) {
				written[w] = true
			}
			for _, r := range st.Redirs {
				if isOut(r.Op) && r.Word != nil {
					written[path.Base(wordString(r.Word, nil))] = true
				}
			}
			return true
		}
		if isKill(argv) {
			for _, w := range c.Args {
				if substFinds(w, findsTtymux) {
					found = finding(RuleSelf, src)
					return false
				}
			}
		}
		if !runsCode(argv) {
			return true
		}
		for _, w := range c.Args {
			if substDownloads(w) {
				found = finding("running a download with a shell", src)
				return false
			}
		}
		for _, r := range st.Redirs {
			if r.Word != nil && substDownloads(r.Word) || r.Hdoc != nil && substDownloads(r.Hdoc) {
				found = finding("running a download with a shell", src)
				return false
			}
		}
		for _, a := range argv[1:] {
			if written[path.Base(a)] && !strings.HasPrefix(a, "-") {
				found = finding("running a downloaded file", src)
				return false
			}
		}
		return true
	})
	if found == nil {
		// A downloaded file run as a command (curl -o x …; chmod +x x; ./x).
		syntax.Walk(f, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 && found == nil {
				if argv := unwrap(words(c.Args, nil)); len(argv) > 0 && strings.Contains(argv[0], "/") && written[path.Base(argv[0])] {
					found = finding("running a downloaded file", src)
				}
			}
			return found == nil
		})
	}
	return found
}

// runsCode: a shell or interpreter, ., source or eval.
func runsCode(argv []string) bool {
	n := base(argv[0])
	return isShell(argv) || n == "." || n == "source" || n == "eval"
}

// downloadOutputs are the names of the files curl or wget writes.
func downloadOutputs(argv []string) []string {
	var out []string
	args := argv[1:]
	for i, a := range args {
		next := ""
		if i+1 < len(args) {
			next = args[i+1]
		}
		switch {
		case a == "-o" || a == "--output" || a == "-O" && base(argv[0]) == "wget" || a == "--output-document":
			out = append(out, path.Base(next))
		case strings.HasPrefix(a, "--output=") || strings.HasPrefix(a, "--output-document="):
			_, v, _ := strings.Cut(a, "=")
			out = append(out, path.Base(v))
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsAny(a[1:], "oO"):
			// A group: -sSLo FILE, -oFILE, wget's -qO FILE.
			j := strings.IndexAny(a[1:], "oO") + 1
			if j == len(a)-1 {
				out = append(out, path.Base(next))
			} else {
				out = append(out, path.Base(a[j+1:]))
			}
		case strings.Contains(a, "://"):
			out = append(out, path.Base(a)) // -O, --remote-name, wget's default
		}
	}
	return out
}

// substDownloads reports whether w has a command or process substitution
// that downloads.
func substDownloads(w *syntax.Word) bool { return substFinds(w, isDownload) }

// substFinds reports whether w has a command or process substitution
// with a command for which is is true.
func substFinds(w *syntax.Word, is func([]string) bool) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n := n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = found || slices.ContainsFunc(commandsOf(n, nil), is)
		}
		return !found
	})
	return found
}

// controlFile is a kernel control file: writing it reboots, crashes or
// suspends the machine, or writes memory.
var controlFile = lazyRE(`^/proc/sysrq-trigger$|^/proc/sys/kernel/(?:sysrq|panic|core_pattern)|^/sys/power/|^/dev/(?:mem|kmem|port)$|^/sys/firmware/efi/efivars`)

// redirectRule is why writing to target is destructive, or "".
func redirectRule(op syntax.RedirOperator, target string) string {
	if !isOut(op) && op != syntax.DplOut {
		return ""
	}
	switch {
	case blockDevice.MatchString(target):
		return "writing or redirecting onto a block device"
	case controlFile.MatchString(target):
		return "writing a kernel control file (/proc/sysrq-trigger, /sys/power, /dev/mem)"
	case ownPath(target):
		return RuleSelf
	}
	return ""
}

// OwnPath reports whether the path p names ttymux's policy, audit log,
// token or state (see ownPath): for callers that write a file without a
// command line (a download's local_path).
func OwnPath(p string) bool { return ownPath(p) }

// ownPath reports whether p names ttymux's policy, audit log, token or
// state, or a directory holding them (~/.config, $XDG_STATE_HOME …).
func ownPath(p string) bool {
	l := strings.ToLower(p)
	for _, s := range []string{"ttymux/policy.toml", "ttymux/audit.jsonl", "ttymux/http-token", "/tmp/ttymux-state-", "ttymux/shellinit", "ttymux/agent-v"} {
		if strings.Contains(l, s) {
			return true
		}
	}
	if ownDir.MatchString(p) {
		return true
	}
	// Each part of the path, as a pattern the shell expands: ttym*,
	// audit*, p?licy.toml reach the same files.
	under := false // the part before is a directory ttymux keeps its own in
	for _, seg := range strings.Split(p, "/") {
		if under && globMatch(seg, "ttymux") {
			return true
		}
		under = seg == ".config" || seg == "state" || seg == ".cache" || strings.Contains(seg, "XDG_")
	}
	base := path.Base(p)
	return globMatch(base, "policy.toml") || globMatch(base, "audit.jsonl") || strings.HasPrefix(base, "audit.jsonl")
}

// globMatch reports whether the shell pattern pat matches name (a plain
// word matches itself). A [ that opens no bracket expression matches
// itself, as in the shell (print('[') names no file of ttymux's); any
// other pattern Go cannot read may match.
func globMatch(pat, name string) bool {
	ok, err := path.Match(pat, name)
	if err != nil && !strings.ContainsAny(pat, "*?") {
		ok, err = path.Match(strings.ReplaceAll(pat, "[", `\[`), name)
	}
	return ok || err != nil && strings.ContainsAny(pat, "*?[")
}

// ownDir is a directory ttymux keeps files in, or one above it, or a
// pattern that reaches into one.
var ownDir = lazyRE(`^(?:~|\$HOME|\$\{HOME\}|/root|/home/[^/]+)/\.(?:config|local|local/state|cache)(?:/ttymux[^/]*|/[*?[][^/]*)?/?$|^\$\{?XDG_(?:CONFIG|STATE|CACHE|DATA)_HOME\}?(?:/ttymux[^/]*|/[*?[][^/]*)?/?$|^\$\{?XDG_RUNTIME_DIR\}?(?:/ttymux[^/]*|/[*?[][^/]*)?/?$|/\.(?:config|local/state|cache)/ttymux(?:/|$)|^/run/user/\d+/ttymux(?:/|$)`)

// readers are commands that only read their operands: naming ttymux's
// files with them is not a change.
var readers = set("cat", "less", "more", "head", "tail", "grep", "ls", "stat", "wc", "jq", "file", "md5sum",
	"sha256sum", "diff", "cmp", "tac", "od", "xxd", "du", "find", "tree", "test", "[", "echo", "printf", "realpath",
	"readlink")

// selfRule: a command that names ttymux's files and is not a reader, or
// signals ttymux's processes.
func selfRule(argv []string) string {
	name := base(argv[0])
	if isKill(argv) && killsTtymux(argv) {
		return RuleSelf
	}
	if startsConsole(argv) {
		return RuleConsole
	}
	if (name == "systemctl" || name == "service") && slices.ContainsFunc(argv[1:], func(a string) bool {
		return strings.Contains(strings.ToLower(a), "ttymux")
	}) && !slices.ContainsFunc(argv[1:], func(a string) bool { return a == "status" || a == "show" || a == "cat" }) {
		return RuleSelf
	}
	if readers[name] {
		if name == "find" && slices.ContainsFunc(argv, func(a string) bool {
			return a == "-delete" || strings.HasPrefix(a, "-exec") || strings.HasPrefix(a, "-ok") || strings.HasPrefix(a, "-fprint") || a == "-fls"
		}) {
			// find … -delete is a writer
		} else {
			return ""
		}
	}
	for _, a := range argv[1:] {
		if v, ok := strings.CutPrefix(a, "of="); ok {
			a = v
		}
		if ownPath(a) {
			return RuleSelf
		}
	}
	return ""
}

// isKill: a command that signals processes.
func isKill(argv []string) bool {
	switch base(argv[0]) {
	case "kill", "pkill", "killall", "skill", "killall5", "snice":
		return true
	}
	return false
}

// ttymuxNames are what a pattern of pkill, killall or pgrep is matched
// against: ttymux's process names and command lines.
var ttymuxNames = []string{"ttymux", "ttymux-agent", "/usr/local/bin/ttymux mcp", "ttymux-agent serve --socket x"}

// killsTtymux reports whether a kill, pkill or killall may reach ttymux's
// processes: a pattern that matches its names, a pattern that cannot be
// read, $PPID (a local session's shell is ttymux's child), or this
// process's id.
func killsTtymux(argv []string) bool {
	name := base(argv[0])
	if name == "killall5" {
		return true
	}
	self := strconv.Itoa(os.Getpid())
	for i, a := range argv[1:] {
		if strings.Contains(a, "PPID") || a == self || a == "-"+self {
			return true
		}
		if name == "kill" || strings.HasPrefix(a, "-") && a != "-" {
			continue
		}
		if i > 0 && slices.Contains([]string{"-u", "-U", "-g", "-G", "-P", "-s", "-t", "-n", "--signal", "--uid", "--euid", "--group", "--parent", "--session", "--terminal", "--ns", "--nslist", "-F", "--pidfile", "-o", "--older-than", "-y", "--younger-than", "-c", "--context"}, argv[i]) {
			continue // the option's value
		}
		if matchesTtymux(a) {
			return true
		}
	}
	return false
}

// matchesTtymux reports whether the pgrep-style pattern p may match one
// of ttymux's processes (a pattern Go cannot read may: it is held).
func matchesTtymux(p string) bool {
	if strings.Contains(p, "$(") || strings.Contains(p, "${") || strings.HasPrefix(p, "$") {
		return true
	}
	re, err := regexp.Compile("(?i)" + p)
	if err != nil {
		return true
	}
	return slices.ContainsFunc(ttymuxNames, re.MatchString)
}

// findsTtymux: pgrep or pidof looking for ttymux (its output piped to
// kill or xargs kill).
func findsTtymux(argv []string) bool {
	switch base(argv[0]) {
	case "pgrep", "pidof":
		for _, a := range argv[1:] {
			if !strings.HasPrefix(a, "-") && matchesTtymux(a) {
				return true
			}
		}
	}
	return false
}

// massKill: pkill or killall of every process of a user, or of every
// process (a pattern that matches anything), whatever the signal.
func massKill(argv []string) string {
	name := base(argv[0])
	if name != "pkill" && name != "killall" && name != "skill" {
		return ""
	}
	for i, a := range argv[1:] {
		if a == "-u" || a == "-U" || a == "--user" || a == "--uid" || a == "--euid" || strings.HasPrefix(a, "--user=") ||
			strings.HasPrefix(a, "-u") && len(a) > 2 || a == "-e" && name == "killall" {
			_ = i
			return "killing every process of a user (pkill -u, killall -u)"
		}
		if !strings.HasPrefix(a, "-") {
			if re, err := regexp.Compile(a); err != nil || re.MatchString("") || re.MatchString("init") && re.MatchString("sshd") {
				return "killing every process (a pattern that matches all)"
			}
		}
	}
	return ""
}
