package main

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// benchEcho measures `echo` round trips through the MCP layer and reports
// the median as well as the mean.
func benchEcho(b *testing.B, cs *mcp.ClientSession) {
	var open OpenOut
	call(b, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
	args := map[string]any{"session_id": open.ID, "text": "echo x"}
	ctx := context.Background()
	var durs []time.Duration
	b.ResetTimer()
	for b.Loop() {
		start := time.Now()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: args})
		durs = append(durs, time.Since(start))
		if err != nil || res.IsError {
			b.Fatalf("send: %v %v", err, res)
		}
		sc := res.StructuredContent.(map[string]any)
		if sc["output"] != "x" || sc["via"] != "exit-code" {
			b.Fatalf("send result: %v", sc)
		}
	}
	b.StopTimer()
	slices.Sort(durs)
	b.ReportMetric(float64(durs[len(durs)/2].Microseconds()), "median-µs")
}

// BenchmarkEchoInMemory: echo round trip, MCP over in-memory transports.
func BenchmarkEchoInMemory(b *testing.B) {
	benchEcho(b, newTestClient(b))
}

// BenchmarkEchoStdio: echo round trip against the built binary over stdio,
// as an MCP client sees it.
func BenchmarkEchoStdio(b *testing.B) {
	cmd := serverCmd(b)
	cmd.Stderr = io.Discard
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchEcho(b, cs)
}

// BenchmarkEchoStdioPersistent: echo round trip over stdio when the
// session is kept by the agent (the default for open_local).
func BenchmarkEchoStdioPersistent(b *testing.B) {
	runtime := shortTempDir(b)
	env := testEnv(b, runtime)
	cmd := exec.Command(ttymuxBinary(b), "mcp")
	cmd.Env = env
	cmd.Stderr = io.Discard
	b.Cleanup(func() {
		stop := exec.Command(filepath.Join(filepath.Dir(ttymuxBinary(b)), "ttymux-agent"), "stop", "--force")
		stop.Env = env
		_ = stop.Run() // best effort
	})
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	benchEcho(b, cs)
}

// BenchmarkServerRSS10Idle reports the server's resident memory with ten
// idle shell sessions open.
func BenchmarkServerRSS10Idle(b *testing.B) {
	for b.Loop() {
		cmd := serverCmd(b)
		cmd.Stderr = io.Discard
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			b.Fatal(err)
		}
		for range benchSessions {
			var open OpenOut
			call(b, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
			call(b, cs, "send", map[string]any{"session_id": open.ID, "text": "echo ready"}, nil)
		}
		b.ReportMetric(rssMB(b, cmd.Process.Pid), "rss-MB")
		_ = cs.Close()
	}
}

func rssMB(b *testing.B, pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmRSS:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmRSS")
	return 0
}

var benchSessions = func() int {
	n, err := strconv.Atoi(os.Getenv("TTYMUX_BENCH_SESSIONS"))
	if err != nil {
		return 10
	}
	return n
}()
