package session

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/ttymux/ttymux/transport"
)

// The destructive-command gate is a tripwire, not a sandbox: it catches the
// commands that wreck a machine when typed by mistake and asks the caller to
// say confirm: true. It looks at text about to be typed into any session,
// whatever the transport, and has no bypass other than confirm.

type gateRule struct {
	name string
	re   *regexp.Regexp
}

// cmdStart matches where a command word may begin: line start, or after a
// shell separator or a subshell/brace opener, followed by any number of the
// words that run the next word as a command (sudo, env and variable
// assignments, nohup, time, nice, exec, xargs, command, then/do/else, sh -c
// '…', eval '…'), then an optional path or backslash before the command
// name (/bin/rm, \rm). A tripwire for the obvious forms, not a parser.
const cmdStart = `(?:^|[;&|({\x60!]|\$\()\s*` + cmdPrefix + `(?:\\|(?:/usr)?(?:/local)?/s?bin/)?`

// cmdPrefix is the words that may precede a command name (see cmdStart).
const cmdPrefix = `(?:(?:` +
	`sudo\s+(?:-\S+\s+(?:[\w.-]+\s+)?)*|doas\s+(?:-\S+\s+)*|xargs\s+(?:-\S+\s+)*|exec\s+(?:-\S+\s+)*|` +
	`command\s+|builtin\s+|nohup\s+|time\s+(?:-p\s+)?|nice\s+(?:-n\s*-?\d+\s+|-\d+\s+)?|ionice\s+(?:-\S+\s+)*|` +
	`env\s+(?:-\S+\s+)*|[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+|(?:then|do|else|elif)\s+|` +
	`(?:ba|z|da|k|mk)?sh\s+(?:-\S+\s+)*-c\s*['"]?|su\s+(?:\S+\s+)*?-c\s*['"]?|eval\s+['"]?` +
	`)\s*)*`

var gateRules = []gateRule{
	{"rm with --no-preserve-root", regexp.MustCompile(`\brm\b[^\n;&|]*--no-preserve-root`)},
	{"filesystem creation (mkfs) erases a device", regexp.MustCompile(cmdStart + `mkfs(?:\.\w+)?\b`)},
	{"dd writing to a device", regexp.MustCompile(`\bdd\b[^\n;&|]*\bof=/dev/`)},
	{"writing or redirecting onto a block device", regexp.MustCompile(`>\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/)`)},
	{"wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)", regexp.MustCompile(cmdStart + `(?:wipefs|blkdiscard|shred\s+[^\n]*?/dev/|sgdisk\s+[^\n]*?--zap)`)},
	{"partitioning a disk (fdisk, parted, sfdisk)", regexp.MustCompile(cmdStart + `(?:fdisk|sfdisk|parted)\s+[^\n]*?/dev/`)},
	{"SQL that drops or empties data", regexp.MustCompile(`(?i)\b(?:drop\s+(?:table|database|schema)|truncate\s+table)\b`)},
	{"SQL DELETE without WHERE", regexp.MustCompile(`(?i)\bdelete\s+from\s+[\w."\x60]+\s*(?:;|$)`)},
	{"piping a download into a shell", regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`)},
	{"find deleting from /, ~ or $HOME", regexp.MustCompile(cmdStart + `find\s+(?:/|~/?|\$HOME/?|\$\{HOME\}/?)\s[^\n;&|]*(?:-delete\b|-exec\s+(?:\S*/)?rm\b)`)},
	{"fork bomb", regexp.MustCompile(`:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}`)},
	{"recursive chmod/chown of /", regexp.MustCompile(cmdStart + `(?:chmod|chown)\s+(?:-[^\s]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(?:\S+\s+)?/(?:\s|$)`)},
	{"power off or reboot the machine", regexp.MustCompile(cmdStart + `(?:shutdown|poweroff|halt|reboot|init\s+[06])\b`)},
	{"git history rewrite that discards work (reset --hard, clean -fdx, push --force)", regexp.MustCompile(`\bgit\s+(?:reset\s+--hard|clean\s+-[a-zA-Z]*f[a-zA-Z]*d|push\s+[^\n]*(?:--force\b|-f\b))`)},
	{"killing every process (kill -9 -1)", regexp.MustCompile(cmdStart + `kill\s+(?:-9|-KILL|-SIGKILL)\s+-1\b`)},
}

// GateError is returned when text matches a destructive-command rule and the
// caller did not confirm.
type GateError struct {
	Rule   string // what the rule guards against
	Line   string // the offending line, trimmed; empty when it was secret
	Secret bool   // the text was secret: the error does not quote it
}

func (e *GateError) Error() string {
	if e.Secret {
		return fmt.Sprintf("refused: the secret text looks destructive (%s); nothing was typed. If it is a password that only looks like a command, repeat the call with confirm: true", e.Rule)
	}
	return fmt.Sprintf("refused: %q looks destructive (%s); nothing was typed or run. If this is intended, repeat the call with confirm: true", e.Line, e.Rule)
}

// checkGate returns a *GateError when text contains a destructive command.
// A backslash-newline is a line continuation, so it is removed first. Each
// line is checked twice: split at every control character (^U or ^C typed
// in raw text ends what came before it) and with control characters removed
// (^V, or an escape sequence, typed inside a word).
func checkGate(text string) error {
	text = continuation.ReplaceAllString(text, "")
	for _, line := range gateLines(text) {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		rule := ""
		if destructiveRm(l) {
			rule = "recursive delete of /, ~, a top-level system directory or everything (rm -r)"
		}
		for _, r := range gateRules {
			if rule == "" && r.re.MatchString(l) {
				rule = r.name
			}
		}
		if rule != "" {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return &GateError{Rule: rule, Line: l}
		}
	}
	return nil
}

// CheckCommand applies the destructive-command gate to a command line a
// shell will run outside any session (fanout's exec channels): a
// *GateError when it matches a rule, else nil. The caller decides what a
// confirm means.
func CheckCommand(line string) error { return checkGate(line) }

// continuation is a shell line continuation: backslash, newline.
var continuation = regexp.MustCompile(`\\\r?\n|\\\r`)

// gateLines returns the lines of text to check (see checkGate).
func gateLines(text string) []string {
	isCtl := func(r rune) bool { return r < 0x20 && r != '\t' || r == 0x7f }
	lines := strings.FieldsFunc(text, isCtl)
	for _, line := range strings.FieldsFunc(text, func(r rune) bool { return r == '\n' || r == '\r' }) {
		if strings.IndexFunc(line, isCtl) >= 0 {
			lines = append(lines, strings.Map(func(r rune) rune {
				if isCtl(r) {
					return -1
				}
				return r
			}, escSeq.ReplaceAllString(line, "")))
		}
	}
	return lines
}

// escSeq is an escape sequence as a key sends it (CSI, SS3, or ESC and one
// character): in typed text it moves the cursor or edits the line.
var escSeq = regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|O.|.)`)

// rmStart finds an rm command word (see cmdStart).
var rmStart = regexp.MustCompile(cmdStart + `rm(?:\s|$)`)

// rmTarget is an rm operand whose recursive removal wrecks a machine or a
// home: /, ~, $HOME, everything here (*, ., ..), a top-level system
// directory.
var rmTarget = regexp.MustCompile(`^(?:/+\.?|/\*|~/?\*?|~/\.|\$HOME/?\*?|\$\{HOME\}/?\*?|\*|\.\.?/?\*?|/(?:bin|boot|dev|etc|home|lib|lib32|lib64|opt|proc|root|run|sbin|srv|sys|usr|var)/?\*?)$`)

// destructiveRm reports whether line runs rm recursively on an rmTarget,
// whatever the order of options and operands (rm / -rf, rm -r -f ~,
// rm --recursive "/").
func destructiveRm(line string) bool {
	for _, loc := range rmStart.FindAllStringIndex(line, -1) {
		rest := line[loc[1]:]
		if i := strings.IndexAny(rest, ";&|)\x60"); i >= 0 {
			rest = rest[:i]
		}
		recursive, target, opts := false, false, true
		for _, w := range strings.Fields(rest) {
			w = strings.Trim(w, `'"`)
			switch {
			case opts && w == "--":
				opts = false
			case opts && w == "--recursive":
				recursive = true
			case opts && strings.HasPrefix(w, "-") && !strings.HasPrefix(w, "--") && strings.ContainsAny(w, "rR"):
				recursive = true
			case opts && strings.HasPrefix(w, "-") && w != "-":
			case rmTarget.MatchString(w):
				target = true
			}
		}
		if recursive && target {
			return true
		}
	}
	return false
}

// checkOpenGate applies the gate to what an open runs: a local program with
// its arguments (rm -rf / needs no shell, and sh -c takes a command line),
// the environment values a shell may execute (PROMPT_COMMAND, PS1 with
// $(…)), and an SSH command, which the remote shell runs.
func checkOpenGate(transport string, t transport.Target) error {
	switch transport {
	case "local":
		if err := checkGate(strings.Join(append([]string{t.Command}, t.Args...), " ")); err != nil {
			return err
		}
		for _, a := range t.Args {
			if err := checkGate(a); err != nil {
				return err
			}
		}
		for _, kv := range t.Env {
			_, v, _ := strings.Cut(kv, "=")
			if err := checkGate(v); err != nil {
				return err
			}
		}
	case "ssh":
		return checkGate(t.Command)
	}
	return nil
}
