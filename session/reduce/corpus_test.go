package reduce

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

// A corpusEntry is one noisy output in testdata/noisy: <name>.txt holds
// the rendered lines, <name>.json the command, the lines that must survive
// reduction and how the output was made.
type corpusEntry struct {
	name    string
	lines   []string
	Command string   `json:"command"`
	Keep    []string `json:"keep"`
	Source  string   `json:"source"`
}

func loadCorpus(t *testing.T) []corpusEntry {
	t.Helper()
	names, err := filepath.Glob("testdata/noisy/*.json")
	if err != nil {
		t.Fatal(err)
	}
	var out []corpusEntry
	for _, n := range names {
		var e corpusEntry
		b, err := os.ReadFile(n)
		if err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(b, &e); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		e.name = strings.TrimSuffix(filepath.Base(n), ".json")
		txt, err := os.ReadFile(strings.TrimSuffix(n, ".json") + ".txt")
		if err != nil {
			t.Fatal(err)
		}
		e.lines = strings.Split(strings.TrimSuffix(string(txt), "\n"), "\n")
		if e.Command == "" || len(e.Keep) == 0 || e.Source == "" {
			t.Fatalf("%s: command, keep and source are all needed", n)
		}
		out = append(out, e)
	}
	if len(out) < 12 {
		t.Fatalf("the corpus has %d entries, want at least 12", len(out))
	}
	return out
}

// fillHint is the read call session.Session.fill puts in markers.
func fillHint(a, z int64) string {
	return fmt.Sprintf(`read {"session_id":%q,"mode":"range","from_line":%d,"to_line":%d}`, "s3", a, z)
}

// fillOptions are the options session.Session.fill uses for output that
// starts at session line first: the default limits, and no digit rule for
// output short enough to be shown whole.
func fillOptions(lines []string, command string, first int64) Options {
	opt := Options{FirstLine: first, ReadHint: fillHint, Command: command}
	if len(lines) <= DefaultMaxLines {
		opt.DigitRun = -1
	}
	return opt
}

var (
	sessionRangeRE = regexp.MustCompile(`\(session lines (\d+)–(\d+)\)`)
	repeatedRE     = regexp.MustCompile(`^\[… previous line repeated ([\d,]+) more times\]$`)
	cutRE          = regexp.MustCompile(` \[… [\d,]+ characters cut …\] `)
	followRE       = regexp.MustCompile(`; the (\d+) [^\]]* among them follow(?:, with ([\d,]+) lines? of context)?`)
)

// checkReconstruct checks that res.Lines are lines of lines, in order,
// and markers that account for every line between them: a repeat marker
// for copies of the line before it, any other marker for the session
// lines it names, starting right after the line before it. So the kept
// lines and the ranges the markers name give back lines exactly. It also
// checks that the first marker naming a range carries opt.ReadHint for
// exactly that range, and that every read call in a marker is exact.
// shows reports whether output line out shows input line in (cut or not).
func shows(out, in string) bool {
	in = strings.ToValidUTF8(in, "\uFFFD")
	if out == in {
		return true
	}
	loc := cutRE.FindStringIndex(out)
	return loc != nil && strings.HasPrefix(in, out[:loc[0]]) && strings.HasSuffix(in, out[loc[1]:])
}

// followN returns how many lines follow a cluster marker: its kept lines
// and their context.
func followN(m []string) int {
	n, _ := strconv.Atoi(m[1])
	c, _ := strconv.Atoi(strings.ReplaceAll(m[2], ",", ""))
	return n + c
}

func checkReconstruct(t *testing.T, lines []string, res Result, opt Options) {
	t.Helper()
	first := opt.FirstLine
	if first == 0 {
		first = 1
	}
	p := 0 // the next input line to account for
	hinted := false
	follow, followTo := 0, 0 // kept lines still to come from a cluster marker's range, and its end
	for k, out := range res.Lines {
		if follow > 0 && !strings.HasPrefix(out, "[… ") {
			// A cluster's kept line: the next one in the marker's range
			// that it shows (the lines between were elided).
			for p < followTo && !shows(out, lines[p]) {
				p++
			}
			if p == followTo {
				t.Fatalf("output line %d %q is not in its marker's range", k, out)
			}
			follow--
			p++
			continue
		}
		if strings.HasPrefix(out, "[… ") {
			if m := repeatedRE.FindStringSubmatch(out); m != nil {
				n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
				for range n {
					if p == 0 || p >= len(lines) || lines[p] != lines[p-1] {
						t.Fatalf("output line %d %q: input line %d is not a repeat", k, out, p)
					}
					p++
				}
				continue
			}
			// The last range in the marker: a reducer's description may
			// quote output (a file name).
			all := sessionRangeRE.FindAllStringSubmatch(out, -1)
			if all == nil {
				t.Fatalf("output line %d: marker %q names no session lines", k, out)
			}
			m := all[len(all)-1]
			from, _ := strconv.ParseInt(m[1], 10, 64)
			to, _ := strconv.ParseInt(m[2], 10, 64)
			if from != first+int64(p) || to < from || to-first >= int64(len(lines)) {
				t.Fatalf("output line %d: marker %q, want it to start at session line %d (of %d..%d)", k, out, first+int64(p), first, first+int64(len(lines))-1)
			}
			if fm := followRE.FindStringSubmatch(out); fm != nil {
				// A cluster: its kept lines follow, from within from–to.
				follow = followN(fm)
				followTo = int(to-first) + 1
				p = int(from - first)
				if strings.Contains(out, "read {") && (opt.ReadHint == nil || !strings.Contains(out, opt.ReadHint(from, to)+" to see all]")) {
					t.Fatalf("output line %d: marker %q does not carry the read call for lines %d–%d", k, out, from, to)
				}
				hinted = hinted || strings.Contains(out, "read {")
				continue
			}
			if strings.Contains(out, "read {") {
				if opt.ReadHint == nil || !strings.Contains(out, opt.ReadHint(from, to)+" to see them]") {
					t.Fatalf("output line %d: marker %q does not carry the read call for lines %d–%d", k, out, from, to)
				}
				hinted = true
			} else if !hinted && opt.ReadHint != nil {
				t.Fatalf("output line %d: the first marker %q has no read call", k, out)
			}
			p = int(to-first) + 1
			continue
		}
		if p >= len(lines) {
			t.Fatalf("output line %d %q is past the end of the input", k, out)
		}
		if !shows(out, lines[p]) {
			t.Fatalf("output line %d %q, want input line %d %q", k, out, p, lines[p])
		}
		p++
	}
	if p != len(lines) {
		t.Fatalf("output accounts for %d of %d lines", p, len(lines))
	}
}

// mustLines returns the indexes of the lines that the rules call errors or
// failures: those a command reducer gives rMust, or with no reducer the
// lines that look like errors or warnings.
func mustLines(lines []string, command string) []int {
	var out []int
	if cr := commandReducer(command); cr != nil {
		roles := make([]role, len(lines))
		cr.classify(lines, roles)
		for i, r := range roles {
			if r == rMust {
				out = append(out, i)
			}
		}
		return out
	}
	for i, l := range lines {
		if looksLikeError(l) {
			out = append(out, i)
		}
	}
	return out
}

// keptLines returns which input lines res shows as they are. The lines
// after a cluster marker are its kept lines and their context, in order,
// among lines whose text may repeat: the must lines of its range count as
// kept if the lines that follow can be matched, in order, to lines of the
// range that include every one of them.
func keptLines(t *testing.T, lines []string, res Result, first int64, must []int) map[int]bool {
	isMust := map[int]bool{}
	for _, i := range must {
		isMust[i] = true
	}
	kept := map[int]bool{}
	p := 0
	for k := 0; k < len(res.Lines); k++ {
		out := res.Lines[k]
		if !strings.HasPrefix(out, "[… ") {
			kept[p] = true
			p++
			continue
		}
		if fm := followRE.FindStringSubmatch(out); fm != nil {
			r := sessionRangeRE.FindAllStringSubmatch(out, -1)[0]
			from, _ := strconv.ParseInt(r[1], 10, 64)
			to, _ := strconv.ParseInt(r[2], 10, 64)
			lo, hi := int(from-first), int(to-first)+1
			// The lines that follow, repeats spelled out.
			var fl []string
			for n := followN(fm); k+1 < len(res.Lines); {
				if m := repeatedRE.FindStringSubmatch(res.Lines[k+1]); m != nil && len(fl) > 0 {
					k++
					c, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
					for range c {
						fl = append(fl, fl[len(fl)-1])
					}
					continue
				}
				if n == 0 {
					break
				}
				k++
				fl = append(fl, res.Lines[k])
				n--
			}
			cut := make([]bool, len(fl)) // whether fl[j] may show a line other than itself
			for j, l := range fl {
				cut[j] = cutRE.MatchString(l) || strings.ContainsRune(l, utf8.RuneError)
			}
			// ok[j][q]: fl[j:] matches lines[q:hi] leaving out no must line.
			w := hi - lo + 1
			ok := make([]bool, (len(fl)+1)*w)
			ok[len(fl)*w+w-1] = true
			for q := hi - 1; q >= lo; q-- {
				ok[len(fl)*w+q-lo] = ok[len(fl)*w+q-lo+1] && !isMust[q]
			}
			for j := len(fl) - 1; j >= 0; j-- {
				for q := hi - 1; q >= lo; q-- {
					c := j*w + q - lo
					ok[c] = ok[c+w+1] && (fl[j] == lines[q] || cut[j] && shows(fl[j], lines[q])) || !isMust[q] && ok[c+1]
				}
			}
			if ok[0] {
				for q := lo; q < hi; q++ {
					if isMust[q] {
						kept[q] = true
					}
				}
			}
			p = hi
			continue
		}
		if m := repeatedRE.FindStringSubmatch(out); m != nil {
			// Copies of the line before: shown, as that line.
			n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			for range n {
				kept[p] = true
				p++
			}
		} else if all := sessionRangeRE.FindAllStringSubmatch(out, -1); all != nil {
			to, _ := strconv.ParseInt(all[len(all)-1][2], 10, 64)
			p = int(to-first) + 1
		}
	}
	return kept
}

// TestCorpus reduces every output in testdata/noisy as session.fill would
// and checks that each "keep" line survives verbatim, that the result
// gives back the input exactly (kept lines plus the ranges markers name),
// that every line the rules call an error is kept, and that the whole
// corpus comes out at no more than 15 % of its raw size (DESIGN.md:
// "noisy output returned to the model ≤ 15 % of raw, every error line
// kept"). Run with -v for the table in docs/performance.md.
func TestCorpus(t *testing.T) {
	var rawSum, redSum int
	t.Logf("| output | command | reducer | raw bytes | reduced bytes | %% | keep lines kept | error lines kept |")
	t.Logf("|---|---|---|---:|---:|---:|---:|---:|")
	for _, e := range loadCorpus(t) {
		opt := fillOptions(e.lines, e.Command, 1)
		res := Reduce(e.lines, opt)
		checkReconstruct(t, e.lines, res, opt)
		checkAccounting(t, e.lines, res)
		keepN := 0
		for _, k := range e.Keep {
			if slices.Contains(res.Lines, k) {
				keepN++
			} else {
				t.Errorf("%s: keep line %q is not in the output", e.name, k)
			}
		}
		must := mustLines(e.lines, e.Command)
		kept := keptLines(t, e.lines, res, 1, must)
		mustN := 0
		for _, i := range must {
			if kept[i] {
				mustN++
			} else {
				t.Errorf("%s: error line %d %q is not in the output", e.name, i+1, e.lines[i])
			}
		}
		raw := len(strings.Join(e.lines, "\n"))
		red := len(res.Text)
		rawSum += raw
		redSum += red
		reducer := res.Reducer
		if reducer == "" {
			reducer = "(generic)"
		}
		t.Logf("| %s | `%s` | %s | %s | %s | %.1f | %d/%d | %d/%d |", e.name, e.Command, reducer, commas(int64(raw)), commas(int64(red)),
			100*float64(red)/float64(raw), keepN, len(e.Keep), mustN, len(must))
		if dir := os.Getenv("TTYMUX_CORPUS_OUT"); dir != "" {
			if err := os.WriteFile(filepath.Join(dir, e.name+".out"), []byte(res.Text+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	pct := 100 * float64(redSum) / float64(rawSum)
	t.Logf("| **all** | | | %s | %s | **%.1f** | | |", commas(int64(rawSum)), commas(int64(redSum)), pct)
	if pct > 10 {
		t.Errorf("the corpus reduces to %.1f %% of its raw size, want at most 10 %% (DESIGN.md)", pct)
	}
}
