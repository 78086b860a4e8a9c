package reduce

import (
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// Defaults for the zero fields of Options.
const (
	DefaultMaxLines   = 200
	DefaultHead       = 60
	DefaultTail       = 100
	DefaultMaxLineLen = 2000
	DefaultDigitRun   = 6
)

// Options says how Reduce shortens output. The zero value uses the defaults.
type Options struct {
	// MaxLines is the most lines output may have without being folded.
	// Zero means DefaultMaxLines; negative means never fold.
	MaxLines int
	// Head and Tail are how many lines a fold keeps at the start and the
	// end. Zero means DefaultHead and DefaultTail; negative means none.
	Head, Tail int
	// MaxLineLen is the longest line, in characters (runes), that is not
	// cut. Zero means DefaultMaxLineLen; negative means never cut.
	MaxLineLen int
	// DigitRun is the shortest run of consecutive lines that differ only
	// in their numbers that is collapsed to its first and last line. Zero
	// means DefaultDigitRun; negative disables the rule; less than 3 means 3.
	DigitRun int

	// FirstLine is the session line number of lines[0]. Lines are
	// numbered from 1, so 0 means 1.
	FirstLine int64
	// LineNumbers, if not nil, gives each line's offset from FirstLine in
	// session lines, as returned by RenderNumbered: line i is session line
	// FirstLine+LineNumbers[i]. Without it line i is FirstLine+i, which is
	// wrong after a program redrew lines with cursor-up. It must be at
	// least as long as lines (else it is ignored) and never decrease.
	// Markers still count lines as given, so a marker's count can be less
	// than the session lines it names: a read of those lines renders them
	// again, to about that count.
	LineNumbers []int64
	// ReadHint returns the exact tool call that shows session lines from
	// to to, for example
	//	read {"session_id":"s1","mode":"range","from_line":61,"to_line":998900}
	// Nil means markers say only which lines to read.
	ReadHint func(from, to int64) string
	// KeepPattern matches lines that a fold never elides and the digit
	// rule never collapses. Nil means the built-in test for errors and
	// warnings: a word starting with error, fail, fatal, panic, exception,
	// traceback, denied, refused, warn, abort or cannot, or the phrases
	// "not found", "unable to", "no such file", "segmentation fault",
	// "core dumped", "timed out", "undefined reference", "undefined
	// symbol" and npm's "ERR!", in any case, at the start of a word or of
	// a CamelCase hump (ValueError, NullPointerException); and locations
	// that compilers and test runners print before a message that may
	// hold none of those words: "x.go:3:5: ", "    x_test.go:40: ",
	// "Makefile:3: " and Python's `  File "x.py", line 3`. A keyword inside
	// a word holding '/' (a path, a URL) or starting a CamelCase
	// identifier that goes on (ErrorHandler.java) is a name, not a message.
	KeepPattern *regexp.Regexp

	// Gaps, sorted by Index, name input lines that are markers the caller
	// wrote for runs of lines it left out (a long output rendered with
	// bounded memory: see Collector). Line Gaps[k].Index stands for
	// Gaps[k].Lines lines: a fold that elides it counts them, it is never
	// kept from a fold's middle, never collapsed with its neighbours, and
	// if shown it is shown as written. Its LineNumbers entry is the first
	// left-out line's.
	Gaps []Gap

	// Command is the command line the output belongs to, as typed:
	// "git log", "go test ./...", "sudo apt-get install -y foo",
	// "make -j4 2>&1 | tee build.log". If it names a command that has a
	// reducer of its own (see commands.go), that reducer hides the lines
	// that command is known to print as noise before the generic rules run,
	// each run of them behind one marker. Empty or unknown commands get the
	// generic rules alone.
	Command string
}

// A Gap is an input line that stands for Lines lines left out of the
// input (see Options.Gaps).
type Gap struct {
	Index int
	Lines int64
}

// Result is reduced output and an account of what was hidden.
type Result struct {
	Lines []string
	// Text is Lines joined with '\n'.
	Text string
	// Elided is how many lines folds hid behind their markers, and with a
	// command reducer the lines it hid behind its own (Dropped).
	Elided int64
	// Collapsed is how many lines the repeat and digit rules hid.
	Collapsed int64
	// Cut is how many lines were shortened.
	Cut int
	// RawLines is len(lines) as given to Reduce, plus the lines that
	// Options.Gaps stand for.
	RawLines int
	// Notes say in words what reduction did, for example
	// "folded 1,000,000 lines to 161".
	Notes []string
	// Reducer names the per-command reducer that Options.Command chose
	// ("git log", "go test", "apt"), or is "" when only the generic rules
	// ran.
	Reducer string
	// Dropped is how many of the Elided lines the per-command reducer hid
	// (rather than a fold).
	Dropped int64
}

type kind uint8

const (
	kLine   kind = iota
	kRepeat      // "previous line repeated" marker
	kDigits      // digit-run marker
	kMarker      // fold marker
	kLines       // lines from to to, each shown as is: to-from+1 entries
	kDrop        // lines from to to hidden by a command reducer; msgs[msg] describes them
)

// An entry is one line of reduced output, or with kind kLines a run of
// them. Before folding, entries cover the input lines in order without
// gaps: a kLine shows line from, kLines each of the lines from to to, a
// collapse marker covers lines from to to. After folding they still do,
// in order: a fold marker (kMarker) covers the lines it elides, and a
// cluster marker also the kept lines that follow it (marked follows),
// which cover nothing more. Markers' text is msgs[msg]. Lines that no rule applies to are
// most of the output (all of seq 1 1000000) and become one kLines entry
// per run, so that collapsing and folding a million lines takes no
// memory per line. (int32 limits input to 2³¹ lines, which would take 32
// GiB of string headers.)
type entry struct {
	from, to int32
	msg      int32
	kind     kind
	nokeep   bool // known not to match the keep pattern
	// follows is set on the kept lines (and their repeat markers) that
	// a cluster marker lists after it: they lie inside its range.
	follows bool
}

type reducer struct {
	Options
	lines []string
	msgs  []string
	keep  func(string) bool
	// roles, when a command reducer runs, says what it made of each
	// line; a line is kept by the fold if its role is rMust, and keep is
	// then unused.
	roles []role
	// custom is set when the keep test is not the built-in one, so that
	// collapse cannot use lineInfo's answer for it.
	custom bool
	// outline is how many outline lines (rKey) the fold kept.
	outline int
	// perLine, for tests, makes collapse give one entry per line, as
	// fold had them before kLines: the result must not change.
	perLine bool
	// clusters is how many markers cluster made.
	clusters int
	// gapAfter[k] is the number of lines that Gaps[0..k-1] stand for
	// beyond their one input line each (for weight).
	gapAfter []int64
}

// gapIndex returns k with Gaps[k].Index == i, or -1.
func (r *reducer) gapIndex(i int) int {
	if len(r.Gaps) == 0 {
		return -1
	}
	k, ok := slices.BinarySearchFunc(r.Gaps, i, func(g Gap, i int) int { return g.Index - i })
	if !ok {
		return -1
	}
	return k
}

// isGap reports whether input line i is a caller's marker (Options.Gaps).
func (r *reducer) isGap(i int) bool { return r.gapIndex(i) >= 0 }

// weight returns how many lines input lines i to j stand for.
func (r *reducer) weight(i, j int) int64 {
	n := int64(j-i) + 1
	if len(r.Gaps) == 0 {
		return n
	}
	lo, _ := slices.BinarySearchFunc(r.Gaps, i, func(g Gap, i int) int { return g.Index - i })
	hi, _ := slices.BinarySearchFunc(r.Gaps, j+1, func(g Gap, i int) int { return g.Index - i })
	return n + r.gapAfter[hi] - r.gapAfter[lo]
}

func (r *reducer) text(e entry) string {
	if e.kind == kLine {
		return r.lines[e.from]
	}
	return r.msgs[e.msg]
}

func (r *reducer) marker(k kind, from, to int, text string) entry {
	r.msgs = append(r.msgs, text)
	return entry{kind: k, from: int32(from), to: int32(to), msg: int32(len(r.msgs) - 1)}
}

func line(i int, nokeep bool) entry { return entry{from: int32(i), to: int32(i), nokeep: nokeep} }

// size returns how many entries of output e stands for.
func (e entry) size() int {
	if e.kind == kLines {
		return int(e.to-e.from) + 1
	}
	return 1
}

// An index locates the entries that a list of entries with kLines runs
// stands for: entry v of output is in es[c] with starts[c] <= v <
// starts[c+1].
type index struct {
	es     []entry
	starts []int
}

func newIndex(es []entry) index {
	starts := make([]int, len(es)+1)
	for c, e := range es {
		starts[c+1] = starts[c] + e.size()
	}
	return index{es, starts}
}

// len returns how many entries of output there are.
func (x index) len() int { return x.starts[len(x.es)] }

// find returns the c for which es[c] holds entry v.
func (x index) find(v int) int {
	c, found := slices.BinarySearch(x.starts, v) // starts increase strictly
	if !found {
		c--
	}
	return c
}

// at returns entry v.
func (x index) at(v int) entry {
	c := x.find(v)
	e := x.es[c]
	if e.kind == kLines {
		return line(int(e.from)+v-x.starts[c], e.nokeep)
	}
	return e
}

// expand appends entries a to b to out, as lines rather than runs.
func (x index) expand(out []entry, a, b int) []entry {
	if a >= b {
		return out
	}
	for c := x.find(a); c < len(x.es) && x.starts[c] < b; c++ {
		e := x.es[c]
		if e.kind != kLines {
			out = append(out, e)
			continue
		}
		lo, hi := max(a, x.starts[c]), min(b, x.starts[c+1])
		for v := lo; v < hi; v++ {
			out = append(out, line(int(e.from)+v-x.starts[c], e.nokeep))
		}
	}
	return out
}

// Reduce shortens rendered output lines for a model to read, in three
// steps (four with a command reducer), and never hides a line without a
// marker in its place that says how many lines it hides and either what
// they are (a repeated line) or which session lines they are and the call
// that reads them.
//
//  0. Command. If Options.Command names a command with a reducer of its
//     own (git status, log, diff and show; grep -r and rg; go test;
//     pytest; npm, pip and apt installs; make and compilers; journalctl
//     and dmesg; ls -R), that reducer hides what the command prints as
//     noise (=== RUN lines, Get: lines, compile commands), each run of it
//     behind one marker that says what it hides where it can ("[… 280
//     lines, 280 passed (session lines 1–280)]"). It never hides a line
//     that reports an error or a failure; those lines and the reducer's
//     outline lines (commits, diff files) are what the fold keeps from the
//     middle, errors first. Only the first marker of a result carries the
//     read call; later ones name their session lines, like the fold's.
//     Result.Reducer names the reducer and Result.Dropped counts what it
//     hid (Elided counts it too).
//  1. Collapse. A line repeated 3 or more times in a row is kept once,
//     followed by "[… previous line repeated 57 more times]". A run of at
//     least DigitRun lines that differ only in their numbers (a sequence
//     of digits, with '.', ',' or ':' between digits, counts as one
//     number) and that hold a letter becomes its first line, a marker with
//     the session lines and the read call for the rest, and its last line:
//     "Downloading 1%" … "Downloading 100%", a ping, a log with
//     timestamps. Lines without letters (seq 1 1000, a column of numbers)
//     are data, not progress, and are left to the fold. Lines matching the
//     keep pattern break a digit run. Neither marker is made when it would
//     take more bytes than the lines it hides (three blank lines, a few
//     short lines).
//  2. Fold. If more than MaxLines lines remain, the first Head and last
//     Tail are kept and the middle is replaced by a marker with its line
//     count, session lines and read call. Every line in the middle that
//     matches the keep pattern is kept (a command reducer's outline lines,
//     up to 50). Kept lines far apart stay in place with a marker for each
//     gap between them: the first gap's marker carries the read call and
//     later ones only the session lines ("[… 1,299 lines elided (session
//     lines 1201–2499) …]"). Kept lines at most 20 lines apart form a
//     cluster: one marker names the session lines from the gap before it
//     to its last kept line and the read call for them, and the cluster's
//     kept lines follow it ("[… 600 lines elided (session lines 61–760);
//     the 100 lines that look like errors or warnings among them follow:
//     read … to see all]"). A gap shorter than its marker is shown as it
//     is. Then markers that alternate with kept lines (at least 4 of them,
//     at most 2 other lines in a row between them: a build log with an
//     error every few lines, whose compile lines differ only in their
//     numbers or are a reducer's build steps) are merged into one marker
//     that names the session lines from the first of them to the last
//     kept line and the read call, followed by the kept lines and the
//     lines of context right around them (1 before, 2 after, unless they
//     are the ends of a collapsed run): "[… 593 lines elided (session
//     lines 6–697); the 99 lines that look like errors or warnings among
//     them follow: read … to see all]", or "…; the 7 lines that look like
//     errors or failures among them follow, with 1 line of context: …"
//     when context was kept. A fold's
//     or digit rule's marker for more than 50 lines is not merged: it says
//     where the next kept line is.
//  3. Cut. A line longer than MaxLineLen characters keeps its first three
//     quarters and last quarter of MaxLineLen around a marker counting the
//     characters cut.
//
// Lines should come from a Renderer or StripANSI; invalid UTF-8 in them
// becomes U+FFFD. Reduce is safe for concurrent use if ReadHint is.
func Reduce(lines []string, opt Options) Result {
	return reduceLines(lines, opt, false)
}

func reduceLines(lines []string, opt Options, perLine bool) Result {
	r := reducer{Options: opt, lines: lines, perLine: perLine}
	r.defaults()
	res := Result{RawLines: len(lines)}
	if len(r.Gaps) > 0 {
		r.gapAfter = make([]int64, len(r.Gaps)+1)
		for k, g := range r.Gaps {
			r.gapAfter[k+1] = r.gapAfter[k] + max(g.Lines-1, 0)
		}
		res.RawLines += int(r.gapAfter[len(r.Gaps)])
	}
	var es []entry
	if cr := commandReducer(opt.Command); cr != nil && len(lines) > 0 {
		res.Reducer = cr.name
		es = r.commandEntries(cr)
	} else {
		es = r.collapse(nil, 0, len(lines))
	}
	var kept, extra int
	var cl []entry
	var hidden int64
	if r.MaxLines >= 0 && entriesLen(es) <= maxClusterFirst {
		x := newIndex(es)
		cl, hidden = r.cluster(x.expand(nil, 0, x.len()))
	}
	if hidden > 0 && entriesLen(cl) <= r.MaxLines {
		// Clustered, the output needs no fold.
		es = cl
	} else {
		r.clusters = 0
		es, kept, extra = r.fold(es, &res)
		es, hidden = r.cluster(es)
	}
	res.Elided += hidden
	if r.roles != nil {
		res.Dropped += hidden
	}
	out := make([]string, len(es))
	var cut []int64
	hinted := false // whether a marker before this one gave the read call
	var dropMarkers int
	for i, e := range es {
		s := r.text(e)
		switch e.kind {
		case kDigits, kMarker:
			hinted = true // the digit markers and the first fold marker carry it
		case kDrop:
			s = r.dropText(e, !hinted)
			hinted = hinted || r.ReadHint != nil
			n := int64(e.to-e.from) + 1
			res.Dropped += n
			res.Elided += n
			dropMarkers++
		}
		if e.kind == kLine && r.isGap(int(e.from)) {
			res.Elided += r.Gaps[r.gapIndex(int(e.from))].Lines
			hinted = true // the caller's markers carry the read call
		} else if e.kind == kLine {
			if !utf8.ValidString(s) {
				s = strings.ToValidUTF8(s, "\uFFFD")
			}
			if c, ok := cutLine(s, r.MaxLineLen); ok {
				s = c
				cut = append(cut, r.lineNo(int(e.from)))
			}
		}
		out[i] = s
	}
	res.Lines, res.Text, res.Cut = out, strings.Join(out, "\n"), len(cut)

	var rep, dig int64
	for _, e := range es {
		switch e.kind {
		case kRepeat:
			rep += int64(e.to - e.from + 1)
		case kDigits:
			dig += int64(e.to - e.from + 1)
		}
	}
	res.Collapsed = rep + dig
	if res.Dropped > 0 {
		dropMarkers += r.clusters
		res.Notes = append(res.Notes, fmt.Sprintf("the %s reducer hid %s behind %d %s",
			res.Reducer, linesN(int(res.Dropped)), dropMarkers, plural(int64(dropMarkers), "marker")))
	}
	if rep > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("collapsed %s repeated %s", commas(rep), plural(rep, "line")))
	}
	if dig > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("collapsed %s %s that differ only in digits", commas(dig), plural(dig, "line")))
	}
	if res.Elided > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("folded %s lines to %s", commas(int64(res.RawLines)), commas(int64(len(out)))))
	}
	if kept > 0 {
		var parts []string
		if errs := kept - r.outline; errs > 0 {
			parts = append(parts, fmt.Sprintf("%d %s", errs, r.what(errs)))
		}
		if r.outline > 0 {
			parts = append(parts, fmt.Sprintf("%d outline %s (commits, files, sections)", r.outline, plural(int64(r.outline), "line")))
		}
		s := fmt.Sprintf("kept %s from the elided middle", strings.Join(parts, " and "))
		if extra > 0 {
			s += fmt.Sprintf("; %s more elided", commas(int64(extra)))
		}
		res.Notes = append(res.Notes, s)
	}
	if len(cut) > 0 {
		res.Notes = append(res.Notes, fmt.Sprintf("cut %d %s longer than %s characters (session %s %s)",
			len(cut), plural(int64(len(cut)), "line"), commas(int64(r.MaxLineLen)), plural(int64(len(cut)), "line"), listNums(cut)))
	}
	return res
}

func (r *reducer) defaults() {
	def := func(v *int, d int) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = -1
		}
	}
	def(&r.MaxLines, DefaultMaxLines)
	def(&r.MaxLineLen, DefaultMaxLineLen)
	def(&r.DigitRun, DefaultDigitRun)
	def(&r.Head, DefaultHead)
	def(&r.Tail, DefaultTail)
	r.Head, r.Tail = max(r.Head, 0), max(r.Tail, 0)
	if r.DigitRun > 0 && r.DigitRun < 3 {
		r.DigitRun = 3
	}
	if r.FirstLine == 0 {
		r.FirstLine = 1
	}
	if len(r.LineNumbers) < len(r.lines) {
		r.LineNumbers = nil
	}
	for k, g := range r.Gaps {
		if g.Index < 0 || g.Index >= len(r.lines) || k > 0 && g.Index <= r.Gaps[k-1].Index {
			r.Gaps = nil // not as documented: treat the lines as lines
			break
		}
	}
	r.keep = looksLikeError
	if re := r.KeepPattern; re != nil {
		r.keep = re.MatchString
		r.custom = true
	}
}

// keepAt reports whether input line i is one the fold keeps and the digit
// rule does not collapse.
func (r *reducer) keepAt(i int) bool {
	if r.isGap(i) {
		return false
	}
	if r.roles != nil {
		return r.roles[i] == rMust || r.roles[i] == rKey
	}
	return r.keep(r.lines[i])
}

// lineNo returns the session line number where input line i starts.
func (r *reducer) lineNo(i int) int64 {
	if r.LineNumbers != nil {
		return r.FirstLine + r.LineNumbers[i]
	}
	return r.FirstLine + int64(i)
}

// span returns the session lines that input lines i through j came from.
func (r *reducer) span(i, j int) (from, to int64) {
	from, to = r.lineNo(i), r.lineNo(j)
	if j+1 < len(r.lines) {
		to = max(to, r.lineNo(j+1)-1)
	}
	return from, to
}

// collapse appends to es the entries for input lines lo to hi-1.
func (r *reducer) collapse(es []entry, lo, hi int) []entry {
	lines := r.lines[:hi]
	plainUntil := lo // lines before it are in a run a marker would not pay for
	for i := lo; i < len(lines); {
		if !r.custom && !r.perLine {
			// Most lines are plain: take them in a tight loop.
			start := i
			i = r.plain(i, hi)
			if i > start {
				if n := len(es) - 1; n >= 0 && es[n].kind == kLines && es[n].to == int32(start-1) {
					es[n].to = int32(i - 1)
				} else {
					es = append(es, entry{kind: kLines, from: int32(start), to: int32(i - 1), nokeep: true})
				}
				if i == len(lines) {
					break
				}
			}
		}
		if r.isGap(i) {
			es = append(es, line(i, true))
			i++
			continue
		}
		s := lines[i]
		j := i + 1
		for j < len(lines) && lines[j] == s && !r.isGap(j) {
			j++
		}
		// With the built-in keep test, one pass over the line finds both
		// whether it may start a digit run and whether it is kept, which
		// saves fold from testing it again. (A kept line cannot start a
		// digit run: the run ends before it.)
		progress, keep := lineInfo(s)
		if r.custom {
			keep = false // the keep test is another: r.keepAt
		}
		k := i
		if i < plainUntil {
			j = i + 1 // in a run too short for its marker: no rule
		} else if r.DigitRun > 0 && progress && !keep && i+r.DigitRun <= len(lines) && sameShape(lines[i+r.DigitRun-1], s) {
			for k < len(lines) && sameShape(lines[k], s) && !r.keepAt(k) && !r.isGap(k) {
				k++
			}
		}
		nokeep := !r.custom && !keep
		ident, run := j-i, k-i
		var text string
		digits := false
		if run >= r.DigitRun && r.DigitRun > 0 && !(ident >= 3 && 2*ident >= run) {
			from, to := r.span(i+1, k-2)
			text = fmt.Sprintf("[… %s more lines that differ only in digits (session lines %d–%d)%s]",
				commas(int64(run-2)), from, to, r.readCall(from, to, ": %s to see them", "; read that range to see them"))
			digits = true
			if size := r.size(i+1, k-1); size <= len(text)+1 {
				// The marker would cost more than the lines it hides.
				text, digits, plainUntil = "", false, k
			}
		}
		if text == "" && ident >= 3 {
			text = fmt.Sprintf("[… previous line repeated %s more times]", commas(int64(ident-1)))
			if (ident-1)*(len(s)+1) <= len(text)+1 {
				text, plainUntil = "", max(plainUntil, j)
			}
		}
		switch {
		case digits:
			es = append(es, line(i, true), r.marker(kDigits, i+1, k-2, text), line(k-1, true))
			i = k
		case text != "":
			es = append(es, line(i, nokeep), r.marker(kRepeat, i+1, j-1, text))
			i = j
		case keep:
			es = append(es, line(i, false))
			i++
		case r.perLine:
			es = append(es, line(i, nokeep))
			i++
		default:
			// A line not known to be kept joins the run before it.
			if n := len(es) - 1; n >= 0 && es[n].kind == kLines && es[n].to == int32(i-1) {
				es[n].to++
			} else {
				es = append(es, entry{kind: kLines, from: int32(i), to: int32(i), nokeep: nokeep})
			}
			i++
		}
	}
	return es
}

// size returns how many bytes input lines i to j-1 take, with their newlines.
func (r *reducer) size(i, j int) int {
	n := 0
	for _, l := range r.lines[i:j] {
		n += len(l) + 1
	}
	return n
}

// plain returns the end of the run of lines from i on that the default
// case of collapse would take with the built-in keep test: lines that are
// not repeated three times, are not kept and cannot start a digit run.
func (r *reducer) plain(i, hi int) int {
	lines := r.lines[:hi]
	for ; i < len(lines); i++ {
		if r.isGap(i) {
			break
		}
		s := lines[i]
		if i+2 < len(lines) && lines[i+1] == s && lines[i+2] == s {
			break
		}
		progress, keep := lineInfo(s)
		if keep || progress && r.DigitRun > 0 && i+r.DigitRun <= len(lines) && sameShape(lines[i+r.DigitRun-1], s) {
			break
		}
	}
	return i
}

// readCall formats the read hint for session lines from to to with
// withHint, or returns without when there is no ReadHint.
func (r *reducer) readCall(from, to int64, withHint, without string) string {
	if r.ReadHint == nil {
		return without
	}
	return fmt.Sprintf(withHint, r.ReadHint(from, to))
}

func (r *reducer) what(n int) string {
	if r.KeepPattern != nil {
		return plural(int64(n), "line") + " matching the keep pattern"
	}
	if r.roles != nil {
		if n == 1 {
			return "line that looks like an error or a failure"
		}
		return "lines that look like errors or failures"
	}
	if n == 1 {
		return "line that looks like an error or a warning"
	}
	return "lines that look like errors or warnings"
}

// fold elides the middle of es if it is too long. It returns the entries
// to show, how many lines matching the keep pattern (or outline lines) it
// kept from the middle, and how many more it elided for want of room
// (always 0: every line the keep pattern matches is kept).
//
// Kept lines far apart each get the marker for the gap before them in
// place. Kept lines close together (a build log with an error every few
// lines) form a cluster: one marker names the session lines from the
// start of the gap before the cluster to its last kept line, and the
// cluster's kept lines follow it, so that a hundred errors cost one marker
// rather than a hundred.
func (r *reducer) fold(es []entry, res *Result) (out []entry, kept, extra int) {
	x := newIndex(es)
	n := x.len()
	if r.MaxLines < 0 || n <= r.MaxLines || n <= r.Head+r.Tail {
		return x.expand(make([]entry, 0, n), 0, n), 0, 0
	}
	lo, hi := r.Head, n-r.Tail // the middle is entries lo to hi
	out = make([]entry, 0, r.Head+r.Tail+64)
	out = x.expand(out, 0, lo)
	first := true
	// marker elides entries a to b; follow, if not zero, says that follow
	// kept lines among them (keptRows rows with their repeats) are shown
	// right after the marker.
	marker := func(a, b, follow, keptRows int) {
		if a == b {
			return
		}
		ea, eb := x.at(a), x.at(b-1)
		rows := int(r.weight(int(ea.from), int(eb.to)))
		from, to := r.span(int(ea.from), int(eb.to))
		if follow == 0 && b-a <= 8 && r.shorterThanMarker(x, a, b, from, to) {
			// A gap between kept lines that is shorter than its marker
			// (a blank line, a reducer's own marker) is shown as it is.
			out = x.expand(out, a, b)
			return
		}
		var text string
		if follow > 0 {
			to = r.lineNo(int(eb.to)) // the last kept line
			rows -= keptRows
			text = fmt.Sprintf("[… %s elided (session lines %d–%d); the %d %s among them follow%s]",
				linesN(rows), from, to, follow, r.what(follow),
				r.readCall(from, to, ": %s to see all", "; read that range to see all"))
		} else if first {
			text = fmt.Sprintf("[… %s elided (session lines %d–%d)%s]", linesN(rows), from, to,
				r.readCall(from, to, ": %s to see them", "; read that range to see them"))
		} else {
			text = fmt.Sprintf("[… %s elided (session lines %d–%d) …]", linesN(rows), from, to)
		}
		res.Elided += int64(rows)
		first = false
		out = append(out, r.marker(kMarker, int(ea.from), int(eb.to), text))
	}
	// With a command reducer, outline lines (rKey: commits, files) are
	// kept too, up to maxOutline of them.
	keys := maxOutline
	want := func(i int) bool {
		if r.isGap(i) {
			return false
		}
		if r.roles == nil {
			return r.keep(r.lines[i])
		}
		switch r.roles[i] {
		case rMust:
			return true
		case rKey:
			if keys > 0 {
				keys--
				r.outline++
				return true
			}
		}
		return false
	}
	// The kept entries of the middle, in order: entry v, and with it the
	// count of its repeats when it has one.
	type keptLine struct {
		v  int
		es []entry
	}
	var ks []keptLine
	for c := x.find(lo); c < len(es) && x.starts[c] < hi; c++ {
		e := es[c]
		if e.nokeep {
			continue
		}
		switch e.kind {
		case kLine:
			v := x.starts[c]
			if want(int(e.from)) {
				k := keptLine{v: v, es: []entry{e}}
				if c+1 < len(es) && v+1 < hi && es[c+1].kind == kRepeat {
					// Keep the count of the line's repeats with it.
					c++
					k.es = append(k.es, es[c])
				}
				ks = append(ks, k)
			}
		case kLines:
			for v := max(lo, x.starts[c]); v < min(hi, x.starts[c+1]); v++ {
				if i := int(e.from) + v - x.starts[c]; want(i) {
					ks = append(ks, keptLine{v: v, es: []entry{line(i, false)}})
				}
			}
		}
	}
	kept = len(ks)
	gap := lo // start of the current gap
	for i := 0; i < len(ks); {
		// The cluster ks[i:j]: kept lines at most clusterGap entries apart.
		j, inner := i+1, 0
		for j < len(ks) && ks[j].v-(ks[j-1].v+len(ks[j-1].es)) <= clusterGap {
			if ks[j].v > ks[j-1].v+len(ks[j-1].es) {
				inner++
			}
			j++
		}
		if inner <= 2 {
			// Few gaps inside: each gets its marker in place.
			for ; i < j; i++ {
				marker(gap, ks[i].v, 0, 0)
				out = append(out, ks[i].es...)
				gap = ks[i].v + len(ks[i].es)
			}
			continue
		}
		end := ks[j-1].v + len(ks[j-1].es)
		follow, rows := 0, 0
		for _, k := range ks[i:j] {
			for _, e := range k.es {
				if e.kind == kLine {
					follow++
				}
				rows += int(r.weight(int(e.from), int(e.to)))
			}
		}
		marker(gap, end, follow, rows)
		for ; i < j; i++ {
			for _, e := range ks[i].es {
				e.follows = true
				out = append(out, e)
			}
		}
		gap = end
	}
	marker(gap, hi, 0, 0)
	out = x.expand(out, hi, n)
	return out, kept, 0
}

// maxClusterShown is the most lines in a row, neither kept nor hidden,
// that a cluster of markers (see cluster) may hold between them.
const maxClusterShown = 2

// maxClusterHide is the most lines a fold's or the digit rule's marker
// may stand for to join a cluster, unless it is a cluster itself: a marker
// for a long stretch between two kept lines says where the second one is,
// which is worth its line. (A command reducer's markers hide what the
// command is known to print as noise, whatever its length.)
const maxClusterHide = 50

// minCluster is the fewest markers between kept lines that cluster
// merges into one.
const minCluster = 4

// A cluster keeps, besides its kept lines, up to contextAfter shown lines
// right after each and contextBefore right before, when they are
// lines of their own rather than the ends of a collapsed run.
const (
	contextAfter  = 2
	contextBefore = 1
)

// cluster merges markers that alternate with kept lines into one marker.
// A build with an error every few lines gets a marker for each run of
// noise between them: a command reducer's (build steps), the digit rule's
// (compile lines that differ only in their numbers), a repeat's or the
// fold's. From the first of at least minCluster such markers to the last
// kept line after them, with at most maxClusterShown lines in a row
// shown between them, one marker names the session lines and the read
// call, followed by the kept lines and the lines of context around them
// (a compiler's source excerpt); the rest of those lines is elided. It
// runs on output entries (after fold, or instead of it) and returns how
// many lines it hid that no marker had counted as elided before.
func (r *reducer) cluster(es []entry) (out []entry, hidden int64) {
	if r.MaxLines < 0 {
		return es, 0
	}
	// attached reports whether es[j] is the repeat marker of a kept line.
	var attached func(j int) bool
	kept := func(j int) bool {
		e := es[j]
		switch {
		case e.follows:
			return true
		case e.kind == kRepeat:
			return attached(j)
		case e.kind != kLine || e.nokeep || r.isGap(int(e.from)):
			return false
		case r.roles != nil:
			// Errors only: an outline (commits, files) is what a
			// reducer shows on purpose, with its context.
			return r.roles[e.from] == rMust
		}
		return r.keep(r.lines[e.from])
	}
	attached = func(j int) bool { return j > 0 && es[j-1].kind == kLine && kept(j-1) }
	marker := func(j int) bool {
		e := es[j]
		if e.kind == kLine {
			return r.isGap(int(e.from))
		}
		return !e.follows && !(e.kind == kRepeat && attached(j))
	}
	// joins reports whether marker es[j] may join a cluster.
	joins := func(j int) bool {
		e := es[j]
		return e.kind == kRepeat || e.kind == kDrop || r.weight(int(e.from), int(e.to)) <= maxClusterHide ||
			e.kind == kMarker && j+1 < len(es) && es[j+1].follows
	}
	merged := false // out is es until the first cluster
	for i := 0; i < len(es); {
		if !marker(i) || !joins(i) {
			if merged {
				out = append(out, es[i])
			}
			i++
			continue
		}
		// From this marker on: find the last kept line that has at least
		// minCluster markers before it.
		markers, end, shown := 0, -1, 0
		next := es[i].from // the next input line
		stop := i + 1
	scan:
		for ; stop < len(es)+1 && shown <= maxClusterShown; stop++ {
			j := stop - 1
			e := es[j]
			if !e.follows {
				if e.from != next {
					break // not contiguous: something else sits between
				}
				next = e.to + 1
			}
			switch {
			case kept(j):
				shown = 0
				if markers >= minCluster {
					end = j
				}
			case marker(j):
				if !joins(j) {
					break scan // a long stretch ends the cluster
				}
				markers++
				shown = 0
			default:
				shown++
			}
		}
		if end < 0 {
			// No cluster starts at a later marker before stop either: it
			// would see the same lines with fewer markers before them.
			stop = max(stop-1, i+1)
			if merged {
				out = append(out, es[i:stop]...)
			}
			i = stop
			continue
		}
		if !merged {
			out, merged = append(make([]entry, 0, len(es)), es[:i]...), true
		}
		// What the cluster shows: its kept lines with their repeats and
		// the context around them.
		rep := func(j int) bool { // es[j] stands for a collapsed run with its neighbour
			return j > i && es[j-1].kind == kDigits ||
				j < end && (es[j+1].kind == kDigits || es[j+1].kind == kRepeat && !attached(j+1))
		}
		start := len(out)
		out = append(out, entry{}) // the marker, below
		follow, context, sinceKept := 0, 0, contextAfter
		var rows, shownRows int64
		for j := i; j <= end; j++ {
			e := es[j]
			if !e.follows {
				rows += r.weight(int(e.from), int(e.to))
			}
			show := false
			switch {
			case kept(j):
				show, sinceKept = true, 0
				if e.kind == kLine {
					follow++
				}
			case marker(j):
				sinceKept = contextAfter
			default:
				sinceKept++
				if !rep(j) && (sinceKept <= contextAfter || kept(j+1) && es[j+1].kind == kLine) {
					show = true
					context++
				}
			}
			if show {
				e.follows = true
				out = append(out, e)
				shownRows += r.weight(int(e.from), int(e.to))
			}
			// What no marker counted as elided before: shown lines and
			// the collapse and reducer markers' lines.
			if !show && !es[j].follows && es[j].kind != kMarker {
				hidden += r.weight(int(e.from), int(e.to))
			}
		}
		from, to := r.lineNo(int(es[i].from)), r.lineNo(int(es[end].to))
		with := ""
		if context > 0 {
			with = fmt.Sprintf(", with %s of context", linesN(context))
		}
		out[start] = r.marker(kMarker, int(es[i].from), int(es[end].to), fmt.Sprintf(
			"[… %s elided (session lines %d–%d); the %d %s among them follow%s%s]",
			linesN(int(rows-shownRows)), from, to, follow, r.what(follow), with,
			r.readCall(from, to, ": %s to see all", "; read that range to see all")))
		r.clusters++
		i = end + 1
	}
	if !merged {
		return es, 0
	}
	return out, hidden
}

// maxClusterFirst is the most lines of output that cluster tries
// before a fold, to see whether clustering makes the fold unneeded.
const maxClusterFirst = 10000

// entriesLen returns how many lines of output es stands for.
func entriesLen(es []entry) int {
	n := 0
	for _, e := range es {
		n += e.size()
	}
	return n
}

// clusterGap is the most entries between two kept lines of a fold's
// middle for them to share one marker.
const clusterGap = 20

// maxOutline is how many outline lines (rKey) a fold keeps from the middle.
const maxOutline = 50

// shorterThanMarker reports whether entries a to b of x, shown as they
// are, take fewer bytes than a fold marker for session lines from to to.
func (r *reducer) shorterThanMarker(x index, a, b int, from, to int64) bool {
	size := 0
	for v := a; v < b; v++ {
		e := x.at(v)
		switch e.kind {
		case kLine:
			size += len(r.lines[e.from]) + 1
		case kDrop:
			size += len(r.dropText(e, false)) + 1
		default:
			size += len(r.msgs[e.msg]) + 1
		}
	}
	return size <= len(fmt.Sprintf("[… %s elided (session lines %d–%d) …]", linesN(int(to-from)+1), from, to))
}

// cutLine shortens s to max runes around a marker, if it is longer.
func cutLine(s string, max int) (string, bool) {
	if max < 0 || len(s) <= max {
		return s, false
	}
	n := utf8.RuneCountInString(s)
	if n <= max {
		return s, false
	}
	head, tail := max-max/4, max/4
	hb, tb, k := 0, len(s), 0
	for i := range s {
		if k == head {
			hb = i
		}
		if k == n-tail {
			tb = i
			break
		}
		k++
	}
	return s[:hb] + fmt.Sprintf(" [… %s characters cut …] ", commas(int64(n-max))) + s[tb:], true
}

// progressLike reports whether s holds both a digit and a letter (or a
// non-ASCII character), so that a run of lines like it that differ only in
// their numbers is progress or a log rather than data.
func progressLike(s string) bool {
	digit, letter := false, false
	for i := 0; i < len(s) && !(digit && letter); i++ {
		c := s[i]
		digit = digit || isDigit(c)
		letter = letter || c >= 0x80 || c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	return digit && letter
}

// sameShape reports whether a and b are equal once every number in them is
// replaced by the same placeholder. A number is a run of digits that may
// hold '.', ',' or ':' between digits (3.14, 1,000, 12:00:01).
func sameShape(a, b string) bool {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		if isDigit(a[i]) && isDigit(b[j]) {
			i, j = skipNumber(a, i), skipNumber(b, j)
			continue
		}
		if a[i] != b[j] {
			return false
		}
		i++
		j++
	}
	return i == len(a) && j == len(b)
}

func skipNumber(s string, i int) int {
	for i < len(s) {
		switch c := s[i]; {
		case isDigit(c):
			i++
		case (c == '.' || c == ',' || c == ':') && i+1 < len(s) && isDigit(s[i+1]):
			i += 2
		default:
			return i
		}
	}
	return i
}

// commas formats n with thousands separators: 998,840.
func commas(n int64) string {
	s := strconv.FormatInt(n, 10)
	neg := n < 0
	if neg {
		s = s[1:]
	}
	var b strings.Builder
	if neg {
		b.WriteByte('-')
	}
	for i, c := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(c)
	}
	return b.String()
}

func plural(n int64, word string) string {
	if n == 1 {
		return word
	}
	return word + "s"
}

func linesN(n int) string { return commas(int64(n)) + " " + plural(int64(n), "line") }

// listNums lists up to 10 numbers, then how many more.
func listNums(ns []int64) string {
	var b strings.Builder
	for i, n := range ns {
		if i == 10 {
			fmt.Fprintf(&b, " and %d more", len(ns)-10)
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(strconv.FormatInt(n, 10))
	}
	return b.String()
}
