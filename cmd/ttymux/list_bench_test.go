package main

import (
	"context"
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
// the same run.
func BenchmarkListDuringWait(b *testing.B) {
	c := startClientServers(b)
	cs := c.pers
	var ids []string
	for range 3 {
		ids = append(ids, c.open(b, cs, true))
	}
	ctx := context.Background()
	var durs, noopDurs []time.Duration
	for b.Loop() {
		done := make(chan error, 1)
		go func() {
			_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": ids[0], "text": "sleep 3"}})
			done <- err
		}()
		deadline := time.Now().Add(3 * time.Second)
		for time.Now().Before(deadline) {
			start := time.Now()
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}})
			d := time.Since(start)
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
				durs = append(durs, d) // only while the wait is on
				noopDurs = append(noopDurs, timedCall(b, c.noop, "noop", map[string]any{}, noopOK))
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
}
