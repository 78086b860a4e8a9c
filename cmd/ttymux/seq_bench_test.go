package main

import (
	"context"
	"github.com/ttymux/ttymux/internal/ptytest"
	"os/exec"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkSeqVsDrain measures `seq 1 1000000` as a client sees it: one
// send through `ttymux mcp -no-agent` (in-process) and one through `ttymux
// mcp` (kept by the agent), from the benchmark process over stdio
// (startClientServers), against a plain drain of the same command on a
// creack/pty PTY (pty.Start, read to EIO), interleaved. DESIGN.md: ≥ 85 %
// of the drain's rate both ways, nothing lost (the result must count all
// 1,000,000 lines), and a server peak RSS ≤ 32 MB, reported with the
// no-op go-sdk server's after one call as its floor.
func BenchmarkSeqVsDrain(b *testing.B) {
	c := startClientServers(b)
	timedCall(b, c.noop, "noop", map[string]any{}, noopOK)
	servers := []struct {
		name string
		cs   *mcp.ClientSession
		cmd  *exec.Cmd
		args map[string]any
		durs []time.Duration
	}{{name: "in-process", cs: c.inproc, cmd: c.inprocCmd}, {name: "persistent", cs: c.pers, cmd: c.persCmd}}
	for i := range servers {
		id := c.open(b, servers[i].cs, servers[i].name == "persistent")
		servers[i].args = map[string]any{"session_id": id, "text": "seq 1 1000000", "timeout_ms": 120000, "detail": true}
	}
	var drain []time.Duration
	for b.Loop() {
		drain = append(drain, ptytest.DrainSeq(b))
		for i := range servers {
			s := &servers[i]
			s.durs = append(s.durs, seqCall(b, s.cs, s.args))
		}
	}
	md := median(drain)
	b.ReportMetric(float64(md.Milliseconds()), "drain-ms")
	for _, s := range servers {
		ms := median(s.durs)
		b.ReportMetric(float64(ms.Milliseconds()), s.name+"-ms")
		b.ReportMetric(100*md.Seconds()/ms.Seconds(), s.name+"-pct-of-drain")
		b.ReportMetric(peakRSSMB(b, s.cmd.Process.Pid), s.name+"-peak-rss-MB")
	}
	b.ReportMetric(peakRSSMB(b, c.noopCmd.Process.Pid), "noop-peak-rss-MB")
}

// seqCall sends `seq 1 1000000` and checks the result counts every line.
func seqCall(b *testing.B, cs *mcp.ClientSession, args map[string]any) time.Duration {
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: args})
	d := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("send seq: %v %v", err, res)
	}
	sc, _ := res.StructuredContent.(map[string]any)
	red, _ := sc["reduction"].(map[string]any)
	if sc["complete"] != true || sc["exit_code"] != 0.0 || red == nil || red["raw_lines"] != 1000000.0 {
		b.Fatalf("seq result: complete=%v exit=%v reduction=%v", sc["complete"], sc["exit_code"], red)
	}
	return d
}
