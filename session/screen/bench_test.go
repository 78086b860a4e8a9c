package screen

import (
	"fmt"
	"testing"
)

// BenchmarkWriteFlood measures the Write path with `seq`-style output in
// PTY-sized chunks: what a session's reader goroutine pays per byte.
func BenchmarkWriteFlood(b *testing.B) {
	data := numberedLines(0, 700000) // 5 MB
	s := New(24, 80, Options{})
	defer s.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for p := data; len(p) > 0; {
			c := p[:min(len(p), 4096)]
			p = p[len(c):]
			_, _ = s.Write(c)
		}
	}
}

// BenchmarkWriteColored is BenchmarkWriteFlood with an escape sequence
// every few bytes (ls --color).
func BenchmarkWriteColored(b *testing.B) {
	var data []byte
	for i := 0; len(data) < 5<<20; i++ {
		data = fmt.Appendf(data, "\x1b[01;34mdir%d\x1b[0m  \x1b[32mfile%d.go\x1b[m\r\n", i, i)
	}
	s := New(24, 80, Options{})
	defer s.Close()
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		for p := data; len(p) > 0; {
			c := p[:min(len(p), 4096)]
			p = p[len(c):]
			_, _ = s.Write(c)
		}
	}
}

// BenchmarkSnapshotAfterFlood measures the catch-up a Snapshot pays after
// 1 MB of lines: the cut tail, not the whole flood.
func BenchmarkSnapshotAfterFlood(b *testing.B) {
	for _, size := range [][2]int{{24, 80}, {50, 200}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			data := numberedLines(0, 140000)
			s := newScreen(size[0], size[1], Options{}, noQuiet)
			defer s.Close()
			for b.Loop() {
				_, _ = s.Write(data)
				s.Snapshot()
			}
		})
	}
}

// BenchmarkEmulator measures vt itself on scrolling output, the reason
// for the lazy design.
func BenchmarkEmulator(b *testing.B) {
	for _, size := range [][2]int{{24, 80}, {50, 200}} {
		b.Run(fmt.Sprintf("%dx%d", size[0], size[1]), func(b *testing.B) {
			data := numberedLines(0, 20000)
			e := newTestEmu(b, size[0], size[1], 1000)
			b.SetBytes(int64(len(data)))
			for b.Loop() {
				_, _ = e.Write(data)
			}
		})
	}
}
