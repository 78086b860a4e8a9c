package reduce

import (
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"
)

func hint(from, to int64) string {
	return fmt.Sprintf(`read {"session_id":"s1","mode":"range","from_line":%d,"to_line":%d}`, from, to)
}

func seq(from, to int) []string {
	var out []string
	for i := from; i <= to; i++ {
		out = append(out, strconv.Itoa(i))
	}
	return out
}

func TestReduceFold(t *testing.T) {
	tests := []struct {
		name   string
		lines  []string
		opt    Options
		want   []string // expected lines; "…" stands for the lines between its neighbours in lines
		elided int64
		notes  []string
	}{
		{
			name:  "short output is untouched",
			lines: seq(1, 200),
			want:  seq(1, 200),
		},
		{
			name:  "seq 1 1000",
			lines: seq(1, 1000),
			opt:   Options{ReadHint: hint},
			want: slices.Concat(seq(1, 60),
				[]string{`[… 840 lines elided (session lines 61–900): read {"session_id":"s1","mode":"range","from_line":61,"to_line":900} to see them]`},
				seq(901, 1000)),
			elided: 840,
			notes:  []string{"folded 1,000 lines to 161"},
		},
		{
			name:  "first line offsets session lines",
			lines: seq(1, 1000),
			opt:   Options{ReadHint: hint, FirstLine: 1001},
			want: slices.Concat(seq(1, 60),
				[]string{`[… 840 lines elided (session lines 1061–1900): read {"session_id":"s1","mode":"range","from_line":1061,"to_line":1900} to see them]`},
				seq(901, 1000)),
			elided: 840,
			notes:  []string{"folded 1,000 lines to 161"},
		},
		{
			name:  "no read hint",
			lines: seq(1, 20),
			opt:   Options{MaxLines: 10, Head: 2, Tail: 3},
			want: slices.Concat(seq(1, 2),
				[]string{"[… 15 lines elided (session lines 3–17); read that range to see them]"},
				seq(18, 20)),
			elided: 15,
			notes:  []string{"folded 20 lines to 6"},
		},
		{
			name:  "a gap shorter than its marker is shown",
			lines: seq(1, 6),
			opt:   Options{MaxLines: 5, Head: 2, Tail: 3},
			want:  seq(1, 6),
		},
		{
			name:  "never fold",
			lines: seq(1, 1000),
			opt:   Options{MaxLines: -1},
			want:  seq(1, 1000),
		},
		{
			name:  "head and tail cover everything",
			lines: seq(1, 30),
			opt:   Options{MaxLines: 10, Head: 20, Tail: 20},
			want:  seq(1, 30),
		},
		{
			name:   "negative head keeps none",
			lines:  seq(1, 20),
			opt:    Options{MaxLines: 5, Head: -1, Tail: 2},
			want:   []string{"[… 18 lines elided (session lines 1–18); read that range to see them]", "19", "20"},
			elided: 18,
			notes:  []string{"folded 20 lines to 3"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Reduce(tt.lines, tt.opt)
			if !slices.Equal(res.Lines, tt.want) {
				t.Errorf("Lines:\n got %q\nwant %q", res.Lines, tt.want)
			}
			if res.Text != strings.Join(tt.want, "\n") {
				t.Errorf("Text does not join Lines")
			}
			if res.Elided != tt.elided || res.Collapsed != 0 || res.RawLines != len(tt.lines) {
				t.Errorf("Elided %d Collapsed %d RawLines %d, want %d 0 %d", res.Elided, res.Collapsed, res.RawLines, tt.elided, len(tt.lines))
			}
			if !slices.Equal(res.Notes, tt.notes) {
				t.Errorf("Notes %q, want %q", res.Notes, tt.notes)
			}
		})
	}
}

// TestReduceMillion pins the design target: seq 1 1000000 is folded to 161
// lines whose marker names the exact session lines.
func TestReduceMillion(t *testing.T) {
	res := Reduce(seq(1, 1_000_000), Options{ReadHint: hint})
	if len(res.Lines) != 161 || res.Elided != 999_840 {
		t.Fatalf("got %d lines, %d elided", len(res.Lines), res.Elided)
	}
	want := `[… 999,840 lines elided (session lines 61–999900): read {"session_id":"s1","mode":"range","from_line":61,"to_line":999900} to see them]`
	if res.Lines[60] != want {
		t.Errorf("marker %q, want %q", res.Lines[60], want)
	}
	if want := []string{"folded 1,000,000 lines to 161"}; !slices.Equal(res.Notes, want) {
		t.Errorf("Notes %q, want %q", res.Notes, want)
	}
}

// buildLog makes a compiler log of n lines with the given lines put in at
// 0-based indexes. Consecutive lines differ in letters, as file names do,
// so that only the fold applies.
func buildLog(n int, put map[int]string) []string {
	dirs := []string{"net", "gpu/drm", "usb/core", "scsi", "block", "input", "sound/pci"}
	words := []string{"alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo"}
	var out []string
	for i := range n {
		if s, ok := put[i]; ok {
			out = append(out, s)
			continue
		}
		out = append(out, fmt.Sprintf("  CC [M]  drivers/%s/%s_%s.o", dirs[i%len(dirs)], words[i%len(words)], words[(i/len(words))%len(words)]))
	}
	return out
}

// TestReduceKeepsErrors is the design target "every error line kept": three
// errors buried in a 5000-line build log all survive the fold, in place,
// with markers naming the exact session lines between them, in under 15 %
// of the raw size.
func TestReduceKeepsErrors(t *testing.T) {
	errs := map[int]string{
		1199: "drivers/net/foo.c:123:5: error: 'bar' undeclared (first use in this function)",
		2499: "ld: drivers/gpu/drm/x.o: undefined reference to `drm_thing'",
		3799: "make[2]: *** [scripts/Makefile.build:243: drivers/usb/core/hub.o] Error 1",
	}
	lines := buildLog(5000, errs)
	res := Reduce(lines, Options{ReadHint: hint})
	want := slices.Concat(lines[:60],
		[]string{`[… 1,139 lines elided (session lines 61–1199): read {"session_id":"s1","mode":"range","from_line":61,"to_line":1199} to see them]`},
		[]string{errs[1199]},
		[]string{"[… 1,299 lines elided (session lines 1201–2499) …]"},
		[]string{errs[2499]},
		[]string{"[… 1,299 lines elided (session lines 2501–3799) …]"},
		[]string{errs[3799]},
		[]string{"[… 1,100 lines elided (session lines 3801–4900) …]"},
		lines[4900:])
	if !slices.Equal(res.Lines, want) {
		t.Fatalf("Lines:\n got %q\nwant %q", res.Lines, want)
	}
	if res.Elided != 5000-160-3 {
		t.Errorf("Elided %d, want %d", res.Elided, 5000-160-3)
	}
	raw := len(strings.Join(lines, "\n"))
	if got := len(res.Text); got*100 > raw*15 {
		t.Errorf("reduced to %d of %d bytes (%d%%), want ≤ 15%%", got, raw, got*100/raw)
	}
	wantNotes := []string{"folded 5,000 lines to 167", "kept 3 lines that look like errors or warnings from the elided middle"}
	if !slices.Equal(res.Notes, wantNotes) {
		t.Errorf("Notes %q, want %q", res.Notes, wantNotes)
	}
}

// TestReduceKeepsEveryError pins issue #13 item 11: a fold kept at most 50
// error or warning lines from its middle and elided the rest, with a
// marker for each gap between them (91 markers among 261 lines for a
// 700-line build log with 100 errors). Every one is kept now, and kept
// lines close together share one marker, which names the session lines
// from the gap before them to the last of them and the read call.
func TestReduceKeepsEveryError(t *testing.T) {
	put := map[int]string{}
	for i := 0; i < 120; i++ {
		put[100+10*i] = fmt.Sprintf("warning: thing %c is deprecated", 'A'+i%26)
	}
	lines := buildLog(3000, put)
	res := Reduce(lines, Options{ReadHint: hint})
	var kept, markers int
	for _, l := range res.Lines {
		if strings.HasPrefix(l, "warning:") {
			kept++
		}
		if strings.HasPrefix(l, "[… ") {
			markers++
		}
	}
	if kept != 120 {
		t.Errorf("kept %d of 120 warnings", kept)
	}
	if markers != 2 {
		t.Errorf("%d markers, want 2 (the cluster's and the rest's):\n%s", markers, res.Text)
	}
	want := `[… 1,111 lines elided (session lines 61–1291); the 120 lines that look like errors or warnings among them follow: read {"session_id":"s1","mode":"range","from_line":61,"to_line":1291} to see all]`
	if res.Lines[60] != want {
		t.Errorf("cluster marker\n got %q\nwant %q", res.Lines[60], want)
	}
	checkAccounting(t, lines, res)
	checkReconstruct(t, lines, res, Options{ReadHint: hint})
}

func TestReduceCollapse(t *testing.T) {
	rep := func(s string, n int) []string {
		var out []string
		for range n {
			out = append(out, s)
		}
		return out
	}
	pct := func(from, to int) []string {
		var out []string
		for i := from; i <= to; i++ {
			out = append(out, fmt.Sprintf("Downloading numpy: %d%% (%d.%d MB/s)", i, i/10, i%10))
		}
		return out
	}
	tests := []struct {
		name      string
		lines     []string
		opt       Options
		want      []string
		collapsed int64
	}{
		{
			name:      "repeated line",
			lines:     slices.Concat([]string{"start"}, rep("retrying", 58), []string{"end"}),
			want:      []string{"start", "retrying", "[… previous line repeated 57 more times]", "end"},
			collapsed: 57,
		},
		{
			name:  "two repeats are kept",
			lines: []string{"a", "b", "b", "c"},
			want:  []string{"a", "b", "b", "c"},
		},
		{
			name:      "three repeats collapse",
			lines:     rep("Connection refused by the server, retrying", 3),
			want:      []string{"Connection refused by the server, retrying", "[… previous line repeated 2 more times]"},
			collapsed: 2,
		},
		{
			// Issue #13 item 11: a marker that costs more than the lines it
			// hides makes the output larger than it needs to be.
			name:  "repeats shorter than their marker are shown",
			lines: rep("", 20),
			want:  rep("", 20),
		},
		{
			name:      "many short repeats collapse",
			lines:     rep("", 60),
			want:      []string{"", "[… previous line repeated 59 more times]"},
			collapsed: 59,
		},
		{
			name:  "digit run",
			lines: slices.Concat([]string{"Collecting numpy"}, pct(1, 100), []string{"Installed"}),
			opt:   Options{ReadHint: hint, FirstLine: 11},
			want: []string{
				"Collecting numpy", "Downloading numpy: 1% (0.1 MB/s)",
				`[… 98 more lines that differ only in digits (session lines 13–110): read {"session_id":"s1","mode":"range","from_line":13,"to_line":110} to see them]`,
				"Downloading numpy: 100% (10.0 MB/s)", "Installed",
			},
			collapsed: 98,
		},
		{
			name:  "short digit run is kept",
			lines: pct(1, 5),
			want:  pct(1, 5),
		},
		{
			name:  "digit rule disabled",
			lines: pct(1, 10),
			opt:   Options{DigitRun: -1},
			want:  pct(1, 10),
		},
		{
			name:  "numbers alone are data",
			lines: seq(1, 150),
			want:  seq(1, 150),
		},
		{
			name:  "digit run with repeats inside",
			lines: slices.Concat(rep("Downloading numpy: 1% (0.1 MB/s)", 3), pct(2, 9)),
			want: []string{"Downloading numpy: 1% (0.1 MB/s)",
				"[… 9 more lines that differ only in digits (session lines 2–10); read that range to see them]",
				"Downloading numpy: 9% (0.9 MB/s)"},
			collapsed: 9,
		},
		{
			name:      "mostly repeats prefer the repeat rule",
			lines:     slices.Concat(rep("tick 1", 10), []string{"tick 2", "tick 3"}),
			want:      []string{"tick 1", "[… previous line repeated 9 more times]", "tick 2", "tick 3"},
			collapsed: 9,
		},
		{
			name: "error lines break a digit run",
			lines: []string{"test 1 ok: the result matches", "test 2 ok: the result matches", "test 3 ok: the result matches",
				"test 4 ok: the result matches", "test 5 ok: the result matches", "test 6 ok: the result matches",
				"test 7 ok: the result matches", "test 8 failed", "test 9 ok: the result matches", "test 10 ok: the result matches"},
			want: []string{"test 1 ok: the result matches",
				"[… 5 more lines that differ only in digits (session lines 2–6); read that range to see them]",
				"test 7 ok: the result matches", "test 8 failed", "test 9 ok: the result matches", "test 10 ok: the result matches"},
			collapsed: 5,
		},
		{
			// Issue #13 item 11: five lines of 10 bytes cost less than the
			// marker that would stand for them.
			name: "a digit run shorter than its marker is shown",
			lines: []string{"test 1 ok", "test 2 ok", "test 3 ok", "test 4 ok", "test 5 ok", "test 6 ok", "test 7 ok",
				"test 8 failed", "test 9 ok", "test 10 ok"},
			want: []string{"test 1 ok", "test 2 ok", "test 3 ok", "test 4 ok", "test 5 ok", "test 6 ok", "test 7 ok",
				"test 8 failed", "test 9 ok", "test 10 ok"},
		},
		{
			name:      "repeated error lines collapse exactly",
			lines:     slices.Concat([]string{"x"}, rep("error: disk full", 5)),
			want:      []string{"x", "error: disk full", "[… previous line repeated 4 more times]"},
			collapsed: 4,
		},
		{
			name: "timestamps",
			lines: []string{"12:00:01.123 GET /api 200 12ms", "12:00:01.456 GET /api 200 9ms", "12:00:02.001 GET /api 200 10ms",
				"12:00:02.7 GET /api 200 11ms", "12:00:03.0 GET /api 200 8ms", "12:00:09.9 GET /api 200 13ms", "12:00:10.1 POST /api 500 1ms"},
			want: []string{"12:00:01.123 GET /api 200 12ms",
				"[… 4 more lines that differ only in digits (session lines 2–5); read that range to see them]",
				"12:00:09.9 GET /api 200 13ms", "12:00:10.1 POST /api 500 1ms"},
			collapsed: 4,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Reduce(tt.lines, tt.opt)
			if !slices.Equal(res.Lines, tt.want) {
				t.Errorf("Lines:\n got %q\nwant %q", res.Lines, tt.want)
			}
			if res.Collapsed != tt.collapsed || res.Elided != 0 {
				t.Errorf("Collapsed %d Elided %d, want %d 0", res.Collapsed, res.Elided, tt.collapsed)
			}
		})
	}
}

// TestReduceCollapseThenFold checks that collapse markers inside the folded
// middle are elided with it and counted once.
func TestReduceCollapseThenFold(t *testing.T) {
	var lines []string
	for i := 0; i < 400; i++ {
		lines = append(lines, fmt.Sprintf("line %c%c", 'a'+i%26, 'a'+i/26))
		if i == 100 || i == 390 {
			for range 10 {
				lines = append(lines, "same")
			}
		}
	}
	res := Reduce(lines, Options{})
	checkAccounting(t, lines, res)
	if res.Collapsed != 9 || res.Elided == 0 {
		t.Errorf("Collapsed %d Elided %d, want 9 and some", res.Collapsed, res.Elided)
	}
}

func TestReduceCut(t *testing.T) {
	long := strings.Repeat("a", 3000) + "END"
	wide := strings.Repeat("é", 30) + strings.Repeat("日", 30)
	tests := []struct {
		name  string
		lines []string
		opt   Options
		want  []string
		cut   int
	}{
		{
			name:  "long line",
			lines: []string{"short", long},
			want:  []string{"short", strings.Repeat("a", 1500) + " [… 1,003 characters cut …] " + strings.Repeat("a", 497) + "END"},
			cut:   1,
		},
		{
			name:  "runes not bytes",
			lines: []string{wide},
			opt:   Options{MaxLineLen: 40},
			want:  []string{strings.Repeat("é", 30) + " [… 20 characters cut …] " + strings.Repeat("日", 10)},
			cut:   1,
		},
		{
			name:  "exactly the limit",
			lines: []string{strings.Repeat("é", 40)},
			opt:   Options{MaxLineLen: 40},
			want:  []string{strings.Repeat("é", 40)},
		},
		{
			name:  "never cut",
			lines: []string{long},
			opt:   Options{MaxLineLen: -1},
			want:  []string{long},
		},
		{
			name:  "invalid utf8 is repaired",
			lines: []string{"a\xffb"},
			want:  []string{"a\uFFFDb"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := Reduce(tt.lines, tt.opt)
			if !slices.Equal(res.Lines, tt.want) {
				t.Errorf("Lines:\n got %q\nwant %q", res.Lines, tt.want)
			}
			if res.Cut != tt.cut {
				t.Errorf("Cut %d, want %d", res.Cut, tt.cut)
			}
		})
	}
	res := Reduce([]string{"x", long}, Options{FirstLine: 7})
	if want := []string{"cut 1 line longer than 2,000 characters (session line 8)"}; !slices.Equal(res.Notes, want) {
		t.Errorf("Notes %q, want %q", res.Notes, want)
	}
}

// TestReduceLineNumbers checks that markers use the session line numbers
// of rendered lines when a program redrew lines with cursor-up, so that
// rendered lines and '\n'-separated session lines differ.
func TestReduceLineNumbers(t *testing.T) {
	var b strings.Builder
	for i := 1; i <= 20; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	b.WriteString(multiProgress(3, 10)) // 30 '\n', 3 rendered lines
	for i := 21; i <= 40; i++ {
		fmt.Fprintf(&b, "%d\n", i)
	}
	lines, nums := RenderNumbered([]byte(b.String()))
	if len(lines) != 43 {
		t.Fatalf("rendered %d lines, want 43", len(lines))
	}
	res := Reduce(lines, Options{MaxLines: 10, Head: 2, Tail: 2, LineNumbers: nums, FirstLine: 101})
	// Rendered lines 2..40 are elided: session lines 103 (the 3rd) to
	// 168, just before "39", which follows 20+30+18 '\n' and so is session
	// line 101+68. The count is of rendered lines, which a read of that
	// range renders again.
	want := "[… 39 lines elided (session lines 103–168); read that range to see them]"
	if res.Lines[2] != want {
		t.Errorf("marker %q, want %q", res.Lines[2], want)
	}
	if want := []string{"39", "40"}; !slices.Equal(res.Lines[3:], want) {
		t.Errorf("tail %q, want %q", res.Lines[3:], want)
	}
}

func TestReduceKeepPattern(t *testing.T) {
	lines := buildLog(1000, map[int]string{500: "error: default pattern", 600: "CUSTOM thing"})
	res := Reduce(lines, Options{KeepPattern: regexp.MustCompile(`^CUSTOM`)})
	if !slices.Contains(res.Lines, "CUSTOM thing") || slices.Contains(res.Lines, "error: default pattern") {
		t.Errorf("custom pattern not used: %q", res.Lines)
	}
	if !slices.Contains(res.Notes, "kept 1 line matching the keep pattern from the elided middle") {
		t.Errorf("Notes %q", res.Notes)
	}
}

func TestLooksLikeError(t *testing.T) {
	tests := []struct {
		name string
		line string
		want bool
	}{
		{"gcc error", "foo.c:12:5: error: expected ';'", true},
		{"go compile", "./main.go:3:2: undefined: x", true},
		{"go test failure detail", "    main_test.go:40: got 1, want 2", true},
		{"go test FAIL", "--- FAIL: TestX (0.00s)", true},
		{"make", "Makefile:3: *** missing separator.  Stop.", true},
		{"python exception", "ValueError: invalid literal for int()", true},
		{"python nested name", "ModuleNotFoundError: No module named 'x'", true},
		{"python frame", `  File "/app/x.py", line 3, in <module>`, true},
		{"traceback", "Traceback (most recent call last):", true},
		{"java", "Exception in thread \"main\" java.lang.NullPointerException", true},
		{"java camel", "\tat com.x.NullPointerException.foo", true},
		{"npm", "npm ERR! code E404", true},
		{"panic", "panic: runtime error: index out of range", true},
		{"denied", "Permission denied (publickey).", true},
		{"refused", "connect: connection refused", true},
		{"not found", "bash: foo: command not found", true},
		{"no such file", "cat: x: No such file or directory", true},
		{"warning", "WARNING: pip is out of date", true},
		{"warn level", "2024-01-01 WARN slow query", true},
		{"fatal", "fatal: not a git repository", true},
		{"failed", "Build FAILED.", true},
		{"segfault", "Segmentation fault (core dumped)", true},
		{"timeout", "ssh: connect to host x: Connection timed out", true},
		{"cannot", "E: cannot open lock file", true},
		{"plain", "  CC [M]  drivers/net/foo.o", false},
		{"werror flag", "gcc -Werror -O2 -c x.c", false},
		{"terror", "a terrorist attack movie", false},
		{"mirrors", "Fetched 12 mirrors", false},
		{"url", "http://example.com:8080: ok", false},
		{"timestamp", "12:00:01: started", false},
		{"prose colon", "note: this is fine", false},
		{"grep -n", "main.go:12:func main() {", false},
		{"empty", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := looksLikeError(tt.line); got != tt.want {
				t.Errorf("looksLikeError(%q) = %v, want %v", tt.line, got, tt.want)
			}
		})
	}
}

// checkAccounting checks the invariant that nothing is hidden without a
// marker: every input line is shown, or counted by Collapsed or Elided.
func checkAccounting(t *testing.T, lines []string, res Result) {
	t.Helper()
	shown := 0
	for _, l := range res.Lines {
		if !strings.HasPrefix(l, "[… ") {
			shown++
		}
	}
	if int64(shown)+res.Collapsed+res.Elided != int64(len(lines)) {
		t.Errorf("%d lines: %d shown + %d collapsed + %d elided", len(lines), shown, res.Collapsed, res.Elided)
	}
}

// TestReduceAccounting checks the accounting invariant on random output
// mixing repeats, progress, numbers and errors.
func TestReduceAccounting(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	pool := []func(i int) string{
		func(i int) string { return "same" },
		func(i int) string { return fmt.Sprintf("progress %d%%", i%100) },
		func(i int) string { return strconv.Itoa(i) },
		func(i int) string { return fmt.Sprintf("x.go:%d:1: error: bad", i) },
		func(i int) string { return fmt.Sprintf("word %c", 'a'+rng.IntN(3)) },
	}
	for trial := 0; trial < 200; trial++ {
		n := rng.IntN(600)
		var lines []string
		for i := 0; i < n; {
			f := pool[rng.IntN(len(pool))]
			for k := rng.IntN(20); k >= 0 && i < n; k-- {
				lines = append(lines, f(i))
				i++
			}
		}
		opt := Options{MaxLines: 1 + rng.IntN(100), Head: rng.IntN(30) - 1, Tail: rng.IntN(30) - 1}
		res := Reduce(lines, opt)
		checkAccounting(t, lines, res)
		if t.Failed() {
			t.Fatalf("trial %d, options %+v", trial, opt)
		}
	}
}

func BenchmarkReduce(b *testing.B) {
	lines := buildLog(1_000_000, map[int]string{1000: "x.c:1:1: error: e", 500_000: "x.c:1:1: error: e"})
	b.ResetTimer()
	for b.Loop() {
		Reduce(lines, Options{ReadHint: hint})
	}
}

// FuzzReduce checks the accounting invariant, that output is valid UTF-8
// and that kept lines and markers give the input back exactly, for
// arbitrary lines, options and command lines (which pick the per-command
// reducers).
func FuzzReduce(f *testing.F) {
	f.Add("a\na\na\nb 1\nb 2\nb 3\nb 4\nb 5\nb 6\nerror 1\nc", uint8(3), uint8(1), uint8(1), uint8(5), "")
	f.Add(strings.Join(buildLog(30, map[int]string{15: "x.c:1:2: error: y"}), "\n"), uint8(10), uint8(3), uint8(3), uint8(40), "make -j4")
	for _, cmd := range reducerCommands {
		// A little of every reducer's output under every command.
		f.Add(strings.Join([]string{
			"commit 1111111", "Author: a", "Date: b", "", "    subject", "    body", "diff --git a/x b/x", "@@ -1,2 +1,2 @@", " a", "-b", "+c",
			"\tmodified:   a.go", "a/b.go:12:x", "a/b.go:13:y", "a/b.go:14:z", "=== RUN   TestX", "--- PASS: TestX (0.00s)", "ok  \tpkg\t0.1s",
			"--- FAIL: TestY (0.00s)", "t.py::t PASSED [ 1%]", "npm http fetch GET 200 https://r.example/a 1ms", "Collecting x",
			"Get:1 http://deb.example.org/debian bookworm/main amd64 x amd64 1 [1 kB]", "gcc -O2 -c -o x.o x.c", "x.c:1:2: warning: w",
			"    1 | x", "      | ^", "error[E1]: e", "", "/usr:", "total 0",
		}, "\n"), uint8(20), uint8(5), uint8(5), uint8(60), cmd)
	}
	f.Fuzz(func(t *testing.T, in string, maxLines, head, tail, maxLen uint8, command string) {
		lines := strings.Split(in, "\n")
		for i, l := range lines {
			lines[i] = strings.ReplaceAll(l, "[…", "[.")
		}
		opt := Options{MaxLines: int(maxLines), Head: int(head) - 1, Tail: int(tail) - 1, MaxLineLen: int(maxLen),
			ReadHint: hint, Command: command}
		res := Reduce(lines, opt)
		checkAccounting(t, lines, res)
		if !utf8.ValidString(res.Text) {
			t.Fatalf("invalid UTF-8 in %q", res.Text)
		}
		checkReconstruct(t, lines, res, opt)
	})
}
