package session

import (
	"fmt"
	"regexp"
	"strings"
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
// shell separator, sudo/doas, or a subshell/brace opener.
const cmdStart = `(?:^|[;&|({\x60]|\$\(|\bsudo\s+(?:-\S+\s+)*|\bdoas\s+|\bxargs\s+(?:-\S+\s+)*|\bexec\s+)\s*`

var gateRules = []gateRule{
	{"recursive delete of /, ~, a top-level system directory or everything (rm -r)",
		regexp.MustCompile(cmdStart + `rm\s+(?:-[^\s]*\s+)*-[a-zA-Z]*[rR][a-zA-Z]*\s+(?:-[^\s]*\s+)*(?:--\s+)?(?:--no-preserve-root\s+)?(?:/|/\*|~|~/|~/\*|\$HOME/?\*?|\*|\.\*?|/(?:bin|boot|dev|etc|home|lib|lib64|opt|proc|root|sbin|srv|sys|usr|var)/?\*?)(?:\s|$|;|&|\|)`)},
	{"rm with --no-preserve-root", regexp.MustCompile(`\brm\b[^\n;&|]*--no-preserve-root`)},
	{"filesystem creation (mkfs) erases a device", regexp.MustCompile(cmdStart + `mkfs(?:\.\w+)?\b`)},
	{"dd writing to a device", regexp.MustCompile(`\bdd\b[^\n;&|]*\bof=/dev/`)},
	{"writing or redirecting onto a block device", regexp.MustCompile(`>\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/)`)},
	{"wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)", regexp.MustCompile(cmdStart + `(?:wipefs|blkdiscard|shred\s+[^\n]*?/dev/|sgdisk\s+[^\n]*?--zap)`)},
	{"partitioning a disk (fdisk, parted, sfdisk)", regexp.MustCompile(cmdStart + `(?:fdisk|sfdisk|parted)\s+[^\n]*?/dev/`)},
	{"SQL that drops or empties data", regexp.MustCompile(`(?i)\b(?:drop\s+(?:table|database|schema)|truncate\s+table)\b`)},
	{"SQL DELETE without WHERE", regexp.MustCompile(`(?i)\bdelete\s+from\s+[\w."\x60]+\s*(?:;|$)`)},
	{"piping a download into a shell", regexp.MustCompile(`\b(?:curl|wget|fetch)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`)},
	{"fork bomb", regexp.MustCompile(`:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}`)},
	{"recursive chmod/chown of /", regexp.MustCompile(cmdStart + `(?:chmod|chown)\s+(?:-[^\s]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(?:\S+\s+)?/(?:\s|$)`)},
	{"power off or reboot the machine", regexp.MustCompile(cmdStart + `(?:shutdown|poweroff|halt|reboot|init\s+[06])\b`)},
	{"git history rewrite that discards work (reset --hard, clean -fdx, push --force)", regexp.MustCompile(`\bgit\s+(?:reset\s+--hard|clean\s+-[a-zA-Z]*f[a-zA-Z]*d|push\s+[^\n]*(?:--force\b|-f\b))`)},
	{"killing every process (kill -9 -1)", regexp.MustCompile(cmdStart + `kill\s+(?:-9|-KILL|-SIGKILL)\s+-1\b`)},
}

// GateError is returned when text matches a destructive-command rule and the
// caller did not confirm.
type GateError struct {
	Rule string // what the rule guards against
	Line string // the offending line, trimmed
}

func (e *GateError) Error() string {
	return fmt.Sprintf("refused: %q looks destructive (%s); nothing was typed. If this is intended, send it again with confirm: true", e.Line, e.Rule)
}

// checkGate returns a *GateError when text contains a destructive command.
func checkGate(text string) error {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" {
			continue
		}
		for _, r := range gateRules {
			if r.re.MatchString(l) {
				if len(l) > 200 {
					l = l[:200] + "…"
				}
				return &GateError{Rule: r.name, Line: l}
			}
		}
	}
	return nil
}
