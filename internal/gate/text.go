package gate

import (
	"strings"
)

// textRules apply to the text itself, whatever reads it: SQL typed into a
// shell (psql -c, a heredoc) or into a database prompt, and the classic
// fork bomb.
var textRules = []struct {
	name string
	keys []string // the rule runs on a line that has one of these (lower case)
	re   *lazyRegexp
}{
	{"SQL that drops or empties data", []string{"drop", "truncate", "flush"}, lazyRE(`(?i)\b(?:drop\s+(?:(?:temporary\s+)?table|database|schema|owned|keyspace|collection|tablespace)|truncate\s+(?:table\s+)?(?:only\s+)?[\w."\x60]+|flushall|flushdb|dropdatabase\s*\()`)},
	{"SQL DELETE without WHERE", []string{"delete"}, lazyRE(`(?i)\bdelete\s+(?:from\s+)?(?:only\s+)?[\w."\x60]+\s*(?:as\s+\w+\s*)?(?:;|$|['")])`)},
	{"fork bomb", []string{":"}, lazyRE(`:\s*\(\s*\)\s*\{[^}]*:\s*\|\s*:\s*&[^}]*\}`)},
}

// checkText applies textRules to each line of text, and to the text with
// SQL comments removed (DR/**/OP, DROP -- x⏎TABLE: a comment hides a
// keyword from a pattern, not from a database that joins the rest).
func checkText(text string) *Finding {
	for _, t := range []string{text, sqlPlain(text, ""), sqlPlain(text, " ")} {
		for _, line := range strings.Split(t, "\n") {
			lower := strings.ToLower(line)
			for _, r := range textRules {
				if containsAny(lower, r.keys) && r.re.MatchString(line) {
					return finding(r.name, line)
				}
			}
			if strings.Contains(lower, "delete") && tautologyDelete(line) {
				return finding("SQL DELETE whose WHERE is always true", line)
			}
		}
	}
	return nil
}

var sqlComment = lazyRE(`/\*!\d*|/\*[\s\S]*?\*/|\*/|--[^\n]*\n?`)

// sqlPlain is text with SQL comments replaced by with ("" for DR/**/OP,
// " " for DROP/**/TABLE); MySQL's /*!…*/ keeps its content, as MySQL runs
// it. "" when text has no comment.
func sqlPlain(text, with string) string {
	if !strings.Contains(text, "/*") && !strings.Contains(text, "--") {
		return ""
	}
	if len(text) > 1<<20 {
		return ""
	}
	return sqlComment.ReplaceAllString(text, with)
}

var deleteWhere = lazyRE(`(?i)\bdelete\s+(?:from\s+)?[\w."\x60]+\s*(?:as\s+\w+\s*)?where\s+([^;'"]*(?:'[^']*'[^;'"]*)*)`)

var sqlOr = lazyRE(`(?i)\s+or\s+`)

// tautologyDelete: DELETE … WHERE 1=1 (or true, or x = x, or any OR of
// such): a WHERE that keeps nothing back.
func tautologyDelete(line string) bool {
	m := deleteWhere.FindStringSubmatch(line)
	if m == nil {
		return false
	}
	for _, d := range sqlOr.Split(m[1], -1) {
		d = strings.TrimSpace(strings.Trim(strings.TrimSpace(d), "()"))
		l, r, eq := strings.Cut(d, "=")
		switch {
		case strings.EqualFold(d, "true") || d == "1" || strings.EqualFold(d, "not false"):
			return true
		case eq && !strings.ContainsAny(l, "<>!") && strings.EqualFold(strings.TrimSpace(l), strings.TrimSpace(r)):
			return true
		}
	}
	return false
}

// Text that is not shell (a line for a REPL, a paste of code) is checked
// line by line with the patterns below: they find a command word after a
// line start or a separator, behind the common prefixes.

// cmdStart matches where a command word may begin (see checkLines).
const cmdStart = `(?:^|[;&|({\x60!"']|\$\()\s*` + cmdPrefix + `(?:\\|(?:/usr)?(?:/local)?/s?bin/)?`

// cmdPrefix is the words that may precede a command name.
const cmdPrefix = `(?:(?:` +
	`sudo\s+(?:-\S+\s+(?:[\w.-]+\s+)?)*|doas\s+(?:-\S+\s+)*|xargs\s+(?:-\S+\s+)*|exec\s+(?:-\S+\s+)*|` +
	`command\s+|builtin\s+|nohup\s+|time\s+(?:-p\s+)?|nice\s+(?:-n\s*-?\d+\s+|-\d+\s+)?|ionice\s+(?:-\S+\s+)*|` +
	`env\s+(?:-\S+\s+)*|[A-Za-z_]\w*=(?:'[^']*'|"[^"]*"|\S*)\s+|(?:then|do|else|elif)\s+|` +
	`(?:ba|z|da|k|mk)?sh\s+(?:-\S+\s+)*-c\s*['"]?|su\s+(?:\S+\s+)*?-c\s*['"]?|eval\s+['"]?` +
	`)\s*)*`

var lineRules = []struct {
	name string
	re   *lazyRegexp
}{
	{"rm with --no-preserve-root", lazyRE(`\brm\b[^\n;&|]*--no-preserve-root`)},
	{"filesystem creation (mkfs) erases a device", lazyRE(cmdStart + `mkfs(?:\.\w+)?\b`)},
	{"dd writing to a device", lazyRE(`\bdd\b[^\n;&|]*\bof=/dev/`)},
	{"writing or redirecting onto a block device", lazyRE(`>\s*/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/)`)},
	{"wiping a device (wipefs, shred, blkdiscard, sgdisk --zap)", lazyRE(cmdStart + `(?:wipefs|blkdiscard|shred\s+[^\n]*?/dev/|sgdisk\s+[^\n]*?--zap)`)},
	{"partitioning a disk (fdisk, parted, sfdisk)", lazyRE(cmdStart + `(?:fdisk|sfdisk|parted)\s+[^\n]*?/dev/`)},
	{"piping a download into a shell", lazyRE(`\b(?:curl|wget|fetch)\b[^\n|]*\|\s*(?:sudo\s+)?(?:ba|z|da|k)?sh\b`)},
	{"find deleting from /, ~ or $HOME", lazyRE(cmdStart + `find\s+(?:/|~/?|\$HOME/?|\$\{HOME\}/?)\s[^\n;&|]*(?:-delete\b|-exec\s+(?:\S*/)?rm\b)`)},
	{"recursive chmod/chown of /", lazyRE(cmdStart + `(?:chmod|chown)\s+(?:-[^\s]*\s+)*-[a-zA-Z]*R[a-zA-Z]*\s+(?:\S+\s+)?/(?:\s|$)`)},
	{"power off or reboot the machine", lazyRE(cmdStart + `(?:shutdown|poweroff|halt|reboot|init\s+[06])\b`)},
	{"git history rewrite that discards work (reset --hard, clean -fdx, push --force)", lazyRE(`\bgit\s+(?:reset\s+--hard|clean\s+-[a-zA-Z]*f[a-zA-Z]*d|push\s+[^\n]*(?:--force\b|-f\b))`)},
	{"killing every process (kill -9 -1)", lazyRE(cmdStart + `kill\s+(?:-9|-KILL|-SIGKILL)\s+-1\b`)},
}

// rmStart finds an rm command word (see cmdStart).
var rmStart = lazyRE(cmdStart + `rm(?:\s|$)`)

// checkLines applies the line patterns to text that the shell parser
// cannot read.
func checkLines(text string) *Finding {
	for _, line := range strings.Split(text, "\n") {
		l := strings.TrimSpace(line)
		if l == "" || !hasLineKeyword(l) {
			continue
		}
		locs := rmStart.FindAllStringIndex(l, -1)
		segEnd := -1 // where the segment of the last full read ends
		for k, loc := range locs {
			rest := l[loc[1]:]
			if i := strings.IndexAny(rest, ";&|)\x60"); i >= 0 {
				rest = rest[:i]
			}
			// The first rm of a segment reads to its end; a later one in
			// the same segment only to the next rm, whose words the first
			// has read already: linear, not quadratic, in rm ... rm ...
			if loc[0] < segEnd && k+1 < len(locs) && locs[k+1][0] < loc[1]+len(rest) {
				rest = l[loc[1]:locs[k+1][0]]
			} else if loc[0] >= segEnd {
				segEnd = loc[1] + len(rest)
			}
			ws := strings.Fields(rest)
			for i := range ws {
				ws[i] = strings.Trim(ws[i], `'"`)
			}
			if r := rmRule(ws); r != "" {
				return finding(r, l)
			}
		}
		for _, r := range lineRules {
			if r.re.MatchString(l) {
				return finding(r.name, l)
			}
		}
	}
	return nil
}

// lineKeywords are words one of which each line rule needs: a line with
// none is skipped without running the patterns, which keeps a large
// non-shell paste (base64, code) cheap.
var lineKeywords = []string{"rm", "mkfs", "dd", ">", "wipefs", "blkdiscard", "shred", "sgdisk", "fdisk", "parted",
	"curl", "wget", "fetch", "find", "chmod", "chown", "shutdown", "poweroff", "halt", "reboot", "init", "git", "kill"}

func hasLineKeyword(l string) bool {
	for _, k := range lineKeywords {
		if strings.Contains(l, k) {
			return true
		}
	}
	return false
}

func containsAny(s string, keys []string) bool {
	for _, k := range keys {
		if strings.Contains(s, k) {
			return true
		}
	}
	return false
}
