package screen

import (
	"fmt"
	"runtime"
	"testing"
	"time"
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

// BenchmarkIdleScreenMemory measures what an idle Screen of 40x120 that
// has shown a bash prompt keeps on the heap (B/screen) and on goroutine
// stacks (stack-B/screen), after the quiet delay has passed.
func BenchmarkIdleScreenMemory(b *testing.B) {
	const n = 100
	prompt := []byte("\x1b]0;user@host: ~/src/ttymux\x07\x1b[?2004huser@host:~/src/ttymux$ ")
	var heap, stack float64
	for b.Loop() {
		var before, after runtime.MemStats
		runtime.GC()
		runtime.ReadMemStats(&before)
		screens := make([]*Screen, n)
		for i := range screens {
			screens[i] = New(40, 120, Options{})
			_, _ = screens[i].Write(prompt)
		}
		time.Sleep(5 * quietDelay) // let any catch-up run
		runtime.GC()
		runtime.ReadMemStats(&after)
		heap += float64(after.HeapInuse) - float64(before.HeapInuse)
		stack += float64(after.StackInuse) - float64(before.StackInuse)
		for _, s := range screens {
			_ = s.Close()
		}
	}
	b.ReportMetric(heap/float64(b.N)/n, "B/screen")
	b.ReportMetric(stack/float64(b.N)/n, "stack-B/screen")
}
