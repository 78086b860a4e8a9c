package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// noopBinary builds internal/noopmcp as install.sh builds ttymux, beside
// installedBinary.
func noopBinary(b *testing.B) string {
	dir := filepath.Dir(installedBinary(b))
	out := filepath.Join(dir, "noopmcp")
	if _, err := os.Stat(out); err == nil {
		return out
	}
	cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", out, "../../internal/noopmcp")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if o, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("go build noopmcp: %v\n%s", err, o)
	}
	return out
}

// toolsOf spawns cmd as a client does and returns the tools it lists.
func toolsOf(b *testing.B, cmd *exec.Cmd) []*mcp.Tool {
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		b.Fatal(err)
	}
	return res.Tools
}

// startToList spawns cmd as a client spawns an MCP server, and returns how
// long it took from the spawn to the answer to the first tools/list.
func startToList(b *testing.B, cmd *exec.Cmd) time.Duration {
	cmd.Stderr = nil
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	res, err := cs.ListTools(context.Background(), nil)
	d := time.Since(start)
	if err != nil || len(res.Tools) == 0 {
		b.Fatalf("tools/list: %v", err)
	}
	cs.Close()
	return d
}

// BenchmarkStartupVsNoop measures what a client pays at the start of every
// session: spawning `ttymux mcp` (built as install.sh builds it) to the
// answer of its first tools/list, against the same for a no-op go-sdk
// server built the same way, interleaved in one run. DESIGN.md's target:
// ≤ 1.5× the no-op server. With TTYMUX_BENCH_BASE=DIR it also starts the
// ttymux in DIR (another build), interleaved: base-ttymux-µs.
//
// A second floor, same-list-µs, is the no-op server listing ttymux's own
// tools besides its one (NOOPMCP_TOOLS): the client reads and checks a
// 49 KB answer instead of a few hundred bytes, which costs it several
// milliseconds whoever sends it. x-same-list is ttymux against that floor:
// what its start-up costs beyond the size of its tool list.
func BenchmarkStartupVsNoop(b *testing.B) {
	bin, noop := installedBinary(b), noopBinary(b)
	home := b.TempDir()
	runtime := shortTempDir(b)
	env := append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR="+runtime, "TTYMUX_LOG=warn")
	base := os.Getenv("TTYMUX_BENCH_BASE")
	first := exec.Command(bin, "mcp")
	first.Env = env
	list, err := json.Marshal(toolsOf(b, first))
	if err != nil {
		b.Fatal(err)
	}
	listFile := filepath.Join(b.TempDir(), "tools.json")
	if err := os.WriteFile(listFile, list, 0o600); err != nil {
		b.Fatal(err)
	}
	var ours, floor, sameList, theirs []time.Duration
	for b.Loop() {
		n := exec.Command(noop)
		n.Env = env
		floor = append(floor, startToList(b, n))
		n = exec.Command(noop)
		n.Env = append(env, "NOOPMCP_TOOLS="+listFile)
		sameList = append(sameList, startToList(b, n))
		t := exec.Command(bin, "mcp")
		t.Env = env
		ours = append(ours, startToList(b, t))
		if base != "" {
			t := exec.Command(filepath.Join(base, "ttymux"), "mcp")
			t.Env = env
			theirs = append(theirs, startToList(b, t))
		}
	}
	b.ReportMetric(float64(median(floor).Microseconds()), "noop-µs")
	b.ReportMetric(float64(median(ours).Microseconds()), "ttymux-µs")
	b.ReportMetric(float64(median(ours))/float64(median(floor)), "x-noop")
	b.ReportMetric(float64(median(sameList).Microseconds()), "same-list-µs")
	b.ReportMetric(float64(median(ours))/float64(median(sameList)), "x-same-list")
	if base != "" {
		b.ReportMetric(float64(median(theirs).Microseconds()), "base-ttymux-µs")
		b.ReportMetric(float64(median(theirs))/float64(median(floor)), "base-x-noop")
		b.ReportMetric(float64(median(theirs))/float64(median(sameList)), "base-x-same-list")
	}
}
