package reduce

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// buildLog700 is the build log of issue #13 item 11: 700 lines, an error
// every seventh line among compiler commands and progress.
func buildLog700() (lines []string, errs []int) {
	for i := range 700 {
		switch {
		case i%7 == 3:
			lines = append(lines, fmt.Sprintf("src/mod%d.c:%d:5: error: ‘count%d’ undeclared (first use in this function)", i%13, 10+i, i))
			errs = append(errs, i)
		case i%2 == 0:
			lines = append(lines, fmt.Sprintf("gcc -O2 -Wall -Iinclude -c src/mod%d.c -o build/mod%d.o", i%13, i))
		default:
			lines = append(lines, fmt.Sprintf("  CC      build/unit%d.o", i))
		}
	}
	return lines, errs
}

// TestBuildLogEveryErrorFewMarkers pins issue #13 item 11: a 700-line build
// log with 100 error lines came back with 91 fold markers among 261 lines
// and 10 errors elided. Every error line is kept, the noise between them is
// folded behind a few markers, the first of which names the read call, and
// the result is much smaller than the log — with or without the build
// reducer.
func TestBuildLogEveryErrorFewMarkers(t *testing.T) {
	lines, errs := buildLog700()
	raw := len(strings.Join(lines, "\n"))
	for _, cmd := range []string{"", "cat build.log", "make -k"} {
		opt := fillOptions(lines, cmd, 1)
		res := Reduce(lines, opt)
		markers := 0
		for _, l := range res.Lines {
			if strings.HasPrefix(l, "[… ") {
				markers++
				if markers == 1 && !strings.Contains(l, `read {"session_id"`) {
					t.Errorf("%q: the first marker has no read call: %q", cmd, l)
				}
			}
		}
		kept := keptLines(t, lines, res, 1, errs)
		for _, i := range errs {
			if !kept[i] {
				t.Errorf("%q: error line %d %q elided", cmd, i, lines[i])
			}
		}
		if markers > 3 {
			t.Errorf("%q: %d markers among %d lines, want at most 3:\n%s", cmd, markers, len(res.Lines), res.Text)
		}
		if len(res.Text)*100 > raw*60 {
			t.Errorf("%q: reduced %d bytes to %d, want at most 60 %%", cmd, raw, len(res.Text))
		}
		checkReconstruct(t, lines, res, opt)
		checkAccounting(t, lines, res)
		t.Logf("%q: %d → %d bytes, %d lines, %d markers", cmd, raw, len(res.Text), len(res.Lines), markers)
	}
}

// TestNamesAreNotErrors pins issue #13 item 11: `find` output kept 50 paths
// as "errors" because they contain Error or Exception. A keyword inside a
// path or URL, or at the start of a CamelCase identifier that goes on
// (ErrorHandler), is a name; a keyword that ends an identifier
// (ValueError) or stands as a word is still an error.
func TestNamesAreNotErrors(t *testing.T) {
	for _, s := range []string{
		"./src/ErrorHandler.java", "./src/main/java/com/acme/ExceptionMapper.java", "src/errors/handler.go",
		"/usr/lib/x86_64-linux-gnu/libfailover.so.1", "https://example.com/errors/404", "FailoverConfig.java",
		"ErrorBoundary.tsx", "-rw-r--r-- 1 root root 120 Nov  1 12:00 ErrorHandler.java", "./test/fixtures/fatal/x.txt",
	} {
		if looksLikeError(s) {
			t.Errorf("%q looks like an error", s)
		}
	}
	for _, s := range []string{
		"error: x", "ValueError: bad value", "ERRORS: 3", "ErrorHandler.java:12: error: cannot find symbol",
		"error: open /src/errors/a.go: no such file", "java.lang.NullPointerException", "\tat com.x.NullPointerException.foo",
		"FAILED", "make: *** [Makefile:3: all] Error 2", "panic: runtime error", "ModuleNotFoundError: No module named 'x'",
	} {
		if !looksLikeError(s) {
			t.Errorf("%q does not look like an error", s)
		}
	}
	// find over a source tree: nothing kept from the middle as an error.
	var lines []string
	for i := range 500 {
		name := fmt.Sprintf("./src/main/java/com/acme/svc%d/Handler%d.java", i%17, i)
		if i%10 == 0 {
			name = fmt.Sprintf("./src/main/java/com/acme/svc%d/Error%dHandler.java", i%17, i)
		}
		lines = append(lines, name)
	}
	res := Reduce(lines, fillOptions(lines, "find . -name '*.java'", 1))
	for _, n := range res.Notes {
		if strings.Contains(n, "look like errors") {
			t.Errorf("find output: %q\n%s", n, res.Text)
		}
	}
}

// TestBinarySummarised pins issue #13 item 11: `cat /bin/ls` returned 56 KB
// of rendered garbage. Binary output comes back as one line that says how
// much there is and the read call that returns the bytes; text with colours
// and cursor moves is not binary.
func TestBinarySummarised(t *testing.T) {
	bin, err := os.ReadFile("/bin/ls")
	if err != nil {
		t.Skip(err)
	}
	var c Collector
	c.Write(bin[:len(bin)/2])
	lines, nums, gaps := c.Finish(bin[len(bin)/2:], 40, fillHint)
	if len(lines) != 1 || len(gaps) != 1 || gaps[0].Index != 0 || len(nums) != 1 {
		t.Fatalf("binary: %d lines %q, gaps %v", len(lines), lines, gaps)
	}
	want := fmt.Sprintf(`[%s of binary data (session lines 40–`, byteSize(int64(len(bin))))
	if !strings.HasPrefix(lines[0], want) || !strings.Contains(lines[0], `,"raw":true} for the bytes]`) {
		t.Errorf("binary summary %q, want it to start %q and give the raw read call", lines[0], want)
	}
	res := Reduce(lines, Options{Gaps: gaps, LineNumbers: nums, FirstLine: 40})
	if res.Text != lines[0] || res.RawLines != int(gaps[0].Lines) || res.Elided != gaps[0].Lines {
		t.Errorf("reduced binary: %q raw %d elided %d", res.Text, res.RawLines, res.Elided)
	}

	var text Collector
	text.Write([]byte("\x1b[1;31mred\x1b[0m and \x1b[2Kprogress 10%\rprogress 100%\r\nGröße ✓ 日本語\r\n\tindented\a\r\n"))
	if text.Binary() {
		t.Errorf("coloured UTF-8 text taken for binary")
	}
}

// TestCollectorWholeWhenItFits: output that fits the head and the window
// comes back exactly as RenderNumbered renders it, with no gaps.
func TestCollectorWholeWhenItFits(t *testing.T) {
	// Three lines a repeat: as many as the head and the window hold.
	data := []byte(strings.Repeat("line with some text\r\nprogress 1%\rprogress 2%\r\n\x1b[1mbold\x1b[0m\n", (collectHead+collectWindow)/3))
	want, wantNums := RenderNumbered(data)
	var c Collector
	for i := 0; i < len(data); i += 4093 {
		c.Write(data[i:min(i+4093, len(data))])
	}
	lines, nums, gaps := c.Finish(nil, 1, fillHint)
	if len(gaps) != 0 || strings.Join(lines, "\n") != strings.Join(want, "\n") || fmt.Sprint(nums) != fmt.Sprint(wantNums) {
		t.Fatalf("collected %d lines with gaps %v, want the %d rendered", len(lines), gaps, len(want))
	}
}

// TestCollectorBounded: a stream far longer than the window keeps only the
// head, the window and the error lines of the middle; what comes back
// reduces to a result that keeps every error line, counts every line, and
// whose markers name the session lines they stand for and the read call.
func TestCollectorBounded(t *testing.T) {
	var c Collector
	const n = 400000
	var b strings.Builder
	for i := range n {
		if i%50000 == 25000 {
			fmt.Fprintf(&b, "x.c:%d:1: error: bad %d\r\n", i, i)
		} else {
			fmt.Fprintf(&b, "noise line %d\r\n", i)
		}
		if b.Len() > 1<<16 {
			c.Write([]byte(b.String()))
			b.Reset()
		}
	}
	lines, nums, gaps := c.Finish([]byte(b.String()), 1, fillHint)
	if len(lines) > collectHead+collectWindow+20 || len(gaps) == 0 {
		t.Fatalf("%d lines, %d gaps: not bounded", len(lines), len(gaps))
	}
	opt := Options{LineNumbers: nums, Gaps: gaps, ReadHint: fillHint}
	res := Reduce(lines, opt)
	if res.RawLines != n {
		t.Errorf("RawLines %d, want %d", res.RawLines, n)
	}
	for i := 25000; i < n; i += 50000 {
		if !strings.Contains(res.Text, fmt.Sprintf("x.c:%d:1: error: bad %d\n", i, i)) {
			t.Errorf("error line %d elided:\n%s", i, res.Text)
		}
	}
	if !strings.Contains(res.Text, "(session lines 1001–") || !strings.Contains(res.Text, `"mode":"range","from_line":1001,`) {
		t.Errorf("no marker for the middle after the head:\n%s", res.Text)
	}
	shown := 0
	for _, l := range res.Lines {
		if !strings.HasPrefix(l, "[… ") {
			shown++
		}
	}
	if int64(shown)+res.Collapsed+res.Elided != n {
		t.Errorf("%d shown + %d collapsed + %d elided != %d", shown, res.Collapsed, res.Elided, n)
	}
}

// markerSavings returns, for each marker of res, the bytes of input it
// hides minus the bytes it costs (its line): a marker that hides less than
// it costs makes the output larger than it needs to be.
func markerSavings(t *testing.T, lines []string, res Result, first int64) (saved []int, text []string) {
	t.Helper()
	for k := 0; k < len(res.Lines); k++ {
		out := res.Lines[k]
		if !strings.HasPrefix(out, "[… ") {
			continue
		}
		hidden := 0
		if m := repeatedRE.FindStringSubmatch(out); m != nil {
			n, _ := strconv.Atoi(strings.ReplaceAll(m[1], ",", ""))
			hidden = n * (len(res.Lines[k-1]) + 1)
		} else {
			all := sessionRangeRE.FindAllStringSubmatch(out, -1)
			if all == nil {
				continue // a marker the caller wrote
			}
			m := all[len(all)-1]
			from, _ := strconv.ParseInt(m[1], 10, 64)
			to, _ := strconv.ParseInt(m[2], 10, 64)
			for q := from - first; q <= to-first; q++ {
				hidden += len(lines[q]) + 1
			}
			if fm := followRE.FindStringSubmatch(out); fm != nil {
				// The lines that follow are shown, not hidden.
				for n, j := followN(fm), k+1; n > 0 && j < len(res.Lines); j++ {
					if strings.HasPrefix(res.Lines[j], "[… ") {
						continue
					}
					hidden -= len(res.Lines[j]) + 1
					n--
				}
			}
		}
		saved = append(saved, hidden-len(out)-1)
		text = append(text, out)
	}
	return saved, text
}

// TestBuildLogDigitsFewMarkers pins issue #13 item 11 with compile lines
// that differ only in their numbers between the error lines: a 700-line
// log with an error every seventh line came back with every error but 40
// markers among 222 lines, one per four lines, as the digit rule gave each
// run of six compile lines between two errors its marker before the fold
// ran. Dense markers between kept lines are merged into one that names the
// session lines and the read call, so that there is at most one marker per
// 20 lines of output, and no marker hides fewer bytes than it costs.
func TestBuildLogDigitsFewMarkers(t *testing.T) {
	for _, every := range []int{4, 7, 10, 15} {
		for _, n := range []int{150, 700, 5000} {
			var lines []string
			var errs []int
			for i := range n {
				if i%every == 3 {
					errs = append(errs, i)
					lines = append(lines, fmt.Sprintf("src/mod%d/file%d.c:%d:%d: error: 'sym%d' undeclared (first use in this function)", i%13, i, i, i%40, i))
				} else {
					lines = append(lines, fmt.Sprintf("gcc -O2 -Wall -c -o build/obj%d.o src/mod%d/file%d.c -Iinclude -DNDEBUG", i, i%13, i))
				}
			}
			for _, cmd := range []string{"cat build.log", "make -k"} {
				name := fmt.Sprintf("%d lines, an error every %d, %q", n, every, cmd)
				opt := fillOptions(lines, cmd, 1)
				res := Reduce(lines, opt)
				checkReconstruct(t, lines, res, opt)
				checkAccounting(t, lines, res)
				kept := keptLines(t, lines, res, 1, errs)
				for _, i := range errs {
					if !kept[i] {
						t.Errorf("%s: error line %d %q elided", name, i, lines[i])
					}
				}
				saved, markers := markerSavings(t, lines, res, 1)
				if len(markers) > 2 && len(markers)*20 > len(res.Lines) {
					t.Errorf("%s: %d markers among %d lines, want at most 2 or one per 20 lines:\n%s", name, len(markers), len(res.Lines), res.Text)
				}
				for k, s := range saved {
					if s < 0 {
						t.Errorf("%s: marker %q hides %d bytes fewer than it costs", name, markers[k], -s)
					}
				}
				if raw := len(strings.Join(lines, "\n")); n > 200 && len(res.Text)*2 > raw {
					t.Errorf("%s: %d → %d bytes, want at most half", name, raw, len(res.Text))
				}
			}
		}
	}
}
