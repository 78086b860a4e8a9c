package reduce

import (
	"bytes"
	"strconv"
	"testing"
)

// seqOutput is what a terminal shows for seq 1 n: the PTY turns each '\n'
// into "\r\n".
func seqOutput(n int) []byte {
	var b bytes.Buffer
	for i := 1; i <= n; i++ {
		b.WriteString(strconv.Itoa(i))
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

// buildLogOutput is buildLog(n) with two errors, as a terminal shows it.
func buildLogOutput(n int) []byte {
	var b bytes.Buffer
	for _, l := range buildLog(n, map[int]string{1000: "x.c:1:1: error: e", n / 2: "x.c:1:1: error: e"}) {
		b.WriteString(l)
		b.WriteString("\r\n")
	}
	return b.Bytes()
}

var benchResult Result

// The benchmarks below measure what a read of new output does with it:
// RenderNumbered, then Reduce with the session's options.

func benchRender(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		RenderNumbered(in)
	}
}

func benchReduce(b *testing.B, in []byte) {
	lines, nums := RenderNumbered(in)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		benchResult = Reduce(lines, Options{FirstLine: 5, LineNumbers: nums, ReadHint: hint})
	}
}

func benchRenderReduce(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		lines, nums := RenderNumbered(in)
		benchResult = Reduce(lines, Options{FirstLine: 5, LineNumbers: nums, ReadHint: hint})
	}
}

func BenchmarkRenderSeq1M(b *testing.B)       { benchRender(b, seqOutput(1_000_000)) }
func BenchmarkReduceSeq1M(b *testing.B)       { benchReduce(b, seqOutput(1_000_000)) }
func BenchmarkRenderReduceSeq1M(b *testing.B) { benchRenderReduce(b, seqOutput(1_000_000)) }

func BenchmarkRenderBuildLog1M(b *testing.B)       { benchRender(b, buildLogOutput(1_000_000)) }
func BenchmarkReduceBuildLog1M(b *testing.B)       { benchReduce(b, buildLogOutput(1_000_000)) }
func BenchmarkRenderReduceBuildLog1M(b *testing.B) { benchRenderReduce(b, buildLogOutput(1_000_000)) }

// benchCollectReduce is what a session does now: the output through a
// Collector in 256 KiB pieces (as the pre-renderer copies the log), then
// Reduce of what it kept. Compare with benchRenderReduce.
func benchCollectReduce(b *testing.B, in []byte) {
	b.SetBytes(int64(len(in)))
	b.ReportAllocs()
	for b.Loop() {
		var c Collector
		for i := 0; i < len(in); i += 256 << 10 {
			c.Write(in[i:min(i+256<<10, len(in))])
		}
		lines, nums, gaps := c.Finish(nil, 5, hint)
		benchResult = Reduce(lines, Options{FirstLine: 5, LineNumbers: nums, Gaps: gaps, ReadHint: hint})
	}
}

func BenchmarkCollectReduceSeq1M(b *testing.B)      { benchCollectReduce(b, seqOutput(1_000_000)) }
func BenchmarkCollectReduceBuildLog1M(b *testing.B) { benchCollectReduce(b, buildLogOutput(1_000_000)) }

// yesOutput is what a terminal shows for yes: one letter a line.
func yesOutput(n int) []byte { return bytes.Repeat([]byte("y\r\n"), n) }

func BenchmarkCollectReduceYes2M(b *testing.B) { benchCollectReduce(b, yesOutput(2_000_000)) }

// BenchmarkCollectReduceFlood is the line ConsoleWatch20's flood prints.
func BenchmarkCollectReduceFlood(b *testing.B) {
	benchCollectReduce(b, bytes.Repeat([]byte("flood-flood-flood-flood-flood\r\n"), 250_000))
}
