package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	goruntime "runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// BenchmarkServerFloodPeakRSS reports the server process's peak resident
// set (VmHWM) after a flood through one session, for a session held in the
// server (open_local persistent: false) and one held by the agent (the
// default): `yes | head -c 100000000` (issue #13 item 7: under 64 MB) and
// `seq 1 1000000` (DESIGN.md: ≤ 32 MB). A figure, not an assertion; see
// docs/performance.md. The server is built as install.sh builds it
// (installedBinary); with TTYMUX_BENCH_BASE=DIR it also runs the ttymux
// and ttymux-agent in DIR, interleaved (see below).
//
//	go test -run XXX -bench ServerFloodPeakRSS -benchtime 1x ./cmd/ttymux
func BenchmarkServerFloodPeakRSS(b *testing.B) {
	// The floor: a go-sdk server with one no-op tool (internal/noopmcp,
	// built as install.sh builds ttymux), after one call.
	b.Run("floor/noop", func(b *testing.B) {
		for b.Loop() {
			cmd := exec.Command(noopBinary(b))
			cs := stdioClient(b, cmd)
			timedCall(b, cs, "noop", map[string]any{}, noopOK)
			b.ReportMetric(peakRSSMB(b, cmd.Process.Pid), "peak-rss-MB")
			_ = cs.Close()
		}
	})
	// TTYMUX_BENCH_BASE names a directory holding another build's ttymux
	// and ttymux-agent (a baseline): each iteration then runs both, one
	// after the other, and reports the baseline's figure as
	// base-peak-rss-MB, so an A/B comparison sees the same load.
	base := os.Getenv("TTYMUX_BENCH_BASE")
	for _, held := range []string{"server", "agent"} {
		for _, text := range []string{"yes | head -c 100000000", "seq 1 1000000"} {
			b.Run(held+"/"+strings.Fields(text)[0], func(b *testing.B) {
				var rss, baseRSS float64
				for b.Loop() {
					rss += floodPeakRSS(b, installedBinary(b), held, text)
					if base != "" {
						baseRSS += floodPeakRSS(b, filepath.Join(base, "ttymux"), held, text)
					}
				}
				b.ReportMetric(rss/float64(b.N), "peak-rss-MB")
				if base != "" {
					b.ReportMetric(baseRSS/float64(b.N), "base-peak-rss-MB")
					b.ReportMetric(rss/baseRSS, "rss/base")
				}
			})
		}
	}
}

// floodPeakRSS runs text through one session of the server bin (held in
// the server or by the agent beside bin) and returns the server's peak RSS.
func floodPeakRSS(b *testing.B, bin, held, text string) float64 {
	runtime := shortTempDir(b)
	env := testEnv(b, runtime)
	args := []string{"mcp"}
	if held == "server" {
		args = append(args, "-no-agent")
	} else {
		defer func() {
			stop := exec.Command(filepath.Join(filepath.Dir(bin), "ttymux-agent"), "stop", "--force")
			stop.Env = env
			_ = stop.Run() // best effort
		}()
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = env
	cmd.Stderr = io.Discard
	if f := os.Getenv("TTYMUX_BENCH_STDERR"); f != "" {
		// The server's log (and, with GODEBUG=gctrace=1 in the
		// environment, the garbage collector's trace) for a profile.
		w, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		defer w.Close()
		cmd.Stderr = w
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	defer cs.Close()
	var open OpenOut
	call(b, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}, "persistent": held == "agent"}, &open)
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{
		"session_id": open.ID, "text": text, "timeout_ms": 240000}})
	if err != nil || res.IsError {
		b.Fatalf("send: %v %+v", err, res)
	}
	rss := peakRSSMB(b, cmd.Process.Pid)
	call(b, cs, "close", map[string]any{"session_id": open.ID}, nil)
	return rss
}

// installedBinary returns ttymux built as install.sh builds it on Linux
// (CGO_ENABLED=0, -trimpath, stripped), with its agent beside it, once per
// test binary: what a user runs, and what a memory figure is about. A
// default `go build` here links libc (the cgo resolver and user lookup),
// about 1.5–2 MB more resident (docs/performance.md, "2026-11-24, third
// round"). Elsewhere it is ttymuxBinary. TTYMUX_BENCH_BIN=DIR names a
// directory holding ttymux, ttymux-agent and noopmcp built another way
// instead (with symbols, for perf: docs/performance.md, "Profiling").
func installedBinary(t testing.TB) string {
	t.Helper()
	if dir := os.Getenv("TTYMUX_BENCH_BIN"); dir != "" {
		return filepath.Join(dir, "ttymux")
	}
	if goruntime.GOOS != "linux" {
		return ttymuxBinary(t)
	}
	// In the directory of ttymuxBinary's build, which TestMain removes.
	dir := filepath.Join(filepath.Dir(ttymuxBinary(t)), "installed")
	installedOnce.Do(func() {
		cmd := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", dir+"/", ".", "../ttymux-agent")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			installedErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		installedPath = filepath.Join(dir, "ttymux")
	})
	if installedErr != nil {
		t.Fatal(installedErr)
	}
	return installedPath
}

var (
	installedOnce sync.Once
	installedPath string
	installedErr  error
)

func peakRSSMB(b *testing.B, pid int) float64 {
	data, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(data), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == "VmHWM:" {
			kb, _ := strconv.Atoi(f[1])
			return float64(kb) / 1024
		}
	}
	b.Fatal("no VmHWM")
	return 0
}
