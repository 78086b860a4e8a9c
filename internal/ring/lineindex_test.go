package ring

import (
	"bytes"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

// refLines is the naive line index: the start offset of every line of the
// whole stream, line n at starts[n-1].
type refLines struct{ starts []int64 }

func newRefLines() *refLines { return &refLines{starts: []int64{0}} }

func (ref *refLines) write(base int64, p []byte) {
	for i, b := range p {
		if b == '\n' {
			ref.starts = append(ref.starts, base+int64(i)+1)
		}
	}
}

func (ref *refLines) lines() int64 { return int64(len(ref.starts)) }

// firstLine is the first line whose start is >= start, or lines()+1.
func (ref *refLines) firstLine(start int64) int64 {
	i, _ := slices.BinarySearch(ref.starts, start)
	return int64(i) + 1
}

// lineAt is the number of line starts <= off.
func (ref *refLines) lineAt(off int64) int64 {
	i, _ := slices.BinarySearch(ref.starts, off+1)
	return int64(i)
}

// checkLineStart compares ix.LineStart(n) with the reference.
func checkLineStart(t testing.TB, ix *LineIndex, ref *refLines, n int64) {
	t.Helper()
	got, err := ix.LineStart(n)
	lines, first := ref.lines(), ref.firstLine(ix.r.Start())
	switch {
	case n < 1 || n > lines:
		if !errors.Is(err, ErrNoLine) {
			t.Fatalf("LineStart(%d) with %d lines = %d, %v; want ErrNoLine", n, lines, got, err)
		}
	case n < first:
		var gap *LineGapError
		if !errors.As(err, &gap) {
			t.Fatalf("LineStart(%d) with first line %d = %d, %v; want *LineGapError", n, first, got, err)
		}
		if want := (LineGapError{Requested: n, First: first, Lines: lines}); *gap != want {
			t.Fatalf("LineStart(%d) gap = %+v, want %+v", n, *gap, want)
		}
	default:
		if want := ref.starts[n-1]; err != nil || got != want {
			t.Fatalf("LineStart(%d) = %d, %v; want %d (ring holds %d..%d)", n, got, err, want, ix.r.Start(), ix.r.End())
		}
	}
}

func checkLineAt(t testing.TB, ix *LineIndex, ref *refLines, off int64) {
	t.Helper()
	want := int64(0)
	if off >= ix.r.Start() && off <= ix.r.End() {
		want = ref.lineAt(off)
	}
	if got := ix.LineAt(off); got != want {
		t.Fatalf("LineAt(%d) = %d, want %d (ring holds %d..%d)", off, got, want, ix.r.Start(), ix.r.End())
	}
}

// checkIndex compares ix with the reference: every line and offset near the
// held part when exhaustive, else the edges plus a sample from rng.
func checkIndex(t testing.TB, ix *LineIndex, ref *refLines, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	start, end := ix.r.Start(), ix.r.End()
	if got, want := ix.Lines(), ref.lines(); got != want {
		t.Fatalf("Lines() = %d, want %d", got, want)
	}
	first := ref.firstLine(start)
	if got := ix.FirstLine(); got != first {
		t.Fatalf("FirstLine() = %d, want %d (ring holds %d..%d)", got, first, start, end)
	}
	lines := ref.lines()
	if exhaustive {
		// Every line still held, and the ones just before; lines long
		// gone all get the same answer, so check only the first few.
		for n := int64(-1); n <= 3; n++ {
			checkLineStart(t, ix, ref, n)
		}
		for n := max(4, first-3); n <= lines+1; n++ {
			checkLineStart(t, ix, ref, n)
		}
		for off := start - 2; off <= end+1; off++ {
			checkLineAt(t, ix, ref, off)
		}
		return
	}
	for _, n := range []int64{0, 1, 2, first - 1, first, first + 1, lines - 1, lines, lines + 1} {
		checkLineStart(t, ix, ref, n)
	}
	for _, off := range []int64{start - 1, start, start + 1, end - 1, end, end + 1} {
		checkLineAt(t, ix, ref, off)
	}
	for range 20 {
		checkLineStart(t, ix, ref, first-3+rng.Int64N(lines-first+6))
		checkLineAt(t, ix, ref, start+rng.Int64N(end-start+1))
	}
}

// randomLines returns a stream of lines with random lengths, including empty
// lines and lines longer than a ring of size, and ending with or without '\n'.
func randomLines(rng *rand.Rand, size, total int) []byte {
	var b []byte
	for len(b) < total {
		var n int
		switch rng.IntN(20) {
		case 0, 1, 2, 3:
			n = 0
		case 4:
			n = size + rng.IntN(2*size+1) // longer than the ring
		case 5, 6:
			n = 100 + rng.IntN(1000)
		default:
			n = rng.IntN(12)
		}
		for range n {
			b = append(b, 'a'+byte(rng.IntN(26)))
		}
		b = append(b, '\n')
	}
	if rng.IntN(2) == 0 {
		b = b[:len(b)-1]
	}
	return b
}

// TestLineIndexRandom checks LineIndex against the naive reference on random
// streams, random chunking, several ring sizes and checkpoint spacings.
func TestLineIndexRandom(t *testing.T) {
	tests := []struct {
		name       string
		size       int
		k          int64
		total      int
		exhaustive bool
	}{
		{name: "size 1 k 1", size: 1, k: 1, total: 300, exhaustive: true},
		{name: "size 2 k 2", size: 2, k: 2, total: 300, exhaustive: true},
		{name: "size 16 k 1", size: 16, k: 1, total: 2000, exhaustive: true},
		{name: "size 16 k 3", size: 16, k: 3, total: 2000, exhaustive: true},
		{name: "size 37 k 7", size: 37, k: 7, total: 3000, exhaustive: true},
		{name: "size 100 k 256", size: 100, k: 256, total: 5000, exhaustive: true},
		{name: "size 4096 k 5", size: 4096, k: 5, total: 200_000},
		{name: "size 4096 k 256", size: 4096, k: 256, total: 300_000},
		{name: "size 65536 k 256", size: 65536, k: 256, total: 2_000_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, uint64(tt.size)))
				stream := randomLines(rng, tt.size, tt.total)
				r := New(tt.size)
				ix := newLineIndex(r, tt.k)
				ref := newRefLines()
				for off := 0; off < len(stream); {
					n := min(chunkLen(rng, tt.size), len(stream)-off)
					r.Write(stream[off : off+n])
					ix.Write(stream[off : off+n])
					ref.write(int64(off), stream[off:off+n])
					off += n
					checkIndex(t, ix, ref, tt.exhaustive, rng)
				}
				checkIndex(t, ix, ref, tt.exhaustive, rng)
			}
		})
	}
}

// TestLineIndexShape covers stream shapes with the production checkpoint
// spacing: dense empty lines, `seq` output, one endless line, and lines
// exactly at multiples of the checkpoint spacing.
func TestLineIndexShape(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		stream []byte
	}{
		{name: "only newlines", size: 4096, stream: bytes.Repeat([]byte("\n"), 100_000)},
		{name: "seq", size: 1 << 16, stream: seqOutput(300_000)},
		{name: "one endless line", size: 1000, stream: bytes.Repeat([]byte("x"), 100_000)},
		{name: "crlf lines", size: 4096, stream: bytes.Repeat([]byte("hello\r\n"), 20_000)},
		{name: "256-byte lines", size: 8192, stream: bytes.Repeat([]byte(strings.Repeat("y", 255)+"\n"), 2000)},
		{name: "ring holds less than one line", size: 100, stream: bytes.Repeat([]byte(strings.Repeat("z", 150)+"\n"), 50)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rng := rand.New(rand.NewPCG(5, 6))
			r := New(tt.size)
			ix := NewLineIndex(r)
			ref := newRefLines()
			for off := 0; off < len(tt.stream); {
				n := min(chunkLen(rng, tt.size), len(tt.stream)-off)
				r.Write(tt.stream[off : off+n])
				ix.Write(tt.stream[off : off+n])
				ref.write(int64(off), tt.stream[off:off+n])
				off += n
				checkIndex(t, ix, ref, false, rng)
			}
			// Every line still held, and every offset.
			for n := ix.FirstLine() - 2; n <= ix.Lines()+1; n++ {
				checkLineStart(t, ix, ref, n)
			}
			for off := r.Start() - 1; off <= r.End()+1; off++ {
				checkLineAt(t, ix, ref, off)
			}
			// Memory stays bounded: no more checkpoints than the ring has lines.
			if max := tt.size/checkpointEvery + 2; len(ix.cps) > 2*max {
				t.Errorf("%d checkpoint slots for a %d-byte ring, want <= %d", len(ix.cps), tt.size, 2*max)
			}
		})
	}
}

// TestLineIndexEverySplit feeds one stream in two chunks split at every
// point; the answers must not depend on where the stream was split.
func TestLineIndexEverySplit(t *testing.T) {
	stream := []byte("a\n\nbc\ndefghij\n\n\nklmnopqrstuvwxyz0123\n4\n5")
	for _, size := range []int{3, 8, 20, 100} {
		for _, k := range []int64{1, 2, 3, 256} {
			t.Run(fmt.Sprintf("size=%d/k=%d", size, k), func(t *testing.T) {
				for split := 0; split <= len(stream); split++ {
					r := New(size)
					ix := newLineIndex(r, k)
					ref := newRefLines()
					for _, p := range [][]byte{stream[:split], stream[split:]} {
						ref.write(r.End(), p)
						r.Write(p)
						ix.Write(p)
					}
					checkIndex(t, ix, ref, true, nil)
				}
			})
		}
	}
}

func TestLineIndexErrors(t *testing.T) {
	r := New(16)
	ix := NewLineIndex(r)
	for _, p := range []string{"one\ntwo\nthree\n", "four\nfive\nsix"} {
		r.Write([]byte(p))
		ix.Write([]byte(p))
	}
	// Held: "ee\nfour\nfive\nsix" from offset 11; lines 4..6 start inside.
	tests := []struct {
		name    string
		n       int64
		want    int64
		wantErr string
		is      error
		gap     *LineGapError
	}{
		{name: "zero", n: 0, wantErr: "line 0: lines are numbered from 1: no such line", is: ErrNoLine},
		{name: "negative", n: -3, wantErr: "line -3: lines are numbered from 1: no such line", is: ErrNoLine},
		{name: "past last", n: 7, wantErr: "line 7: output has 6 lines so far: no such line", is: ErrNoLine},
		{
			name: "first line gone", n: 1,
			wantErr: "output from line 1 to line 4 is gone (ring holds lines 4..6): 3 lines lost; continue from line 4",
			gap:     &LineGapError{Requested: 1, First: 4, Lines: 6},
		},
		{
			name: "partly held line counts as gone", n: 3,
			wantErr: "output from line 3 to line 4 is gone (ring holds lines 4..6): 1 lines lost; continue from line 4",
			gap:     &LineGapError{Requested: 3, First: 4, Lines: 6},
		},
		{name: "first held", n: 4, want: 14},
		{name: "last", n: 6, want: 24},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := ix.LineStart(tt.n)
			if tt.wantErr == "" {
				if err != nil || got != tt.want {
					t.Fatalf("LineStart(%d) = %d, %v; want %d", tt.n, got, err, tt.want)
				}
				return
			}
			if err == nil || err.Error() != tt.wantErr {
				t.Fatalf("LineStart(%d) error = %v\nwant %s", tt.n, err, tt.wantErr)
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.is)
			}
			var gap *LineGapError
			if tt.gap != nil && (!errors.As(err, &gap) || *gap != *tt.gap || gap.Lost() != tt.gap.First-tt.n) {
				t.Errorf("gap = %+v, want %+v", gap, tt.gap)
			}
		})
	}
}

// TestLineGapOnlyTail pins the message when the ring holds only the middle
// of the last line and no line start at all.
func TestLineGapOnlyTail(t *testing.T) {
	r := New(4)
	ix := NewLineIndex(r)
	p := []byte("ab\ncdefghij")
	r.Write(p)
	ix.Write(p)
	if got := ix.FirstLine(); got != 3 {
		t.Fatalf("FirstLine() = %d, want Lines()+1 = 3", got)
	}
	_, err := ix.LineStart(2)
	want := "output from line 2 on is gone (the ring holds only the end of line 2): 1 lines lost"
	if err == nil || err.Error() != want {
		t.Fatalf("LineStart(2) error = %v, want %s", err, want)
	}
}

func TestNewLineIndexOnUsedRing(t *testing.T) {
	r := New(100)
	r.Write([]byte("x\ny\n"))
	ix := newLineIndex(r, 1)
	ref := newRefLines()
	ref.write(0, []byte("x\ny\n"))
	r.Write([]byte("zz\n"))
	ix.Write([]byte("zz\n"))
	ref.write(4, []byte("zz\n"))
	checkIndex(t, ix, ref, true, nil)

	r.Write(make([]byte, 200))
	defer func() {
		if recover() == nil {
			t.Error("NewLineIndex on a ring that dropped output did not panic")
		}
	}()
	NewLineIndex(r)
}

func TestLineIndexOutOfStepPanics(t *testing.T) {
	r := New(100)
	ix := NewLineIndex(r)
	r.Write([]byte("abc"))
	defer func() {
		if recover() == nil {
			t.Error("LineIndex.Write with the wrong length did not panic")
		}
	}()
	ix.Write([]byte("ab"))
}

func TestIndexNth(t *testing.T) {
	long := bytes.Repeat([]byte("x"), 5000)
	dense := bytes.Repeat([]byte("\n"), 5000)
	mixed := seqOutput(3000)
	tests := []struct {
		name string
		p    []byte
	}{
		{name: "empty", p: nil},
		{name: "no newline", p: long},
		{name: "dense", p: dense},
		{name: "seq", p: mixed},
		{name: "sparse", p: append(append(bytes.Clone(long), "\n"...), long...)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var want []int
			for i, b := range tt.p {
				if b == '\n' {
					want = append(want, i)
				}
			}
			for k := 1; k <= len(want)+2; k++ {
				i, left := indexNth(tt.p, k)
				if k <= len(want) {
					if i != want[k-1] || left != 0 {
						t.Fatalf("indexNth(k=%d) = %d, %d; want %d, 0", k, i, left, want[k-1])
					}
				} else if i != -1 || left != k-len(want) {
					t.Fatalf("indexNth(k=%d) = %d, %d; want -1, %d", k, i, left, k-len(want))
				}
			}
		})
	}
}
