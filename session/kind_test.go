package session_test

import (
	"bytes"
	"context"
	"errors"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// echoConn is a console in memory: it echoes what is typed and answers
// each line with "you said: LINE" and a new "fake> " prompt.
type echoConn struct {
	mu   sync.Mutex // mu protects the following
	out  bytes.Buffer
	line []byte

	more chan struct{} // has a value when out may hold bytes
	done chan struct{} // closed by Close
	once sync.Once
}

func newEchoConn() *echoConn {
	c := &echoConn{more: make(chan struct{}, 1), done: make(chan struct{})}
	c.emit([]byte("fake> "))
	return c
}

func (c *echoConn) emit(p []byte) {
	c.mu.Lock()
	c.out.Write(p)
	c.mu.Unlock()
	select {
	case c.more <- struct{}{}:
	default:
	}
}

func (c *echoConn) Read(p []byte) (int, error) {
	for {
		c.mu.Lock()
		if c.out.Len() > 0 {
			n, _ := c.out.Read(p)
			c.mu.Unlock()
			return n, nil
		}
		c.mu.Unlock()
		select {
		case <-c.more:
		case <-c.done:
			return 0, io.EOF
		}
	}
}

func (c *echoConn) Write(p []byte) (int, error) {
	select {
	case <-c.done:
		return 0, io.ErrClosedPipe
	default:
	}
	var out []byte
	for _, b := range p {
		if b == '\r' || b == '\n' {
			out = append(out, "\r\nyou said: "...)
			out = append(out, c.line...)
			out = append(out, "\r\nfake> "...)
			c.line = c.line[:0]
			continue
		}
		c.line = append(c.line, b)
		out = append(out, b)
	}
	c.emit(out)
	return len(p), nil
}

func (c *echoConn) Close() error {
	c.once.Do(func() { close(c.done) })
	return nil
}

func (c *echoConn) Wait() error {
	<-c.done
	return nil
}

type echoOpener struct{ opened chan transport.Target }

func (o echoOpener) Open(_ context.Context, t transport.Target) (transport.Conn, error) {
	o.opened <- t
	return newEchoConn(), nil
}

// fakeKind is a transport session has never heard of: one Kind value,
// registered here, is all it takes (issue #15).
func fakeKind(op transport.Opener) session.Kind {
	return session.Kind{
		Name:   "fake",
		Opener: op,
		Prepare: func(o *session.Opening) {
			o.Command = "fake " + o.Target.Command
			o.Shell = false
		},
		PolicyHost: func(t transport.Target) string { return "fake:" + t.Command },
	}
}

// TestFakeKind: a transport registered as one Kind value opens, sends,
// reads and closes through the Manager, with its own name, command and
// policy host, without a line of session changed for it.
func TestFakeKind(t *testing.T) {
	op := echoOpener{opened: make(chan transport.Target, 1)}
	m := session.NewManager(session.Options{Kinds: []session.Kind{fakeKind(op)}, StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()

	s, err := m.Open(ctx, session.OpenRequest{Transport: "fake", Target: transport.Target{Command: "console0"}, Name: "box"})
	if err != nil {
		t.Fatal(err)
	}
	if got := <-op.opened; got.Command != "console0" || got.Size != transport.DefaultSize {
		t.Errorf("opened %+v, want console0 at the default size", got)
	}
	info := s.Info()
	if info.Transport != "fake" || info.Command != "fake console0" || info.Name != "box" {
		t.Errorf("info %+v: want transport fake, command \"fake console0\", name box", info)
	}
	if h := s.PolicyHost(); h != "fake:console0" {
		t.Errorf("PolicyHost = %q, want fake:console0", h)
	}
	r, err := s.Send(ctx, session.SendRequest{Text: "hello", Enter: true, Wait: true, Until: "you said: hello", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || !strings.Contains(r.Output, "you said: hello") {
		t.Errorf("send: complete %v, output %q; want the echo's answer", r.Complete, r.Output)
	}
	if _, err := m.Get(ctx, "box"); err != nil {
		t.Errorf("get by name: %v", err)
	}
	if _, err := m.Close(ctx, s.ID()); err != nil {
		t.Fatal(err)
	}
	var nf *session.NotFoundError
	if _, err := m.Get(ctx, s.ID()); !errors.As(err, &nf) {
		t.Errorf("get after close: %v, want NotFoundError", err)
	}
	if _, err := m.Open(ctx, session.OpenRequest{Transport: "teleport"}); err == nil {
		t.Error("open of an unregistered transport succeeded")
	}
}

// TestSplitID: "host/id" is a session an agent on host keeps; JoinID
// makes it and SplitID takes it apart (cmd/ttymux uses both).
func TestSplitID(t *testing.T) {
	for _, tt := range []struct {
		id, host, rid string
		remote        bool
	}{
		{"t1", "", "", false},
		{"box/s1", "box", "s1", true},
		{"user@box:22/s3", "user@box:22", "s3", true},
		{"/s1", "", "", false},
		{"box/", "", "", false},
		// Not ids: nothing here may make the server dial a host.
		{"../x", "", "", false},
		{"host/../s1", "", "", false},
		{"x/../../s1", "", "", false},
		{"s1/../s1", "", "", false},
		{"-oProxyCommand=x/s1", "", "", false},
		{"box;reboot/s1", "", "", false},
		{"box/s1 x", "", "", false},
	} {
		host, rid, remote := session.SplitID(tt.id)
		if host != tt.host || rid != tt.rid || remote != tt.remote {
			t.Errorf("SplitID(%q) = %q, %q, %v; want %q, %q, %v", tt.id, host, rid, remote, tt.host, tt.rid, tt.remote)
		}
		if remote && session.JoinID(host, rid) != tt.id {
			t.Errorf("JoinID(%q, %q) = %q, want %q", host, rid, session.JoinID(host, rid), tt.id)
		}
	}
	if got := session.JoinID("", "s2"); got != "s2" {
		t.Errorf(`JoinID("", "s2") = %q, want s2`, got)
	}
}

// typedConn is an echoConn that keeps every byte typed into it.
type typedConn struct {
	*echoConn
	mu    sync.Mutex // protects typed
	typed bytes.Buffer
}

func (c *typedConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	c.typed.Write(p)
	c.mu.Unlock()
	return c.echoConn.Write(p)
}

func (c *typedConn) Typed() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.typed.String()
}

type typedOpener struct{ conns chan *typedConn }

func (o typedOpener) Open(context.Context, transport.Target) (transport.Conn, error) {
	c := &typedConn{echoConn: newEchoConn()}
	o.conns <- c
	return c, nil
}

// TestKindInput: the input options a kind's Prepare sets are how its
// sessions are typed into (its Enter and pacing here), and what the open
// asks for (a line ending, a pacing) wins over them.
func TestKindInput(t *testing.T) {
	op := typedOpener{conns: make(chan *typedConn, 2)}
	k := session.Kind{
		Name:   "lf",
		Opener: op,
		Prepare: func(o *session.Opening) {
			o.Shell, o.Input.Enter, o.Input.Pacing = false, "\n", session.Pacing{Line: time.Millisecond}
		},
	}
	m := session.NewManager(session.Options{Kinds: []session.Kind{k}, StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for _, tt := range []struct {
		ending, want   string
		pace, wantPace session.Pacing
	}{
		{"", "hi\n", session.Pacing{}, session.Pacing{Line: time.Millisecond}},
		{"crlf", "hi\r\n", session.Pacing{Char: time.Millisecond}, session.Pacing{Char: time.Millisecond}},
	} {
		s, err := m.Open(ctx, session.OpenRequest{Transport: "lf", LineEnding: tt.ending, Input: session.Input{Pacing: tt.pace}})
		if err != nil {
			t.Fatal(err)
		}
		if got := s.Pacing(); got != tt.wantPace {
			t.Errorf("open with pacing %+v: the session paces %+v, want %+v", tt.pace, got, tt.wantPace)
		}
		c := <-op.conns
		if _, err := s.Send(ctx, session.SendRequest{Text: "hi", Enter: true, Wait: true, Until: "you said: hi", Timeout: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
		if got := c.Typed(); got != tt.want {
			t.Errorf("line ending %q: typed %q, want %q", tt.ending, got, tt.want)
		}
	}
}

// TestKindSecrets: what a kind names as its target's secrets (an SSH
// password) never comes back in a result, should the far end echo it.
func TestKindSecrets(t *testing.T) {
	op := echoOpener{opened: make(chan transport.Target, 1)}
	k := fakeKind(op)
	k.Secrets = func(transport.Target) []string { return []string{"hunter2hunter2"} }
	m := session.NewManager(session.Options{Kinds: []session.Kind{k}, StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "fake", Target: transport.Target{Command: "console0"}})
	if err != nil {
		t.Fatal(err)
	}
	<-op.opened
	r, err := s.Send(ctx, session.SendRequest{Text: "pw is hunter2hunter2", Enter: true, Wait: true, Until: "you said: ", Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(r.Output, "hunter2") || !strings.Contains(r.Output, "********") {
		t.Errorf("output %q: the kind's secret is shown, or not masked", r.Output)
	}
}
