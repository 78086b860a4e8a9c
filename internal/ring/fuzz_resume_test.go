package ring

import (
	"bytes"
	"testing"
)

// FuzzRingAt is FuzzRing for a ring made with NewAt: a client that replays
// stream from offset at (the bytes before it went to a daemon the client
// never saw) with a LineIndex from NewLineIndexAt, in chunks whose lengths
// come from ops. An op byte >= 240 loses the next op-239 bytes instead, with
// Ring.Skip plus LineIndex.SkipLines (even op) or LineIndex.Skip (odd op). A
// size >= 128 writes the first chunk before making the index. After every
// step it checks every range and every line against the naive references.
func FuzzRingAt(f *testing.F) {
	f.Add(uint8(4), uint8(1), uint16(5), []byte("one\ntwo\nthree\n\n\nfour"), []byte{3, 0, 5, 241, 1, 250})
	f.Add(uint8(129), uint8(2), uint16(3), []byte("\n\n\n\n\n\n\n\n"), []byte{1, 2, 240, 3})
	f.Add(uint8(16), uint8(0), uint16(40), seqOutput(100), []byte{7, 16, 17, 245, 1, 0, 33, 244})
	f.Add(uint8(9), uint8(3), uint16(11), bytes.Repeat([]byte("long line without end "), 10), []byte{235, 9, 255, 8})
	f.Fuzz(func(t *testing.T, size, k uint8, at uint16, stream, ops []byte) {
		stream = stream[:min(len(stream), 4096)]
		ops = ops[:min(len(ops), 64)]
		sz := 1 + int(size%64)
		spacing := int64(1 + k%8)
		if k%9 == 0 {
			spacing = checkpointEvery
		}
		s := int(at) % (len(stream) + 1)
		ref := newRefLines()
		ref.write(0, stream[:s])
		r := NewAt(sz, int64(s))
		var ix *LineIndex
		if size < 128 {
			ix = newLineIndexAt(r, ref.lineAt(int64(s)), spacing)
		}
		base, shift := int64(s), int64(0)
		off := s
		step := func(op byte) {
			n := int(op)
			if op >= 240 {
				n = int(op) - 239
			} else if op >= 230 {
				n = sz * int(op-228)
			}
			n = min(n, len(stream)-off)
			p := stream[off : off+n]
			ref.write(int64(off), p)
			off += n
			if op >= 240 {
				r.Skip(int64(n))
				if n > 0 {
					base = r.End()
				}
				nl := int64(bytes.Count(p, newline))
				switch {
				case ix == nil:
					ix = newLineIndexAt(r, ref.lineAt(r.Start()), spacing)
				case op%2 == 0:
					ix.SkipLines(int64(n), nl)
				default:
					ix.Skip(int64(n))
					shift += nl
				}
			} else {
				if got, err := r.Write(p); got != n || err != nil {
					t.Fatalf("Write(%d bytes) = %d, %v", n, got, err)
				}
				if ix == nil {
					ix = newLineIndexAt(r, ref.lineAt(r.Start()), spacing)
				} else {
					ix.Write(p)
				}
			}
			checkRingAt(t, r, stream[:off], base, true, nil)
			checkIndexAt(t, ix, ref, base, shift, true, nil)
		}
		for _, op := range ops {
			if off == len(stream) {
				break
			}
			step(op)
		}
		step(229) // the rest, up to 229 bytes at a time
		for off < len(stream) {
			step(229)
		}
	})
}
