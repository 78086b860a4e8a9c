package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/ptytest"
)

// BenchmarkSeqVsDrain measures `seq 1 1000000` as a client sees it: one
// send through `ttymux mcp -no-agent` (in-process) and one through `ttymux
// mcp` (kept by the agent), from the benchmark process over stdio
// (startClientServers), against a plain drain of the same command on a
// creack/pty PTY (pty.Start, read to EIO), interleaved. DESIGN.md: ≥ 85 %
// of the drain's rate both ways, nothing lost (the result must count all
// 1,000,000 lines), and a server peak RSS ≤ 32 MB, reported with the
// no-op go-sdk server's after one call as its floor. It also reports the
// CPU time per seq of each server and of the agent (`*-cpu-ms/seq`, from
// /proc/PID/stat), which moves less with the load than the wall time.
// With TTYMUX_BENCH_BASE=DIR (another build's ttymux and ttymux-agent) it
// runs those too, interleaved, as base-in-process and base-persistent.
func BenchmarkSeqVsDrain(b *testing.B) {
	c := startClientServers(b)
	timedCall(b, c.noop, "noop", map[string]any{}, noopOK)
	type server struct {
		name string
		cs   *mcp.ClientSession
		cmd  *exec.Cmd
		args map[string]any
		durs []time.Duration
		cpu0 int64
		pid  int
	}
	servers := []*server{{name: "in-process", cs: c.inproc, cmd: c.inprocCmd}, {name: "persistent", cs: c.pers, cmd: c.persCmd}}
	runtimes := []string{c.runtime}
	if base := os.Getenv("TTYMUX_BENCH_BASE"); base != "" {
		bc := startTTYMUXServers(b, filepath.Join(base, "ttymux"))
		servers = append(servers, &server{name: "base-in-process", cs: bc.inproc, cmd: bc.inprocCmd},
			&server{name: "base-persistent", cs: bc.pers, cmd: bc.persCmd})
		runtimes = append(runtimes, bc.runtime)
	}
	for _, s := range servers {
		id := c.open(b, s.cs, strings.HasSuffix(s.name, "persistent"))
		s.args = map[string]any{"session_id": id, "text": "seq 1 1000000", "timeout_ms": 120000, "detail": true}
		s.pid = s.cmd.Process.Pid
	}
	// The agents the persistent opens started.
	var agents []*server
	for i, rt := range runtimes {
		agents = append(agents, &server{name: []string{"agent", "base-agent"}[i], pid: agentPid(b, filepath.Join(rt, "ttymux", "agent-v1.sock"))})
	}
	procs := append(append([]*server{}, servers...), agents...)
	for _, p := range procs {
		p.cpu0 = cpuTicks(b, p.pid)
	}
	var drain []time.Duration
	for b.Loop() {
		drain = append(drain, ptytest.DrainSeq(b))
		for _, s := range servers {
			s.durs = append(s.durs, seqCall(b, s.cs, s.args))
		}
	}
	for _, p := range procs {
		b.ReportMetric(float64(cpuTicks(b, p.pid)-p.cpu0)*10/float64(len(drain)), p.name+"-cpu-ms/seq") // ticks are 10 ms
	}
	md := median(drain)
	b.ReportMetric(float64(md.Milliseconds()), "drain-ms")
	for _, s := range servers {
		ms := median(s.durs)
		b.ReportMetric(float64(ms.Milliseconds()), s.name+"-ms")
		b.ReportMetric(100*md.Seconds()/ms.Seconds(), s.name+"-pct-of-drain")
		b.ReportMetric(peakRSSMB(b, s.pid), s.name+"-peak-rss-MB")
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
