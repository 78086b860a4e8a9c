package agentlink

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
)

// serve accepts one connection on a fresh Unix socket and runs agent on it;
// it returns the client's end.
func serve(t *testing.T, agent func(c net.Conn, r *bufio.Reader)) net.Conn {
	t.Helper()
	ln, err := net.Listen("unix", filepath.Join(t.TempDir(), "s"))
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		agent(c, bufio.NewReader(c))
	}()
	t.Cleanup(func() { ln.Close(); <-done })
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

// TestCall: a request gets its reply, and frames of types this version
// does not know are skipped.
func TestCall(t *testing.T) {
	c := serve(t, func(c net.Conn, r *bufio.Reader) {
		if agentproto.WriteHeader(c) != nil || agentproto.ReadHeader(r) != nil {
			return
		}
		if f, err := agentproto.ReadFrame(r, nil); err != nil || f.Type != agentproto.TypeList {
			return
		}
		_ = agentproto.WriteFrame(c, 200, []byte("from a newer agent"))
		typ, p := agentproto.Marshal(agentproto.ListReply{Sessions: []agentproto.SessionInfo{{ID: "s1"}}})
		_ = agentproto.WriteFrame(c, typ, p)
	})
	l, err := Handshake(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	m, err := l.Call(t.Context(), agentproto.TypeList, nil, agentproto.TypeListReply)
	if err != nil {
		t.Fatal(err)
	}
	if lr, ok := m.(agentproto.ListReply); !ok || len(lr.Sessions) != 1 || lr.Sessions[0].ID != "s1" {
		t.Fatalf("reply %#v", m)
	}
}

// TestCallAgentClosesAfterReply: the agent closes the connection after
// its one reply to List, Kill and Stop. Over a remote host the link is a
// net.Pipe fed from the SSH channel, whose SetDeadline fails with
// io.ErrClosedPipe once the far end is closed: the reply, read whole, is
// still the answer. Before, clearing the deadline after the reply made
// List fail with "io: read/write on closed pipe" whenever the channel's
// end came first (1 in 30 runs of TestRemoteDeployAndReuse under load).
func TestCallAgentClosesAfterReply(t *testing.T) {
	c, agent := net.Pipe()
	t.Cleanup(func() { c.Close() })
	go func() {
		defer agent.Close()
		r := bufio.NewReader(agent)
		// A net.Pipe does not buffer: the client's header is read first.
		if agentproto.ReadHeader(r) != nil || agentproto.WriteHeader(agent) != nil {
			return
		}
		if f, err := agentproto.ReadFrame(r, nil); err != nil || f.Type != agentproto.TypeList {
			return
		}
		typ, p := agentproto.Marshal(agentproto.ListReply{Sessions: []agentproto.SessionInfo{{ID: "s1"}}})
		_ = agentproto.WriteFrame(agent, typ, p)
	}()
	l, err := Handshake(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	err = l.Guard(t.Context(), func() error {
		if err := l.Send(agentproto.TypeList, nil); err != nil {
			return err
		}
		var err error
		if m, err = l.Reply(agentproto.TypeListReply); err != nil {
			return err
		}
		// The agent's end closes before the deadline is cleared.
		_, err = l.R.Peek(1)
		if !errors.Is(err, io.EOF) {
			return fmt.Errorf("after the reply: %v, want EOF", err)
		}
		return nil
	})
	if err != nil {
		t.Fatalf("a call answered in full, then closed: %v", err)
	}
	if lr, ok := m.(agentproto.ListReply); !ok || len(lr.Sessions) != 1 {
		t.Fatalf("reply %#v", m)
	}
}

// TestHandshakeVersionMismatch: an agent of another protocol version is
// refused with an error that names both versions.
func TestHandshakeVersionMismatch(t *testing.T) {
	c := serve(t, func(c net.Conn, r *bufio.Reader) {
		var b [len(agentproto.Magic) + 2]byte
		copy(b[:], agentproto.Magic)
		binary.BigEndian.PutUint16(b[len(agentproto.Magic):], agentproto.Version+1)
		_, _ = c.Write(b[:])
		_, _ = r.Discard(len(b))
	})
	_, err := Handshake(t.Context(), c)
	var ve *agentproto.VersionError
	if !errors.As(err, &ve) || ve.Remote != agentproto.Version+1 {
		t.Fatalf("err = %v, want a *VersionError with remote %d", err, agentproto.Version+1)
	}
}

// TestSilentAgent: an agent that accepts and never answers does not hang
// the client past its context's deadline.
func TestSilentAgent(t *testing.T) {
	hold := make(chan struct{})
	c := serve(t, func(net.Conn, *bufio.Reader) { <-hold })
	defer close(hold)
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	_, err := Handshake(ctx, c)
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("err = %v, want context.DeadlineExceeded", err)
	}
}

// TestRefusal: a Reply with a status other than OK, sent instead of the
// reply asked for, is a *StatusError naming the request and the session,
// and errors.As finds it under a caller's wrapping; Err is what it
// unwraps to.
func TestRefusal(t *testing.T) {
	c := serve(t, func(c net.Conn, r *bufio.Reader) {
		if agentproto.WriteHeader(c) != nil || agentproto.ReadHeader(r) != nil {
			return
		}
		if f, err := agentproto.ReadFrame(r, nil); err != nil || f.Type != agentproto.TypeKill {
			return
		}
		typ, p := agentproto.Marshal(agentproto.Reply{Status: agentproto.StatusNotFound, Message: "no session s9"})
		_ = agentproto.WriteFrame(c, typ, p)
	})
	l, err := Handshake(t.Context(), c)
	if err != nil {
		t.Fatal(err)
	}
	err = fmt.Errorf("kill: %w", l.Kill(t.Context(), "s9"))
	var se *StatusError
	if !errors.As(err, &se) || se.Status != agentproto.StatusNotFound || se.Op != "kill" || se.ID != "s9" {
		t.Fatalf("Kill = %v, want a *StatusError for kill s9 with not_found", err)
	}
	if want := `kill: session "s9" is not held by the agent`; err.Error() != want {
		t.Errorf("error = %q, want %q", err, want)
	}
	mine := errors.New("mine")
	se.Err = mine
	if !errors.Is(err, mine) {
		t.Error("errors.Is does not reach StatusError.Err")
	}
}
