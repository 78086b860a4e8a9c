package main

import (
	"context"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
)

// BenchmarkListDuringWait reports the median `list` call (MCP in memory)
// while another call waits on `sleep 3` in one of three persistent sessions
// held by the built agent (DESIGN.md: list answers from the server's own
// state, ≤ 1 ms during a 3 s wait, issue #17). A list every 50 ms, timed
// only while the sleep runs, each followed by a no-op go-sdk tool call over
// the same kind of transport: the floor of any call in the same run.
func BenchmarkListDuringWait(b *testing.B) {
	agentBin := filepath.Join(filepath.Dir(ttymuxBinary(b)), "ttymux-agent")
	sock := filepath.Join(shortTempDir(b), "agent.sock")
	b.Cleanup(func() {
		_ = exec.Command(agentBin, "stop", "--force", "--socket", sock).Run() // best effort
	})
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
		StateDir: b.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		Keeper:   &agent.Client{Socket: sock, AgentPath: agentBin},
	})
	b.Cleanup(m.CloseAll)
	cs := connect(b, newServer(m, nil), nil)
	var ids []string
	for range 3 {
		var open OpenOut
		call(b, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": b.TempDir()}}, &open)
		if !open.Persistent {
			b.Fatalf("not persistent: %+v", open)
		}
		ids = append(ids, open.ID)
	}
	ctx := context.Background()
	// The floor: a no-op go-sdk tool over the same in-memory transport.
	noopSrv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "0"}, nil)
	type noopOut struct {
		OK bool `json:"ok"`
	}
	mcp.AddTool(noopSrv, &mcp.Tool{Name: "noop", Description: "does nothing"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, noopOut, error) {
		return nil, noopOut{OK: true}, nil
	})
	noop := connect(b, noopSrv, nil)
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
			if ss[0].(map[string]any)["foreground"] == "sleep" {
				durs = append(durs, d) // only while the wait is on
				start = time.Now()
				if _, err := noop.CallTool(ctx, &mcp.CallToolParams{Name: "noop", Arguments: map[string]any{}}); err != nil {
					b.Fatal(err)
				}
				noopDurs = append(noopDurs, time.Since(start))
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
