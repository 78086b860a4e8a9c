package reduce

import (
	"bytes"
	"fmt"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/ttymux/ttymux/internal/termseq"
	"github.com/ttymux/ttymux/internal/termseq/seqtest"
)

// renderTests are transcripts with the lines a terminal leaves for them.
// TestRenderSplit feeds each one at every split point.
var renderTests = []struct {
	name string
	in   string
	want []string
}{
	{name: "empty", in: "", want: nil},
	{name: "plain", in: "a\nbb\n\nccc", want: []string{"a", "bb", "", "ccc"}},
	{name: "trailing newline is no line", in: "a\nb\n", want: []string{"a", "b"}},
	{name: "lone newline", in: "\n", want: []string{""}},
	{name: "crlf", in: "one\r\ntwo\r\n", want: []string{"one", "two"}},
	{name: "progress bar", in: "10%\r20%\r100%\n", want: []string{"100%"}},
	{name: "progress bar with erase", in: "get 1/3\r\x1b[Kget 2/3\r\x1b[Kget 3/3\r\x1b[Kdone\n", want: []string{"done"}},
	{name: "shorter overwrite keeps the tail", in: "abcdef\rxy\n", want: []string{"xycdef"}},
	{name: "cr at end", in: "abc\r", want: []string{"abc"}},
	{name: "backspace", in: "ab\bc\n", want: []string{"ac"}},
	{name: "backspace past start", in: "a\b\b\bb\n", want: []string{"b"}},
	{name: "overstrike bold", in: "N\bNA\bAM\bME\bE\n", want: []string{"NAME"}},
	{name: "readline rubout", in: "lss\b \b\n", want: []string{"ls "}},
	{name: "tabs", in: "a\tb\n12345678\tx\n\tz", want: []string{"a       b", "12345678        x", "        z"}},
	{name: "tab alone adds nothing", in: "a\t\n", want: []string{"a"}},
	{name: "sgr colours", in: "\x1b[1;31merror\x1b[0m: \x1b[38;5;208mbad\x1b[m\n", want: []string{"error: bad"}},
	{name: "grep colours", in: "\x1b[01;31m\x1b[Kfoo\x1b[m\x1b[K.go:3:x\n", want: []string{"foo.go:3:x"}},
	{name: "osc title bel", in: "\x1b]0;user@host: ~\x07$ ls\n", want: []string{"$ ls"}},
	{name: "osc title st", in: "\x1b]2;title\x1b\\text\n", want: []string{"text"}},
	{name: "osc 8 hyperlink", in: "\x1b]8;;http://x.org/\x1b\\link\x1b]8;;\x1b\\\n", want: []string{"link"}},
	{name: "osc 133 marks", in: "\x1b]133;A\x07$ \x1b]133;B\x07make\n\x1b]133;D;0\x07", want: []string{"$ make"}},
	{name: "dcs apc pm sos", in: "a\x1bPq#0;2;0;0;0~~\x1b\\b\x1b_Gf=100;AAAA\x1b\\c\x1b^pm\x1b\\d\x1bXsos\x1b\\e\n", want: []string{"abcde"}},
	{name: "string ended by another escape", in: "\x1b]0;t\x1b[31mx\n", want: []string{"x"}},
	{name: "charset and keypad escapes", in: "\x1b(Ba\x1b)0b\x1b=c\x1b>d\x1b#8\n", want: []string{"abcd"}},
	{name: "private modes", in: "\x1b[?25l\x1b[?2004hab\x1b[?25h\x1b[>4;1m\x1b[=5u\n", want: []string{"ab"}},
	{name: "erase to end", in: "abcdef\x1b[3D\x1b[K\n", want: []string{"abc"}},
	{name: "erase to start", in: "abcdef\x1b[3D\x1b[1Kx\n", want: []string{"   xef"}},
	{name: "erase to start covers all", in: "abc\x1b[1K\n", want: []string{""}},
	{name: "erase line", in: "abcdef\x1b[2Kxy\n", want: []string{"      xy"}},
	{name: "cursor forward pads", in: "a\x1b[3Cb\x1b[Cc\n", want: []string{"a   b c"}},
	{name: "cursor back and column", in: "abcdef\x1b[2DX\x1b[2GY\x1b[GZ\n", want: []string{"ZYcdXf"}},
	{name: "cursor column past text", in: "ab\x1b[6Gx\n", want: []string{"ab   x"}},
	{name: "delete chars", in: "abcdef\x1b[4G\x1b[2P\n", want: []string{"abcf"}},
	{name: "insert chars", in: "abcdef\x1b[3G\x1b[2@XY\n", want: []string{"abXYcdef"}},
	{name: "erase chars", in: "abcdef\x1b[2G\x1b[3X\n", want: []string{"a   ef"}},
	{name: "erase chars to end", in: "abcdef\x1b[4G\x1b[9X\n", want: []string{"abc"}},
	{name: "huge cursor forward is bounded", in: "a\x1b[99999Cb\n", want: []string{"a" + strings.Repeat(" ", maxGap) + "b"}},
	{
		name: "cursor-up redraw",
		in: "layer1: Waiting\nlayer2: Waiting\n" +
			"\x1b[2A\x1b[2Klayer1: Downloading 10%\n\x1b[2Klayer2: Downloading 50%\n" +
			"\x1b[2A\x1b[2Klayer1: Pull complete\n\x1b[2Klayer2: Pull complete\n" +
			"Digest: sha256:abc\n",
		want: []string{"layer1: Pull complete", "layer2: Pull complete", "Digest: sha256:abc"},
	},
	{
		name: "docker pull up and down",
		in: "Pulling fs layer\r\n\x1b[1A\x1b[2K\rabc: Pulling fs layer\r\x1b[1B" +
			"\n\x1b[1A\x1b[2K\rdef: Pulling fs layer\r\x1b[1B" +
			"\x1b[2A\x1b[2K\rabc: Downloading 1MB/2MB\r\x1b[2B" +
			"\x1b[1A\x1b[2K\rdef: Download complete\r\x1b[1B" +
			"\x1b[2A\x1b[2K\rabc: Pull complete\r\x1b[2B" +
			"Status: Downloaded\r\n",
		want: []string{"abc: Pull complete", "def: Download complete", "Status: Downloaded"},
	},
	{name: "cursor up clamps at top", in: "a\nb\x1b[9AX\n", want: []string{"aX", "b"}},
	{name: "cursor down clamps at bottom", in: "a\nb\x1b[A\x1b[9Bc\n", want: []string{"a", "bc"}},
	{name: "cursor previous and next line", in: "one\ntwo\nthree\x1b[2FONE\x1b[EX\n", want: []string{"ONE", "Xwo", "three"}},
	{name: "reverse index", in: "a\nb\x1bMX\n", want: []string{"aX", "b"}},
	{name: "erase below", in: "x\n1\n2\n3\n\x1b[3A\x1b[Jdone\n", want: []string{"x", "done"}},
	{name: "clear screen is ignored", in: "before\n\x1b[H\x1b[2J\x1b[3Jafter\n", want: []string{"before", "after"}},
	{
		name: "apt status line",
		in: "Reading\n\n\x1b7\x1b[0;23r\x1b8\x1b[1A" +
			"Unpacking a\n\x1b7\x1b[24;0f\x1b[42m\x1b[30mProgress: [ 20%]\x1b[49m\x1b[39m [###.....] \x1b8" +
			"Unpacking b\n\x1b7\x1b[24;0fProgress: [ 60%] \x1b8Setting up b\n" +
			"\x1b7\x1b[0;24r\x1b8\x1b[24;0f\x1b[J",
		want: []string{"Reading", "Unpacking a", "Unpacking b", "Setting up b"},
	},
	{name: "save restore on the same line", in: "abc\x1b7def\x1b8X\n", want: []string{"abcXef"}},
	{name: "absolute move without save is ignored", in: "a\x1b[5;5Hb\n", want: []string{"ab"}},
	{name: "utf8", in: "héllo wörld €5 日本語 🎉\n", want: []string{"héllo wörld €5 日本語 🎉"}},
	{name: "wide chars take one column", in: "日本\r語\n", want: []string{"語本"}},
	{name: "utf8 overwrite", in: "ab€d\r\x1b[2Cé\n", want: []string{"abéd"}},
	{name: "invalid bytes", in: "a\xffb\xfe\n", want: []string{"a\uFFFDb\uFFFD"}},
	{name: "truncated sequence", in: "a\xe2\x82b\n", want: []string{"a\uFFFD\uFFFDb"}},
	{name: "truncated before escape", in: "a\xe2\x82\x1b[mb\n", want: []string{"a\uFFFD\uFFFDb"}},
	{name: "truncated at end", in: "a\xf0\x9f\x8e", want: []string{"a\uFFFD\uFFFD\uFFFD"}},
	{name: "surrogate", in: "\xed\xa0\x80x\n", want: []string{"\uFFFD\uFFFD\uFFFDx"}},
	{name: "raw C1 byte", in: "a\x9b31mb\n", want: []string{"a\uFFFD31mb"}},
	{name: "utf8 C1 controls dropped", in: "a\u009b31mb\u0085c\n", want: []string{"a31mbc"}},
	{name: "other controls dropped", in: "a\x00b\x07c\x0ed\x0fe\x0bf\x0cg\x7fh\n", want: []string{"abcdefgh"}},
	{name: "controls inside csi execute", in: "a\x1b[1\n2Cb\n", want: []string{"a", "            b"}},
	{name: "can aborts csi", in: "a\x1b[3\x18Cb\n", want: []string{"aCb"}},
	{name: "esc restarts csi", in: "a\x1b[3\x1b[1Cb\n", want: []string{"a b"}},
	{name: "non-ascii aborts csi", in: "a\x1b[3é\n", want: []string{"aé"}},
	{name: "unterminated osc is bounded", in: "\x1b]" + strings.Repeat("x", maxString+5) + "\nhello\n", want: []string{"xxxxx", "hello"}},
}

func render(chunks ...[]byte) (lines []string, nums []int64) {
	return renderRows(0, chunks...)
}

func TestRender(t *testing.T) {
	for _, tt := range renderTests {
		t.Run(tt.name, func(t *testing.T) {
			got := Render([]byte(tt.in))
			if !slices.Equal(got, tt.want) {
				t.Errorf("Render(%q)\n got %q\nwant %q", tt.in, got, tt.want)
			}
		})
	}
}

// splitTranscripts are longer streams for TestRenderSplit, besides
// renderTests.
var splitTranscripts = []struct {
	name string
	in   string
}{
	{name: "pip progress", in: "Collecting numpy\r\n" + progress("  Downloading numpy.whl (18.2 MB)", 40) + "Successfully installed\r\n"},
	{name: "coloured build", in: strings.Repeat("\x1b[32m  CC \x1b[0m drivers/net/é.o\r\n\x1b[1;31merror:\x1b[0m boom ✗\r\n", 5)},
	{name: "title and prompt", in: "\x1b]0;me@host:~/src\x07\x1b[01;32mme@host\x1b[00m:\x1b[01;34m~/src\x1b[00m$ make\r\n"},
	{name: "multibyte mix", in: "€€€ 日本語 🎉🎉 ça va\r\nÅngström\xff\xc3\r\n"},
	{name: "multi-line progress", in: multiProgress(3, 4)},
	{name: "backspaces and tabs", in: "a\tb\bc\t\b\bd\r\n\tx\b\by\n"},
}

func progress(prefix string, steps int) string {
	var b strings.Builder
	for i := 0; i <= steps; i++ {
		fmt.Fprintf(&b, "\r%s \x1b[32m%s\x1b[0m %3d%%", prefix, strings.Repeat("━", i), i*100/steps)
	}
	b.WriteString("\r\n")
	return b.String()
}

// multiProgress imitates BuildKit: it redraws n status lines with
// cursor-up, rounds times.
func multiProgress(n, rounds int) string {
	var b strings.Builder
	for round := 0; round < rounds; round++ {
		if round > 0 {
			fmt.Fprintf(&b, "\x1b[%dA", n)
		}
		for i := 0; i < n; i++ {
			fmt.Fprintf(&b, "\x1b[2K => step %d/%d %d.%ds\r\n", i+1, n, round, i)
		}
	}
	return b.String()
}

// TestRenderSplit checks that a Renderer's lines do not depend on where the
// stream is split: every transcript at every split point, and one byte at a
// time, gives what one Write gives.
func TestRenderSplit(t *testing.T) {
	type transcript struct{ name, in string }
	var all []transcript
	for _, tt := range renderTests {
		all = append(all, transcript{tt.name, tt.in})
	}
	for _, tt := range splitTranscripts {
		all = append(all, transcript{tt.name, tt.in})
	}
	for _, tt := range all {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			want, wantNums := render(in)
			check := func(how string, got []string, nums []int64) {
				t.Helper()
				if !slices.Equal(got, want) || !slices.Equal(nums, wantNums) {
					t.Fatalf("%s:\n got %q %v\nwant %q %v", how, got, nums, want, wantNums)
				}
			}
			step := 1
			if len(in) > 2000 {
				step = 7 // the long OSC case: enough split points
			}
			for i := 0; i <= len(in); i += step {
				got, nums := render(in[:i], in[i:])
				check(fmt.Sprintf("split at %d", i), got, nums)
			}
			if len(in) <= 2000 {
				var chunks [][]byte
				for i := range in {
					chunks = append(chunks, in[i:i+1])
				}
				got, nums := render(chunks...)
				check("byte at a time", got, nums)
			}
		})
	}
}

func TestRenderNums(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want []int64
	}{
		{name: "plain", in: "a\nb\nc\n", want: []int64{0, 1, 2}},
		{name: "progress bar keeps numbering", in: "x\n1%\r2%\r3%\ny\n", want: []int64{0, 1, 2}},
		{name: "redraw skips numbers", in: multiProgress(2, 3) + "done\n", want: []int64{0, 1, 6}},
		{name: "erase below skips numbers", in: "a\nb\nc\n\x1b[2A\x1b[Jd\ne\n", want: []int64{0, 3, 4}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lines, nums := RenderNumbered([]byte(tt.in))
			if !slices.Equal(nums, tt.want) {
				t.Errorf("RenderNumbered(%q) = %q, nums %v; want nums %v", tt.in, lines, nums, tt.want)
			}
		})
	}
}

// TestRenderWindow checks that lines are held back only as long as
// cursor-up can reach them, are emitted in order, and that Pending shows
// the held-back lines without completing them.
func TestRenderWindow(t *testing.T) {
	var got []string
	r := Renderer{Window: 3, Emit: func(s string, num int64) { got = append(got, fmt.Sprintf("%d:%s", num, s)) }}
	fmt.Fprint(&r, "l0\nl1\nl2\nl3\nl4")
	if want := []string{"0:l0", "1:l1"}; !slices.Equal(got, want) {
		t.Fatalf("emitted %q, want %q", got, want)
	}
	if p, want := r.Pending(), []string{"l2", "l3", "l4"}; !slices.Equal(p, want) {
		t.Fatalf("Pending() = %q, want %q", p, want)
	}
	// Cursor-up cannot reach l1 any more: it stops at l2, the top row.
	fmt.Fprint(&r, "\x1b[5A\rL2")
	r.Flush()
	if want := []string{"0:l0", "1:l1", "2:L2", "3:l3", "4:l4"}; !slices.Equal(got, want) {
		t.Fatalf("emitted %q, want %q", got, want)
	}
	if p := r.Pending(); len(p) != 0 {
		t.Fatalf("Pending() after Flush = %q, want none", p)
	}
	// Writes after Flush start a new line and keep counting '\n'.
	fmt.Fprint(&r, "more\n")
	r.Flush()
	if want := "4:more"; got[len(got)-1] != want {
		t.Fatalf("last emitted %q, want %q", got[len(got)-1], want)
	}
}

// TestRenderFlushPartialRune pins that a UTF-8 character cut off by the end
// of the output shows as U+FFFD instead of vanishing.
func TestRenderFlushPartialRune(t *testing.T) {
	var r Renderer
	r.Write([]byte("ab\xe2\x82"))
	if p, want := r.Pending(), []string{"ab"}; !slices.Equal(p, want) {
		t.Fatalf("Pending() = %q, want %q", p, want)
	}
	r.Flush()
	if got, _ := r.Lines(); !slices.Equal(got, []string{"ab\uFFFD\uFFFD"}) {
		t.Fatalf("Lines() = %q", got)
	}
}

func TestStripANSI(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{name: "clean", in: "hello, wörld", want: "hello, wörld"},
		{name: "clean lines", in: "a\nb\n", want: "a\nb\n"},
		{name: "colours", in: "\x1b[1mbold\x1b[0m and \x1b[4munder\x1b[24m", want: "bold and under"},
		{name: "trailing newline kept", in: "\x1b[32mok\x1b[m\n", want: "ok\n"},
		{name: "carriage return", in: "50%\r100%", want: "100%"},
		{name: "title", in: "\x1b]0;t\x07x", want: "x"},
		{name: "invalid utf8", in: "a\xffb", want: "a\uFFFDb"},
		{name: "tab expands", in: "a\tb", want: "a       b"},
		{name: "c1", in: "a\u009bb", want: "ab"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StripANSI(tt.in); got != tt.want {
				t.Errorf("StripANSI(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestStripANSINoCopy(t *testing.T) {
	s := strings.Repeat("plain text ", 100)
	if n := testing.AllocsPerRun(10, func() { _ = StripANSI(s) }); n != 0 {
		t.Errorf("StripANSI of clean text allocates %v times", n)
	}
}

// checkLines reports what is wrong with rendered lines: each must be valid
// UTF-8 without control characters.
func checkLines(lines []string) error {
	for _, l := range lines {
		if !utf8.ValidString(l) {
			return fmt.Errorf("invalid UTF-8 in %q", l)
		}
		for i := 0; i < len(l); i++ {
			if c := l[i]; c < 0x20 || c == 0x7f {
				return fmt.Errorf("control byte %#x in %q", c, l)
			}
		}
		if strings.ContainsFunc(l, func(c rune) bool { return c >= 0x80 && c < 0xa0 }) {
			return fmt.Errorf("C1 control in %q", l)
		}
	}
	return nil
}

func FuzzRenderer(f *testing.F) {
	for _, tt := range renderTests {
		if len(tt.in) < 1000 {
			f.Add([]byte(tt.in), uint16(len(tt.in)/2), uint16(3))
		}
	}
	for _, tt := range splitTranscripts {
		f.Add([]byte(tt.in), uint16(len(tt.in)/3), uint16(7))
	}
	f.Fuzz(func(t *testing.T, in []byte, split, split2 uint16) {
		want, wantNums := render(in)
		if err := checkLines(want); err != nil {
			t.Fatalf("Render(%q): %v", in, err)
		}
		for i := 1; i < len(wantNums); i++ {
			if wantNums[i] < wantNums[i-1] {
				t.Fatalf("Render(%q): nums %v decrease", in, wantNums)
			}
		}
		if n := int64(bytes.Count(in, []byte("\n"))); len(wantNums) > 0 && wantNums[len(wantNums)-1] > n {
			t.Fatalf("Render(%q): num %d beyond %d newlines", in, wantNums[len(wantNums)-1], n)
		}
		a := int(split) % (len(in) + 1)
		b := a + int(split2)%(len(in)-a+1)
		got, nums := render(in[:a], in[a:b], in[b:])
		if !slices.Equal(got, want) || !slices.Equal(nums, wantNums) {
			t.Fatalf("split %d,%d of %q:\n got %q %v\nwant %q %v", a, b, in, got, nums, want, wantNums)
		}
		if s := StripANSI(string(in)); !utf8.ValidString(s) || strings.Contains(s, "\x1b") {
			t.Fatalf("StripANSI(%q) = %q", in, s)
		}
	})
}

// benchInputs are the streams BenchmarkRenderer measures: a plain build
// log, the same in colour, non-ASCII text, and a carriage-return progress
// bar.
func benchInputs() []struct {
	name string
	in   []byte
} {
	var plain, colour, utf, bar bytes.Buffer
	for i := 0; plain.Len() < 4<<20; i++ {
		fmt.Fprintf(&plain, "  CC      drivers/net/ethernet/intel/e1000e/netdev%d.o\r\n", i)
		fmt.Fprintf(&colour, "\x1b[32m  CC\x1b[0m      \x1b[1mdrivers/net/ethernet/intel/e1000e/netdev%d.o\x1b[0m\r\n", i)
		fmt.Fprintf(&utf, "Größe: %d Bytes — 日本語のテキスト — ✓ fertig\n", i)
	}
	for bar.Len() < 4<<20 {
		for i := 0; i <= 100; i++ {
			fmt.Fprintf(&bar, "\r  Downloading numpy-2.1.whl %3d%% |%-50s| 18.2 MB/s", i, strings.Repeat("#", i/2))
		}
		bar.WriteString("\r\n")
	}
	return []struct {
		name string
		in   []byte
	}{{"plain", plain.Bytes()}, {"colour", colour.Bytes()}, {"utf8", utf.Bytes()}, {"progress", bar.Bytes()}}
}

func BenchmarkRenderer(b *testing.B) {
	for _, bi := range benchInputs() {
		b.Run(bi.name, func(b *testing.B) {
			b.SetBytes(int64(len(bi.in)))
			for b.Loop() {
				r := Renderer{Emit: func(string, int64) {}}
				for p := bi.in; len(p) > 0; {
					n := min(len(p), 32<<10) // PTY-sized reads
					r.Write(p[:n])
					p = p[n:]
				}
				r.Flush()
			}
		})
	}
}

// TestRenderLongLineEdits pins that in-line edits on a very long line take
// linear time: each CSI K on a non-ASCII row used to decode the row up to
// the cursor, and CSI P shifts the rest of the row, so a long line followed
// by many of them was quadratic (10¹¹ steps here).
func TestRenderLongLineEdits(t *testing.T) {
	const n, k = 1 << 20, 100_000
	in := []byte(strings.Repeat("é", n) + strings.Repeat("\x1b[D\x1b[K", k) + strings.Repeat("\x1b[1G\x1b[P", k) + "\n")
	lines := Render(in)
	if len(lines) != 1 || utf8.RuneCountInString(lines[0]) != n-k {
		t.Fatalf("got %d lines of %d characters, want 1 of %d", len(lines), utf8.RuneCountInString(lines[0]), n-k)
	}
}

// TestRenderAgreesWithTermseq checks the renderer against the reference
// segmentation of the shared corpus at every split: taking out every
// sequence termseq finds that the renderer does not implement (keeping the
// controls executed inside them) leaves the rendered lines as they were, so
// the renderer strips exactly what termseq calls a sequence (issue #15).
func TestRenderAgreesWithTermseq(t *testing.T) {
	for _, c := range seqtest.Corpus {
		var kept []byte
		for _, s := range seqtest.Segments(termseq.Scanner{MaxString: maxString}, []byte(c.In)) {
			switch {
			case s.Event == termseq.Text,
				s.Event == termseq.CSI && s.Marker == 0 && s.Inter == 0 && strings.IndexByte("ABCDEFG`KJP@XsuHfd", s.Final) >= 0,
				s.Event == termseq.Esc && s.Inter == 0 && strings.IndexByte("78DEM", s.Final) >= 0:
				kept = append(kept, s.Bytes...)
			case s.Event != termseq.StringEnd:
				kept = append(kept, s.Controls...)
			}
		}
		want := Render(kept)
		for split := range len(c.In) + 1 {
			var got []string
			r := Renderer{Emit: func(s string, _ int64) { got = append(got, s) }}
			r.Write([]byte(c.In[:split]))
			r.Write([]byte(c.In[split:]))
			r.Flush()
			if !slices.Equal(got, want) {
				t.Fatalf("%s, split at %d: %q, want %q", c.Name, split, got, want)
			}
		}
	}
}
