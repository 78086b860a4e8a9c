package ring

import (
	"bytes"
	"math/rand/v2"
	"strings"
	"testing"
)

// benchStreams are the shapes of terminal output the benchmarks feed in.
var benchStreams = []struct {
	name string
	gen  func(n int) []byte
}{
	{name: "seq", gen: func(n int) []byte { return seqOutput(n / 6)[:n] }}, // ~7-byte lines, `seq`
	{name: "80col", gen: func(n int) []byte { return repeatTo(strings.Repeat("x", 79)+"\n", n) }},
	{name: "empty-lines", gen: func(n int) []byte { return repeatTo("\n", n) }},
	{name: "no-newlines", gen: func(n int) []byte { return repeatTo("x", n) }},
}

func repeatTo(s string, n int) []byte {
	return bytes.Repeat([]byte(s), n/len(s)+1)[:n]
}

// BenchmarkWrite measures Ring.Write in 4 KiB chunks into a full DefaultSize
// ring: the steady state of a flooding terminal.
func BenchmarkWrite(b *testing.B) {
	const chunk = 4 << 10
	data := seqOutput(400_000)
	r := New(0)
	for r.End() < 2*DefaultSize {
		r.Write(data)
	}
	b.SetBytes(chunk)
	b.ReportAllocs()
	off := 0
	for b.Loop() {
		if off+chunk > len(data) {
			off = 0
		}
		r.Write(data[off : off+chunk])
		off += chunk
	}
}

// BenchmarkLineIndexWrite measures Ring.Write plus LineIndex.Write, the
// whole per-chunk cost on the session's hot path, for several line shapes.
func BenchmarkLineIndexWrite(b *testing.B) {
	const chunk = 4 << 10
	for _, s := range benchStreams {
		b.Run(s.name, func(b *testing.B) {
			data := s.gen(1 << 20)
			r := New(0)
			ix := NewLineIndex(r)
			for r.End() < 2*DefaultSize {
				r.Write(data)
				ix.Write(data)
			}
			b.SetBytes(chunk)
			b.ReportAllocs()
			off := 0
			for b.Loop() {
				if off+chunk > len(data) {
					off = 0
				}
				p := data[off : off+chunk]
				r.Write(p)
				ix.Write(p)
				off += chunk
			}
		})
	}
}

// BenchmarkLineStart looks up random held lines in a full DefaultSize ring.
func BenchmarkLineStart(b *testing.B) {
	for _, s := range benchStreams[:3] {
		b.Run(s.name, func(b *testing.B) {
			r := New(0)
			ix := NewLineIndex(r)
			data := s.gen(1 << 20)
			for r.End() < 2*DefaultSize+12345 {
				r.Write(data)
				ix.Write(data)
			}
			first, lines := ix.FirstLine(), ix.Lines()
			rng := rand.New(rand.NewPCG(1, 1))
			ns := make([]int64, 1024)
			for i := range ns {
				ns[i] = first + rng.Int64N(lines-first+1)
			}
			b.ReportAllocs()
			i := 0
			for b.Loop() {
				if _, err := ix.LineStart(ns[i%len(ns)]); err != nil {
					b.Fatal(err)
				}
				i++
			}
		})
	}
}

// BenchmarkLineAt maps random held offsets to line numbers.
func BenchmarkLineAt(b *testing.B) {
	r := New(0)
	ix := NewLineIndex(r)
	data := seqOutput(200_000)
	for r.End() < 2*DefaultSize+12345 {
		r.Write(data)
		ix.Write(data)
	}
	rng := rand.New(rand.NewPCG(1, 1))
	offs := make([]int64, 1024)
	for i := range offs {
		offs[i] = r.Start() + rng.Int64N(int64(r.Size())+1)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		ix.LineAt(offs[i%len(offs)])
		i++
	}
}
