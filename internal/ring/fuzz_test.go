package ring

import (
	"bytes"
	"testing"
)

// FuzzRing writes stream into a small ring in chunks whose lengths come from
// chunks (a byte >= 250 means a chunk several times the ring size; size >=
// 128 puts every buffer outside the heap, see grow), with a
// LineIndex alongside, and after every write checks every range and every
// line against the naive references.
func FuzzRing(f *testing.F) {
	f.Add(uint8(4), uint8(1), []byte("one\ntwo\nthree\n\n\nfour"), []byte{3, 0, 5, 250, 1})
	f.Add(uint8(1), uint8(2), []byte("\n\n\n\n\n\n"), []byte{1, 2, 3})
	f.Add(uint8(16), uint8(0), seqOutput(100), []byte{7, 16, 17, 255, 1, 0, 33})
	f.Add(uint8(9), uint8(3), bytes.Repeat([]byte("long line without end "), 10), []byte{251, 9, 8})
	f.Add(uint8(128+16), uint8(1), seqOutput(100), []byte{7, 16, 17, 255, 1, 0, 33})
	f.Fuzz(func(t *testing.T, size, k uint8, stream, chunks []byte) {
		// Bound the work per input: every write checks O(size²) ranges.
		stream = stream[:min(len(stream), 4096)]
		chunks = chunks[:min(len(chunks), 64)]
		sz := 1 + int(size%64)
		spacing := int64(1 + k%8)
		if k%9 == 0 {
			spacing = checkpointEvery
		}
		r := New(sz)
		r.mapAll = size >= 128 // buffers outside the heap, as a full-size log's
		ix := newLineIndex(r, spacing)
		ref := newRefLines()
		off := 0
		write := func(n int) {
			n = min(n, len(stream)-off)
			p := stream[off : off+n]
			if got, err := r.Write(p); got != n || err != nil {
				t.Fatalf("Write(%d bytes) = %d, %v", n, got, err)
			}
			ix.Write(p)
			ref.write(int64(off), p)
			off += n
			checkRing(t, r, stream[:off], true, nil)
			checkIndex(t, ix, ref, true, nil)
		}
		for _, c := range chunks {
			if off == len(stream) {
				break
			}
			n := int(c)
			if c >= 250 {
				n = sz * int(c-248)
			}
			write(n)
		}
		write(len(stream))
	})
}
