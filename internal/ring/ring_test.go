package ring

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"slices"
	"strconv"
	"testing"

	"github.com/ttymux/ttymux/transport"
)

// pattern returns n bytes whose values repeat only every 251 bytes, so a byte
// copied to the wrong place in a small ring shows up.
func pattern(n int) []byte {
	p := make([]byte, n)
	for i := range p {
		p[i] = byte(i % 251)
	}
	return p
}

// seqOutput returns what `seq 1 n` prints.
func seqOutput(n int) []byte {
	var b []byte
	for i := 1; i <= n; i++ {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\n')
	}
	return b
}

// refStart is what Start should be after writing n bytes to a ring of size.
func refStart(n int64, size int) int64 { return max(0, n-int64(size)) }

// checkReadAt compares r.ReadAt(make([]byte, n), off) with what stream, all
// bytes ever written, says it must return.
func checkReadAt(t testing.TB, r *Ring, stream []byte, off int64, n int) {
	t.Helper()
	end := int64(len(stream))
	start := refStart(end, r.Size())
	p := make([]byte, n)
	got, err := r.ReadAt(p, off)
	switch {
	case off < 0:
		if got != 0 || !errors.Is(err, ErrNegativeOffset) {
			t.Fatalf("ReadAt(%d) = %d, %v; want 0, ErrNegativeOffset", off, got, err)
		}
	case off < start:
		var gap *transport.GapError
		if got != 0 || !errors.As(err, &gap) {
			t.Fatalf("ReadAt(%d) = %d, %v; want 0, *GapError", off, got, err)
		}
		if want := (transport.GapError{From: off, To: start, End: end}); *gap != want {
			t.Fatalf("ReadAt(%d) gap = %+v, want %+v", off, *gap, want)
		}
		if gap.Lost() != start-off {
			t.Fatalf("ReadAt(%d) Lost() = %d, want %d", off, gap.Lost(), start-off)
		}
	case off >= end:
		if got != 0 || err != io.EOF {
			t.Fatalf("ReadAt(%d) at end %d = %d, %v; want 0, io.EOF", off, end, got, err)
		}
	default:
		want := stream[off:min(end, off+int64(n))]
		if err != nil || got != len(want) || !bytes.Equal(p[:got], want) {
			t.Fatalf("ReadAt(len %d, %d) = %d, %v, %q; want %d, nil, %q", n, off, got, err, p[:got], len(want), want)
		}
	}
}

// checkRange compares r.AppendRange(prefix, from, to) with stream.
func checkRange(t testing.TB, r *Ring, stream []byte, from, to int64) {
	t.Helper()
	end := int64(len(stream))
	start := refStart(end, r.Size())
	f, e := max(from, 0), min(to, end)
	var want []byte
	var wantGone int64
	if f < e {
		wantGone = max(0, min(e, start)-f)
		if e > start {
			want = stream[max(f, start):e]
		}
	}
	prefix := []byte("pre:")
	out, gone := r.AppendRange(prefix[:len(prefix):len(prefix)], from, to)
	if !bytes.HasPrefix(out, prefix) || !bytes.Equal(out[len(prefix):], want) || gone != wantGone {
		t.Fatalf("AppendRange(%d, %d) with start %d end %d = %q, %d; want %q, %d",
			from, to, start, end, out, gone, append(prefix, want...), wantGone)
	}
}

// checkRing checks Start, End and the held window, and then every range
// near the held window when exhaustive is set, or a sample drawn from rng.
func checkRing(t testing.TB, r *Ring, stream []byte, exhaustive bool, rng *rand.Rand) {
	t.Helper()
	end := int64(len(stream))
	start := refStart(end, r.Size())
	if r.End() != end || r.Start() != start {
		t.Fatalf("Start, End = %d, %d; want %d, %d", r.Start(), r.End(), start, end)
	}
	held, gone := r.AppendRange(nil, r.Start(), r.End())
	if gone != 0 || !bytes.Equal(held, stream[start:]) {
		t.Fatalf("held window [%d, %d) = %q, gone %d; want %q", start, end, held, gone, stream[start:])
	}
	if exhaustive {
		for from := start - 3; from <= end+2; from++ {
			for to := from - 1; to <= end+2; to++ {
				checkRange(t, r, stream, from, to)
			}
			for _, n := range []int{0, 1, 2, r.Size() / 2, r.Size() - 1, r.Size(), r.Size() + 1} {
				checkReadAt(t, r, stream, from, max(n, 0))
			}
		}
		return
	}
	for range 5 {
		from := start - 5 + rng.Int64N(end-start+10)
		to := from + rng.Int64N(int64(r.Size())+10)
		checkRange(t, r, stream, from, to)
		checkReadAt(t, r, stream, from, int(to-from))
	}
}

func TestRingTable(t *testing.T) {
	tests := []struct {
		name   string
		size   int
		writes []string
		start  int64
		held   string
	}{
		{name: "empty", size: 4, writes: nil, start: 0, held: ""},
		{name: "empty write", size: 4, writes: []string{""}, start: 0, held: ""},
		{name: "partial", size: 4, writes: []string{"ab"}, start: 0, held: "ab"},
		{name: "exactly full", size: 4, writes: []string{"abcd"}, start: 0, held: "abcd"},
		{name: "full in pieces", size: 4, writes: []string{"ab", "cd"}, start: 0, held: "abcd"},
		{name: "one past full", size: 4, writes: []string{"abcd", "e"}, start: 1, held: "bcde"},
		{name: "wrap mid chunk", size: 4, writes: []string{"abc", "def"}, start: 2, held: "cdef"},
		{name: "wrap twice", size: 4, writes: []string{"abc", "def", "ghi"}, start: 5, held: "fghi"},
		{name: "chunk of exactly size after data", size: 4, writes: []string{"ab", "cdef"}, start: 2, held: "cdef"},
		{name: "chunk larger than ring", size: 4, writes: []string{"abcdefghij"}, start: 6, held: "ghij"},
		{name: "large chunk after data", size: 4, writes: []string{"xy", "abcdefghij"}, start: 8, held: "ghij"},
		{name: "large chunk then small", size: 4, writes: []string{"abcdefghij", "k"}, start: 7, held: "hijk"},
		{name: "size one", size: 1, writes: []string{"a", "bc", "d"}, start: 3, held: "d"},
		{name: "default size", size: 0, writes: []string{"hello"}, start: 0, held: "hello"},
		{name: "negative size means default", size: -1, writes: []string{"hello"}, start: 0, held: "hello"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.size)
			var stream []byte
			for _, w := range tt.writes {
				n, err := r.Write([]byte(w))
				if n != len(w) || err != nil {
					t.Fatalf("Write(%q) = %d, %v; want %d, nil", w, n, err, len(w))
				}
				stream = append(stream, w...)
			}
			if tt.size <= 0 && r.Size() != DefaultSize {
				t.Errorf("Size() = %d, want DefaultSize", r.Size())
			}
			if r.Start() != tt.start || r.End() != int64(len(stream)) {
				t.Errorf("Start, End = %d, %d; want %d, %d", r.Start(), r.End(), tt.start, len(stream))
			}
			held, _ := r.AppendRange(nil, 0, r.End())
			if string(held) != tt.held {
				t.Errorf("held %q, want %q", held, tt.held)
			}
			if r.Size() < 16 {
				checkRing(t, r, stream, true, nil)
			}
		})
	}
}

// TestRingWrapEveryBoundary writes three chunks of every length combination
// up to twice the ring size, so the write position and the wrap point land
// on every index, and checks every range after each write.
func TestRingWrapEveryBoundary(t *testing.T) {
	for _, size := range []int{1, 2, 3, 5, 8} {
		t.Run(fmt.Sprintf("size=%d", size), func(t *testing.T) {
			for a := 0; a <= 2*size+1; a++ {
				for b := 0; b <= 2*size+1; b++ {
					for _, c := range []int{1, size - 1, size, size + 1} {
						stream := pattern(a + b + c)
						r := New(size)
						for _, chunk := range [][]byte{stream[:a], stream[a : a+b], stream[a+b:]} {
							r.Write(chunk)
							checkRing(t, r, stream[:r.End()], true, nil)
						}
					}
				}
			}
		})
	}
}

// TestRingGrow crosses each step of the lazy buffer growth (minAlloc, its
// doublings, and the final jump to Size) with chunks that straddle it.
func TestRingGrow(t *testing.T) {
	const size = 3*minAlloc + 17
	tests := []struct {
		name   string
		chunks []int
	}{
		{name: "byte at a time past size", chunks: []int{minAlloc - 1, 1, 1, minAlloc - 1, 1, 1, size - 2*minAlloc - 1, 1, 1, 1}},
		{name: "straddle first alloc", chunks: []int{minAlloc - 3, 7, size}},
		{name: "straddle doubling", chunks: []int{minAlloc, minAlloc + 1, 3 * minAlloc}},
		{name: "jump straight past size", chunks: []int{10, size + 5, 3}},
		{name: "first write larger than size", chunks: []int{2*size + 1, 1}},
		{name: "exact size first", chunks: []int{size, size, 1}},
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			total := 0
			for _, c := range tt.chunks {
				total += c
			}
			stream := pattern(total)
			r := New(size)
			off := 0
			for _, c := range tt.chunks {
				r.Write(stream[off : off+c])
				off += c
				checkRing(t, r, stream[:off], false, rng)
				if len(r.buf) > size {
					t.Fatalf("buffer grew to %d, past size %d", len(r.buf), size)
				}
			}
		})
	}
}

func TestGapError(t *testing.T) {
	tests := []struct {
		name     string
		size     int
		write    int
		off      int64
		wantLost int64
		wantMsg  string
	}{
		{
			name: "example from the docs", size: 8192, write: 12288, off: 10, wantLost: 4086,
			wantMsg: "output from offset 10 to 4096 is gone (ring holds 4096..12288): 4086 bytes lost; continue from offset 4096",
		},
		{
			name: "one byte gone", size: 4, write: 5, off: 0, wantLost: 1,
			wantMsg: "output from offset 0 to 1 is gone (ring holds 1..5): 1 bytes lost; continue from offset 1",
		},
		{
			name: "just before start", size: 10, write: 1000, off: 989, wantLost: 1,
			wantMsg: "output from offset 989 to 990 is gone (ring holds 990..1000): 1 bytes lost; continue from offset 990",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := New(tt.size)
			r.Write(pattern(tt.write))
			_, err := r.ReadAt(make([]byte, 10), tt.off)
			var gap *transport.GapError
			if !errors.As(err, &gap) {
				t.Fatalf("ReadAt(%d) error = %v, want *GapError", tt.off, err)
			}
			if gap.Lost() != tt.wantLost {
				t.Errorf("Lost() = %d, want %d", gap.Lost(), tt.wantLost)
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("Error() = %q\nwant      %q", err.Error(), tt.wantMsg)
			}
			// AppendRange reports the same count for a range that reaches the held part.
			if _, gone := r.AppendRange(nil, tt.off, r.End()); gone != tt.wantLost {
				t.Errorf("AppendRange gone = %d, want %d", gone, tt.wantLost)
			}
		})
	}
}

func TestAppendRangeGone(t *testing.T) {
	r := New(10)
	stream := pattern(100) // holds 90..100
	r.Write(stream)
	tests := []struct {
		name     string
		from, to int64
		want     []byte
		wantGone int64
	}{
		{name: "all gone", from: 5, to: 20, want: nil, wantGone: 15},
		{name: "ends at start", from: 80, to: 90, want: nil, wantGone: 10},
		{name: "straddles start", from: 85, to: 95, want: stream[90:95], wantGone: 5},
		{name: "past end clipped", from: 95, to: 200, want: stream[95:], wantGone: 0},
		{name: "all of it from zero", from: 0, to: 100, want: stream[90:], wantGone: 90},
		{name: "negative from clipped to zero", from: -10, to: 92, want: stream[90:92], wantGone: 90},
		{name: "inverted", from: 95, to: 93, want: nil, wantGone: 0},
		{name: "empty", from: 95, to: 95, want: nil, wantGone: 0},
		{name: "beyond end", from: 100, to: 110, want: nil, wantGone: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, gone := r.AppendRange(nil, tt.from, tt.to)
			if !bytes.Equal(got, tt.want) || gone != tt.wantGone {
				t.Errorf("AppendRange(%d, %d) = %v, %d; want %v, %d", tt.from, tt.to, got, gone, tt.want, tt.wantGone)
			}
		})
	}
}

// TestRingSeqStream is the property test for "offsets never duplicate or
// skip": the output of `seq 1 200000` goes into small rings in random chunks.
// After every write the held window must equal the same slice of the
// original, and a follower that reads on from its last offset, jumping
// forward only on a *GapError, must account for every offset exactly once:
// either it read the original byte there or a gap reported it lost.
func TestRingSeqStream(t *testing.T) {
	stream := seqOutput(200000)
	rng := rand.New(rand.NewPCG(3, 4))
	for _, size := range []int{1, 7, 64, 4096, 100_000, len(stream) + 10} {
		t.Run(fmt.Sprintf("size=%d", size), func(t *testing.T) {
			r := New(size)
			var (
				follow int64                        // the follower's next offset
				cover  = make([]uint8, len(stream)) // times each offset was read or reported lost
				lost   int64
				buf    = make([]byte, 1+rng.IntN(2*size))
			)
			catchUp := func() {
				for {
					m, err := r.ReadAt(buf, follow)
					var gap *transport.GapError
					switch {
					case errors.As(err, &gap):
						if gap.From != follow || gap.To != r.Start() {
							t.Fatalf("gap %+v for a read at %d, ring starts at %d", *gap, follow, r.Start())
						}
						for i := follow; i < gap.To; i++ {
							cover[i]++
						}
						lost += gap.Lost()
						follow = gap.To
					case err == io.EOF:
						return
					case err != nil || m == 0:
						t.Fatalf("ReadAt(%d) = %d, %v", follow, m, err)
					default:
						if !bytes.Equal(buf[:m], stream[follow:follow+int64(m)]) {
							t.Fatalf("ReadAt(%d) = %q, want %q", follow, buf[:m], stream[follow:follow+int64(m)])
						}
						for i := follow; i < follow+int64(m); i++ {
							cover[i]++
						}
						follow += int64(m)
					}
				}
			}
			for off := 0; off < len(stream); {
				// Chunks of a few dozen bytes at least, or tiny rings
				// would take a million writes.
				n := min(chunkLen(rng, max(size, 32)), len(stream)-off)
				r.Write(stream[off : off+n])
				off += n
				checkRing(t, r, stream[:off], false, rng)
				if rng.IntN(3) != 0 { // else let the follower fall behind
					catchUp()
				}
			}
			catchUp()
			if follow != int64(len(stream)) {
				t.Fatalf("follower ended at %d, want %d", follow, len(stream))
			}
			if i := slices.IndexFunc(cover, func(c uint8) bool { return c != 1 }); i >= 0 {
				t.Fatalf("offset %d was accounted for %d times, want once", i, cover[i])
			}
			if size > len(stream) && lost != 0 {
				t.Fatalf("lost %d bytes with a ring larger than the stream", lost)
			}
			if size == 1 && lost == 0 {
				t.Fatalf("a one-byte ring lost nothing; the follower never fell behind")
			}
		})
	}
}

// chunkLen draws a write size for a ring of size: mostly small, sometimes
// around the ring size, now and then several times larger.
func chunkLen(rng *rand.Rand, size int) int {
	switch rng.IntN(10) {
	case 0:
		return size + rng.IntN(3*size+1)
	case 1, 2:
		return max(0, size-2+rng.IntN(5))
	default:
		return rng.IntN(min(size, 8192) + 1)
	}
}

// TestWriteAllocs pins "no allocation per Write" once the ring has filled.
func TestWriteAllocs(t *testing.T) {
	r := New(1 << 16)
	chunk := pattern(4096)
	r.Write(pattern(1 << 16))
	ix := NewLineIndex(New(1 << 16))
	chunk2 := seqOutput(1000)[:4096]
	ix.r.Write(pattern(1 << 16))
	ix.Write(pattern(1 << 16))
	allocs := testing.AllocsPerRun(1000, func() {
		r.Write(chunk)
		ix.r.Write(chunk2)
		ix.Write(chunk2)
	})
	if allocs != 0 {
		t.Errorf("Write allocates %.1f times per call, want 0", allocs)
	}
}

// TestMappedBuffer fills rings whose full-size buffer is outside the heap
// (larger than directAlloc) past their size, checking what they hold as the
// buffer grows from the heap to mapped memory and wraps; with mapAll every
// buffer is mapped and each replaced one returned at once. The rings are
// then dropped and collected, which runs their cleanups.
func TestMappedBuffer(t *testing.T) {
	const size = 3<<20 + 17
	stream := seqOutput(600000) // 3.9 MB
	for _, all := range []bool{false, true} {
		r := New(size)
		r.mapAll = all
		ix := NewLineIndex(r)
		for off, n := 0, 1; off < len(stream); off, n = off+n, n*2+1 {
			n = min(n, len(stream)-off, 1<<20)
			r.Write(stream[off : off+n])
			ix.Write(stream[off : off+n])
			if got := len(r.buf); got > size {
				t.Fatalf("buffer of %d bytes, past size %d", got, size)
			}
			end := int64(off + n)
			for _, o := range []int64{r.Start(), (r.Start() + end) / 2, end - 1} {
				checkReadAt(t, r, stream[:end], o, 4096)
			}
		}
		if !r.mapped {
			t.Fatalf("mapAll=%v: the full-size buffer is on the heap", all)
		}
		got, gone := r.AppendRange(nil, 0, r.End())
		if want := stream[len(stream)-size:]; gone != int64(len(stream)-size) || !bytes.Equal(got, want) {
			t.Fatalf("mapAll=%v: AppendRange gave %d bytes, %d gone; want the last %d", all, len(got), gone, size)
		}
		if n := r.Mask(r.End()-10, r.End(), '*'); n == 0 {
			t.Fatalf("Mask overwrote nothing")
		}
		if line, want := ix.LineAt(r.End()-1), int64(600000); line != want {
			t.Fatalf("LineAt(last byte) = %d, want %d", line, want)
		}
	}
	runtime.GC()
	runtime.GC()
}
