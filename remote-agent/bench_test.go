package agent

import (
	"slices"
	"testing"
	"time"
)

// BenchmarkEchoRoundTrip types "echo x" into a shell held by the agent and
// waits for its output, over the Unix socket: the agent's share of
// DESIGN.md's echo round-trip target. It reports the median in µs.
func BenchmarkEchoRoundTrip(b *testing.B) {
	ta := startAgent(b, Options{})
	tc := ta.create(b, testShell())
	tc.waitOutput("$ ")
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		tc.input("echo x\r")
		// The terminal echoes "echo x\r\n"; the command's output is the
		// next line.
		tc.waitOutput("\r\nx\r\n")
		lat = append(lat, time.Since(t0))
		tc.waitOutput("$ ") // the prompt, so the next command is not typed ahead
		if len(tc.out) > 1<<20 {
			tc.out, tc.mark, tc.base = nil, 0, tc.next
		}
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "median-µs")
}
