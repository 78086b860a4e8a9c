package agentd

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"net"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
)

// The agent's clients all speak through internal/agentlink; these are the
// one-request calls the tests make with it, on a new connection each, as
// ttymux-agent's ls and stop do.

// Dial connects to the agent on path and exchanges the version headers.
func Dial(ctx context.Context, path string) (net.Conn, error) {
	l, err := agentlink.Dial(ctx, path)
	if err != nil {
		return nil, err
	}
	return l.Conn, nil // Handshake reads nothing past the header
}

// request runs f on a new link to the agent on path.
func request(ctx context.Context, path string, f func(l *agentlink.Link) error) error {
	l, err := agentlink.Dial(ctx, path)
	if err != nil {
		return err
	}
	defer l.Close()
	return f(l)
}

// List returns the sessions of the agent on path.
func List(ctx context.Context, path string) (ss []agentproto.SessionInfo, err error) {
	err = request(ctx, path, func(l *agentlink.Link) error { ss, err = l.List(ctx); return err })
	return ss, err
}

// Kill asks the agent on path to end session id.
func Kill(ctx context.Context, path, id string) error {
	return request(ctx, path, func(l *agentlink.Link) error { return l.Kill(ctx, id) })
}

// Stop asks the agent on path to exit.
func Stop(ctx context.Context, path string, force bool) error {
	return request(ctx, path, func(l *agentlink.Link) error { return l.Stop(ctx, force) })
}

// waitTimeout bounds every wait in these tests: for an event, a frame, or
// Serve to return.
const waitTimeout = 20 * time.Second

// events records what the server reports through Options.Events, so that
// tests wait for things to happen instead of sleeping.
type events struct {
	mu      sync.Mutex
	list    []Event
	used    []bool
	changed chan struct{}
}

func newEvents() *events { return &events{changed: make(chan struct{})} }

func (e *events) add(ev Event) {
	e.mu.Lock()
	e.list = append(e.list, ev)
	e.used = append(e.used, false)
	close(e.changed)
	e.changed = make(chan struct{})
	e.mu.Unlock()
}

// wait returns the first event of kind (for session, if not empty) that no
// earlier wait returned, waiting for it if need be.
func (e *events) wait(t testing.TB, kind, session string) Event {
	t.Helper()
	timer := time.NewTimer(waitTimeout)
	defer timer.Stop()
	for {
		e.mu.Lock()
		for i, ev := range e.list {
			if !e.used[i] && ev.Kind == kind && (session == "" || ev.Session == session) {
				e.used[i] = true
				e.mu.Unlock()
				return ev
			}
		}
		ch := e.changed
		e.mu.Unlock()
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("no %q event for session %q within %v; events so far: %v", kind, session, waitTimeout, e.all())
		case <-t.Context().Done():
			t.Fatalf("test ended waiting for %q", kind)
		}
	}
}

func (e *events) all() []Event {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]Event(nil), e.list...)
}

// testAgent is a Server serving on a socket in a fresh private directory.
type testAgent struct {
	srv    *Server
	sock   string
	ev     *events
	served chan struct{} // closed when Serve returns
	err    error         // Serve's result, valid once served is closed
}

// shortTempDir returns a new 0700 directory with a short path: a Unix
// socket path must fit in sun_path (108 bytes), which t.TempDir's paths,
// named after the test, may not.
func shortTempDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "tma")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func testLogger(t testing.TB) *slog.Logger {
	if testing.Verbose() {
		return slog.New(slog.NewTextHandler(t.Output(), &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	return nil
}

// startAgent serves opts on a socket made with Listen, and closes the
// server when the test ends.
func startAgent(t testing.TB, opts Options) *testAgent {
	t.Helper()
	sock := SocketPath(shortTempDir(t))
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	return serveOn(t, l, sock, opts)
}

func serveOn(t testing.TB, l net.Listener, sock string, opts Options) *testAgent {
	t.Helper()
	ta := &testAgent{sock: sock, ev: newEvents(), served: make(chan struct{})}
	opts.Events = ta.ev.add
	if opts.Logger == nil {
		opts.Logger = testLogger(t)
	}
	ta.srv = NewServer(opts)
	go func() {
		ta.err = ta.srv.Serve(l)
		close(ta.served)
	}()
	ta.ev.wait(t, EventServing, "")
	t.Cleanup(func() {
		ta.srv.Close()
		if err := ta.waitServed(t); err != nil {
			t.Errorf("Serve: %v", err)
		}
	})
	return ta
}

// waitServed waits for Serve to return and returns its error.
func (ta *testAgent) waitServed(t testing.TB) error {
	t.Helper()
	select {
	case <-ta.served:
		return ta.err
	case <-time.After(waitTimeout):
		t.Fatalf("Serve did not return within %v", waitTimeout)
		return nil
	}
}

// testShell is a deterministic shell: no rc files, no line editing (the
// terminal echoes, so output has no readline escapes), a fixed prompt.
func testShell() agentproto.Create {
	return agentproto.Create{
		Command: "bash",
		Args:    []string{"--norc", "--noprofile", "--noediting"},
		Env:     []string{"PS1=$ ", "PS2=", "HISTFILE=/dev/null"},
		Term:    "dumb",
	}
}

// tconn is a test client speaking agentproto directly. It checks that
// Output frames arrive in order, contiguous (or after a Gap), without
// duplicates.
type tconn struct {
	t    testing.TB
	c    net.Conn
	br   *bufio.Reader
	rep  agentproto.AttachReply
	base int64  // offset of out[0]
	out  []byte // output received
	next int64  // offset the next Output must start at
	mark int    // waitOutput searches out[mark:]

	gaps    []agentproto.Gap
	fgs     []agentproto.Foreground
	fgNext  int // waitFg looks at fgs[fgNext:]
	replies []agentproto.Reply
	links   []string // Link states received, in order
	linkNx  int      // waitLink looks at links[linkNx:]
	exit    *agentproto.Exit
	eof     bool
	frames  []agentproto.Type // every frame type received, in order
	stamps  int               // Stamps frames received
	typed   int64             // the last Typed's Others
}

// dial connects and exchanges headers.
func (ta *testAgent) dial(t testing.TB) *tconn {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	c, err := Dial(ctx, ta.sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return &tconn{t: t, c: c, br: bufio.NewReader(c)}
}

// create starts a session and returns the attached client.
func (ta *testAgent) create(t testing.TB, req agentproto.Create) *tconn {
	t.Helper()
	tc := ta.dial(t)
	tc.send(req)
	tc.reply(agentproto.StatusCreated)
	return tc
}

// attach attaches to a session and checks the reply's status.
func (ta *testAgent) attach(t testing.TB, req agentproto.Attach, want agentproto.Status) *tconn {
	t.Helper()
	tc := ta.dial(t)
	tc.send(req)
	tc.reply(want)
	return tc
}

func (tc *tconn) send(m any) {
	tc.t.Helper()
	t, p := agentproto.Marshal(m)
	tc.sendFrame(t, p)
}

func (tc *tconn) sendFrame(t agentproto.Type, p []byte) {
	tc.t.Helper()
	if err := agentproto.WriteFrame(tc.c, t, p); err != nil {
		tc.t.Fatalf("send %s: %v", t, err)
	}
}

func (tc *tconn) input(s string) { tc.t.Helper(); tc.send(agentproto.Input{Data: []byte(s)}) }

// reply reads the AttachReply and checks its status.
func (tc *tconn) reply(want agentproto.Status) agentproto.AttachReply {
	tc.t.Helper()
	m := tc.readMsg()
	rep, ok := m.(agentproto.AttachReply)
	if !ok {
		tc.t.Fatalf("first frame is %#v, want an AttachReply", m)
	}
	if rep.Status != want {
		tc.t.Fatalf("AttachReply status %s (%q), want %s", rep.Status, rep.Message, want)
	}
	tc.rep = rep
	tc.base, tc.next = rep.From, rep.From
	return rep
}

// readMsg reads and decodes one frame, within waitTimeout.
func (tc *tconn) readMsg() any {
	tc.t.Helper()
	_ = tc.c.SetReadDeadline(time.Now().Add(waitTimeout))
	f, err := agentproto.ReadFrame(tc.br, nil)
	if err != nil {
		tc.t.Fatalf("read frame: %v (output so far: %q)", err, tail(tc.out))
	}
	tc.frames = append(tc.frames, f.Type)
	m, err := agentproto.Unmarshal(f)
	if err != nil {
		tc.t.Fatalf("decode %s: %v", f.Type, err)
	}
	return m
}

// step reads one frame and applies it; false at end of stream.
func (tc *tconn) step() bool {
	tc.t.Helper()
	if tc.eof {
		return false
	}
	_ = tc.c.SetReadDeadline(time.Now().Add(waitTimeout))
	f, err := agentproto.ReadFrame(tc.br, nil)
	if err != nil {
		if tc.exit != nil { // the agent closes after Exit
			tc.eof = true
			return false
		}
		tc.t.Fatalf("read frame: %v (output so far: %q)", err, tail(tc.out))
	}
	tc.frames = append(tc.frames, f.Type)
	m, err := agentproto.Unmarshal(f)
	if err != nil {
		tc.t.Fatalf("decode %s: %v", f.Type, err)
	}
	if tc.exit != nil {
		tc.t.Errorf("%s frame after Exit", f.Type)
	}
	switch m := m.(type) {
	case agentproto.Output:
		if m.Offset != tc.next {
			tc.t.Fatalf("Output at offset %d, want %d (a duplicate or a silent skip)", m.Offset, tc.next)
		}
		if len(m.Data) == 0 || len(m.Data) > maxChunk {
			tc.t.Errorf("Output of %d bytes", len(m.Data))
		}
		tc.out = append(tc.out, m.Data...)
		tc.next += int64(len(m.Data))
	case agentproto.Gap:
		if m.From != tc.next || m.To <= m.From {
			tc.t.Fatalf("Gap %+v, want one from %d", m, tc.next)
		}
		tc.gaps = append(tc.gaps, m)
		tc.next = m.To
		// Keep out contiguous with next: the gap is marked, not filled.
		tc.out, tc.base, tc.mark = nil, m.To, 0
	case agentproto.Foreground:
		tc.fgs = append(tc.fgs, m)
	case agentproto.Reply:
		tc.replies = append(tc.replies, m)
	case agentproto.Link:
		tc.links = append(tc.links, m.State)
	case agentproto.Typed:
		if m.Others < tc.typed {
			tc.t.Errorf("Typed went back from %d to %d", tc.typed, m.Others)
		}
		tc.typed = m.Others
	case agentproto.Exit:
		tc.exit = &m
	case agentproto.Stamps:
		// Ahead of the output it covers: from the next offset (or the
		// stamp before it) to where the stamps end (time 0).
		n := len(m.Offsets)
		if n < 2 || len(m.Times) != n || m.Offsets[0] > tc.next || m.Times[n-1] != 0 || m.Offsets[n-1] <= tc.next {
			tc.t.Fatalf("Stamps %+v at offset %d", m, tc.next)
		}
		tc.stamps++
	default:
		tc.t.Fatalf("unexpected %s frame on a stream", f.Type)
	}
	return true
}

// until reads frames until cond holds; it fails if the stream ends first.
func (tc *tconn) until(what string, cond func() bool) {
	tc.t.Helper()
	for !cond() {
		if !tc.step() {
			tc.t.Fatalf("stream ended before %s (output: %q)", what, tail(tc.out))
		}
	}
}

// waitOutput waits for s in the output after the previous match.
func (tc *tconn) waitOutput(s string) {
	tc.t.Helper()
	tc.until(fmt.Sprintf("output %q", s), func() bool {
		if i := bytes.Index(tc.out[tc.mark:], []byte(s)); i >= 0 {
			tc.mark += i + len(s)
			return true
		}
		return false
	})
}

// waitExit reads to the Exit and the end of the stream, and closes the
// connection, as a client does once it has the exit status.
func (tc *tconn) waitExit() agentproto.Exit {
	tc.t.Helper()
	tc.until("Exit", func() bool { return tc.exit != nil })
	for tc.step() {
	}
	tc.c.Close()
	return *tc.exit
}

// waitFg waits for a Foreground frame satisfying cond, looking only at
// frames after the one the previous waitFg returned.
func (tc *tconn) waitFg(what string, cond func(agentproto.Foreground) bool) agentproto.Foreground {
	tc.t.Helper()
	var got agentproto.Foreground
	tc.until("foreground "+what, func() bool {
		for ; tc.fgNext < len(tc.fgs); tc.fgNext++ {
			if cond(tc.fgs[tc.fgNext]) {
				got = tc.fgs[tc.fgNext]
				tc.fgNext++
				return true
			}
		}
		return false
	})
	return got
}

func tail(b []byte) string {
	const n = 300
	if len(b) > n {
		return "…" + string(b[len(b)-n:])
	}
	return string(b)
}

// list returns the agent's sessions.
func (ta *testAgent) list(t testing.TB) []agentproto.SessionInfo {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	ss, err := List(ctx, ta.sock)
	if err != nil {
		t.Fatal(err)
	}
	return ss
}

func (ta *testAgent) info(t testing.TB, id string) (agentproto.SessionInfo, bool) {
	t.Helper()
	for _, s := range ta.list(t) {
		if s.ID == id {
			return s, true
		}
	}
	return agentproto.SessionInfo{}, false
}

// countLines returns how many times each "line-N" appears as a whole line.
func countLines(out string) map[string]int {
	n := map[string]int{}
	for _, l := range strings.Split(out, "\r\n") {
		if strings.HasPrefix(l, "line-") {
			n[l]++
		}
	}
	return n
}
