package reduce

import (
	"fmt"
	"strings"
)

var (
	grepReducer = &cmdReducer{name: "grep", classify: classifyGrep}
	logReducer  = &cmdReducer{name: "log", classify: classifyLog}
	lsReducer   = &cmdReducer{name: "ls -R", classify: classifyLsR}
)

// classifyLsR, for ls -R, hides nothing itself: it marks each directory's
// heading ("./src/net:") as an outline line, so that a fold of a long
// listing keeps the directories it elides, while there is room.
func classifyLsR(lines []string, roles []role) func(int, int) string {
	for i, l := range lines {
		roles[i] = generic(l)
		if roles[i] == rShow && strings.HasSuffix(l, ":") && (i == 0 || lines[i-1] == "") {
			roles[i] = rKey
		}
	}
	return nil
}

const (
	// grepBudget is about how many match lines grep output shows: each
	// file shows grepBudget/files of its matches, at least grepMin and at
	// most grepMax.
	grepBudget = 150
	grepMin    = 2
	grepMax    = 5
)

// grepFile returns the file a line of grep -rn, rg or ag output belongs to
// ("path:12:text", "path-12-text" for context, "path:text" without -n),
// or "" if it is not such a line.
func grepFile(l string) string {
	for k := 0; k < len(l); k++ {
		c := l[k]
		if c != ':' && c != '-' {
			continue
		}
		if k == 0 {
			return ""
		}
		// path:NN: or path-NN- (a line number between separators).
		j := k + 1
		for j < len(l) && isDigit(l[j]) {
			j++
		}
		if j > k+1 && j < len(l) && l[j] == c {
			return l[:k]
		}
		if c == ':' {
			// path:text, when path looks like one.
			if p := l[:k]; strings.ContainsAny(p, "/.") && !strings.ContainsAny(p, " \t") {
				return p
			}
			return ""
		}
	}
	return ""
}

// classifyGrep shows, for each file, its first few matches (grepBudget
// spread over the files, grepMin to grepMax each) and hides the rest behind
// one marker per file that counts them: "[… 37 more matches in
// net/http/server.go (session lines …)]". Lines that are not matches
// ("grep: x: Permission denied", rg's file headings) get the generic
// rules; a match is data, so a match that mentions an error is not kept
// for that.
func classifyGrep(lines []string, roles []role) func(int, int) string {
	files := make([]string, len(lines))
	heading := "" // rg --heading: the file named on a line of its own
	nfiles := 0
	prev := ""
	for i, l := range lines {
		f := grepFile(l)
		if f == "" && heading != "" && l != "" && isDigit(l[0]) {
			f = heading // "12:text" under a heading
		}
		if f == "" && l != "" && l != "--" && i+1 < len(lines) && len(lines[i+1]) > 0 && isDigit(lines[i+1][0]) &&
			grepFile(l) == "" && strings.IndexAny(lines[i+1], ":-") > 0 && allDigits(lines[i+1][:strings.IndexAny(lines[i+1], ":-")]) {
			heading = l // a heading line: shown, not counted
			files[i] = ""
			continue
		}
		if l == "" {
			heading = ""
		}
		files[i] = f
		if f != "" && f != prev {
			nfiles++
		}
		if f != "" {
			prev = f
		}
	}
	limit := grepMax
	if nfiles > 0 {
		limit = min(grepMax, max(grepMin, grepBudget/nfiles))
	}
	cur, n := "", 0
	for i, l := range lines {
		f := files[i]
		switch {
		case f != "":
			if f != cur {
				cur, n = f, 0
			}
			n++
			switch {
			case n == 1:
				roles[i] = rKey // a fold keeps each file's first match while there is room
			case n > limit:
				roles[i] = rDrop
			default:
				roles[i] = rShow
			}
		case l == "--" && cur != "" && n > limit:
			roles[i] = rDrop // a context separator inside hidden matches
		default:
			roles[i] = generic(l)
		}
	}
	return func(i, j int) string {
		f := files[i]
		count := 0
		for k := i; k <= j; k++ {
			if f == "" || files[k] != f && lines[k] != "--" {
				return linesN(j - i + 1)
			}
			if grepMatch(lines[k], f) {
				count++
			}
		}
		if count == j-i+1 {
			return fmt.Sprintf("%s more %s in %s", commas(int64(count)), matches(count), f)
		}
		return fmt.Sprintf("%s more in %s, %s %s", linesN(j-i+1), f, commas(int64(count)), matches(count))
	}
}

func matches(n int) string {
	if n == 1 {
		return "match"
	}
	return "matches"
}

// grepMatch reports whether l, a line of file f's output, is a match
// rather than context: "f:12:text", "f:text" or, under a heading, "12:text".
func grepMatch(l, f string) bool {
	if strings.HasPrefix(l, f) && len(l) > len(f) && (l[len(f)] == ':' || l[len(f)] == '-') {
		return l[len(f)] == ':'
	}
	k := 0
	for k < len(l) && isDigit(l[k]) {
		k++
	}
	return k > 0 && k < len(l) && l[k] == ':'
}

// logMust are phrases that mark a line of a system log as an error even
// without one of the generic keywords.
var logMust = []string{
	"out of memory", "oom-kill", "oom_reaper", "killed process", "segfault", "call trace", "i/o error",
	"level=error", "level=fatal", "level=crit", "/failure", "hung task", "soft lockup", "hard lockup",
	"blocked for more than", "general protection", "bug: ", "oops: ", "hardware error", "link is down",
	// errno messages (strerror) that hold no generic keyword
	"address already in use", "no space left on device", "read-only file system", "too many open files",
	"connection reset", "broken pipe", "operation not permitted", "input/output error", "disk quota exceeded",
}

// classifyLog, for journalctl and dmesg, hides nothing itself: it makes
// the fold keep, besides the generic error lines, kernel and service
// trouble that says so in other words (an OOM kill, a segfault, a call
// trace, an I/O error, "status=1/FAILURE").
func classifyLog(lines []string, roles []role) func(int, int) string {
	for i, l := range lines {
		roles[i] = generic(l)
		if roles[i] != rMust && logTrouble(l) {
			roles[i] = rMust
		}
	}
	return nil
}

// logPairs has the first two bytes of each of logMust, so that logTrouble
// looks for the phrases in one pass over a line. Filled in place: a
// function returning the 64 KiB table cleared and copied it at every
// process start (0.1-0.3 ms of a client's wait for tools/list, issue #37).
var logPairs [1 << 16]bool

func init() {
	for _, p := range logMust {
		logPairs[uint16(p[0])<<8|uint16(p[1])] = true
	}
}

// logTrouble reports whether s holds one of logMust, in any case.
func logTrouble(s string) bool {
	lower := func(c byte) byte {
		if c >= 'A' && c <= 'Z' {
			return c + 'a' - 'A'
		}
		return c
	}
	for i := 0; i+1 < len(s); i++ {
		a, b := lower(s[i]), lower(s[i+1])
		if !logPairs[uint16(a)<<8|uint16(b)] {
			continue
		}
		if i > 0 && isLetter[s[i-1]] {
			continue // inside a word: "debug: " is not "bug: "
		}
		for _, p := range logMust {
			if p[0] == a && p[1] == b && len(s)-i >= len(p) && strings.EqualFold(s[i:i+len(p)], p) {
				return true
			}
		}
	}
	return false
}
