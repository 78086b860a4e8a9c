package agentd

import (
	"bytes"
	"encoding/binary"
	"slices"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
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

// BenchmarkFloodSeq runs `seq 1 1000000` in a shell held by the agent and
// reads the stream to the end of its output, discarding it: the agent's
// share of a persistent session's throughput (session
// BenchmarkSessionVsDrain/persistent), for a CPU profile of the agent's
// path (PTY read → ring → frames → socket). It reports ms per flood.
func BenchmarkFloodSeq(b *testing.B) {
	ta := startAgent(b, Options{})
	tc := ta.create(b, testShell())
	tc.waitOutput("$ ")
	var buf []byte
	var total time.Duration
	for b.Loop() {
		t0 := time.Now()
		tc.input("seq 1 1000000; echo FLOOD-$((6*7))\r")
		var n int64
		var tail []byte
		for {
			_ = tc.c.SetReadDeadline(time.Now().Add(waitTimeout))
			f, err := agentproto.ReadFrame(tc.br, buf)
			if err != nil {
				b.Fatal(err)
			}
			buf = f.Payload[:0]
			if f.Type != agentproto.TypeOutput {
				continue
			}
			_, k := binary.Varint(f.Payload)
			data := f.Payload[k:]
			n += int64(len(data))
			tail = append(tail, data[max(0, len(data)-64):]...)
			if len(tail) > 128 {
				tail = tail[len(tail)-128:]
			}
			if bytes.Contains(tail, []byte("FLOOD-42\r\n")) {
				break
			}
		}
		total += time.Since(t0)
		if n < 7888896 {
			b.Fatalf("read %d bytes, want at least seq's 7888896", n)
		}
	}
	b.ReportMetric(float64(total.Milliseconds())/float64(b.N), "flood-ms")
}
