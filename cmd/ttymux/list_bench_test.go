package main

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkListDuringWait reports the median `list` call as a client sees
// it while another call of the same client waits on `sleep 3` in one of
// three sessions kept by the agent (DESIGN.md: list answers from the
// server's own state, ≤ 1 ms during a 3 s wait, issue #17). The client is
// the benchmark process, go-sdk over stdio to `ttymux mcp` built as
// install.sh builds it (startClientServers); a list every 50 ms, timed
// only while the sleep runs, each followed by a no-op tool call to the
// go-sdk no-op server through the same client: the floor of any call in
// the same run. It reports the median CPU time each server's threads ran
// during one call too (list-server-cpu-µs, noop-server-cpu-µs).
func BenchmarkListDuringWait(b *testing.B) {
	c := startClientServers(b)
	cs := c.pers
	var ids []string
	for range 3 {
		ids = append(ids, c.open(b, cs, true))
	}
	ctx := context.Background()
	var durs, noopDurs, cpus, noopCPUs []time.Duration
	srv, noop := c.persCmd.Process.Pid, c.noopCmd.Process.Pid
	for b.Loop() {
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": ids[0], "text": "sleep 3"}})
			done <- err
		}()
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			cpu0 := taskCPU(b, srv)
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
			d := time.Since(start)
			cpu := taskCPU(b, srv) - cpu0
			if err != nil || res.IsError {
				b.Fatalf("list: %v %v", err, res)
			}
			ss, _ := res.StructuredContent.(map[string]any)["sessions"].([]any)
			if len(ss) != 3 {
				b.Fatalf("list: %v", res.StructuredContent)
			}
			running := false
			for _, s := range ss {
				if m := s.(map[string]any); m["session_id"] == ids[0] && m["foreground"] == "sleep" {
					running = true
				}
			}
			if running {
				durs, cpus = append(durs, d), append(cpus, cpu) // only while the wait is on
				ncpu0 := taskCPU(b, noop)
				noopDurs = append(noopDurs, timedCall(b, c.noop, "noop", map[string]any{}, noopOK))
				noopCPUs = append(noopCPUs, taskCPU(b, noop)-ncpu0)
			}
			time.Sleep(50 * time.Millisecond) // a model does not list in a loop
		}
		if err := <-done; err != nil {
			b.Fatal(err)
		}
	}
	if len(durs) == 0 {
		b.Fatal("no list call saw the sleep running")
	}
	b.ReportMetric(float64(median(durs).Microseconds()), "list-median-µs")
	b.ReportMetric(float64(median(noopDurs).Microseconds()), "noop-call-µs")
	b.ReportMetric(float64(median(durs))/float64(median(noopDurs)), "list-x-noop")
	b.ReportMetric(float64(len(durs))/float64(b.N), "lists/op")
	// The servers' own CPU per call, less at the mercy of other load than
	// latency.
	b.ReportMetric(float64(median(cpus).Microseconds()), "list-server-cpu-µs")
	b.ReportMetric(float64(median(noopCPUs).Microseconds()), "noop-server-cpu-µs")
}

// taskCPU is the CPU time pid's threads have run, from their schedstat
// (nanoseconds, where /proc/PID/stat counts 10 ms ticks).
func taskCPU(b *testing.B, pid int) time.Duration {
	tasks, err := os.ReadDir(fmt.Sprintf("/proc/%d/task", pid))
	if err != nil {
		b.Fatal(err)
	}
	var sum time.Duration
	for _, t := range tasks {
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/task/%s/schedstat", pid, t.Name()))
		if err != nil {
			continue // a thread that ended
		}
		ns, _ := strconv.ParseInt(strings.Fields(string(data))[0], 10, 64)
		sum += time.Duration(ns)
	}
	return sum
}
