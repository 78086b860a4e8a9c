package agent

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/transport"
)

// The tests in this file play the agent's side of the protocol by hand, to
// pin down how a Conn handles frames the real agent sends rarely or never
// (overlapping output, skipped offsets, replies interleaved with output).
// Everything else is tested against the real agent in agent_test.go.

// fakeAgent accepts connections on a socket in a fresh 0700 directory and
// runs script on each after the header exchange.
type fakeAgent struct {
	sock string
	wg   sync.WaitGroup
}

// fakeLink is the agent's end of one connection.
type fakeLink struct {
	t  *testing.T
	nc net.Conn
	r  *bufio.Reader
}

func (f *fakeLink) send(m any) {
	t, p := agentproto.Marshal(m)
	if err := agentproto.WriteFrame(f.nc, t, p); err != nil {
		f.t.Errorf("fake agent: send %s: %v", t, err)
	}
}

func (f *fakeLink) recv() (any, agentproto.Type, error) {
	fr, err := agentproto.ReadFrame(f.r, nil)
	if err != nil {
		return nil, 0, err
	}
	if fr.Type == agentproto.TypeList || fr.Type == agentproto.TypeDetach {
		return struct{}{}, fr.Type, nil
	}
	m, err := agentproto.Unmarshal(fr)
	return m, fr.Type, err
}

func startFake(t *testing.T, script func(f *fakeLink)) *fakeAgent {
	t.Helper()
	fa := &fakeAgent{sock: filepath.Join(sockDir(t), "agent.sock")}
	l, err := net.Listen("unix", fa.sock)
	if err != nil {
		t.Fatal(err)
	}
	fa.wg.Go(func() {
		for {
			nc, err := l.Accept()
			if err != nil {
				return
			}
			fa.wg.Go(func() {
				defer nc.Close()
				f := &fakeLink{t: t, nc: nc, r: bufio.NewReader(nc)}
				if agentproto.WriteHeader(nc) != nil || agentproto.ReadHeader(f.r) != nil {
					return
				}
				script(f)
			})
		}
	})
	t.Cleanup(func() {
		l.Close()
		fa.wg.Wait()
	})
	return fa
}

// attachOK answers the client's Attach (or Create) with StatusAttached at from.
func (f *fakeLink) attachOK(from int64) {
	if _, _, err := f.recv(); err != nil {
		f.t.Errorf("fake agent: read attach: %v", err)
		return
	}
	f.send(agentproto.AttachReply{Status: agentproto.StatusAttached, From: from,
		Session: agentproto.SessionInfo{ID: "s1", Rows: 24, Cols: 80, Start: 0, End: from, StartLine: 1}})
}

// readAll reads c until an error other than a GapError and returns the
// data, the gaps seen and the final error.
func readAll(c *Conn) (string, []transport.GapError, error) {
	var data []byte
	var gaps []transport.GapError
	buf := make([]byte, 7) // small: exercises leftovers
	for {
		n, err := c.Read(buf)
		data = append(data, buf[:n]...)
		var g *transport.GapError
		if errors.As(err, &g) {
			gaps = append(gaps, *g)
			continue
		}
		if err != nil {
			return string(data), gaps, err
		}
	}
}

// sockDir returns a fresh directory with mode 0700 and a short path (a
// socket path must fit in sun_path's 108 bytes; t.TempDir's can be long and
// its mode is 0755).
func sockDir(t testing.TB) string {
	t.Helper()
	dir, err := os.MkdirTemp("", "ttymux-agent-test-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// TestConnFrames checks Read's handling of each stream shape: plain output,
// overlap with bytes already returned, a Gap frame, an offset jump without
// one, frames to skip, and the exit status.
func TestConnFrames(t *testing.T) {
	tests := []struct {
		name     string
		from     int64
		frames   []any
		want     string
		gaps     []transport.GapError
		waitErr  error // nil: want nil from Wait
		exitCode int   // with waitErr == nil and > 0: want *ExitError
		offset   int64
	}{
		{
			name:   "in order",
			from:   10,
			frames: []any{agentproto.Output{Offset: 10, Data: []byte("hello ")}, agentproto.Output{Offset: 16, Data: []byte("world")}, agentproto.Exit{}},
			want:   "hello world",
			offset: 21,
		},
		{
			name: "overlap is trimmed",
			frames: []any{agentproto.Output{Offset: 0, Data: []byte("abcdef")}, agentproto.Output{Offset: 3, Data: []byte("defghi")},
				agentproto.Output{Offset: 2, Data: []byte("cd")}, agentproto.Exit{}},
			want:   "abcdefghi",
			offset: 9,
		},
		{
			name:   "gap frame",
			frames: []any{agentproto.Output{Offset: 0, Data: []byte("abc")}, agentproto.Gap{From: 3, To: 100}, agentproto.Output{Offset: 100, Data: []byte("xyz")}, agentproto.Exit{Status: 3}},
			want:   "abcxyz",
			gaps:   []transport.GapError{{From: 3, To: 100}},
			offset: 103, exitCode: 3,
		},
		{
			name:   "offset jump without gap frame",
			frames: []any{agentproto.Output{Offset: 0, Data: []byte("abc")}, agentproto.Output{Offset: 50, Data: []byte("xyz")}, agentproto.Exit{Signal: "KILL", Status: 137}},
			want:   "abcxyz",
			gaps:   []transport.GapError{{From: 3, To: 50}},
			offset: 53, exitCode: 137,
		},
		{
			name: "foreground and replies are not output",
			frames: []any{agentproto.Foreground{Pgid: 7, Name: "bash", IsShell: true, Echo: true}, agentproto.Output{Offset: 0, Data: []byte("a")},
				agentproto.Reply{Status: agentproto.StatusFailed, Message: "no"}, agentproto.Output{Offset: 1, Data: []byte("b")}, agentproto.Exit{}},
			want:   "ab",
			offset: 2,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			fa := startFake(t, func(f *fakeLink) {
				f.attachOK(tt.from)
				for _, m := range tt.frames {
					f.send(m)
				}
				f.nc.Write([]byte{99, 0, 0, 0, 0}) // an unknown type after Exit: never read
				io.Copy(io.Discard, f.r)
			})
			c := &Client{Socket: fa.sock}
			kc, ks, res, err := c.Attach(ctxT(t), "s1", tt.from)
			if err != nil {
				t.Fatal(err)
			}
			defer kc.Close()
			conn := kc.(*Conn)
			if ks.ID != "s1" || res.From != tt.from || conn.Offset() != tt.from {
				t.Fatalf("attach = %+v, %+v, offset %d", ks, res, conn.Offset())
			}
			got, gaps, err := readAll(conn)
			if !errors.Is(err, io.EOF) {
				t.Fatalf("final Read error = %v, want io.EOF", err)
			}
			if got != tt.want {
				t.Errorf("output = %q, want %q", got, tt.want)
			}
			if len(gaps) != len(tt.gaps) || (len(gaps) > 0 && gaps[0] != tt.gaps[0]) {
				t.Errorf("gaps = %v, want %v", gaps, tt.gaps)
			}
			if conn.Offset() != tt.offset {
				t.Errorf("Offset() = %d, want %d", conn.Offset(), tt.offset)
			}
			werr := conn.Wait()
			var ee *transport.ExitError
			switch {
			case tt.exitCode == 0 && werr != nil:
				t.Errorf("Wait() = %v, want nil", werr)
			case tt.exitCode != 0 && (!errors.As(werr, &ee) || ee.Status != tt.exitCode):
				t.Errorf("Wait() = %v, want exit status %d", werr, tt.exitCode)
			}
		})
	}
}

// TestConnForegroundEcho checks the cached Foreground and Echo values.
func TestConnForegroundEcho(t *testing.T) {
	fa := startFake(t, func(f *fakeLink) {
		f.attachOK(0)
		f.send(agentproto.Output{Offset: 0, Data: []byte("x")})
		f.send(agentproto.Foreground{Pgid: 42, Name: "vim", Echo: false})
		f.send(agentproto.Output{Offset: 1, Data: []byte("y")})
		io.Copy(io.Discard, f.r)
	})
	kc, _, _, err := (&Client{Socket: fa.sock}).Attach(ctxT(t), "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	c := kc.(*Conn)
	if _, err := c.Foreground(); err == nil {
		t.Error("Foreground() before any report: want an error")
	}
	if _, err := c.Echo(); err == nil {
		t.Error("Echo() before any report: want an error")
	}
	buf := make([]byte, 10)
	for range 2 {
		if _, err := c.Read(buf); err != nil {
			t.Fatal(err)
		}
	}
	fg, err := c.Foreground()
	if want := (transport.Foreground{Pgid: 42, Name: "vim"}); err != nil || fg != want {
		t.Errorf("Foreground() = %+v, %v; want %+v", fg, err, want)
	}
	if echo, err := c.Echo(); err != nil || echo {
		t.Errorf("Echo() = %v, %v; want false", echo, err)
	}
}

// TestConnWritesFrames checks that Write splits input into frames of at
// most 32 KiB, and that Resize, Signal, SetMeta and Close (Detach) arrive in
// order, serialised with concurrent writers.
func TestConnWritesFrames(t *testing.T) {
	type got struct {
		typ agentproto.Type
		m   any
	}
	frames := make(chan got, 100)
	fa := startFake(t, func(f *fakeLink) {
		f.attachOK(0)
		defer close(frames)
		for {
			m, typ, err := f.recv()
			if err != nil {
				return
			}
			frames <- got{typ, m}
		}
	})
	kc, _, _, err := (&Client{Socket: fa.sock}).Attach(ctxT(t), "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	c := kc.(*Conn)
	big := make([]byte, 70<<10)
	for i := range big {
		big[i] = byte('a' + i%26)
	}
	if n, err := c.Write(big); n != len(big) || err != nil {
		t.Fatalf("Write = %d, %v", n, err)
	}
	ctx := ctxT(t)
	if err := c.Resize(ctx, transport.Size{Rows: 30, Cols: 100}); err != nil {
		t.Fatal(err)
	}
	if err := c.Resize(ctx, transport.Size{}); err == nil {
		t.Error("Resize(0x0): want an error")
	}
	if err := c.Signal(ctx, "INT"); err != nil {
		t.Fatal(err)
	}
	if err := c.SetMeta([]byte("meta")); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Close(); err != nil {
		t.Errorf("second Close = %v", err)
	}
	if _, err := c.Write([]byte("x")); !errors.Is(err, ErrDetached) {
		t.Errorf("Write after Close = %v, want ErrDetached", err)
	}

	var input []byte
	var rest []string
	for g := range frames {
		switch m := g.m.(type) {
		case agentproto.Input:
			if len(m.Data) > maxInput {
				t.Errorf("Input frame of %d bytes, want ≤ %d", len(m.Data), maxInput)
			}
			input = append(input, m.Data...)
		case agentproto.Resize:
			rest = append(rest, "resize")
			if m.Rows != 30 || m.Cols != 100 {
				t.Errorf("Resize = %+v", m)
			}
		case agentproto.Signal:
			rest = append(rest, "signal "+m.Name)
		case agentproto.SetMeta:
			rest = append(rest, "meta "+string(m.Meta))
		default:
			rest = append(rest, g.typ.String())
		}
	}
	if string(input) != string(big) {
		t.Errorf("input arrived as %d bytes, want the %d written, in order", len(input), len(big))
	}
	if want := "[resize signal INT meta meta Detach]"; fmtList(rest) != want {
		t.Errorf("control frames = %v, want %s", rest, want)
	}
}

func fmtList(s []string) string {
	out := "["
	for i, x := range s {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}

// TestConnLinkLost checks that an agent connection ending without an Exit
// frame is reported as ErrAgentLost by Read and by Wait, not as the end of
// the session.
func TestConnLinkLost(t *testing.T) {
	fa := startFake(t, func(f *fakeLink) {
		f.attachOK(0)
		f.send(agentproto.Output{Offset: 0, Data: []byte("bye")})
		// Return: the connection closes, as when the agent is killed.
	})
	kc, _, _, err := (&Client{Socket: fa.sock}).Attach(ctxT(t), "s1", 0)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	got, _, err := readAll(kc.(*Conn))
	if got != "bye" || !errors.Is(err, ErrAgentLost) {
		t.Fatalf("readAll = %q, %v; want \"bye\", ErrAgentLost", got, err)
	}
	if err := kc.Wait(); !errors.Is(err, ErrAgentLost) {
		t.Errorf("Wait() = %v, want ErrAgentLost", err)
	}
}

// TestAttachStatuses checks that each refusal becomes a *agentlink.StatusError and
// that not_found matches transport.ErrNoSession.
func TestAttachStatuses(t *testing.T) {
	for _, st := range []agentproto.Status{agentproto.StatusNotFound, agentproto.StatusForbidden, agentproto.StatusLimit, agentproto.StatusFailed} {
		t.Run(st.String(), func(t *testing.T) {
			fa := startFake(t, func(f *fakeLink) {
				f.recv()
				f.send(agentproto.AttachReply{Status: st, Message: "because"})
			})
			_, _, _, err := (&Client{Socket: fa.sock}).Attach(ctxT(t), "s9", 0)
			var se *agentlink.StatusError
			if !errors.As(err, &se) || se.Status != st {
				t.Fatalf("Attach = %v, want a *agentlink.StatusError with %s", err, st)
			}
			if got := errors.Is(err, transport.ErrNoSession); got != (st == agentproto.StatusNotFound) {
				t.Errorf("errors.Is(%v, ErrNoSession) = %v", err, got)
			}
			if st == agentproto.StatusNotFound {
				if want := `session "s9" is not held by the agent`; err.Error() != want {
					t.Errorf("error = %q, want %q", err, want)
				}
			}
		})
	}
}

// TestAgentSilent checks that a peer that accepts and never answers does
// not hang a request beyond ctx.
func TestAgentSilent(t *testing.T) {
	sock := filepath.Join(sockDir(t), "agent.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	defer l.Close()
	wg.Go(func() {
		nc, err := l.Accept()
		if err == nil {
			io.Copy(io.Discard, nc) // never answers
			nc.Close()
		}
	})
	ctx, cancel := context.WithTimeout(t.Context(), 200*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err = (&Client{Socket: sock}).List(ctx)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("List = %v, want context.DeadlineExceeded", err)
	}
	if d := time.Since(start); d > 3*time.Second {
		t.Errorf("List took %v", d)
	}
}

// TestSetMetaCaps: a Conn asks an agent that advertised CapMetaNoReply not
// to answer its SetMeta, and an agent that did not (an older one, whose
// AttachReply ends before Caps) to answer as before, so that the Reply it
// sends anyway stays in step with the Conn's requests (issue #17).
func TestSetMetaCaps(t *testing.T) {
	for _, caps := range []agentproto.Caps{0, agentproto.CapMetaNoReply} {
		metas := make(chan agentproto.SetMeta, 1)
		fa := startFake(t, func(f *fakeLink) {
			if _, _, err := f.recv(); err != nil {
				t.Errorf("fake agent: read attach: %v", err)
				return
			}
			rep := agentproto.AttachReply{Status: agentproto.StatusAttached,
				Session: agentproto.SessionInfo{ID: "s1", Rows: 24, Cols: 80, StartLine: 1}, Caps: caps}
			typ, p := agentproto.Marshal(rep)
			if caps == 0 {
				p = p[:len(p)-1] // what an agent that predates Caps sends
			}
			if err := agentproto.WriteFrame(f.nc, typ, p); err != nil {
				t.Errorf("fake agent: %v", err)
			}
			for {
				m, _, err := f.recv()
				if err != nil {
					return
				}
				if sm, ok := m.(agentproto.SetMeta); ok {
					metas <- sm
					if !sm.NoReply {
						// The client need not wait for this reply (it may
						// close first): a failed write is no failure here.
						typ, p := agentproto.Marshal(agentproto.Reply{Status: agentproto.StatusOK})
						_ = agentproto.WriteFrame(f.nc, typ, p)
					}
				}
			}
		})
		kc, _, _, err := (&Client{Socket: fa.sock}).Attach(ctxT(t), "s1", 0)
		if err != nil {
			t.Fatal(err)
		}
		c := kc.(*Conn)
		if err := c.SetMeta([]byte("m")); err != nil {
			t.Fatal(err)
		}
		sm := <-metas
		if want := caps != 0; sm.NoReply != want || string(sm.Meta) != "m" {
			t.Errorf("caps %b: SetMeta %+v, want NoReply %v", caps, sm, want)
		}
		c.mu.Lock()
		asked := len(c.asked)
		c.mu.Unlock()
		if caps != 0 && asked != 0 {
			t.Errorf("caps %b: %d replies awaited, want none", caps, asked)
		}
		_ = c.Close()
	}
}
