package reduce

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"math/rand/v2"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"
)

// The tests in this file check that the fast paths give exactly what the
// simple ones give: Renderer's bulk copy of plain lines against the
// byte-at-a-time parser, scanLine against a byte-at-a-time keyword test,
// and collapse's runs of plain lines (kLines) against one entry per line.

// Byte classes for hasKeywordRef.
const (
	clAlnum   = 1 << iota // ASCII letter or digit
	clLower               // ASCII lower-case letter
	clUpper               // ASCII upper-case letter
	clKwStart             // starts a keyword, in either case
)

var class = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = clAlnum
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-0x20] = clAlnum|clLower, clAlnum|clUpper
		if len(keywords[c-'a']) > 0 {
			t[c] |= clKwStart
			t[c-0x20] |= clKwStart
		}
	}
	return t
}()

// hasKeywordRef is the definition that scanLine implements eight bytes at
// a time: a keyword at the start of a word or of a CamelCase hump.
func hasKeywordRef(s string) bool {
	for i := 0; i < len(s); i++ {
		c := class[s[i]]
		if c&clKwStart == 0 {
			continue
		}
		if i > 0 {
			p := class[s[i-1]]
			if p&clAlnum != 0 && (p&clLower == 0 || c&clUpper == 0) {
				continue // inside a word and not at a CamelCase hump
			}
		}
		for _, kw := range keywords[s[i]|0x20-'a'] {
			if len(s)-i >= len(kw) && strings.EqualFold(s[i:i+len(kw)], kw) && !nameAt(s, i) {
				return true
			}
		}
	}
	return false
}

func progressLikeRef(s string) bool {
	digit, letter := false, false
	for i := 0; i < len(s); i++ {
		c := s[i]
		digit = digit || c >= '0' && c <= '9'
		letter = letter || c >= 0x80 || c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	return digit && letter
}

func checkLineInfo(t *testing.T, s string) {
	t.Helper()
	progress, keep := lineInfo(s)
	wantKeep := hasKeywordRef(s) || isLocation(s)
	if progress != progressLikeRef(s) || keep != wantKeep || progressLike(s) != progress || looksLikeError(s) != wantKeep {
		t.Fatalf("lineInfo(%q) = %v, %v; want %v, %v", s, progress, keep, progressLikeRef(s), wantKeep)
	}
}

func TestKeywordsShape(t *testing.T) {
	for c, kws := range keywords {
		for _, kw := range kws {
			// scanLine and keywordAt rely on these.
			if len(kw) < 4 || kw[0] != byte('a'+c) || kw[1] < 'a' || kw[1] > 'z' || strings.ToLower(kw) != kw {
				t.Errorf("keyword %q", kw)
			}
		}
	}
}

func TestLineInfo(t *testing.T) {
	var corpus []string
	for _, tt := range renderTests {
		corpus = append(corpus, strings.Split(tt.in, "\n")...)
		corpus = append(corpus, tt.want...)
	}
	corpus = append(corpus, buildLog(3000, nil)...)
	corpus = append(corpus, seq(1, 3000)...)
	for i := range 300 {
		corpus = append(corpus, fmt.Sprintf("Größe: %d Bytes — 日本語のテキスト — ✓ fertig", i), fmt.Sprintf("Größe%dFehler", i))
	}
	for _, tt := range []string{
		"foo.c:12:5: error: expected ';'", "ValueError: x", "ModuleNotFoundError", "npm ERR! code", "Segmentation fault (core dumped)",
		"\tat com.x.NullPointerException.foo", "--- FAIL: TestX", "a terrorist", "gcc -Werror", "xfail", "aFail", "AFail", "a1Fail",
		"a_fail", "é fail", "éfail", "日本error", "fai", "fail", "err", "err!", "ERR!", "Err!x", "cannot", "core dump", "core dumped",
		"no such fil", "no such file", "not found", "Timed Out", "unable to", "undefined symbol", "undefined reference",
	} {
		corpus = append(corpus, tt)
		// Move the line across the 8-byte words scanLine reads.
		for pad := 1; pad <= 17; pad++ {
			corpus = append(corpus, strings.Repeat(" ", pad)+tt, strings.Repeat("x", pad)+tt, strings.Repeat("1", pad)+tt, strings.Repeat("x", pad)+" "+tt)
		}
	}
	rng := rand.New(rand.NewPCG(1, 1))
	alphabet := "aAbcdeEfFinoOprRstTuUwxX!: 19_.\t\x00\x7f\x80\xc3\xa9\xff"
	for range 20000 {
		b := make([]byte, rng.IntN(40))
		for i := range b {
			b[i] = alphabet[rng.IntN(len(alphabet))]
		}
		corpus = append(corpus, string(b))
	}
	for _, s := range corpus {
		checkLineInfo(t, s)
	}
}

func FuzzLineInfo(f *testing.F) {
	f.Add("foo.c:12:5: error: expected ';'")
	f.Add("  CC [M]  drivers/net/alpha_bravo.o")
	f.Add("1234567")
	f.Add("xxxxxxxValueError")
	f.Fuzz(func(t *testing.T, s string) {
		checkLineInfo(t, s)
	})
}

// renderBoth renders in, cut at cuts, with the bulk path and without, and
// fails if lines, nums or Pending after any Write differ. The bulk side
// keeps lines itself (Emit nil), the other side emits them, so that the
// bulk side's shared storage is checked against lines of their own.
func renderBoth(t *testing.T, in []byte, cuts []int, window int) {
	t.Helper()
	var slowLines []string
	var slowNums []int64
	fast := Renderer{Window: window}
	slow := Renderer{Window: window, slow: true, Emit: func(s string, num int64) {
		slowLines = append(slowLines, s)
		slowNums = append(slowNums, num)
	}}
	var emitLines []string // and the bulk path with Emit
	emitted := Renderer{Window: window}
	emitted.Emit = func(s string, _ int64) { emitLines = append(emitLines, s) }
	prev := 0
	for _, c := range append(slices.Clone(cuts), len(in)) {
		c = min(max(c, prev), len(in))
		fast.Write(in[prev:c])
		slow.Write(in[prev:c])
		emitted.Write(in[prev:c])
		if a, b := fast.Pending(), slow.Pending(); !slices.Equal(a, b) {
			t.Fatalf("%q cut at %v, window %d: Pending after %d bytes\n got %q\nwant %q", in, cuts, window, c, a, b)
		}
		prev = c
	}
	fast.Flush()
	slow.Flush()
	emitted.Flush()
	lines, nums := fast.Lines()
	if !slices.Equal(lines, slowLines) || !slices.Equal(nums, slowNums) || !slices.Equal(emitLines, slowLines) {
		t.Fatalf("%q cut at %v, window %d:\n got %q %v\nwant %q %v", in, cuts, window, lines, nums, slowLines, slowNums)
	}
}

// renderCorpus is every stream the tests render, and long ones made of
// plain lines with a little else between them.
func renderCorpus() [][]byte {
	var all [][]byte
	for _, tt := range renderTests {
		all = append(all, []byte(tt.in))
	}
	for _, tt := range splitTranscripts {
		all = append(all, []byte(tt.in))
	}
	all = append(all, seqOutput(3000), buildLogOutput(3000),
		// A row of cells, emptied, then a plain line: bulk must leave it
		// to the parser, as a row of cells does not pad empty text (the
		// C1 control) to the cursor.
		[]byte("abc\x1bDé\rX\r\x1b[Kabc\n\x1b[A\x1b[5C\u0085\n"))
	var mixed bytes.Buffer
	for i := 0; i < 3000; i++ {
		fmt.Fprintf(&mixed, "line %d\r\n", i)
		switch i % 97 {
		case 10:
			mixed.WriteString(multiProgress(3, 2))
		case 20:
			mixed.WriteString("\x1b[32mgreen\x1b[0m\r\n")
		case 30:
			mixed.WriteString("50%\r100%\r\n")
		case 40:
			mixed.WriteString("é日本 ✓\r\n\r\n\n")
		case 50:
			mixed.WriteString("\x1b[3A\x1b[2Kup\r\n")
		case 60:
			mixed.WriteString("bad \xff\xc2\x85\r\n")
		case 70:
			mixed.WriteString("\x1b7\x1b[24;1Hstatus\x1b8")
		case 80:
			mixed.WriteString("a\x1bEb\x1bDc\r\n")
		}
	}
	all = append(all, mixed.Bytes())
	return all
}

func TestRenderBulk(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	for _, in := range renderCorpus() {
		for _, window := range []int{0, 1, 2, 3, 8} {
			renderBoth(t, in, nil, window)
			for range 20 {
				renderBoth(t, in, []int{rng.IntN(len(in) + 1), rng.IntN(len(in) + 1)}, window)
			}
		}
		if len(in) < 3000 {
			for i := 0; i <= len(in); i++ {
				renderBoth(t, in, []int{i}, 0)
			}
		}
	}
	// Whole outputs, as RenderNumbered renders them.
	for _, in := range renderCorpus() {
		lines, nums := RenderNumbered(in)
		var want []string
		var wantNums []int64
		r := Renderer{slow: true, Emit: func(s string, num int64) { want, wantNums = append(want, s), append(wantNums, num) }}
		r.Write(in)
		r.Flush()
		if !slices.Equal(lines, want) || !slices.Equal(nums, wantNums) {
			t.Fatalf("RenderNumbered(%.200q) differs from the slow path", in)
		}
	}
}

func FuzzRenderBulk(f *testing.F) {
	for _, in := range renderCorpus() {
		if len(in) < 2000 {
			f.Add(in, uint16(len(in)/2), uint8(0))
		}
	}
	f.Add([]byte("a\nb\r\n\r\r\nc\x1b[2Ad\ne\n"), uint16(3), uint8(2))
	f.Fuzz(func(t *testing.T, in []byte, cut uint16, window uint8) {
		renderBoth(t, in, []int{int(cut)}, int(window%6))
	})
}

// TestRenderLinear pins that Write reads no byte many times: bulk gives up
// on a line it cannot take until the next line, also when the line is
// not finished.
func TestRenderLinear(t *testing.T) {
	const n = 1 << 20
	start := time.Now()
	for _, in := range []string{strings.Repeat("\r", n), strings.Repeat("a\r", n/2), strings.Repeat("\x00", n), strings.Repeat("\x1b[K", n/3)} {
		if lines := Render([]byte(in)); len(lines) > 1 {
			t.Fatalf("%d lines", len(lines))
		}
	}
	// Linear time is milliseconds, quadratic minutes.
	if d := time.Since(start); d > 20*time.Second {
		t.Errorf("took %v", d)
	}
}

// TestRenderAllocs pins that rendering many lines takes a few large
// allocations rather than one per line.
func TestRenderAllocs(t *testing.T) {
	in := seqOutput(100_000)
	if n := testing.AllocsPerRun(3, func() { RenderNumbered(in) }); n > 40 {
		t.Errorf("RenderNumbered of 100,000 lines allocates %v times", n)
	}
	lines, nums := RenderNumbered(in)
	small := testing.AllocsPerRun(3, func() { Reduce(lines[:1000], Options{LineNumbers: nums, ReadHint: hint}) })
	big := testing.AllocsPerRun(3, func() { Reduce(lines, Options{LineNumbers: nums, ReadHint: hint}) })
	// The point is that Reduce does not allocate per line (100,000 lines
	// would mean ~100,000 allocations). The count itself wobbles by a few
	// dozen under -race and GC timing, so allow that much.
	if big > small+100 {
		t.Errorf("Reduce allocates %v times for 1,000 lines and %v for 100,000", small, big)
	}
}

// reduceBoth reduces lines with runs of plain lines and with one entry per
// line, and fails if the results differ.
func reduceBoth(t *testing.T, lines []string, opt Options) {
	t.Helper()
	got, want := reduceLines(lines, opt, false), reduceLines(lines, opt, true)
	if !slices.Equal(got.Lines, want.Lines) || got.Text != want.Text || got.Elided != want.Elided || got.Collapsed != want.Collapsed ||
		got.Cut != want.Cut || got.RawLines != want.RawLines || !slices.Equal(got.Notes, want.Notes) {
		t.Fatalf("%d lines, options %+v:\n got %q %q\nwant %q %q", len(lines), opt, got.Lines, got.Notes, want.Lines, want.Notes)
	}
}

func TestReduceRuns(t *testing.T) {
	var corpora [][]string
	for _, in := range renderCorpus() {
		corpora = append(corpora, Render(in))
	}
	put := map[int]string{}
	for i := 0; i < 120; i++ {
		put[100+10*i] = fmt.Sprintf("warning: thing %c is deprecated", 'A'+i%26)
	}
	corpora = append(corpora, seq(1, 5000), buildLog(5000, put), buildLog(5000, map[int]string{1199: "x.c:1:1: error: e"}))
	var mixed []string
	for i := 0; i < 2000; i++ {
		switch i % 50 {
		case 5, 6, 7, 8:
			mixed = append(mixed, "same")
		case 10, 11, 12, 13, 14, 15, 16:
			mixed = append(mixed, fmt.Sprintf("Downloading %d%%", i))
		case 20:
			mixed = append(mixed, "error: disk full", "error: disk full", "error: disk full")
		case 30:
			mixed = append(mixed, "x.go:1:2: bad", "CUSTOM")
		default:
			mixed = append(mixed, fmt.Sprintf("line %c%c", 'a'+i%26, 'a'+i/26%26))
		}
	}
	corpora = append(corpora, mixed)
	opts := []Options{
		{}, {ReadHint: hint}, {ReadHint: hint, FirstLine: 1001}, {MaxLines: 10, Head: 2, Tail: 3}, {MaxLines: 5, Head: -1, Tail: 2},
		{MaxLines: -1}, {DigitRun: -1, MaxLines: 50}, {DigitRun: 3, MaxLines: 30, Head: 5, Tail: 5}, {MaxLineLen: 10},
		{KeepPattern: regexp.MustCompile(`^CUSTOM|same`), MaxLines: 40}, {MaxLines: 20, Head: 0, Tail: -1},
	}
	for _, lines := range corpora {
		for _, opt := range opts {
			reduceBoth(t, lines, opt)
		}
	}
	rng := rand.New(rand.NewPCG(5, 6))
	for range 300 {
		lines := corpora[rng.IntN(len(corpora))]
		a := rng.IntN(len(lines) + 1)
		b := a + rng.IntN(len(lines)-a+1)
		opt := Options{MaxLines: rng.IntN(80) - 2, Head: rng.IntN(20) - 1, Tail: rng.IntN(20) - 1, DigitRun: rng.IntN(9) - 1, ReadHint: hint}
		reduceBoth(t, lines[a:b], opt)
	}
}

func FuzzReduceRuns(f *testing.F) {
	f.Add("a\na\na\nb 1\nb 2\nb 3\nb 4\nb 5\nb 6\nerror 1\nc", uint8(3), uint8(1), uint8(1), uint8(5), false)
	f.Add(strings.Join(buildLog(30, map[int]string{15: "x.c:1:2: error: y"}), "\n"), uint8(10), uint8(3), uint8(3), uint8(4), true)
	f.Fuzz(func(t *testing.T, in string, maxLines, head, tail, digitRun uint8, custom bool) {
		opt := Options{MaxLines: int(maxLines) - 1, Head: int(head%32) - 1, Tail: int(tail%32) - 1, DigitRun: int(digitRun%10) - 1, ReadHint: hint}
		if custom {
			opt.KeepPattern = regexp.MustCompile(`[0-4]x|e`)
		}
		reduceBoth(t, strings.Split(in, "\n"), opt)
	})
}

// goldenInput makes the output of a made-up session: plain lines (numbers,
// a build log, progress, repeats, errors) with terminal controls between
// them.
func goldenInput(rng *rand.Rand) []byte {
	pieces := []string{
		"\r\n", "\n", "\r", "\x1b[32m", "\x1b[0m", "\x1b[2A", "\x1b[K", "\x1b[2K", "\x1b[1B", "\x1b7", "\x1b8", "\x1b[5;1H",
		"\x1bM", "\x1bD", "\x1bE", "\t", "\b", "é", "日本", "\xff", "\xc2\x85", "\xe2\x82", "\x1b]0;title\x07", "\x1b[3P",
		"\x1b[2@", "\x1b[4X", "\x1b[J", "\x1b[1K", "\x1b[10G", "\x1b[3C", "\x1b[s", "\x1b[u", "\x00", "\x7f",
	}
	var b bytes.Buffer
	n := rng.IntN(3000)
	for i := 0; i < n; i++ {
		switch k := rng.IntN(100); {
		case k < 30:
			fmt.Fprintf(&b, "%d\r\n", i)
		case k < 45:
			fmt.Fprintf(&b, "  CC      drivers/%c%c/file%d.o\r\n", 'a'+rng.IntN(26), 'a'+rng.IntN(26), rng.IntN(5))
		case k < 55:
			fmt.Fprintf(&b, "Downloading %d%% (%d.%d MB/s)\r\n", i%100, i/10, i%10)
		case k < 62:
			b.WriteString("retrying\r\n")
		case k < 65:
			fmt.Fprintf(&b, "x.c:%d:1: error: bad thing\r\n", i)
		case k < 67:
			fmt.Fprintf(&b, "warning: %s is deprecated\r\n", []string{"foo", "bar"}[rng.IntN(2)])
		case k < 69:
			fmt.Fprintf(&b, "%s\r\n", strings.Repeat("long ", 10+rng.IntN(500)))
		default:
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
	}
	return b.Bytes()
}

func goldenOptions(rng *rand.Rand) Options {
	opt := Options{FirstLine: int64(rng.IntN(3) * 1000)}
	if rng.IntN(2) == 0 {
		opt.ReadHint = hint
	}
	if rng.IntN(2) == 0 {
		opt.MaxLines, opt.Head, opt.Tail = rng.IntN(300)-1, rng.IntN(80)-1, rng.IntN(80)-1
	}
	if rng.IntN(3) == 0 {
		opt.DigitRun = rng.IntN(10) - 1
	}
	if rng.IntN(3) == 0 {
		opt.MaxLineLen = rng.IntN(600) - 1
	}
	if rng.IntN(6) == 0 {
		opt.KeepPattern = regexp.MustCompile(`retry|[02468]$`)
	}
	return opt
}

// TestGolden pins what RenderNumbered and Reduce give for 400 made-up
// sessions to what they gave before the fast paths: the digest is of the
// byte-at-a-time renderer and of Reduce with one entry per line, as they
// were. If a change to the rules changes it on purpose, put the new
// digest here.
func TestGolden(t *testing.T) {
	const want = "17796d168be8586139422757fb94969a02946b4020515cd92bef06c0114c9a2b" // issue #13 item 11: markers that pay for themselves, dense markers merged
	rng := rand.New(rand.NewPCG(2024, 11))
	h := sha256.New()
	for range 400 {
		in := goldenInput(rng)
		opt := goldenOptions(rng)
		lines, nums := RenderNumbered(in)
		opt.LineNumbers = nums
		res := Reduce(lines, opt)
		fmt.Fprintf(h, "%q %v\n%q %d %d %d %d %q\n", lines, nums, res.Text, res.Elided, res.Collapsed, res.Cut, res.RawLines, res.Notes)
	}
	if got := fmt.Sprintf("%x", h.Sum(nil)); got != want {
		t.Errorf("digest %s, want %s", got, want)
	}
}
