package main

import (
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
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

// startup is one start-up as a client sees it: the wall time from the
// spawn to the answer of the first tools/list and, within it, to the
// answer of initialize; and the CPU the client (this process, all its
// threads) and the server ran in that time.
type startup struct {
	wall, init, client, server time.Duration
}

// startToList spawns cmd as a client spawns an MCP server, and times it to
// the answer of its first tools/list.
func startToList(b *testing.B, cmd *exec.Cmd) startup {
	cmd.Stderr = nil
	cpu0 := selfCPU(b)
	start := time.Now()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	initialized := time.Since(start)
	res, err := cs.ListTools(context.Background(), nil)
	s := startup{wall: time.Since(start), init: initialized, client: selfCPU(b) - cpu0}
	if err != nil || len(res.Tools) == 0 {
		b.Fatalf("tools/list: %v", err)
	}
	s.server = taskCPU(b, cmd.Process.Pid)
	cs.Close()
	return s
}

// selfCPU is the CPU time this process has run, all threads, user and
// system (getrusage, which Linux counts in nanoseconds).
func selfCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// reportStartups reports the medians of ss as name-µs, name-init-µs,
// name-client-cpu-µs and name-server-cpu-µs, and returns the median wall
// time.
func reportStartups(b *testing.B, name string, ss []startup) time.Duration {
	var wall, init, client, server []time.Duration
	for _, s := range ss {
		wall, init = append(wall, s.wall), append(init, s.init)
		client, server = append(client, s.client), append(server, s.server)
	}
	b.ReportMetric(float64(median(wall).Microseconds()), name+"-µs")
	b.ReportMetric(float64(median(init).Microseconds()), name+"-init-µs")
	b.ReportMetric(float64(median(client).Microseconds()), name+"-client-cpu-µs")
	b.ReportMetric(float64(median(server).Microseconds()), name+"-server-cpu-µs")
	return median(wall)
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
	var ours, floor, sameList, theirs []startup
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
	// Wall times, and the CPU each start-up cost the client and the
	// server, which moves less with the load than the wall time does.
	noopWall := reportStartups(b, "noop", floor)
	sameWall := reportStartups(b, "same-list", sameList)
	ourWall := reportStartups(b, "ttymux", ours)
	b.ReportMetric(float64(ourWall)/float64(noopWall), "x-noop")
	b.ReportMetric(float64(ourWall)/float64(sameWall), "x-same-list")
	if base != "" {
		baseWall := reportStartups(b, "base-ttymux", theirs)
		b.ReportMetric(float64(baseWall)/float64(noopWall), "base-x-noop")
		b.ReportMetric(float64(baseWall)/float64(sameWall), "base-x-same-list")
	}
}
