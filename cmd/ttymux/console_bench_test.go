package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// BenchmarkConsoleWatch20 measures what watching costs (issue #35: 20
// sessions watched at once cost under 5 % of a core idle and under 20 %
// while one floods; output reaches the page within 50 ms): 20 local
// shells, each with a page's output stream open, held by the server
// itself ("server": the console of ttymux mcp --http) or by an agent in
// this process ("agent": the console of ttymux web). Reported, not
// asserted:
//
//	idle-cpu-%, flood-cpu-%      this process's CPU (console, sessions'
//	                             readers and emulators or the agent, the
//	                             20 streams' HTTP clients) in % of one
//	                             core, watched
//	unwatched-idle-cpu-%,        the same with no page open: the
//	unwatched-flood-cpu-%        difference is what watching costs
//	ms-to-page                   keys typed into a watched session until
//	                             their echo reaches its page (mean);
//	                             max-ms-to-page the slowest
//	flood-MB/s, flood-cpu-ms/MB  how fast the flood ran while watched, and
//	                             this process's CPU per MB of it: a
//	                             faster reader lets `yes` print faster,
//	                             so the % follows the rate as much as
//	                             the cost (issue #37)
//
// The flood is `yes` in one session for cpuWindow. Run with
//
//	go test -run XXX -bench ConsoleWatch20 -benchtime 50x ./cmd/ttymux
func BenchmarkConsoleWatch20(b *testing.B) {
	b.Run("server", func(b *testing.B) { benchWatch(b, serverWatchRig(b)) })
	b.Run("agent", func(b *testing.B) { benchWatch(b, agentWatchRig(b)) })
	b.Run("offer", func(b *testing.B) { benchWatch(b, offerWatchRig(b)) })
}

// watchSessions is how many sessions are watched at once.
const watchSessions = 20

// watchRig is what benchWatch watches: sessions from a console source, a
// way to flood the first and to type into the second.
type watchRig struct {
	src        console.Source
	ids        []string
	startFlood func()
	stopFlood  func()
	typeKeys   func([]byte) error
	flooded    func() int64 // output bytes of the flooding session so far
}

// serverWatchRig: 20 local shells a server holds itself (the console of
// ttymux mcp --http).
func serverWatchRig(b *testing.B) watchRig {
	m := newTestManager(b)
	cs := connect(b, newServer(m, nil), nil)
	ids := make([]string, watchSessions)
	for i := range ids {
		var open OpenOut
		if res := call(b, cs, "open_local", map[string]any{"persistent": false, "env": map[string]string{"PS1": "$ ", "HOME": b.TempDir()}}, &open); res.IsError {
			b.Fatal(resultText(res))
		}
		ids[i] = open.ID
	}
	src := managerSource{m}
	return watchRig{
		src: src, ids: ids,
		startFlood: func() {
			s := src.find(ids[0])
			start := s.OutputEnd()
			mustSendTB(b, cs, map[string]any{"session_id": ids[0], "text": "yes flood-flood-flood-flood-flood", "wait": false})
			testwait.Until(b, "the flood", 20*time.Second, func() bool { return s.OutputEnd()-start > 1<<20 })
		},
		stopFlood: func() {
			mustSendTB(b, cs, map[string]any{"session_id": ids[0], "keys": []string{"ctrl+c"}, "timeout_ms": 20000})
		},
		typeKeys: func(p []byte) error { _, err := src.find(ids[1]).HumanWrite(p); return err },
		flooded:  func() int64 { return src.find(ids[0]).OutputEnd() },
	}
}

// offerWatchRig: the server's 20 shells watched through its offer socket
// (console.ListenOffer), as ttymux web watches a stdio server's sessions
// (console.WithServers; no local agent runs). Both ends are this process:
// the figure is the server's and the console's together.
func offerWatchRig(b *testing.B) watchRig {
	r := serverWatchRig(b)
	dir := filepath.Join(shortTempDir(b), "ttymux")
	src := offerSource{r.src.(managerSource)}
	of, err := console.ListenOffer(console.OfferPath(dir, os.Getpid()), console.OfferOptions{Source: src, Attached: src.Attached})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { of.Close() })
	noAgent := &agentc.Client{Socket: filepath.Join(shortTempDir(b), "agent.sock")}
	r.src = console.WithServers(agentSource{noAgent}, &console.Servers{Dir: dir})
	routed := make([]string, len(r.ids)) // r's closures keep the server's ids
	for i, id := range r.ids {
		routed[i] = id + "@" + strconv.Itoa(os.Getpid())
	}
	r.ids = routed
	return r
}

// agentWatchRig: 20 shells an agent holds, each attached by a client
// that drains it as a server would (the console of ttymux web).
func agentWatchRig(b *testing.B) watchRig {
	c := &agentc.Client{Socket: humanAgent(b)}
	ids := make([]string, watchSessions)
	conns := make([]io.ReadWriteCloser, watchSessions)
	var flooded atomic.Int64
	var wg sync.WaitGroup
	b.Cleanup(wg.Wait)
	for i := range ids {
		ctx, cancel := context.WithTimeout(context.Background(), humanWait)
		conn, ks, err := c.Create(ctx, transport.Target{Command: "/bin/bash", Args: []string{"--norc", "--noprofile"}, Env: []string{"PS1=$ ", "HOME=" + b.TempDir()}}, []byte(`{"name":"w","transport":"local"}`))
		cancel()
		if err != nil {
			b.Fatal(err)
		}
		b.Cleanup(func() { conn.Close() })
		ids[i], conns[i] = ks.ID, conn
		wg.Add(1)
		go func() {
			defer wg.Done()
			buf := make([]byte, 32<<10)
			for {
				n, err := conn.Read(buf)
				if i == 0 {
					flooded.Add(int64(n))
				}
				var gap *transport.GapError
				if err != nil && !errors.As(err, &gap) {
					return
				}
			}
		}()
	}
	return watchRig{
		src: agentSource{c}, ids: ids,
		startFlood: func() {
			start := flooded.Load()
			conns[0].Write([]byte("yes flood-flood-flood-flood-flood\r"))
			testwait.Until(b, "the flood", 20*time.Second, func() bool { return flooded.Load()-start > 1<<20 })
		},
		stopFlood: func() { conns[0].Write([]byte{3}) },
		typeKeys:  func(p []byte) error { _, err := conns[1].Write(p); return err },
		flooded:   flooded.Load,
	}
}

// benchWatch measures r's CPU idle and flooded, without and with a page
// watching each session, then keys to the page.
func benchWatch(b *testing.B, r watchRig) {
	const cpuWindow = 2 * time.Second
	// What the flood left drains, and the agent's fast foreground polling
	// after output (2 s, agentd's fgBurst) ends: idle is idle.
	settle := func() { time.Sleep(2500 * time.Millisecond) }
	var floodMB float64
	flood := func() float64 {
		r.startFlood()
		n0 := r.flooded()
		cpu := cpuPercent(cpuWindow)
		floodMB = float64(r.flooded()-n0) / 1e6
		r.stopFlood()
		return cpu
	}
	settle()
	unwatchedIdle := cpuPercent(cpuWindow)
	unwatchedFlood := flood()
	settle()

	cons := console.New(console.Options{Source: r.src, Token: testToken})
	hs := httptest.NewServer(cons)
	b.Cleanup(hs.Close)
	b.Cleanup(cons.Close)
	jar, _ := cookiejar.New(nil)
	hc := &http.Client{Jar: jar}
	if resp, err := hc.Get(hs.URL + "/?token=" + testToken); err != nil || resp.StatusCode != 200 {
		b.Fatalf("login: %v %v", err, resp)
	}
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	b.Cleanup(wg.Wait)
	b.Cleanup(cancel)
	var page *pageStream
	for i, id := range r.ids {
		req, _ := http.NewRequestWithContext(ctx, "GET", hs.URL+"/api/s/"+id+"/output", nil)
		resp, err := hc.Do(req)
		if err != nil || resp.StatusCode != 200 {
			b.Fatalf("stream %s: %v %v", id, err, resp)
		}
		wg.Add(1)
		if i == 1 {
			page = newPageStream(resp.Body, &wg)
			continue
		}
		go func() { defer wg.Done(); io.Copy(io.Discard, resp.Body); resp.Body.Close() }()
	}
	settle()
	idle := cpuPercent(cpuWindow)
	flooded := flood()
	settle()

	// Keys typed as a person types them, 20 ms apart (the pause is not
	// timed): each echo is measured from the write to the page.
	var worst, total time.Duration
	i := 0
	for b.Loop() {
		b.StopTimer()
		time.Sleep(20 * time.Millisecond)
		b.StartTimer()
		tok := fmt.Sprintf("tok%dx", i)
		i++
		start := time.Now()
		if err := r.typeKeys([]byte(tok)); err != nil {
			b.Fatal(err)
		}
		if !page.waitFor(tok, 10*time.Second) {
			b.Fatalf("%s never reached the page", tok)
		}
		took := time.Since(start)
		worst, total = max(worst, took), total+took
		r.typeKeys([]byte{0x15}) // ctrl+u: an empty line again
	}
	b.ReportMetric(idle, "idle-cpu-%")
	b.ReportMetric(flooded, "flood-cpu-%")
	b.ReportMetric(unwatchedIdle, "unwatched-idle-cpu-%")
	b.ReportMetric(unwatchedFlood, "unwatched-flood-cpu-%")
	b.ReportMetric(float64(total.Microseconds())/1000/float64(b.N), "ms-to-page")
	b.ReportMetric(float64(worst.Microseconds())/1000, "max-ms-to-page")
	b.ReportMetric(floodMB/cpuWindow.Seconds(), "flood-MB/s")
	b.ReportMetric(flooded*cpuWindow.Seconds()*10/floodMB, "flood-cpu-ms/MB") // % of a core × s → ms
}

// mustSendTB is mustSend for benchmarks.
func mustSendTB(tb testing.TB, cs *mcp.ClientSession, args map[string]any) {
	tb.Helper()
	var r session.Result
	if res := call(tb, cs, "send", args, &r); res.IsError {
		tb.Fatalf("send %v: %s", args, resultText(res))
	}
}

// cpuPercent returns this process's CPU use over d in % of one core.
func cpuPercent(d time.Duration) float64 {
	used := func() time.Duration {
		var ru syscall.Rusage
		syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
		return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
	}
	u0, t0 := used(), time.Now()
	time.Sleep(d)
	return 100 * float64(used()-u0) / float64(time.Since(t0))
}

// pageStream reads a console output stream as the page does (SSE, base64
// chunks) and keeps the decoded output's tail.
type pageStream struct {
	mu      sync.Mutex
	tail    []byte
	changed chan struct{}
}

func newPageStream(body io.ReadCloser, wg *sync.WaitGroup) *pageStream {
	p := &pageStream{changed: make(chan struct{})}
	go func() {
		defer wg.Done()
		defer body.Close()
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: ") && event == "":
				d, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(line, "data: "))
				p.mu.Lock()
				p.tail = append(p.tail, d...)
				if len(p.tail) > 64<<10 {
					p.tail = append(p.tail[:0], p.tail[len(p.tail)-4096:]...)
				}
				close(p.changed)
				p.changed = make(chan struct{})
				p.mu.Unlock()
			case line == "":
				event = ""
			}
		}
	}()
	return p
}

// waitFor waits up to d until the stream's tail holds s.
func (p *pageStream) waitFor(s string, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		p.mu.Lock()
		ok := bytes.Contains(p.tail, []byte(s))
		ch := p.changed
		p.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		}
	}
}
