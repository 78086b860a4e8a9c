package fanout_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// fakeNet stands in for sshconn: each host behaves as its entry in hosts
// says, and it counts dials and live references.
type fakeNet struct {
	mu    sync.Mutex
	hosts map[string]fakeHost
	dials map[string]int
	refs  map[string]int
	dead  map[string]chan struct{}
}

type fakeHost struct {
	dialErr error
	out     string
	status  int
	block   bool          // run until the context ends
	started chan struct{} // closed when a blocking command starts
}

func newFakeNet(hosts map[string]fakeHost) *fakeNet {
	return &fakeNet{hosts: hosts, dials: map[string]int{}, refs: map[string]int{}, dead: map[string]chan struct{}{}}
}

func (n *fakeNet) link(ctx context.Context, host string) (fanout.Link, error) {
	n.mu.Lock()
	defer n.mu.Unlock()
	h := n.hosts[host]
	if h.dialErr != nil {
		return nil, h.dialErr
	}
	n.dials[host]++
	n.refs[host]++
	if n.dead[host] == nil {
		n.dead[host] = make(chan struct{})
	}
	return &fakeLink{n: n, host: host, done: n.dead[host]}, nil
}

func (n *fakeNet) kill(host string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	close(n.dead[host])
	n.dead[host] = nil
}

func (n *fakeNet) counts(host string) (dials, refs int) {
	n.mu.Lock()
	defer n.mu.Unlock()
	return n.dials[host], n.refs[host]
}

type fakeLink struct {
	n    *fakeNet
	host string
	done chan struct{}
	once sync.Once
}

func (l *fakeLink) Exec(ctx context.Context, command string, out io.Writer) error {
	l.n.mu.Lock()
	h := l.n.hosts[l.host]
	l.n.mu.Unlock()
	io.WriteString(out, h.out)
	if h.block {
		close(h.started)
		<-ctx.Done()
		return &sshconn.StoppedError{Host: l.host, Killed: true, Err: ctx.Err()}
	}
	if h.status != 0 {
		return &transport.ExitError{Status: h.status}
	}
	return nil
}

func (l *fakeLink) Done() <-chan struct{} { return l.done }

func (l *fakeLink) Release() {
	l.once.Do(func() {
		l.n.mu.Lock()
		l.n.refs[l.host]--
		l.n.mu.Unlock()
	})
}

func newRunner(t *testing.T, n *fakeNet, idle time.Duration) *fanout.Runner {
	t.Helper()
	r := fanout.New(fanout.Options{Link: n.link, Idle: idle})
	t.Cleanup(func() { _ = r.Close() })
	return r
}

func hostsN(prefix string, n int) []string {
	var h []string
	for i := 1; i <= n; i++ {
		h = append(h, fmt.Sprintf("%s%02d", prefix, i))
	}
	return h
}

func TestRunGroupsAndSummary(t *testing.T) {
	hosts := map[string]fakeHost{}
	for _, h := range hostsN("node", 6) {
		hosts[h] = fakeHost{out: "active\n"}
	}
	hosts["node05"] = fakeHost{out: "inactive\n", status: 3}
	hosts["node06"] = fakeHost{dialErr: &sshconn.RefusedError{Host: "node06", Addr: "127.0.0.1:1", Err: errors.New("refused")}}
	hosts["node07"] = fakeHost{dialErr: &sshconn.HostKeyChangedError{Host: "node07", KnownAs: "[127.0.0.1]:2", Known: []sshconn.KnownKey{{File: "kh", Line: 1}}}}
	hosts["node08"] = fakeHost{dialErr: &sshconn.UnknownHostKeyError{Host: "node08", KnownAs: "node08", File: "kh"}}
	hosts["node09"] = fakeHost{dialErr: &sshconn.JumpError{Hop: 1, Hops: 1, Host: "bastion", Err: &sshconn.AuthError{User: "u", Host: "bastion"}}}
	hosts["node10"] = fakeHost{dialErr: errors.New("ssh: resolve host: bad config")}
	n := newFakeNet(hosts)
	r := newRunner(t, n, time.Minute)
	var progress []string
	f, err := r.Run(t.Context(), fanout.Request{
		Hosts: hostsN("node", 10), Command: "systemctl is-active nginx",
		Progress: func(done, total int, h fanout.HostResult) {
			progress = append(progress, fmt.Sprintf("%d/%d", done, total))
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	rep := f.Report()
	if rep.Summary != "10 hosts: 4 exit 0, 1 exit 3, 1 unreachable, 1 auth, 1 host_key_unknown, 1 host_key_changed, 1 error" {
		t.Errorf("summary %q", rep.Summary)
	}
	if len(rep.Groups) != 2 || rep.Groups[0].Hosts != "node[01-04]" || rep.Groups[0].Output != "active" || rep.Groups[0].Count != 4 ||
		rep.Groups[1].Hosts != "node05" || rep.Groups[1].ExitCode != 3 || rep.Groups[1].Output != "inactive" {
		t.Errorf("groups %+v", rep.Groups)
	}
	if len(rep.Errors) != 5 || rep.Errors[0].Kind != "unreachable" || rep.Errors[3].Kind != "host_key_changed" || !strings.Contains(rep.Errors[3].Error, "HOST KEY CHANGED") ||
		rep.Errors[1].Hosts != "node09" || !strings.Contains(rep.Errors[2].Error, "accept_new_host_key") {
		t.Errorf("errors %+v", rep.Errors)
	}
	if len(progress) != 10 || progress[9] != "10/10" {
		t.Errorf("progress %q", progress)
	}
	if h, ok := f.Host("node05"); !ok || string(h.Output) != "inactive\n" || *h.ExitCode != 3 {
		t.Errorf("node05: %+v", h)
	}
	if g, ok := r.Get(rep.FanoutID); !ok || g != f {
		t.Errorf("Get(%s) did not find the fanout", rep.FanoutID)
	}
	if !strings.Contains(rep.Text(), "4 hosts (node[01-04]), exit 0: active") {
		t.Errorf("text form:\n%s", rep.Text())
	}
}

// TestRunReusesConnections: a second fanout dials nothing; connections are
// released after the idle time, and at once when the link died.
func TestRunReusesConnections(t *testing.T) {
	hosts := map[string]fakeHost{"a": {out: "x"}, "b": {out: "x"}}
	n := newFakeNet(hosts)
	r := newRunner(t, n, time.Hour)
	for range 2 {
		if _, err := r.Run(t.Context(), fanout.Request{Hosts: []string{"a", "b"}, Command: "true"}); err != nil {
			t.Fatal(err)
		}
	}
	if d, refs := n.counts("a"); d != 1 || refs != 1 {
		t.Fatalf("a: %d dials, %d refs held; want 1 and 1", d, refs)
	}
	n.kill("a")
	if _, err := r.Run(t.Context(), fanout.Request{Hosts: []string{"a"}, Command: "true"}); err != nil {
		t.Fatal(err)
	}
	if d, refs := n.counts("a"); d != 2 || refs != 1 {
		t.Fatalf("a after its link died: %d dials, %d refs; want 2 and 1", d, refs)
	}
	r.Close()
	for _, h := range []string{"a", "b"} {
		if _, refs := n.counts(h); refs != 0 {
			t.Fatalf("%s: %d refs after Close", h, refs)
		}
	}
}

// TestRunIdleRelease runs in a synctest bubble: time is its subject, so
// the idle time passes on the bubble's clock, not the machine's.
func TestRunIdleRelease(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		n := newFakeNet(map[string]fakeHost{"a": {}})
		r := newRunner(t, n, 20*time.Millisecond)
		if _, err := r.Run(t.Context(), fanout.Request{Hosts: []string{"a"}, Command: "true"}); err != nil {
			t.Fatal(err)
		}
		// The idle timer runs on its own goroutine.
		time.Sleep(20 * time.Millisecond)
		synctest.Wait()
		if r.Held() != 0 {
			t.Fatal("connection still held long after the idle time")
		}
		if _, refs := n.counts("a"); refs != 0 {
			t.Fatalf("%d refs after the idle release", refs)
		}
		// Negative idle: released as soon as the host is done.
		r2 := newRunner(t, n, -1)
		if _, err := r2.Run(t.Context(), fanout.Request{Hosts: []string{"a"}, Command: "true"}); err != nil {
			t.Fatal(err)
		}
		if _, refs := n.counts("a"); refs != 0 || r2.Held() != 0 {
			t.Fatalf("idle -1: %d refs, %d held", refs, r2.Held())
		}
	})
}

// TestRunTimeoutAndCancel: a host past its timeout is reported timeout
// without delaying the others; cancelling the call stops every host.
func TestRunTimeoutAndCancel(t *testing.T) {
	hosts := map[string]fakeHost{"slow": {block: true, out: "partial\n", started: make(chan struct{})}, "fast": {out: "ok"}}
	n := newFakeNet(hosts)
	r := newRunner(t, n, time.Minute)
	f, err := r.Run(t.Context(), fanout.Request{Hosts: []string{"slow", "fast"}, Command: "x", Timeout: 50 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	rep := f.Report()
	if rep.Summary != "2 hosts: 1 exit 0, 1 timeout" || len(rep.Errors) != 1 || rep.Errors[0].Output != "partial" || !strings.Contains(rep.Errors[0].Error, "timeout_ms 50") {
		t.Fatalf("report %+v", rep)
	}

	hosts["slow"] = fakeHost{block: true, started: make(chan struct{})}
	ctx, cancel := context.WithCancel(t.Context())
	fastDone := make(chan struct{})
	go func() {
		<-hosts["slow"].started
		<-fastDone
		cancel()
	}()
	f, err = r.Run(ctx, fanout.Request{Hosts: []string{"slow", "fast"}, Command: "x",
		Progress: func(_, _ int, h fanout.HostResult) {
			if h.Host == "fast" {
				close(fastDone)
			}
		}})
	if err != nil {
		t.Fatal(err)
	}
	if rep := f.Report(); rep.Summary != "2 hosts: 1 exit 0, 1 killed" {
		t.Fatalf("after cancel: %+v", rep)
	}
}

// TestRunCheckSeam: the policy check runs per host; a refused host is not
// dialled, and a check that waits does not hold the other hosts.
func TestRunCheckSeam(t *testing.T) {
	n := newFakeNet(map[string]fakeHost{"ok1": {out: "ran"}, "ok2": {out: "ran"}, "no": {out: "ran"}, "held": {out: "ran"}})
	r := newRunner(t, n, time.Minute)
	release := make(chan struct{})
	var finished []string
	f, err := r.Run(t.Context(), fanout.Request{
		Hosts: []string{"held", "ok1", "no", "ok2"}, Command: "x", MaxParallel: 1,
		Check: func(ctx context.Context, host, command string) (bool, string, error) {
			switch host {
			case "no":
				return false, "refused: prod hosts are read-only", nil
			case "held":
				<-release // a human is asked; the others go on
			}
			return true, "", nil
		},
		Progress: func(done, total int, h fanout.HostResult) {
			finished = append(finished, h.Host)
			if done == 3 {
				close(release)
			}
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(finished) != 4 || finished[3] != "held" {
		t.Fatalf("finish order %q: the held host should finish last", finished)
	}
	rep := f.Report()
	if rep.Summary != "4 hosts: 3 exit 0, 1 refused_by_policy" || rep.Errors[0].Hosts != "no" || rep.Errors[0].Error != "refused: prod hosts are read-only" {
		t.Fatalf("report %+v", rep)
	}
	if d, _ := n.counts("no"); d != 0 {
		t.Fatalf("a refused host was dialled %d times", d)
	}
}

func TestRunManyErrorsCollapse(t *testing.T) {
	hosts := map[string]fakeHost{}
	names := hostsN("h", 10)
	for _, h := range names {
		hosts[h] = fakeHost{dialErr: &sshconn.RefusedError{Host: h, Addr: h + ":22", Err: errors.New("refused")}}
	}
	r := newRunner(t, newFakeNet(hosts), time.Minute)
	f, err := r.Run(t.Context(), fanout.Request{Hosts: names, Command: "x"})
	if err != nil {
		t.Fatal(err)
	}
	rep := f.Report()
	if len(rep.Errors) != 3 || rep.Errors[2].Hosts != "h[03-10]" || !strings.HasPrefix(rep.Errors[2].Error, "8 hosts; the first, h03: ") {
		t.Fatalf("errors %+v", rep.Errors)
	}
	if rep.Groups != nil {
		t.Fatalf("groups %+v", rep.Groups)
	}
}

// TestRunFDLimit: a fanout that would open more connections than the file
// descriptor limit allows releases them as hosts finish, or is refused.
func TestRunFDLimit(t *testing.T) {
	hosts := map[string]fakeHost{}
	names := hostsN("h", 20)
	for _, h := range names {
		hosts[h] = fakeHost{out: "x"}
	}
	n := newFakeNet(hosts)
	opts := fanout.Options{Link: n.link, Idle: time.Hour}
	fanout.SetFDs(&opts, func() (int, int, error) { return 64 + 10 + 5, 10, nil }) // room for 5
	r := fanout.New(opts)
	defer r.Close()
	f, err := r.Run(t.Context(), fanout.Request{Hosts: names, Command: "x"})
	if err != nil {
		t.Fatal(err)
	}
	rep := f.Report()
	if rep.Summary != "20 hosts: 20 exit 0" || !strings.Contains(rep.Note, "RLIMIT_NOFILE 79") || !strings.Contains(rep.Note, "ulimit -n") {
		t.Fatalf("report %+v", rep)
	}
	if r.Held() != 0 {
		t.Fatalf("%d connections kept over the limit", r.Held())
	}
	fanout.SetFDs(&opts, func() (int, int, error) { return 64 + 10, 10, nil }) // no room
	r2 := fanout.New(opts)
	defer r2.Close()
	if _, err := r2.Run(t.Context(), fanout.Request{Hosts: names, Command: "x"}); err == nil || !strings.Contains(err.Error(), "ulimit -n") || !strings.Contains(err.Error(), "RLIMIT_NOFILE") {
		t.Fatalf("err = %v", err)
	}
}

func TestRunKeepsRecent(t *testing.T) {
	n := newFakeNet(map[string]fakeHost{"a": {out: "x"}})
	r := fanout.New(fanout.Options{Link: n.link, Keep: 2})
	defer r.Close()
	var ids []string
	for range 3 {
		f, err := r.Run(t.Context(), fanout.Request{Hosts: []string{"a"}, Command: "x"})
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, f.ID)
	}
	if got := strings.Join(r.Recent(), " "); got != "f2 f3" {
		t.Fatalf("recent %s (ran %q)", got, ids)
	}
	if _, ok := r.Get("f1"); ok {
		t.Fatal("f1 still kept")
	}
}

func TestRunRequestErrors(t *testing.T) {
	r := newRunner(t, newFakeNet(nil), time.Minute)
	for _, req := range []fanout.Request{
		{Command: "x"},
		{Hosts: []string{"a"}},
		{Hosts: []string{"a"}, Command: "x", MaxParallel: 5000},
		{Hosts: []string{"a"}, Command: "x", Timeout: -1},
	} {
		if _, err := r.Run(t.Context(), req); err == nil {
			t.Errorf("Run(%+v) succeeded", req)
		}
	}
}
