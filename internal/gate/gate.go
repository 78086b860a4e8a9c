package gate

import (
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/ttymux/ttymux/internal/termseq"
)

// A Finding says why a command line is held.
type Finding struct {
	Rule string // what the rule guards against, for humans
	Line string // the line it was found in, trimmed and cut to 200 bytes
}

// RuleUnparsable is the rule of a line the shell parser found unfinished.
const RuleUnparsable = "the line could not be read as complete shell (an unfinished quote, bracket or here-document), so what it runs cannot be checked"

// RuleTooLarge is the rule of a line with more words and operators than
// the gate reads (maxWeight).
const RuleTooLarge = "the text has too many words and operators to check as shell (over 131072); send it in smaller parts, or write large content to a file with upload"

// maxWeight bounds what the shell parser is given: its syntax tree costs
// about 130 bytes a word and 400 an operator (a|a|… of 1 MiB made a 200 MB
// tree), so a line of more is held unread, which keeps the gate's memory
// bounded and its time linear (issue #31). weight counts a word 1 and an
// operator byte 4: 32768 pipeline stages, or a here-document of 131072
// words.
const maxWeight = 1 << 17

// tooLarge reports whether src weighs more than maxWeight: one pass, no
// allocation.
func tooLarge(src string) bool {
	if len(src) < maxWeight/4 {
		return false
	}
	w, inWord := 0, false
	for i := 0; i < len(src); i++ {
		switch c := src[i]; c {
		case ' ', '\t', '\n', '\r':
			inWord = false
		case '|', '&', ';', '(', ')', '<', '>', '`', '$', '{', '}':
			w += 4
			inWord = false
		default:
			if !inWord {
				w++
			}
			inWord = true
		}
		if w > maxWeight {
			return true
		}
	}
	return false
}

// maxRepair bounds the text whose unfinished quote is closed to check
// what it runs: parsing costs grow with nesting, and a longer unfinished
// text is held anyway.
const maxRepair = 4 << 10

// maxDepth bounds how deep strings run by sh -c, eval, su -c, ssh … are
// parsed in turn.
const maxDepth = 8

// Check returns a Finding when text holds a destructive command, or when it
// is unfinished shell; nil otherwise. text is what is typed: several lines,
// a carriage return as Enter, and with raw typing control characters: each
// stretch between control characters is checked (^U or ^C ends what came
// before it), and so is the text with control characters and escape
// sequences removed (^V, or a cursor key, typed inside a word).
func Check(text string) *Finding {
	return check(text, false)
}

// CheckSecret is Check for text typed as a secret (a password at a prompt):
// an unfinished quote is no reason to hold it, but a destructive command in
// it still is.
func CheckSecret(text string) *Finding {
	return check(text, true)
}

func check(text string, secret bool) *Finding {
	for _, v := range variants(text) {
		if strings.TrimSpace(v) == "" {
			continue
		}
		if f := checkText(v); f != nil {
			return f
		}
		if f := checkScript(v, secret); f != nil {
			return f
		}
	}
	return nil
}

// variants returns the texts to check (see Check).
func variants(text string) []string {
	text = strings.ReplaceAll(text, "\r\n", "\n")
	text = strings.ReplaceAll(text, "\r", "\n")
	isCtl := func(r rune) bool { return (r < 0x20 && r != '\t' && r != '\n') || r == 0x7f }
	if strings.IndexFunc(text, isCtl) < 0 {
		return []string{text}
	}
	// Each control character ends a line (^U or ^C ends what came before
	// it): one script with a newline for each, so a text of many control
	// characters is parsed once, not once per stretch.
	split := strings.Map(func(r rune) rune {
		if isCtl(r) {
			return '\n'
		}
		return r
	}, text)
	stripped := strings.Map(func(r rune) rune {
		if isCtl(r) {
			return -1
		}
		return r
	}, stripKeys(text))
	return []string{split, stripped}
}

// stripKeys returns text without the escape sequences keys send (CSI, SS3,
// or ESC and one character: in typed text they move the cursor or edit the
// line), as internal/termseq reads keyboard input.
func stripKeys(text string) string {
	if !strings.Contains(text, "\x1b") {
		return text
	}
	var b strings.Builder
	b.Grow(len(text))
	sc := termseq.Scanner{Keys: true}
	for p := []byte(text); len(p) > 0; {
		n, ev := sc.Next(p)
		if ev == termseq.Text {
			b.Write(p[:n])
		}
		p = p[n:]
	}
	return b.String()
}

func finding(rule, line string) *Finding {
	line = strings.TrimSpace(line)
	if len(line) > 200 {
		line = line[:200] + "…"
	}
	return &Finding{Rule: rule, Line: line}
}

// maxNesting bounds the brackets a line may open: the parser's cost grows
// faster than linearly with nesting, and no command line needs this many.
const maxNesting = 256

// tooNested reports whether src opens more than maxNesting brackets.
func tooNested(src string) bool {
	return strings.Count(src, "(")+strings.Count(src, "{")+strings.Count(src, "`") > maxNesting*4 ||
		strings.Count(src, "(") > maxNesting && nestDepth(src) > maxNesting
}

// nestDepth is the deepest nesting of ( in src, ignoring quotes: a cheap
// bound, not a parse.
func nestDepth(src string) int {
	d, m := 0, 0
	for i := 0; i < len(src); i++ {
		switch src[i] {
		case '(':
			d++
			m = max(m, d)
		case ')':
			d = max(d-1, 0)
		}
	}
	return m
}

// parse reads src as a bash script. Its answers for short lines are kept
// (parsed): every send asks the policy (Commands) and the gate (Check)
// about the same line, and models send the same lines again and again
// (issue #17). A File is only read after parsing, so one may be shared.
func parse(src string) (*syntax.File, error) {
	if len(src) > maxParsedLen {
		return parseNew(src)
	}
	parsed.mu.Lock()
	e, ok := parsed.m[src]
	parsed.mu.Unlock()
	if ok {
		return e.f, e.err
	}
	f, err := parseNew(src)
	parsed.mu.Lock()
	if parsed.m == nil || len(parsed.m) >= maxParsed {
		parsed.m = make(map[string]parseResult, maxParsed) // forget all: simple, and rare
	}
	parsed.m[src] = parseResult{f, err}
	parsed.mu.Unlock()
	return f, err
}

func parseNew(src string) (*syntax.File, error) {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false)).Parse(strings.NewReader(src), "")
}

// parsed holds the latest parse results, at most maxParsed of them for
// lines of at most maxParsedLen bytes.
var parsed struct {
	mu sync.Mutex
	m  map[string]parseResult
}

type parseResult struct {
	f   *syntax.File
	err error
}

const (
	maxParsed    = 256
	maxParsedLen = 1 << 10
)

// checkScript parses src and applies the command rules. Text that is not
// shell at all falls back to the text patterns (checkLines); unfinished
// shell is held unless secret, and is checked with its quotes closed.
func checkScript(src string, secret bool) *Finding {
	if tooLarge(src) {
		return finding(RuleTooLarge, src)
	}
	if tooNested(src) {
		if secret {
			return checkLines(src)
		}
		return finding(RuleUnparsable, src)
	}
	f, err := parse(src)
	if err == nil {
		return walkCheck(f, src, 0)
	}
	if syntax.IsIncomplete(err) && len(src) <= maxRepair {
		// Unfinished shell: an open quote, backquote, $( or ( or {, or a
		// here-document, is held (the shell would read on into whatever
		// comes next). A line that only a shell keyword or a pipe leaves
		// open, or a REPL's exit(), which bash reads as the start of a
		// function, is not held for that alone.
		for _, closer := range []string{"'", `"`, "`", ")", "}", "\n}", "'\")", "\")", "')", "`)", "\nEOF\n", "\nEOF"} {
			if f2, err := parse(src + closer); err == nil {
				if fd := walkCheck(f2, src, 0); fd != nil {
					return fd
				}
				if !secret && !strings.HasSuffix(strings.TrimSpace(src), "()") {
					return finding(RuleUnparsable, src)
				}
				break
			}
		}
	}
	if syntax.IsIncomplete(err) && len(src) > maxRepair && !secret {
		return finding(RuleUnparsable, src)
	}
	return checkLines(src)
}

// walkCheck applies the command rules to every command in f.
func walkCheck(f *syntax.File, src string, depth int) *Finding {
	var found *Finding
	if fd := hookCheck(f, src, depth); fd != nil {
		return fd
	}
	if fd := downloadRun(f, src); fd != nil {
		return fd
	}
	visit(f, depth, visitor{
		alts: true,
		cmd: func(argv []string, depth int) bool {
			if rule := commandRule(argv); rule != "" {
				found = finding(rule, src)
				return false
			}
			for _, sub := range nested(argv) {
				if depth >= maxDepth {
					break
				}
				if f2, err := parse(sub); err == nil {
					if fd := walkCheck(f2, src, depth+1); fd != nil {
						found = fd
						return false
					}
				} else if syntax.IsIncomplete(err) {
					found = finding(RuleUnparsable, src)
					return false
				}
			}
			return true
		},
		redirect: func(op syntax.RedirOperator, target string) bool {
			if rule := redirectRule(op, target); rule != "" {
				found = finding(rule, src)
				return false
			}
			return true
		},
		pipeline: func(stages [][][]string) bool {
			download, pid := false, false
			for _, st := range stages {
				if download && slices.ContainsFunc(st, isShell) {
					found = finding("piping a download into a shell", src)
					return false
				}
				if pid && slices.ContainsFunc(st, isKill) {
					found = finding(RuleSelf, src)
					return false
				}
				download = download || slices.ContainsFunc(st, isDownload)
				pid = pid || slices.ContainsFunc(st, findsTtymux)
			}
			return true
		},
		funcDecl: func(name string, body [][]string, piped bool) bool {
			if piped {
				for _, c := range body {
					if len(c) > 0 && c[0] == name {
						found = finding("fork bomb", src)
						return false
					}
				}
			}
			return true
		},
	})
	return found
}

// blockDevice is a path to a disk or partition.
var blockDevice = lazyRE(`^/dev/(?:sd|hd|vd|xvd|nvme|mmcblk|disk|md|dm-|mapper/|loop|rdisk)`)

func isOut(op syntax.RedirOperator) bool {
	switch op {
	case syntax.RdrOut, syntax.AppOut, syntax.RdrInOut, syntax.RdrClob, syntax.AppClob,
		syntax.RdrAll, syntax.RdrAllClob, syntax.AppAll, syntax.AppAllClob:
		return true
	}
	return false
}

// base is the command name of a command word: /bin/rm and \rm are rm.
func base(w string) string {
	return path.Base(strings.TrimLeft(w, `\`))
}

func isDownload(argv []string) bool {
	switch base(argv[0]) {
	case "curl", "wget", "fetch", "aria2c", "http", "xh", "nc", "ncat":
		return true
	}
	return false
}

var shells = map[string]bool{"sh": true, "bash": true, "zsh": true, "dash": true, "ksh": true, "mksh": true, "ash": true, "fish": true, "csh": true, "tcsh": true, "busybox": true, "python": true, "python3": true, "perl": true, "ruby": true, "node": true}

func isShell(argv []string) bool { return shells[base(argv[0])] }
