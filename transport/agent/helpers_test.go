package agent

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
)

// waitTimeout bounds every wait in these tests.
const waitTimeout = 20 * time.Second

// events records the agent's test-hook events so tests wait for them.
type events struct {
	mu      sync.Mutex
	list    []agentd.Event
	changed chan struct{}
}

func (e *events) add(ev agentd.Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// wait waits for an event of kind for session (any session if empty).
func (e *events) wait(t testing.TB, kind, session string) {
	t.Helper()
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		for _, ev := range e.list {
			if ev.Kind == kind && (session == "" || ev.Session == session) {
				e.mu.Unlock()
				return
			}
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("no %q event for session %q within %v", kind, session, waitTimeout)
		}
	}
}

// testDaemon is an in-process agent on a socket in a private directory.
type testDaemon struct {
	sock string
	ev   *events
	srv  *agentd.Server
}

func startDaemon(t testing.TB, opts agentd.Options) *testDaemon {
	t.Helper()
	dir := sockDir(t)
	sock := agentd.SocketPath(dir)
	l, err := agentd.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	td := &testDaemon{sock: sock, ev: &events{changed: make(chan struct{})}}
	opts.Events = td.ev.add
	if testing.Verbose() && opts.Logger == nil {
		opts.Logger = slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	td.srv = agentd.NewServer(opts)
	served := make(chan error, 1)
	go func() { served <- td.srv.Serve(l) }()
	td.ev.wait(t, agentd.EventServing, "")
	t.Cleanup(func() {
		td.srv.Close()
		select {
		case err := <-served:
			if err != nil {
				t.Errorf("Serve: %v", err)
			}
		case <-time.After(waitTimeout):
			t.Errorf("Serve did not return within %v", waitTimeout)
		}
	})
	return td
}

func (td *testDaemon) client() *Client { return &Client{Socket: td.sock} }

// testShell is a deterministic shell: no rc files, no line editing, a
// fixed prompt, a dumb terminal.
func testShell() transport.Target {
	return transport.Target{
		Command: "bash",
		Args:    []string{"--norc", "--noprofile", "--noediting"},
		Env:     []string{"PS1=$ ", "PS2=", "HISTFILE=/dev/null"},
		Term:    "dumb",
		Size:    transport.Size{Rows: 24, Cols: 80},
	}
}

// pump is the one reader of a Conn, as a session's pump is: it collects
// the output and lets the test wait for strings in it.
type pump struct {
	c    transport.KeptConn
	done chan struct{} // closed when Read has failed

	mu      sync.Mutex
	out     []byte
	gaps    []transport.GapError
	err     error // Read's final error
	mark    int   // waitFor searches out[mark:]
	changed chan struct{}
}

func startPump(t testing.TB, kc transport.KeptConn) *pump {
	t.Helper()
	p := &pump{c: kc, done: make(chan struct{}), changed: make(chan struct{})}
	go func() {
		defer close(p.done)
		buf := make([]byte, 32<<10)
		for {
			n, err := p.c.Read(buf)
			p.mu.Lock()
			p.out = append(p.out, buf[:n]...)
			var g *transport.GapError
			if errors.As(err, &g) {
				p.gaps = append(p.gaps, *g)
				err = nil
			}
			p.err = err
			close(p.changed)
			p.changed = make(chan struct{})
			p.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		p.c.Close()
		p.finish(t)
	})
	return p
}

// waitFor waits until s appears in the output after the previous match
// and returns the output up to and including it.
func (p *pump) waitFor(t testing.TB, s string) string {
	t.Helper()
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		p.mu.Lock()
		if i := bytes.Index(p.out[p.mark:], []byte(s)); i >= 0 {
			got := string(p.out[p.mark : p.mark+i+len(s)])
			p.mark += i + len(s)
			p.mu.Unlock()
			return got
		}
		ch, err := p.changed, p.err
		p.mu.Unlock()
		if err != nil {
			t.Fatalf("waiting for %q: Read ended: %v; output: %q", s, err, p.tail())
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("no %q within %v; output: %q", s, waitTimeout, p.tail())
		}
	}
}

func (p *pump) tail() string {
	p.mu.Lock()
	defer p.mu.Unlock()
	return string(p.out[max(0, len(p.out)-300):])
}

// finish waits for the reader to end and returns its output and error.
func (p *pump) finish(t testing.TB) ([]byte, error) {
	t.Helper()
	select {
	case <-p.done:
	case <-time.After(waitTimeout):
		t.Fatalf("Read did not end within %v", waitTimeout)
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.out, p.err
}

// waitUntil polls cond (a query of the agent, which has no event for it)
// every few milliseconds until it holds.
func waitUntil(t testing.TB, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, waitTimeout, cond)
}

// find returns the session with id from List.
func find(t testing.TB, c *Client, id string) (transport.KeptSession, bool) {
	t.Helper()
	ss, err := c.List(ctxT(t))
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.ID == id {
			return s, true
		}
	}
	return transport.KeptSession{}, false
}

// fakeHeader serves one connection that answers with a header of version v.
func fakeHeader(t *testing.T, v int) string {
	sock := filepath.Join(sockDir(t), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	t.Cleanup(func() { l.Close(); wg.Wait() })
	wg.Go(func() {
		nc, err := l.Accept()
		if err != nil {
			return
		}
		defer nc.Close()
		fmt.Fprintf(nc, "ttymux-agent%c%c", byte(v>>8), byte(v))
		nc.Read(make([]byte, 64))
	})
	return sock
}
