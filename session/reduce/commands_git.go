package reduce

import (
	"fmt"
	"strconv"
	"strings"
)

var (
	gitStatusReducer = &cmdReducer{name: "git status", classify: classifyGitStatus}
	gitLogReducer    = &cmdReducer{name: "git log", classify: func(l []string, r []role) func(int, int) string {
		return classifyGitLog(l, r, false)
	}}
	gitShowReducer = &cmdReducer{name: "git show", classify: func(l []string, r []role) func(int, int) string {
		return classifyGitLog(l, r, true)
	}}
	gitDiffReducer = &cmdReducer{name: "git diff", classify: classifyGitDiff}
)

// statusCap is how many entries of each section of git status are shown.
const statusCap = 10

// classifyGitStatus shows the branch lines, section headers and the first
// statusCap entries of each section (every unmerged path), and hides the
// "(use "git add <file>..." ...)" hints and the rest of each section behind
// a marker that counts them by kind: "[… 44 more: 37 modified, 7 deleted
// (session lines …)]". It reads both the long format and the short one
// (git status -s: "XY path").
func classifyGitStatus(lines []string, roles []role) func(int, int) string {
	section, n := "", 0
	shortKey := ""
	for i, l := range lines {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, `(use "git `) || strings.HasPrefix(t, "(commit or discard ") ||
			strings.HasPrefix(t, `(fix conflicts and run "git commit")`) || strings.HasPrefix(t, `(all conflicts fixed: run "git commit")`):
			roles[i] = rDrop
		case isStatusSection(l):
			section, n = t, 0
			roles[i] = rKey
		case t == "":
			section = ""
			roles[i] = rShow
		case section != "" && (l[0] == ' ' || l[0] == '\t'):
			n++
			switch {
			case section == "Unmerged paths:":
				roles[i] = rMust
			case n > statusCap:
				roles[i] = rDrop
			default:
				roles[i] = rShow
			}
		case section == "" && isShortStatus(l):
			if k := l[:2]; k != shortKey {
				shortKey, n = k, 0
			}
			n++
			switch {
			case strings.ContainsAny(l[:2], "U") || l[:2] == "AA" || l[:2] == "DD":
				roles[i] = rMust // a conflict
			case n > statusCap:
				roles[i] = rDrop
			default:
				roles[i] = rShow
			}
		default:
			roles[i] = generic(l)
		}
	}
	return func(i, j int) string {
		kinds := map[string]int{}
		var order []string
		entries := 0
		for _, l := range lines[i : j+1] {
			t := strings.TrimSpace(l)
			var kind string
			switch {
			case strings.HasPrefix(t, "("):
				continue // a hint
			case isShortStatus(l):
				kind = shortKind(l[:2])
			default:
				kind = "untracked"
				if c := strings.Index(t, ":   "); c > 0 {
					kind = t[:c]
				} else if c := strings.Index(t, ": "); c > 0 && !strings.ContainsAny(t[:c], "/.") {
					kind = t[:c]
				}
			}
			entries++
			if kinds[kind] == 0 {
				order = append(order, kind)
			}
			kinds[kind]++
		}
		if entries == 0 {
			return linesN(j - i + 1)
		}
		var b strings.Builder
		fmt.Fprintf(&b, "%s more:", commas(int64(entries)))
		for k, kind := range order {
			if k > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, " %d %s", kinds[kind], kind)
		}
		return b.String()
	}
}

func isStatusSection(l string) bool {
	switch l {
	case "Changes to be committed:", "Changes not staged for commit:", "Untracked files:", "Unmerged paths:", "Ignored files:":
		return true
	}
	return false
}

// isShortStatus reports whether l is a line of git status -s: two status
// letters, a space, a path.
func isShortStatus(l string) bool {
	if len(l) < 4 || l[2] != ' ' || l[3] == ' ' {
		return false
	}
	for _, c := range []byte(l[:2]) {
		if strings.IndexByte(" MTADRCU?!", c) < 0 {
			return false
		}
	}
	return l[:2] != "  "
}

func shortKind(xy string) string {
	switch xy {
	case "??":
		return "untracked"
	case "!!":
		return "ignored"
	}
	names := map[byte]string{'M': "modified", 'T': "typechange", 'A': "added", 'D': "deleted", 'R': "renamed", 'C': "copied"}
	if n, ok := names[xy[0]]; ok && xy[1] == ' ' {
		return n + " (staged)"
	}
	if n, ok := names[xy[1]]; ok {
		return n
	}
	return strings.TrimSpace(xy)
}

// isCommitLine reports whether l starts a commit in git log or git show:
// "commit <hex>", perhaps with decorations.
func isCommitLine(l string) bool {
	if !strings.HasPrefix(l, "commit ") {
		return false
	}
	h := l[len("commit "):]
	n := 0
	for n < len(h) && (isDigit(h[n]) || h[n] >= 'a' && h[n] <= 'f') {
		n++
	}
	return n >= 7 && (n == len(h) || h[n] == ' ')
}

// headerField reports whether l is a field of a commit's header.
func headerField(l string) bool {
	for _, p := range []string{"Author:", "AuthorDate:", "Commit:", "CommitDate:", "Date:", "Merge:", "Reflog:", "Reflog message:"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// stripGraph removes the graph that git log --graph draws before a line.
func stripGraph(l string) string {
	for len(l) >= 2 && strings.IndexByte("*|\\/", l[0]) >= 0 && l[1] == ' ' {
		l = l[2:]
	}
	return l
}

// classifyGitLog shows every commit line and subject line and hides the
// header fields (Author, Date, Merge) and the rest of each message; with
// show (git show, a single commit) it keeps the header and the message.
// Diffs (git log -p, git show) go through the diff rules, and stat lines
// are shown.
func classifyGitLog(lines []string, roles []role, show bool) func(int, int) string {
	const (
		outside = iota
		header
		message
		diff
	)
	state, subject := outside, false
	tails := map[int]bool{}
	for i := 0; i < len(lines); i++ {
		l := stripGraph(lines[i])
		if isCommitLine(l) {
			roles[i] = rKey
			state, subject = header, false
			continue
		}
		switch state {
		case header:
			if headerField(l) {
				roles[i] = rDrop
				if show {
					roles[i] = rShow
				}
				continue
			}
			if l == "" {
				roles[i] = rDrop
				state = message
				continue
			}
			state = outside
		case message:
			if strings.HasPrefix(l, "    ") || l == "" {
				switch {
				case !subject && strings.TrimSpace(l) != "":
					subject = true
					roles[i] = rKey
				case show:
					roles[i] = rShow
				default:
					roles[i] = rDrop
				}
				continue
			}
			state = outside
		}
		if next, ok := diffLines(lines, i, roles, tails); ok {
			state = diff
			i = next - 1
			continue
		}
		if state == diff && l == "" {
			roles[i] = rShow
			continue
		}
		roles[i] = generic(lines[i])
	}
	hunks := describeHunks(lines, tails)
	return func(i, j int) string {
		if tails[i] {
			return hunks(i, j)
		}
		// "[… Author, Date (session lines …)]" or "[… 6 more lines of
		// the message (…)]".
		var fields []string
		body := 0
		for _, l := range lines[i : j+1] {
			l = stripGraph(l)
			switch {
			case headerField(l):
				fields = append(fields, l[:strings.IndexByte(l, ':')])
			case strings.HasPrefix(l, "    ") || l == "":
				body++
			default:
				return linesN(j - i + 1)
			}
		}
		switch {
		case len(fields) > 0 && body <= 1:
			return strings.Join(fields, ", ") // and the blank line after them
		case len(fields) == 0 && body > 0:
			return fmt.Sprintf("%s more %s of the message", commas(int64(body)), plural(int64(body), "line"))
		}
		return linesN(j - i + 1)
	}
}

// classifyGitDiff shows file and hunk headers and hunks of up to hunkMax
// lines; of a longer hunk it shows the first hunkHead lines and hides the
// rest behind a marker counting the lines added and removed.
func classifyGitDiff(lines []string, roles []role) func(int, int) string {
	tails := map[int]bool{}
	for i := 0; i < len(lines); i++ {
		if next, ok := diffLines(lines, i, roles, tails); ok {
			i = next - 1
			continue
		}
		roles[i] = generic(lines[i])
	}
	return describeHunks(lines, tails)
}

// describeHunks describes runs that start at a hidden hunk tail (tails)
// by the lines they add and remove, and others by their length.
func describeHunks(lines []string, tails map[int]bool) func(int, int) string {
	return func(i, j int) string {
		if !tails[i] {
			return linesN(j - i + 1)
		}
		add, del := 0, 0
		for _, l := range lines[i : j+1] {
			if l != "" {
				switch l[0] {
				case '+':
					add++
				case '-':
					del++
				}
			}
		}
		n := int64(j - i + 1)
		return fmt.Sprintf("%s more %s of this hunk, +%d -%d", commas(n), plural(n, "line"), add, del)
	}
}

const (
	hunkMax  = 12 // a hunk of up to this many lines is shown whole
	hunkHead = 8  // how many lines of a longer hunk are shown
)

// diffHeader reports whether l is a line of a diff's file header.
func diffHeader(l string) bool {
	if l == "" || strings.IndexByte("di-+nosrcB", l[0]) < 0 {
		return false
	}
	for _, p := range []string{"diff --git ", "diff --cc ", "diff --combined ", "index ", "--- ", "+++ ", "new file mode ",
		"deleted file mode ", "old mode ", "new mode ", "similarity index ", "dissimilarity index ", "rename from ",
		"rename to ", "copy from ", "copy to ", "Binary files ", "diff -"} {
		if strings.HasPrefix(l, p) {
			return true
		}
	}
	return false
}

// diffLines classifies the diff output that starts at line i, if any: a
// file header line, or a whole hunk. It returns the index after what it
// classified. The start of each hidden hunk tail is put in tails.
func diffLines(lines []string, i int, roles []role, tails map[int]bool) (int, bool) {
	l := lines[i]
	if diffHeader(l) {
		roles[i] = rShow
		if strings.HasPrefix(l, "diff ") {
			roles[i] = rKey
		}
		return i + 1, true
	}
	if !strings.HasPrefix(l, "@@") {
		return i, false
	}
	roles[i] = rShow
	k := i + 1
	if oldN, newN, ok := hunkCounts(l); ok {
	body:
		for k < len(lines) && (oldN > 0 || newN > 0) {
			b := lines[k]
			switch {
			case b == "" || b[0] == ' ':
				oldN--
				newN--
			case b[0] == '-':
				oldN--
			case b[0] == '+':
				newN--
			case b[0] == '\\':
			default:
				break body
			}
			k++
		}
		for k < len(lines) && strings.HasPrefix(lines[k], `\ `) {
			k++ // "\ No newline at end of file"
		}
	} else {
		// A combined diff (@@@): body lines start with a space, + or -.
		for k < len(lines) && lines[k] != "" && strings.IndexByte(" +-\\", lines[k][0]) >= 0 && !diffHeader(lines[k]) {
			k++
		}
	}
	for m := i + 1; m < k; m++ {
		roles[m] = rShow
		if m-(i+1) >= hunkHead && k-(i+1) > hunkMax {
			roles[m] = rDrop
		}
	}
	if k-(i+1) > hunkMax {
		tails[i+1+hunkHead] = true
	}
	return k, true
}

// hunkCounts parses "@@ -a,b +c,d @@" and returns b and d (1 when left out).
func hunkCounts(l string) (oldN, newN int, ok bool) {
	if !strings.HasPrefix(l, "@@ -") {
		return 0, 0, false
	}
	f := strings.Fields(l)
	if len(f) < 4 || f[3] != "@@" || !strings.HasPrefix(f[2], "+") {
		return 0, 0, false
	}
	count := func(s string) (int, bool) {
		if c := strings.IndexByte(s, ','); c >= 0 {
			n, err := strconv.Atoi(s[c+1:])
			return n, err == nil
		}
		_, err := strconv.Atoi(s)
		return 1, err == nil
	}
	oldN, ok1 := count(f[1][1:])
	newN, ok2 := count(f[2][1:])
	return oldN, newN, ok1 && ok2
}
