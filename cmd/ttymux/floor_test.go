package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// ptyFloor is a bash on a raw creack/pty PTY whose prompt hook prints an
// OSC 133;D mark with the exit status: what no server can beat.
type ptyFloor struct {
	f   *os.File
	buf []byte
}

func startPTYFloor(b *testing.B) *ptyFloor {
	cmd := exec.Command("bash", "--norc", "--noprofile", "-i")
	cmd.Env = append(os.Environ(), "PS1=$ ", `PROMPT_COMMAND=printf '\033]133;D;%s\007' $?`, "TERM=xterm-256color", "HOME="+b.TempDir())
	f, err := pty.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() {
		f.Close()
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	p := &ptyFloor{f: f, buf: make([]byte, 0, 4096)}
	p.until(b, []byte("\x1b]133;D;0\a")) // the first prompt
	return p
}

// until reads until mark has arrived.
func (p *ptyFloor) until(b *testing.B, mark []byte) {
	p.buf = p.buf[:0]
	var chunk [4096]byte
	for !bytes.Contains(p.buf, mark) {
		n, err := p.f.Read(chunk[:])
		if err != nil {
			b.Fatalf("pty read: %v (got %q)", err, p.buf)
		}
		p.buf = append(p.buf, chunk[:n]...)
	}
}

// roundTrip types echo hello and waits for its mark.
func (p *ptyFloor) roundTrip(b *testing.B) time.Duration {
	start := time.Now()
	if _, err := p.f.Write([]byte("echo hello\r")); err != nil {
		b.Fatal(err)
	}
	p.until(b, []byte("hello\r\n\x1b]133;D;0\a"))
	return time.Since(start)
}

// stdioClient starts cmd as an MCP server over stdio. Its stderr goes to
// the file TTYMUX_BENCH_STDERR names, if set (the log, and the garbage
// collector's trace with GODEBUG=gctrace=1, for a profile).
func stdioClient(b *testing.B, cmd *exec.Cmd) *mcp.ClientSession {
	cmd.Stderr = io.Discard
	if f := os.Getenv("TTYMUX_BENCH_STDERR"); f != "" {
		w, err := os.OpenFile(f, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { w.Close() })
		cmd.Stderr = w
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "bench", Version: "0"}, nil).Connect(context.Background(), &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = cs.Close() })
	return cs
}

func timedCall(b *testing.B, cs *mcp.ClientSession, name string, args map[string]any, check func(map[string]any) bool) time.Duration {
	start := time.Now()
	res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: name, Arguments: args})
	d := time.Since(start)
	if err != nil || res.IsError {
		b.Fatalf("%s: %v %v", name, err, res)
	}
	if sc, _ := res.StructuredContent.(map[string]any); !check(sc) {
		b.Fatalf("%s result: %v", name, res.StructuredContent)
	}
	return d
}

func median(d []time.Duration) time.Duration {
	s := slices.Clone(d)
	slices.Sort(s)
	return s[len(s)/2]
}

// clientEnv is the environment a client gives the servers it spawns, with
// a private HOME and XDG_RUNTIME_DIR (so a private agent, the one beside
// bin), and the agent stopped at the end. The servers run at their default
// log level.
func clientEnv(b *testing.B, bin string) (env []string, runtime string) {
	// Not b.TempDir: the agent may still write its state there while the
	// benchmark's cleanup removes it.
	home, err := os.MkdirTemp("", "ttymux-bench-")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = os.RemoveAll(home) }) // best effort
	runtime = shortTempDir(b)
	env = append(os.Environ(), "SHELL=/bin/bash", "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"),
		"XDG_STATE_HOME="+filepath.Join(home, ".state"), "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR="+runtime, "TTYMUX_LOG=warn")
	b.Cleanup(func() {
		stop := exec.Command(filepath.Join(filepath.Dir(bin), "ttymux-agent"), "stop", "--force")
		stop.Env = env
		_ = stop.Run() // best effort
	})
	return env, runtime
}

// clientServers are, spawned as a client spawns them, the no-op go-sdk
// server (internal/noopmcp), `ttymux mcp -no-agent` (sessions in the
// server) and `ttymux mcp` (sessions kept by the agent, the default), all
// built as install.sh builds ttymux, each over stdio with go-sdk's client.
type clientServers struct {
	noop, inproc, pers          *mcp.ClientSession
	noopCmd, inprocCmd, persCmd *exec.Cmd
	runtime                     string
}

// startClientServers starts the servers of this tree (installedBinary).
func startClientServers(b *testing.B) *clientServers {
	c := startTTYMUXServers(b, installedBinary(b))
	c.noopCmd = exec.Command(noopBinary(b))
	c.noopCmd.Env = os.Environ()
	c.noop = stdioClient(b, c.noopCmd)
	return c
}

// startTTYMUXServers starts bin's in-process and persistent servers, the
// latter with the agent beside bin on a private socket. Each has a HOME of
// its own, as one client's server has: two servers writing one audit log
// in turn make each record read the other's last line first.
func startTTYMUXServers(b *testing.B, bin string) *clientServers {
	inprocEnv, _ := clientEnv(b, bin)
	persEnv, runtime := clientEnv(b, bin)
	c := &clientServers{runtime: runtime}
	c.inprocCmd = exec.Command(bin, "mcp", "-no-agent")
	c.persCmd = exec.Command(bin, "mcp")
	c.inprocCmd.Env, c.persCmd.Env = inprocEnv, persEnv
	c.inproc, c.pers = stdioClient(b, c.inprocCmd), stdioClient(b, c.persCmd)
	return c
}

// open opens a local shell as a model does (no parameters beyond the
// default) and returns its id.
func (c *clientServers) open(b *testing.B, cs *mcp.ClientSession, persistent bool) string {
	var open OpenOut
	call(b, cs, "open_local", map[string]any{}, &open)
	if open.Persistent != persistent {
		b.Fatalf("open_local: persistent %v, want %v: %+v", open.Persistent, persistent, open)
	}
	return open.ID
}

var noopOK = func(sc map[string]any) bool { return sc["ok"] == true }

// BenchmarkEchoVsFloor measures the echo round trip as a client sees it,
// against its floor in one run, interleaved so that every figure sees the
// same machine. The benchmark process is the client: go-sdk's client over
// stdio to servers it spawns, built as install.sh builds them. The floor
// is a raw PTY round trip (bash on creack/pty, `echo hello` to the prompt
// hook's OSC 133 mark) plus a no-op tool call to a go-sdk server
// (internal/noopmcp) through the same client; ttymux is `send {text: "echo
// hello"}` (output, exit code) to a session opened as a model opens one,
// held in the server (-no-agent) and kept by the agent (the default). It
// reports each median and the ratios to the floor (DESIGN.md targets: ≤ 2×
// in-process, ≤ 2.5× persistent), and the CPU time per call of each
// process. With TTYMUX_BENCH_BASE=DIR (another build's ttymux and
// ttymux-agent, as install.sh builds them) it runs those too, interleaved,
// as base-stdio and base-persistent: an A/B under the same load.
func BenchmarkEchoVsFloor(b *testing.B) {
	floor := startPTYFloor(b)
	c := startClientServers(b)
	type server struct {
		name string
		cs   *mcp.ClientSession
		pid  int
		args map[string]any
		durs []time.Duration
		cpu0 int64
	}
	servers := []*server{{name: "stdio", cs: c.inproc, pid: c.inprocCmd.Process.Pid}, {name: "persistent", cs: c.pers, pid: c.persCmd.Process.Pid}}
	runtimes := []string{c.runtime}
	if base := os.Getenv("TTYMUX_BENCH_BASE"); base != "" {
		bc := startTTYMUXServers(b, filepath.Join(base, "ttymux"))
		servers = append(servers, &server{name: "base-stdio", cs: bc.inproc, pid: bc.inprocCmd.Process.Pid},
			&server{name: "base-persistent", cs: bc.pers, pid: bc.persCmd.Process.Pid})
		runtimes = append(runtimes, bc.runtime)
	}
	for _, s := range servers {
		id := c.open(b, s.cs, strings.HasSuffix(s.name, "persistent"))
		s.args = map[string]any{"session_id": id, "text": "echo hello"}
	}
	// The agents the persistent opens started.
	agents := []*server{{name: "client", pid: os.Getpid()}}
	for i, rt := range runtimes {
		agents = append(agents, &server{name: []string{"agent", "base-agent"}[i], pid: agentPid(b, filepath.Join(rt, "ttymux", "agent-v1.sock"))})
	}
	echoed := func(sc map[string]any) bool { return sc["output"] == "hello" && sc["exit_code"] == 0.0 }

	var ptyD, noopD []time.Duration
	// CPU time per call of each process (the agents behind the persistent
	// servers, the client): less at the mercy of other load than latency.
	procs := append(slices.Clone(servers), agents...)
	for _, p := range procs {
		p.cpu0 = cpuTicks(b, p.pid)
	}
	b.ResetTimer()
	for b.Loop() {
		ptyD = append(ptyD, floor.roundTrip(b))
		noopD = append(noopD, timedCall(b, c.noop, "noop", map[string]any{}, noopOK))
		for _, s := range servers {
			s.durs = append(s.durs, timedCall(b, s.cs, "send", s.args, echoed))
		}
	}
	b.StopTimer()
	for _, p := range procs {
		b.ReportMetric(float64(cpuTicks(b, p.pid)-p.cpu0)*10000/float64(len(ptyD)), p.name+"-cpu-µs/call") // ticks are 10 ms
	}
	fl := median(ptyD) + median(noopD)
	b.ReportMetric(float64(median(ptyD).Microseconds()), "pty-µs")
	b.ReportMetric(float64(median(noopD).Microseconds()), "noop-call-µs")
	b.ReportMetric(float64(fl.Microseconds()), "floor-µs")
	for _, s := range servers {
		m := median(s.durs)
		b.ReportMetric(float64(m.Microseconds()), s.name+"-µs")
		b.ReportMetric(float64(m)/float64(fl), s.name+"-x-floor")
	}
	if testing.Verbose() {
		fmt.Fprintf(os.Stderr, "floor %v = pty %v + noop %v\n", fl, median(ptyD), median(noopD))
	}
}

// cpuTicks returns a process's user+system CPU time (/proc/PID/stat
// utime and stime, in clock ticks of 1/100 s on Linux).
func cpuTicks(b *testing.B, pid int) int64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		b.Fatal(err)
	}
	// The command name (field 2) may hold spaces: count from its ")".
	f := strings.Fields(string(data[bytes.LastIndexByte(data, ')')+1:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64) // field 14
	st, _ := strconv.ParseInt(f[12], 10, 64) // field 15
	return ut + st
}

// BenchmarkIdleCPU reports the CPU that ten idle persistent sessions cost
// the server and the agent together (DESIGN.md: ≤ 0.2 % of one core):
// each op opens ten shells through the built server (kept by the agent, the
// default), runs a command in each, then reads both processes' CPU time
// over a quiet window of TTYMUX_BENCH_IDLE_SECONDS (default 30).
func BenchmarkIdleCPU(b *testing.B) {
	window := 30 * time.Second
	if s, err := strconv.Atoi(os.Getenv("TTYMUX_BENCH_IDLE_SECONDS")); err == nil && s > 0 {
		window = time.Duration(s) * time.Second
	}
	bin := ttymuxBinary(b)
	for b.Loop() {
		// Not b.TempDir: the agent may still write its state there while
		// the test's cleanup removes it.
		home, err := os.MkdirTemp("", "ttymux-idle-")
		if err != nil {
			b.Fatal(err)
		}
		defer os.RemoveAll(home) // best effort
		runtime := shortTempDir(b)
		env := append(os.Environ(), "SHELL=/bin/bash", "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"XDG_RUNTIME_DIR="+runtime, "TTYMUX_LOG=warn")
		cmd := exec.Command(bin, "mcp")
		cmd.Env = env
		cs := stdioClient(b, cmd)
		for range 10 {
			var open OpenOut
			call(b, cs, "open_local", map[string]any{}, &open)
			call(b, cs, "send", map[string]any{"session_id": open.ID, "text": "echo ready"}, nil)
		}
		agent := agentPid(b, filepath.Join(runtime, "ttymux", "agent-v1.sock"))
		s0, a0 := cpuTicks(b, cmd.Process.Pid), cpuTicks(b, agent)
		start := time.Now()
		time.Sleep(window) // the subject: what ten idle sessions cost over time
		el := time.Since(start)
		s1, a1 := cpuTicks(b, cmd.Process.Pid), cpuTicks(b, agent)
		pct := func(ticks int64) float64 { return float64(ticks) * 10 * float64(time.Millisecond) / float64(el) * 100 }
		b.ReportMetric(pct(s1-s0), "server-cpu-%")
		b.ReportMetric(pct(a1-a0), "agent-cpu-%")
		b.ReportMetric(pct(s1-s0+a1-a0), "total-cpu-%")
		_ = cs.Close()
		stop := exec.Command(filepath.Join(filepath.Dir(bin), "ttymux-agent"), "stop", "--force")
		stop.Env = env
		_ = stop.Run() // best effort
	}
}
