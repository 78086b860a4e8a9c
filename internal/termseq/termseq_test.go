package termseq_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/termseq"
	"github.com/ttymux/ttymux/internal/termseq/seqtest"
)

type seg = seqtest.Segment

func segs(sc termseq.Scanner, chunks ...string) []seg {
	bs := make([][]byte, len(chunks))
	for i, c := range chunks {
		bs[i] = []byte(c)
	}
	return seqtest.Segments(sc, bs...)
}

// TestSegments pins how the grammar splits each kind of input.
func TestSegments(t *testing.T) {
	tests := []struct {
		name string
		sc   termseq.Scanner
		in   string
		want []string // segments' bytes
		last seg      // checked fields of the last segment that is not text
	}{
		{name: "csi", in: "a\x1b[?1;2004hb", want: []string{"a", "\x1b[?1;2004h", "b"},
			last: seg{Event: termseq.CSI, Final: 'h', Marker: '?', Params: "1;2004"}},
		{name: "csi empty params", in: "\x1b[;5H", want: []string{"\x1b[;5H"},
			last: seg{Event: termseq.CSI, Final: 'H', Params: "-1;5"}},
		{name: "osc bel", in: "\x1b]0;t\x07x", want: []string{"\x1b]0;t\x07", "x"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermBEL, Payload: "0;t"}},
		{name: "osc st", in: "\x1b]0;t\x1b\\x", want: []string{"\x1b]0;t", "\x1b\\", "x"},
			last: seg{Event: termseq.Esc, Final: '\\'}},
		{name: "osc 8-bit st", in: "\x1b]0;t\x9cx", want: []string{"\x1b]0;t\x9c", "x"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermST, Payload: "0;t"}},
		{name: "osc 9c in utf8", in: "\x1b]0;\xe2\x9c\x93\x07", want: []string{"\x1b]0;\xe2\x9c\x93\x07"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermBEL, Payload: "0;✓"}},
		{name: "apc 9c always ends", in: "\x1b_\xe2\x9c\x93", want: []string{"\x1b_\xe2\x9c", "\x93"},
			last: seg{Event: termseq.StringEnd, Kind: '_', Term: termseq.TermST, Payload: "\xe2"}},
		{name: "dcs bel is data", in: "\x1bPa\x07b\x1b\\", want: []string{"\x1bPa\x07b", "\x1b\\"},
			last: seg{Event: termseq.Esc, Final: '\\'}},
		{name: "dcs first esc is data", in: "\x1bP\x1bx\x1b\\", want: []string{"\x1bP\x1bx", "\x1b\\"},
			last: seg{Event: termseq.Esc, Final: '\\'}},
		{name: "can", in: "\x1b]0;t\x18x", want: []string{"\x1b]0;t\x18", "x"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermCancel, Payload: "0;t"}},
		{name: "control in csi", in: "\x1b[1\n2m", want: []string{"\x1b[1\n2m"},
			last: seg{Event: termseq.CSI, Final: 'm', Params: "12", Controls: "\n"}},
		{name: "param after intermediate", in: "\x1b[ 1q", want: []string{"\x1b[ 1", "q"},
			last: seg{Event: termseq.Cancel}},
		{name: "8-bit abandons", in: "\x1b[1\xc3\xa9", want: []string{"\x1b[1", "\xc3\xa9"},
			last: seg{Event: termseq.Cancel}},
		{name: "esc esc", in: "\x1b\x1b[A", want: []string{"\x1b", "\x1b[A"},
			last: seg{Event: termseq.CSI, Final: 'A', Params: "-1"}},
		{name: "esc intermediate", in: "\x1b(B", want: []string{"\x1b(B"},
			last: seg{Event: termseq.Esc, Final: 'B', Inter: '('}},
		{name: "c1 is text", in: "\x9b31m", want: []string{"\x9b31m"}},
		{name: "truncated", in: "x\x1b[12", want: []string{"x", "\x1b[12"},
			last: seg{Event: termseq.Part}},
		{name: "max string", sc: termseq.Scanner{MaxString: 3}, in: "\x1b]abcdef", want: []string{"\x1b]abc", "def"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermLimit, Payload: "abc"}},
		{name: "max string exact", sc: termseq.Scanner{MaxString: 3}, in: "\x1b]abc\x07d", want: []string{"\x1b]abc\x07", "d"},
			last: seg{Event: termseq.StringEnd, Kind: ']', Term: termseq.TermBEL, Payload: "abc"}},
		{name: "keys ss3", sc: termseq.Scanner{Keys: true}, in: "\x1bOAx", want: []string{"\x1bOA", "x"},
			last: seg{Event: termseq.Esc, Final: 'A', Inter: 'O'}},
		{name: "keys no strings", sc: termseq.Scanner{Keys: true}, in: "\x1b]rm", want: []string{"\x1b]", "rm"},
			last: seg{Event: termseq.Esc, Final: ']'}},
		{name: "keys csi ends at control", sc: termseq.Scanner{Keys: true}, in: "\x1b[1\nx", want: []string{"\x1b[1", "\nx"},
			last: seg{Event: termseq.Cancel}},
		{name: "keys alt+letter", sc: termseq.Scanner{Keys: true}, in: "\x1bb", want: []string{"\x1bb"},
			last: seg{Event: termseq.Esc, Final: 'b'}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			for split := range len(tc.in) + 1 {
				got := segs(tc.sc, tc.in[:split], tc.in[split:])
				var bs []string
				var last seg
				for _, g := range got {
					bs = append(bs, g.Bytes)
					if g.Event != termseq.Text {
						last = g
					}
				}
				if !slices.Equal(bs, tc.want) {
					t.Fatalf("split %d: segments %q, want %q (%v)", split, bs, tc.want, got)
				}
				last.Start, last.Bytes = 0, ""
				if tc.last.Event == termseq.Text {
					continue
				}
				if last != tc.last {
					t.Fatalf("split %d: last sequence %+v, want %+v", split, last, tc.last)
				}
			}
		})
	}
}

// TestCorpusEverySplit checks that the corpus reads the same at every
// split into two or three chunks.
func TestCorpusEverySplit(t *testing.T) {
	for _, c := range seqtest.Corpus {
		whole := segs(termseq.Scanner{}, c.In)
		for i := range len(c.In) + 1 {
			for j := i; j <= len(c.In); j++ {
				got := segs(termseq.Scanner{}, c.In[:i], c.In[i:j], c.In[j:])
				if !slices.Equal(got, whole) {
					t.Fatalf("%s: split %d,%d: %v, want %v", c.Name, i, j, got, whole)
				}
			}
		}
	}
}

// FuzzSegments checks that the segments of any input put together are the
// input, that they start where they say, and that they do not depend on
// where the input is split; and that Next never panics.
func FuzzSegments(f *testing.F) {
	for _, c := range seqtest.Corpus {
		f.Add([]byte(c.In), uint16(len(c.In)/2), uint16(len(c.In)/3), false, uint8(0))
	}
	f.Fuzz(func(t *testing.T, in []byte, a, b uint16, keys bool, limit uint8) {
		sc := termseq.Scanner{Keys: keys, MaxString: int(limit)}
		whole := seqtest.Segments(sc, in)
		var all strings.Builder
		for _, s := range whole {
			if s.Start != int64(all.Len()) {
				t.Fatalf("segment %v starts at %d, want %d", s, s.Start, all.Len())
			}
			all.WriteString(s.Bytes)
		}
		if all.String() != string(in) {
			t.Fatalf("segments %q put together differ from the input %q", all.String(), in)
		}
		i := min(int(a), len(in))
		j := min(max(int(b), i), len(in))
		split := seqtest.Segments(sc, in[:i], in[i:j], in[j:])
		if !slices.Equal(split, whole) {
			t.Fatalf("split at %d,%d: %v, want %v", i, j, split, whole)
		}
	})
}

// TestNoAllocs pins that scanning does not allocate.
func TestNoAllocs(t *testing.T) {
	in := []byte(strings.Repeat("\x1b[1;31mred\x1b[0m \x1b]0;title\x07\x1bPq\x1b\\text\r\n", 100))
	var sc termseq.Scanner
	n := testing.AllocsPerRun(100, func() {
		for p := in; len(p) > 0; {
			k, _ := sc.Next(p)
			p = p[k:]
		}
	})
	if n != 0 {
		t.Fatalf("%v allocations per scan, want 0", n)
	}
}

func BenchmarkNext(b *testing.B) {
	var data []byte
	for i := 0; len(data) < 1<<20; i++ {
		data = append(data, "\x1b[01;34mdir\x1b[0m  file.go  \x1b]0;title\x07 more text on the line\r\n"...)
	}
	b.SetBytes(int64(len(data)))
	var sc termseq.Scanner
	for b.Loop() {
		for p := data; len(p) > 0; {
			n, _ := sc.Next(p)
			p = p[n:]
		}
	}
}
