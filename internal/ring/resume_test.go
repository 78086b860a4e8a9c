package ring

import (
	"bytes"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/transport"
)

// checkRingAt is checkRing for a ring that can hold nothing below base: the
// offset given to NewAt, or End() after the last Skip. stream is the whole
// stream from offset 0, including the bytes the ring never had.
func checkRingAt(t testing.TB, r *Ring, stream []byte, base int64, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	end := int64(len(stream))
	start := max(base, end-int64(r.Size()))
	if r.End() != end || r.Start() != start {
		t.Fatalf("Start, End = %d, %d; want %d, %d (base %d)", r.Start(), r.End(), start, end, base)
	}
	check := func(from, to int64) {
		t.Helper()
		f, e := max(from, 0), min(to, end)
		var want []byte
		var wantGone int64
		if f < e {
			wantGone = max(0, min(e, start)-f)
			if e > start {
				want = stream[max(f, start):e]
			}
		}
		out, gone := r.AppendRange(nil, from, to)
		if !bytes.Equal(out, want) || gone != wantGone {
			t.Fatalf("AppendRange(%d, %d) with ring %d..%d = %q, %d; want %q, %d", from, to, start, end, out, gone, want, wantGone)
		}
		n := max(to-from, 0)
		p := make([]byte, n)
		got, err := r.ReadAt(p, from)
		var gap *transport.GapError
		switch {
		case from < 0:
			if got != 0 || !errors.Is(err, ErrNegativeOffset) {
				t.Fatalf("ReadAt(%d) = %d, %v; want 0, ErrNegativeOffset", from, got, err)
			}
		case from < start:
			if got != 0 || !errors.As(err, &gap) {
				t.Fatalf("ReadAt(%d) with ring %d..%d = %d, %v; want 0, *GapError", from, start, end, got, err)
			}
			if want := (transport.GapError{From: from, To: start, End: end}); *gap != want || gap.Lost() != start-from {
				t.Fatalf("ReadAt(%d) gap = %+v, Lost %d; want %+v, Lost %d", from, *gap, gap.Lost(), want, start-from)
			}
		case from >= end:
			if got != 0 || err != io.EOF {
				t.Fatalf("ReadAt(%d) at end %d = %d, %v; want 0, io.EOF", from, end, got, err)
			}
		default:
			want := stream[from:min(end, from+n)]
			if err != nil || !bytes.Equal(p[:got], want) {
				t.Fatalf("ReadAt(len %d, %d) = %q, %v; want %q", n, from, p[:got], err, want)
			}
		}
	}
	held, gone := r.AppendRange(nil, start, end)
	if gone != 0 || !bytes.Equal(held, stream[start:]) {
		t.Fatalf("held window [%d, %d) = %q, gone %d; want %q", start, end, held, gone, stream[start:])
	}
	// Far below the ring: from the stream's beginning and around base.
	check(-1, end+1)
	check(0, end+1)
	check(base-1, base+1)
	if exhaustive {
		for from := start - 3; from <= end+2; from++ {
			for to := from - 1; to <= end+2; to++ {
				check(from, to)
			}
		}
		return
	}
	for range 10 {
		from := start - 5 + rng.Int64N(end-start+10)
		check(from, from+rng.Int64N(int64(r.Size())+10))
	}
}

// checkIndexAt compares ix with ref, the naive index of the whole stream, for
// an index whose ring can hold nothing below base and that was not told of
// shift lost newlines (LineIndex.Skip). When the ring still starts at base,
// the line that holds base is taken to begin there (a partial first line).
func checkIndexAt(t testing.TB, ix *LineIndex, ref *refLines, base, shift int64, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	start, end := ix.r.Start(), ix.r.End()
	lines := ref.lines() - shift
	partial := start == base
	first := ref.firstLine(start) - shift
	if partial {
		first = ref.lineAt(start) - shift
	}
	if got := ix.Lines(); got != lines {
		t.Fatalf("Lines() = %d, want %d", got, lines)
	}
	if got := ix.FirstLine(); got != first {
		t.Fatalf("FirstLine() = %d, want %d (ring holds %d..%d, base %d)", got, first, start, end, base)
	}
	lineStart := func(n int64) {
		t.Helper()
		got, err := ix.LineStart(n)
		var gap *LineGapError
		switch {
		case n < 1 || n > lines:
			if !errors.Is(err, ErrNoLine) {
				t.Fatalf("LineStart(%d) with %d lines = %d, %v; want ErrNoLine", n, lines, got, err)
			}
		case n < first:
			if !errors.As(err, &gap) {
				t.Fatalf("LineStart(%d) with first line %d = %d, %v; want *LineGapError", n, first, got, err)
			}
			if want := (LineGapError{Requested: n, First: first, Lines: lines}); *gap != want {
				t.Fatalf("LineStart(%d) gap = %+v, want %+v", n, *gap, want)
			}
		default:
			want := ref.starts[n+shift-1]
			if partial && n == first {
				want = start
			}
			if err != nil || got != want {
				t.Fatalf("LineStart(%d) = %d, %v; want %d (ring holds %d..%d, base %d)", n, got, err, want, start, end, base)
			}
		}
	}
	lineAt := func(off int64) {
		t.Helper()
		want := int64(0)
		if off >= start && off <= end {
			want = ref.lineAt(off) - shift
		}
		if got := ix.LineAt(off); got != want {
			t.Fatalf("LineAt(%d) = %d, want %d (ring holds %d..%d)", off, got, want, start, end)
		}
	}
	if exhaustive {
		for n := int64(-1); n <= 3; n++ {
			lineStart(n)
		}
		for n := max(4, first-3); n <= lines+1; n++ {
			lineStart(n)
		}
		for off := start - 2; off <= end+1; off++ {
			lineAt(off)
		}
		return
	}
	for _, n := range []int64{0, 1, first - 1, first, first + 1, lines - 1, lines, lines + 1} {
		lineStart(n)
	}
	for _, off := range []int64{start - 1, start, start + 1, end - 1, end, end + 1} {
		lineAt(off)
	}
	for range 20 {
		lineStart(first - 3 + rng.Int64N(lines-first+6))
		lineAt(start + rng.Int64N(end-start+1))
	}
}

// checkAgainstDaemon checks that a client index c, which lost no newline
// uncounted, numbers lines as the daemon's index d: every line start both
// hold, every line start the daemon holds inside the client's window, and
// every offset both hold. partial says that the client's first line is taken
// to begin at its Start(), which may be mid-line, so it is left out.
func checkAgainstDaemon(t testing.TB, c, d *LineIndex, partial, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	if c.Lines() != d.Lines() {
		t.Fatalf("client Lines() = %d, daemon %d", c.Lines(), d.Lines())
	}
	cFirst := c.FirstLine()
	line := func(n int64) {
		t.Helper()
		if partial && n == cFirst {
			return
		}
		cl, cerr := c.LineStart(n)
		dl, derr := d.LineStart(n)
		switch {
		case cerr == nil && derr == nil && cl != dl:
			t.Fatalf("LineStart(%d): client %d, daemon %d", n, cl, dl)
		case derr == nil && dl >= c.r.Start() && (cerr != nil || cl != dl):
			t.Fatalf("LineStart(%d): client %d, %v; daemon %d, inside the client's window %d..%d",
				n, cl, cerr, dl, c.r.Start(), c.r.End())
		}
	}
	off := func(o int64) {
		t.Helper()
		if cl, dl := c.LineAt(o), d.LineAt(o); cl != 0 && dl != 0 && cl != dl {
			t.Fatalf("LineAt(%d): client %d, daemon %d", o, cl, dl)
		}
	}
	lo := min(cFirst, d.FirstLine())
	from := max(c.r.Start(), d.r.Start())
	if exhaustive {
		for n := lo - 1; n <= c.Lines()+1; n++ {
			line(n)
		}
		for o := from - 1; o <= c.r.End()+1; o++ {
			off(o)
		}
		return
	}
	for _, n := range []int64{lo, cFirst, cFirst + 1, c.Lines()} {
		line(n)
	}
	for range 20 {
		line(lo + rng.Int64N(c.Lines()-lo+2))
		off(from + rng.Int64N(c.r.End()-from+1))
	}
}

// TestNewAt pins NewAt's window and gap accounting: a ring that starts at
// off holds nothing below it, and the bytes below it count as gone.
func TestNewAt(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		off    int64
		writes []string
		start  int64
		held   string
	}{
		{name: "empty at zero", size: 4, off: 0, start: 0, held: ""},
		{name: "empty at offset", size: 4, off: 10, start: 10, held: ""},
		{name: "partial", size: 4, off: 10, writes: []string{"ab"}, start: 10, held: "ab"},
		{name: "exactly full", size: 4, off: 10, writes: []string{"ab", "cd"}, start: 10, held: "abcd"},
		{name: "one past full", size: 4, off: 10, writes: []string{"abcd", "e"}, start: 11, held: "bcde"},
		{name: "wrap mid chunk", size: 4, off: 3, writes: []string{"abc", "def"}, start: 5, held: "cdef"},
		{name: "chunk larger than ring", size: 4, off: 7, writes: []string{"abcdefghij"}, start: 13, held: "ghij"},
		{name: "offset not a multiple of size", size: 5, off: 13, writes: []string{"abc", "defg", "h"}, start: 16, held: "defgh"},
		{name: "size one", size: 1, off: 1, writes: []string{"a", "bc"}, start: 3, held: "c"},
		{name: "huge offset", size: 8, off: 1 << 50, writes: []string{"hello\n", "world\n"}, start: 1<<50 + 4, held: "o\nworld\n"},
		{name: "default size", size: 0, off: 99, writes: []string{"hello"}, start: 99, held: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewAt(tt.size, tt.off)
			if r.Start() != tt.off || r.End() != tt.off {
				t.Fatalf("NewAt(%d, %d): Start, End = %d, %d; want both %d", tt.size, tt.off, r.Start(), r.End(), tt.off)
			}
			if tt.size <= 0 && r.Size() != DefaultSize {
				t.Errorf("Size() = %d, want DefaultSize", r.Size())
			}
			// The stream as its producer numbered it: filler below off.
			stream := bytes.Repeat([]byte{'?'}, int(min(tt.off, 64)))
			shift := tt.off - int64(len(stream)) // stream[i] is offset shift+i
			for _, w := range tt.writes {
				if n, err := r.Write([]byte(w)); n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v", w, n, err)
				}
				stream = append(stream, w...)
			}
			if r.Start() != tt.start || r.End() != shift+int64(len(stream)) {
				t.Errorf("Start, End = %d, %d; want %d, %d", r.Start(), r.End(), tt.start, shift+int64(len(stream)))
			}
			if held, _ := r.AppendRange(nil, r.Start(), r.End()); string(held) != tt.held {
				t.Errorf("held %q, want %q", held, tt.held)
			}
			if _, gone := r.AppendRange(nil, 0, r.End()); gone != tt.start {
				t.Errorf("AppendRange(0, End) gone = %d, want Start() = %d: bytes below NewAt's offset count as gone", gone, tt.start)
			}
			if tt.off > 0 {
				_, err := r.ReadAt(make([]byte, 4), 0)
				var gap *transport.GapError
				if !errors.As(err, &gap) || gap.Lost() != tt.start {
					t.Errorf("ReadAt(0) = %v, want a *GapError with Lost() %d", err, tt.start)
				}
			}
			if shift == 0 && r.Size() < 16 {
				checkRingAt(t, r, stream, tt.off, true, nil)
			}
		})
	}
}

func TestNewIsNewAtZero(t *testing.T) {
	for _, size := range []int{-1, 0, 1, 7, 4096} {
		if a, b := New(size), NewAt(size, 0); !reflect.DeepEqual(a, b) {
			t.Errorf("New(%d) = %+v, NewAt(%d, 0) = %+v", size, a, size, b)
		}
	}
}

// TestNewAtGapMessage pins the error text for bytes the ring never had.
func TestNewAtGapMessage(t *testing.T) {
	r := NewAt(8, 100)
	r.Write([]byte("abc"))
	_, err := r.ReadAt(make([]byte, 8), 40)
	want := "output from offset 40 to 100 is gone (ring holds 100..103): 60 bytes lost; continue from offset 100"
	if err == nil || err.Error() != want {
		t.Fatalf("ReadAt(40) error = %v\nwant %s", err, want)
	}
}

// ringOp is one step of a Ring or LineIndex script: write w, or skip n bytes
// whose content the reference stream fills in with lost.
type ringOp struct {
	w    string
	skip int64
	lost string // what the skipped bytes were, for the reference; default filler
}

func (op ringOp) bytes() []byte {
	if op.skip == 0 {
		return []byte(op.w)
	}
	if op.lost != "" {
		return []byte(op.lost)
	}
	return bytes.Repeat([]byte{'#'}, int(op.skip))
}

func TestRingSkip(t *testing.T) {
	big := string(pattern(3*minAlloc + 100))
	tests := []struct {
		name  string
		size  int
		off   int64
		ops   []ringOp
		start int64
		end   int64
		held  string
	}{
		{name: "skip on empty ring", size: 4, ops: []ringOp{{skip: 3}}, start: 3, end: 3},
		{name: "skip drops what is held", size: 8, ops: []ringOp{{w: "ab"}, {skip: 2}}, start: 4, end: 4},
		{name: "skip zero does nothing", size: 8, ops: []ringOp{{w: "ab"}, {skip: 0}}, start: 0, end: 2, held: "ab"},
		{name: "write after skip", size: 8, ops: []ringOp{{w: "ab"}, {skip: 2}, {w: "cd"}}, start: 4, end: 6, held: "cd"},
		{name: "wrap after skip", size: 4, ops: []ringOp{{w: "ab"}, {skip: 1}, {w: "cdefg"}}, start: 4, end: 8, held: "defg"},
		{name: "skip a full ring", size: 4, ops: []ringOp{{w: "abcdef"}, {skip: 10}, {w: "gh"}}, start: 16, end: 18, held: "gh"},
		{name: "skip more than size", size: 3, ops: []ringOp{{w: "a"}, {skip: 100}, {w: "bcde"}}, start: 102, end: 105, held: "cde"},
		{name: "skips in a row", size: 4, ops: []ringOp{{skip: 2}, {skip: 3}, {w: "x"}, {skip: 1}, {w: "yz"}}, start: 7, end: 9, held: "yz"},
		{name: "after NewAt", size: 4, off: 9, ops: []ringOp{{w: "abc"}, {skip: 5}, {w: "def"}}, start: 17, end: 20, held: "def"},
		{name: "wrapped then skip then wrap", size: 3, ops: []ringOp{{w: "abcdefg"}, {skip: 2}, {w: "hi"}, {w: "jk"}}, start: 10, end: 13, held: "ijk"},
		{
			name: "skip while the buffer is still growing", size: 3*minAlloc + 17,
			ops:   []ringOp{{w: big[:minAlloc+5]}, {skip: 7}, {w: big[:2*minAlloc]}, {w: big[:minAlloc+20]}},
			start: minAlloc + 12 + 3, end: 4*minAlloc + 32, held: big[3:2*minAlloc] + big[:minAlloc+20],
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := NewAt(tt.size, tt.off)
			stream := bytes.Repeat([]byte{'?'}, int(tt.off))
			base := tt.off
			for _, op := range tt.ops {
				if op.skip > 0 || op.w == "" {
					r.Skip(op.skip)
					if op.skip > 0 {
						base = r.End()
					}
				} else {
					r.Write([]byte(op.w))
				}
				stream = append(stream, op.bytes()...)
				checkRingAt(t, r, stream, base, r.Size() < 16, rand.New(rand.NewPCG(1, 1)))
				if op.skip > 0 && r.Start() != r.End() {
					t.Fatalf("after Skip(%d): Start, End = %d, %d; want Start() == End()", op.skip, r.Start(), r.End())
				}
				if len(r.buf) > r.Size() {
					t.Fatalf("buffer grew to %d, past size %d", len(r.buf), r.Size())
				}
			}
			if r.Start() != tt.start || r.End() != tt.end {
				t.Errorf("Start, End = %d, %d; want %d, %d", r.Start(), r.End(), tt.start, tt.end)
			}
			if held, _ := r.AppendRange(nil, r.Start(), r.End()); string(held) != tt.held {
				t.Errorf("held %q, want %q", held, tt.held)
			}
		})
	}
}

// TestLineIndexAt pins NewLineIndexAt on a small stream replayed from every
// kind of offset, with the index made before or after the replay.
func TestLineIndexAt(t *testing.T) {
	// Lines: 1 at 0 "one", 2 at 4 "two", 3 at 8 "three", 4 at 14 "four".
	const stream = "one\ntwo\nthree\nfour"
	tests := []struct {
		name      string
		size      int
		s         int64
		wantFirst int64
		wantStart int64 // LineStart(wantFirst), if it is <= Lines()
	}{
		{name: "from a line start", size: 100, s: 4, wantFirst: 2, wantStart: 4},
		{name: "from mid line takes the tail as the line", size: 100, s: 5, wantFirst: 2, wantStart: 5},
		{name: "from a newline", size: 100, s: 7, wantFirst: 2, wantStart: 7},
		{name: "from just after a newline", size: 100, s: 8, wantFirst: 3, wantStart: 8},
		{name: "from zero", size: 100, s: 0, wantFirst: 1, wantStart: 0},
		{name: "from the end", size: 100, s: 18, wantFirst: 4, wantStart: 18},
		{name: "wrapped to a line start", size: 4, s: 5, wantFirst: 4, wantStart: 14},
		{name: "wrapped to mid line", size: 3, s: 5, wantFirst: 5},
		{name: "wrapped to mid line with a newline held", size: 6, s: 1, wantFirst: 4, wantStart: 14},
	}
	for _, tt := range tests {
		for _, k := range []int64{1, 2, 3, checkpointEvery} {
			for _, indexFirst := range []bool{true, false} {
				r := NewAt(tt.size, tt.s)
				ref := newRefLines()
				ref.write(0, []byte(stream))
				var ix *LineIndex
				if indexFirst {
					ix = newLineIndexAt(r, ref.lineAt(tt.s), k)
				}
				for _, c := range []string{stream[tt.s:min(int(tt.s)+2, len(stream))], stream[min(int(tt.s)+2, len(stream)):]} {
					r.Write([]byte(c))
					if ix != nil {
						ix.Write([]byte(c))
					}
				}
				if ix == nil {
					ix = newLineIndexAt(r, ref.lineAt(r.Start()), k)
				}
				if got := ix.FirstLine(); got != tt.wantFirst {
					t.Errorf("%s, k=%d, indexFirst=%v: FirstLine() = %d, want %d", tt.name, k, indexFirst, got, tt.wantFirst)
				}
				if tt.wantFirst <= ix.Lines() {
					if got, err := ix.LineStart(tt.wantFirst); err != nil || got != tt.wantStart {
						t.Errorf("%s, k=%d, indexFirst=%v: LineStart(%d) = %d, %v; want %d", tt.name, k, indexFirst, tt.wantFirst, got, err, tt.wantStart)
					}
				}
				checkIndexAt(t, ix, ref, tt.s, 0, true, nil)
			}
		}
	}
}

// TestLineIndexSkip covers Skip and SkipLines: with the lost newlines counted
// the numbering stays the source's, without it every later line is lower by
// the newlines lost.
func TestLineIndexSkip(t *testing.T) {
	tests := []struct {
		name      string
		size      int
		ops       []ringOp
		told      bool // SkipLines with the true count, else Skip
		wantLines int64
		wantFirst int64
		wantStart int64
	}{
		// Whole stream "ab\ncdx\nyef\ngh": lines at 0, 3, 7, 11; the
		// client lost "x\ny" at 5..8.
		{name: "lines told", size: 100, told: true, ops: []ringOp{{w: "ab\ncd"}, {skip: 3, lost: "x\ny"}, {w: "ef\ngh"}},
			wantLines: 4, wantFirst: 3, wantStart: 8},
		{name: "lines not told", size: 100, ops: []ringOp{{w: "ab\ncd"}, {skip: 3, lost: "x\ny"}, {w: "ef\ngh"}},
			wantLines: 3, wantFirst: 2, wantStart: 8},
		{name: "gap ends at a line start", size: 100, told: true, ops: []ringOp{{w: "ab\n"}, {skip: 2, lost: "c\n"}, {w: "d\ne"}},
			wantLines: 4, wantFirst: 3, wantStart: 5},
		{name: "nothing after the gap", size: 100, told: true, ops: []ringOp{{w: "a\n"}, {skip: 4, lost: "\n\n\nb"}},
			wantLines: 5, wantFirst: 5, wantStart: 6},
		{name: "skip zero", size: 100, ops: []ringOp{{w: "a\nb"}, {skip: 0}, {w: "\nc"}},
			wantLines: 3, wantFirst: 1, wantStart: 0},
		// "a\n\nb\ncd\nef\ng" with "\nb\n" lost; the ring keeps "ef\ng"
		// from 8, after the '\n' at 7.
		{name: "wrapped past the gap", size: 4, told: true, ops: []ringOp{{w: "a\n"}, {skip: 3, lost: "\nb\n"}, {w: "cd\nef\ng"}},
			wantLines: 6, wantFirst: 5, wantStart: 8},
		{name: "two gaps not told", size: 100, ops: []ringOp{{w: "a\n"}, {skip: 2, lost: "\n\n"}, {w: "b\n"}, {skip: 3, lost: "c\nd"}, {w: "e\nf"}},
			wantLines: 4, wantFirst: 3, wantStart: 9},
	}
	for _, tt := range tests {
		for _, k := range []int64{1, 2, 3, checkpointEvery} {
			r := New(tt.size)
			ix := newLineIndex(r, k)
			ref := newRefLines()
			var base, shift int64
			for _, op := range tt.ops {
				p := op.bytes()
				ref.write(r.End(), p)
				if op.skip > 0 || op.w == "" {
					nl := int64(bytes.Count(p, newline))
					r.Skip(op.skip)
					if tt.told {
						ix.SkipLines(op.skip, nl)
					} else {
						ix.Skip(op.skip)
						shift += nl
					}
					if op.skip > 0 {
						base = r.End()
						if got, err := ix.LineStart(ix.Lines()); err != nil || got != r.End() {
							t.Errorf("%s, k=%d: right after the skip LineStart(Lines()) = %d, %v; want End() = %d", tt.name, k, got, err, r.End())
						}
					}
				} else {
					r.Write(p)
					ix.Write(p)
				}
				checkIndexAt(t, ix, ref, base, shift, true, nil)
			}
			if ix.Lines() != tt.wantLines || ix.FirstLine() != tt.wantFirst {
				t.Errorf("%s, k=%d: Lines, FirstLine = %d, %d; want %d, %d", tt.name, k, ix.Lines(), ix.FirstLine(), tt.wantLines, tt.wantFirst)
			}
			if got, err := ix.LineStart(tt.wantFirst); err != nil || got != tt.wantStart {
				t.Errorf("%s, k=%d: LineStart(%d) = %d, %v; want %d", tt.name, k, tt.wantFirst, got, err, tt.wantStart)
			}
		}
	}
}

func TestResumePanics(t *testing.T) {
	tests := []struct {
		name string
		f    func()
	}{
		{name: "NewAt negative offset", f: func() { NewAt(8, -1) }},
		{name: "Skip negative", f: func() { New(8).Skip(-1) }},
		{name: "Skip past the largest offset", f: func() { NewAt(8, math.MaxInt64-3).Skip(4) }},
		{name: "NewLineIndex on a ring made at an offset", f: func() { NewLineIndex(NewAt(8, 5)) }},
		{name: "NewLineIndex on a skipped ring", f: func() { r := New(8); r.Skip(1); NewLineIndex(r) }},
		{name: "NewLineIndexAt line zero", f: func() { NewLineIndexAt(NewAt(8, 5), 0) }},
		{name: "SkipLines without Ring.Skip", f: func() { NewLineIndex(New(8)).SkipLines(3, 0) }},
		{name: "SkipLines after a Write instead", f: func() {
			r := New(8)
			ix := NewLineIndex(r)
			r.Write([]byte("abc"))
			ix.Skip(3)
		}},
		{name: "SkipLines more newlines than bytes", f: func() { r := New(8); ix := NewLineIndex(r); r.Skip(2); ix.SkipLines(2, 3) }},
		{name: "SkipLines negative newlines", f: func() { r := New(8); ix := NewLineIndex(r); r.Skip(2); ix.SkipLines(2, -1) }},
		{name: "Write after Ring.Skip without LineIndex.Skip", f: func() {
			r := New(8)
			ix := NewLineIndex(r)
			r.Skip(2)
			r.Write([]byte("x"))
			ix.Write([]byte("x"))
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			defer func() {
				if recover() == nil {
					t.Error("did not panic")
				}
			}()
			tt.f()
		})
	}
	// The counterparts that must not panic.
	NewLineIndex(NewAt(8, 0))
	r := New(8)
	ix := NewLineIndex(r)
	r.Skip(0)
	ix.Skip(0)
	r.Skip(5)
	ix.SkipLines(5, 5)
	if ix.Lines() != 6 {
		t.Errorf("Lines() after SkipLines(5, 5) = %d, want 6", ix.Lines())
	}
}

// mirror is a client that re-attached to a daemon's session: a ring and index
// that replay the daemon's stream from some offset, and then follow it, now
// and then losing a chunk.
type mirror struct {
	r     *Ring
	ix    *LineIndex
	base  int64 // offset given to NewAt, or End() after the last Skip
	shift int64 // newlines lost by Skip without being counted
}

// TestResumeFromDaemon is the property test for re-attaching: a daemon's ring
// and index take a random stream in random chunks; at random points a client
// starts with NewAt(size, S) and NewLineIndexAt(r, daemon LineAt(S)), replays
// the daemon's held bytes from S and then follows the stream, sometimes
// falling behind and skipping a chunk. After every chunk each client must
// agree with the naive reference over the whole stream and, for every line
// start both hold, with the daemon.
func TestResumeFromDaemon(t *testing.T) {
	tests := []struct {
		name       string
		size       int // the daemon's ring
		clientSize int
		k          int64
		total      int
		exhaustive bool
	}{
		{name: "daemon 16 client 16 k 1", size: 16, clientSize: 16, k: 1, total: 2000, exhaustive: true},
		{name: "daemon 37 client 11 k 3", size: 37, clientSize: 11, k: 3, total: 3000, exhaustive: true},
		{name: "daemon 20 client 200 k 2", size: 20, clientSize: 200, k: 2, total: 3000, exhaustive: true},
		{name: "daemon 100 client 100 k 256", size: 100, clientSize: 100, k: 256, total: 5000, exhaustive: true},
		{name: "daemon 1 client 3 k 1", size: 1, clientSize: 3, k: 1, total: 300, exhaustive: true},
		{name: "daemon 4096 client 1000 k 5", size: 4096, clientSize: 1000, k: 5, total: 200_000},
		{name: "daemon 4096 client 8192 k 256", size: 4096, clientSize: 8192, k: checkpointEvery, total: 300_000},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for seed := range uint64(4) {
				rng := rand.New(rand.NewPCG(seed, uint64(tt.size)))
				stream := randomLines(rng, tt.size, tt.total)
				d := New(tt.size)
				dix := newLineIndex(d, tt.k)
				ref := newRefLines()
				var clients []*mirror
				spawned := 0
				for off := 0; off < len(stream); {
					n := min(chunkLen(rng, tt.size), len(stream)-off)
					p := stream[off : off+n]
					d.Write(p)
					dix.Write(p)
					ref.write(int64(off), p)
					off += n
					for _, c := range clients {
						if n > 0 && rng.IntN(8) == 0 {
							// Fell behind: told that p is gone.
							// With the count the daemon can give, or not.
							nl := int64(bytes.Count(p, newline))
							lines := c.ix.Lines()
							c.r.Skip(int64(n))
							if c.shift == 0 && rng.IntN(2) == 0 {
								if told := dix.LineAt(d.End()) - lines; told != nl {
									t.Fatalf("daemon LineAt(To) - client Lines() = %d, want the %d newlines lost", told, nl)
								}
								c.ix.SkipLines(int64(n), nl)
							} else {
								c.ix.Skip(int64(n))
								c.shift += nl
							}
							c.base = c.r.End()
						} else {
							feed(c, p, rng)
						}
						checkMirror(t, c, dix, stream[:off], ref, tt.exhaustive, rng)
					}
					if d.End() > 0 && rng.IntN(5) == 0 {
						c := attach(t, d, dix, tt.clientSize, tt.k, rng)
						checkMirror(t, c, dix, stream[:off], ref, tt.exhaustive, rng)
						clients = append(clients, c)
						spawned++
						if len(clients) > 3 {
							clients = clients[1:]
						}
					}
				}
				if spawned == 0 {
					t.Fatal("no client attached")
				}
			}
		})
	}
}

// attach starts a client on the daemon's stream from an offset S the daemon
// still holds, made as the daemon would report it: any held offset, the start
// of its first held line, or its end.
func attach(t testing.TB, d *Ring, dix *LineIndex, size int, k int64, rng *rand.Rand) *mirror {
	t.Helper()
	s := d.Start() + rng.Int64N(d.End()-d.Start()+1)
	switch rng.IntN(4) {
	case 0:
		if fl := dix.FirstLine(); fl <= dix.Lines() {
			s, _ = dix.LineStart(fl)
		}
	case 1:
		s = d.End()
	}
	held, gone := d.AppendRange(nil, s, d.End())
	if gone != 0 {
		t.Fatalf("the daemon lost %d bytes from its own Start()", gone)
	}
	c := &mirror{r: NewAt(size, s), base: s}
	spacing := []int64{1, 2, 3, k, checkpointEvery}[rng.IntN(5)]
	if rng.IntN(2) == 0 {
		c.ix = newLineIndexAt(c.r, dix.LineAt(s), spacing)
		feed(c, held, rng)
	} else {
		// Replay first, then index from whatever the client kept.
		c.r.Write(held)
		c.ix = newLineIndexAt(c.r, dix.LineAt(c.r.Start()), spacing)
	}
	return c
}

// feed writes p to the client in one to three chunks.
func feed(c *mirror, p []byte, rng *rand.Rand) {
	for len(p) > 0 {
		n := len(p)
		if rng.IntN(2) == 0 {
			n = 1 + rng.IntN(len(p))
		}
		c.r.Write(p[:n])
		c.ix.Write(p[:n])
		p = p[n:]
	}
}

func checkMirror(t testing.TB, c *mirror, dix *LineIndex, stream []byte, ref *refLines, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	checkRingAt(t, c.r, stream, c.base, exhaustive && c.r.Size() <= 40, rng)
	checkIndexAt(t, c.ix, ref, c.base, c.shift, exhaustive, rng)
	if c.shift == 0 {
		checkAgainstDaemon(t, c.ix, dix, c.r.Start() == c.base, exhaustive, rng)
	}
}

// TestResumeLongLines replays a stream of lines longer than both rings, so
// that the client often holds no line start at all.
func TestResumeLongLines(t *testing.T) {
	stream := bytes.Repeat([]byte(strings.Repeat("z", 150)+"\n"), 60)
	rng := rand.New(rand.NewPCG(7, 8))
	d := New(100)
	dix := NewLineIndex(d)
	ref := newRefLines()
	var clients []*mirror
	for off := 0; off < len(stream); {
		n := min(1+rng.IntN(90), len(stream)-off)
		p := stream[off : off+n]
		d.Write(p)
		dix.Write(p)
		ref.write(int64(off), p)
		off += n
		for _, c := range clients {
			feed(c, p, rng)
			checkMirror(t, c, dix, stream[:off], ref, true, rng)
		}
		if rng.IntN(3) == 0 {
			clients = append(clients, attach(t, d, dix, 20+rng.IntN(200), checkpointEvery, rng))
		}
	}
}

// TestWriteAllocsAfterSkip pins "no allocation per Write" across a skip.
func TestWriteAllocsAfterSkip(t *testing.T) {
	r := NewAt(1<<16, 12345)
	ix := NewLineIndexAt(r, 7)
	fill := seqOutput(20000)[:1<<16]
	r.Write(fill)
	ix.Write(fill)
	chunk := seqOutput(1000)[:4096]
	allocs := testing.AllocsPerRun(1000, func() {
		r.Skip(100)
		ix.SkipLines(100, 3)
		r.Write(chunk)
		ix.Write(chunk)
	})
	if allocs != 0 {
		t.Errorf("Skip plus Write allocates %.1f times per call, want 0", allocs)
	}
}
