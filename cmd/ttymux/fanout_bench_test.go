package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/sshdtest"
)

// fanoutCommand is the command of issue #19's acceptance test.
const fanoutCommand = "uptime >/dev/null; hostname; exit $((RANDOM%1))"

// timeFanout runs one fanout call and returns how long it took.
func timeFanout(b *testing.B, cs *mcp.ClientSession, hosts []string, want string) time.Duration {
	b.Helper()
	start := time.Now()
	res, rep := callFanout(b, cs, map[string]any{"hosts": hosts, "command": fanoutCommand}, false)
	d := time.Since(start)
	if res.IsError || rep.Summary != want {
		b.Fatalf("fanout %v: %s", hosts, resultText(res))
	}
	return d
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

// BenchmarkFanout is the DESIGN target "fanout on 28 hosts, connections
// warm ≤ 2× the same on 1 host": 28 aliases of three sshd on loopback, the
// acceptance test's command, through an MCP client. Each iteration times a
// one-host and a 28-host fanout back to back on warm connections; the
// medians and their ratio are reported, with the cold first 28-host run.
//
//	go test -run '^$' -bench BenchmarkFanout$ -benchtime 20x ./cmd/ttymux
func BenchmarkFanout(b *testing.B) {
	b.Setenv("SSH_AUTH_SOCK", "")
	fl := startFleet(b, 3, 11, 28)
	cs, _ := fl.serve(b, nil)
	cold := timeFanout(b, cs, []string{"node*"}, "28 hosts: 28 exit 0")
	timeFanout(b, cs, []string{"node01"}, "1 host: 1 exit 0")
	var one, all []time.Duration
	var cpu time.Duration
	b.ResetTimer()
	for b.Loop() {
		one = append(one, timeFanout(b, cs, []string{"node01"}, "1 host: 1 exit 0"))
		before := snapshot().cpu
		all = append(all, timeFanout(b, cs, []string{"node*"}, "28 hosts: 28 exit 0"))
		cpu += snapshot().cpu - before
	}
	b.StopTimer()
	if n := fl.accepted(); n != 28 {
		b.Fatalf("%d authentications, want 28", n)
	}
	b.ReportMetric(ms(cold), "cold-28-ms")
	b.ReportMetric(ms(median(one)), "warm-1-ms")
	b.ReportMetric(ms(median(all)), "warm-28-ms")
	b.ReportMetric(float64(median(all))/float64(median(one)), "ratio-28/1")
	b.ReportMetric(ms(cpu)/float64(len(all)), "ttymux-cpu-ms/28")

	// The floor of the remote side: the same command run by 1 and by 28
	// local shells at once, no SSH at all (the hosts share these cores).
	local := func(n int) time.Duration {
		start := time.Now()
		cmds := make([]*exec.Cmd, n)
		for i := range cmds {
			cmds[i] = exec.Command("bash", "-c", fanoutCommand)
			cmds[i].Env = append(os.Environ(), "SHLVL=1")
			if err := cmds[i].Start(); err != nil {
				b.Fatal(err)
			}
		}
		for _, c := range cmds {
			_ = c.Wait() // the exit status is the command's
		}
		return time.Since(start)
	}
	var localOne, localAll []time.Duration
	for range len(all) {
		localOne = append(localOne, local(1))
		localAll = append(localAll, local(28))
	}
	b.ReportMetric(ms(median(localOne)), "local-1-ms")
	b.ReportMetric(ms(median(localAll)), "local-28-ms")

	// The peer, measured in the same run: OpenSSH with a ControlMaster
	// per host (ssh -S, warm), 28 ssh processes started at once.
	if _, err := exec.LookPath("ssh"); err != nil {
		return
	}
	dir, err := os.MkdirTemp("", "tmx") // short: a ControlPath is a Unix socket path
	if err != nil {
		b.Fatal(err)
	}
	defer os.RemoveAll(dir)
	sshArgs := func(alias string, extra ...string) []string {
		return append([]string{"-F", fl.config, "-o", "BatchMode=yes", "-o", "ControlPath=" + filepath.Join(dir, "%C")}, append(extra, alias)...)
	}
	for _, a := range fl.aliases {
		if out, err := exec.Command("ssh", sshArgs(a, "-o", "ControlMaster=yes", "-o", "ControlPersist=yes", "-fN")...).CombinedOutput(); err != nil {
			b.Fatalf("ssh master %s: %v %s", a, err, out)
		}
		defer exec.Command("ssh", sshArgs(a, "-O", "exit")...).Run()
	}
	run := func(aliases []string) time.Duration {
		start := time.Now()
		cmds := make([]*exec.Cmd, len(aliases))
		errs := make([]strings.Builder, len(aliases))
		for i, a := range aliases {
			cmds[i] = exec.Command("ssh", append(sshArgs(a), fanoutCommand)...)
			cmds[i].Stderr = &errs[i]
			if err := cmds[i].Start(); err != nil {
				b.Fatal(err)
			}
		}
		for i, c := range cmds {
			if err := c.Wait(); err != nil {
				b.Fatalf("ssh %s: %v: %s", aliases[i], err, errs[i].String())
			}
		}
		return time.Since(start)
	}
	run(fl.aliases)
	var sshOne, sshAll []time.Duration
	for range len(all) {
		sshOne = append(sshOne, run(fl.aliases[:1]))
		sshAll = append(sshAll, run(fl.aliases))
	}
	b.ReportMetric(ms(median(sshOne)), "openssh-warm-1-ms")
	b.ReportMetric(ms(median(sshAll)), "openssh-warm-28-ms")
	b.ReportMetric(float64(median(sshAll))/float64(median(sshOne)), "openssh-ratio-28/1")
}

// BenchmarkFanoutCost measures what one ttymux process pays per host for
// a fanout over fresh connections, for docs/scaling.md: the cold fanout's
// CPU (this process; and ssh -G, in children), then with every connection
// held: Go heap, RSS, goroutines and file descriptors, each divided by the
// host count; and the RSS of sshd's per-connection processes on the server
// side. TTYMUX_FANOUT_HOSTS sets the host count (default 100: seven sshd on
// up to 16 addresses each).
//
//	go test -run '^$' -bench BenchmarkFanoutCost -benchtime 1x ./cmd/ttymux
func BenchmarkFanoutCost(b *testing.B) {
	b.Setenv("SSH_AUTH_SOCK", "")
	hosts := 100
	if v, err := strconv.Atoi(os.Getenv("TTYMUX_FANOUT_HOSTS")); err == nil && v > 0 {
		hosts = v
	}
	// sshd listens on at most 16 sockets (sshd.c MAX_LISTEN_SOCKS).
	servers := (hosts + 15) / 16
	fl := startFleet(b, servers, min(16, hosts), hosts)
	want := fmt.Sprintf("%d hosts: %d exit 0", hosts, hosts)
	for b.Loop() {
		b.StopTimer()
		cs, ft := fl.serve(b, nil)
		before := snapshot()
		b.StartTimer()
		d := timeFanout(b, cs, []string{"node*"}, want)
		b.StopTimer()
		after := snapshot()
		if held := ft.runner.Held(); held != hosts {
			b.Fatalf("%d connections held, want %d", held, hosts)
		}
		n := float64(hosts)
		b.ReportMetric(ms(d), "cold-ms")
		b.ReportMetric(float64(after.cpu-before.cpu)/float64(time.Millisecond)/n, "cpu-ms/host")
		b.ReportMetric(float64(after.childCPU-before.childCPU)/float64(time.Millisecond)/n, "ssh-G-cpu-ms/host")
		b.ReportMetric(float64(after.heap-before.heap)/1024/n, "heap-KiB/host")
		b.ReportMetric(float64(after.rss-before.rss)/1024/n, "rss-KiB/host")
		b.ReportMetric(float64(after.goroutines-before.goroutines)/n, "goroutines/host")
		b.ReportMetric(float64(after.fds-before.fds)/n, "fds/host")
		var sshdRSS int64
		procs := 0
		for _, d := range fl.sshds {
			for _, pid := range d.ConnectionPids() {
				sshdRSS += procRSS(pid)
				procs++
				for _, c := range sshdtest.ChildPids(pid) {
					sshdRSS += procRSS(c)
					procs++
				}
			}
		}
		b.ReportMetric(float64(sshdRSS)/1024/n, "sshd-rss-KiB/host")
		b.ReportMetric(float64(procs)/n, "sshd-procs/host")
		_ = ft.Close()
		b.StartTimer()
	}
}

type costSnap struct {
	cpu, childCPU   time.Duration
	heap, rss       int64
	goroutines, fds int
}

func snapshot() costSnap {
	runtime.GC()
	var m runtime.MemStats
	runtime.ReadMemStats(&m)
	var self, kids syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	_ = syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	ents, _ := os.ReadDir("/proc/self/fd")
	return costSnap{
		cpu:        time.Duration(self.Utime.Nano() + self.Stime.Nano()),
		childCPU:   time.Duration(kids.Utime.Nano() + kids.Stime.Nano()),
		heap:       int64(m.HeapAlloc),
		rss:        procRSS(os.Getpid()),
		goroutines: runtime.NumGoroutine(),
		fds:        len(ents),
	}
}

// procRSS is a process's resident set in bytes (VmRSS), or 0.
func procRSS(pid int) int64 {
	b, err := os.ReadFile(filepath.Join("/proc", strconv.Itoa(pid), "status"))
	if err != nil {
		return 0
	}
	for l := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb * 1024
		}
	}
	return 0
}
