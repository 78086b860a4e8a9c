package main

import (
	"cmp"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// managerSource is the console's view of a server's own sessions (ttymux
// mcp --http): local, SSH and serial sessions it holds in-process, and the
// agent's sessions it has attached. A person's typing goes through
// Session.HumanWrite, so the model's next result says a person typed even
// where no shell hook reports commands (a serial console).
type managerSource struct{ m *session.Manager }

func (a managerSource) List(context.Context) ([]console.Session, error) {
	ss := a.m.Sessions()
	out := make([]console.Session, 0, len(ss))
	for _, s := range ss {
		out = append(out, sessionRow(s))
	}
	slices.SortFunc(out, func(a, b console.Session) int {
		return cmp.Or(cmp.Compare(a.Created, b.Created), cmp.Compare(a.ID, b.ID))
	})
	return out, nil
}

// sessionRow is the console's row for s.
func sessionRow(s *session.Session) console.Session {
	in := s.Info()
	host := ""
	if h := s.PolicyHost(); h != in.Transport {
		host = h
	}
	st := in.State
	if in.ExitCode != nil {
		st = fmt.Sprintf("exited (%d)", *in.ExitCode)
	}
	// To the second, so that an idle session's row stays the same from
	// one look to the next (the page is sent only what changed).
	last := time.Now().Add(-time.Duration(in.IdleMS) * time.Millisecond).Truncate(time.Second)
	return console.Session{
		ID: in.ID, Name: in.Name, Transport: in.Transport, Host: host, Command: in.Command,
		State: st, Foreground: in.Foreground, Rows: in.Rows, Cols: in.Cols, Created: in.Created,
		LastOutput: last.UTC().Format(time.RFC3339),
	}
}

func (a managerSource) find(id string) *session.Session {
	for _, s := range a.m.Sessions() {
		if s.ID() == id {
			return s
		}
	}
	return nil
}

func (a managerSource) AttachTail(_ context.Context, id string, tail int64) (console.Stream, console.Session, error) {
	s := a.find(id)
	if s == nil {
		return nil, console.Session{}, fmt.Errorf("session %s: %w", id, transport.ErrNoSession)
	}
	return &sessionStream{s: s, off: max(s.OutputEnd()-tail, 0), done: make(chan struct{})}, sessionRow(s), nil
}

// Drive types into id without following its output (the console's
// take-over: the page follows the output through its own stream).
func (a managerSource) Drive(_ context.Context, id string) (console.Stream, error) {
	s := a.find(id)
	if s == nil {
		return nil, fmt.Errorf("session %s: %w", id, transport.ErrNoSession)
	}
	return &sessionStream{s: s, driveOnly: true, done: make(chan struct{})}, nil
}

// streamTail is how much recent output a page that fell behind the log
// gets to redraw from.
const streamTail = 64 << 10

// sessionStream follows one session's output from off and types a
// person's input into it.
type sessionStream struct {
	s   *session.Session
	off int64 // the next output byte to return; only Read touches it
	// driveOnly: Read returns io.EOF (console.Driver).
	driveOnly bool
	once      sync.Once
	done      chan struct{}
}

func (st *sessionStream) Read(p []byte) (int, error) {
	if st.driveOnly {
		return 0, io.EOF
	}
	for {
		ch := st.s.Changed() // before looking: no change is missed
		b, next, lost, ended := st.s.OutputFrom(st.off, len(p))
		if lost > 0 {
			// The page fell behind the log: go on from recent output,
			// as a new page would.
			from := st.off
			st.off = max(st.off+lost, st.s.OutputEnd()-streamTail)
			return 0, &transport.GapError{From: from, To: st.off}
		}
		if len(b) > 0 {
			st.off = next
			return copy(p, b), nil
		}
		if ended {
			return 0, io.EOF
		}
		select {
		case <-ch:
		case <-st.done:
			return 0, io.ErrClosedPipe
		}
	}
}

func (st *sessionStream) Write(p []byte) (int, error) {
	select {
	case <-st.done:
		return 0, io.ErrClosedPipe
	default:
	}
	n, err := st.s.HumanWrite(p)
	if err != nil {
		return n, fmt.Errorf("type into session %s: %w", st.s.ID(), err)
	}
	return n, nil
}

func (st *sessionStream) Resize(ctx context.Context, sz transport.Size) error {
	return st.s.Resize(ctx, sz)
}

func (st *sessionStream) Close() error {
	st.once.Do(func() { close(st.done) })
	return nil
}

// offerSource is what a server offers ttymux web (console.ListenOffer):
// its own sessions, less those the local agent keeps, which the console
// lists from the agent (Attached names them).
type offerSource struct{ managerSource }

// localKept reports whether the local agent keeps s (a remote agent's
// sessions are "host/sN").
func localKept(s *session.Session) bool {
	_, _, remote := session.SplitID(s.ID())
	return s.Persistent() && !remote
}

func (o offerSource) List(ctx context.Context) ([]console.Session, error) {
	all, err := o.managerSource.List(ctx)
	if err != nil {
		return nil, err
	}
	kept := map[string]bool{}
	for _, id := range o.Attached() {
		kept[id] = true
	}
	return slices.DeleteFunc(all, func(r console.Session) bool { return kept[r.ID] }), nil
}

// Attached names the local agent's sessions this server has attached.
func (o offerSource) Attached() []string {
	var out []string
	for _, s := range o.m.Sessions() {
		if localKept(s) {
			out = append(out, s.ID())
		}
	}
	return out
}

// startOffer offers the server's sessions to ttymux web on the server's
// socket in the runtime directory (console.ListenOffer). A server that
// cannot listen there still serves; the log says why. The returned
// function stops offering.
func startOffer(m *session.Manager, srv *mcp.Server, log *slog.Logger) func() {
	src := offerSource{managerSource{m}}
	of, err := console.ListenOffer(console.OfferPath(agentsock.Dir(), os.Getpid()), console.OfferOptions{
		Source: src, Attached: src.Attached, Client: func() string { return clientName(srv) },
		Logger: log.With("component", "console-offer"),
	})
	if err != nil {
		log.Info("sessions not offered to ttymux web", "err", err)
		return func() {}
	}
	return func() { _ = of.Close() } // best effort at exit
}

// lazyOffer starts offering the server's sessions (startOffer) at the
// first tool call, before the call runs: a server has no session to offer
// before a tool call opens or attaches one, and listening on the socket
// (the runtime's network poller started, a socket bound and a goroutine)
// was 0.5 ms of CPU before the first tools/list answer, which a client
// waits for at the start of every session (issue #37). A server that
// never gets a tool call never listens.
type lazyOffer struct {
	start func() (stop func())
	once  sync.Once
	stop  func()
}

func newLazyOffer(m *session.Manager, srv *mcp.Server, log *slog.Logger) *lazyOffer {
	return &lazyOffer{start: func() func() { return startOffer(m, srv, log) }}
}

// middleware starts the offer before the first tools/call is handled.
func (l *lazyOffer) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			l.once.Do(func() { l.stop = l.start() })
		}
		return next(ctx, method, req)
	}
}

// close stops offering, if the offer started; it never starts one.
func (l *lazyOffer) close() {
	l.once.Do(func() {})
	if l.stop != nil {
		l.stop()
	}
}

// clientName names the MCP client of srv's first session ("" before it
// said who it is).
func clientName(srv *mcp.Server) string {
	for ss := range srv.Sessions() {
		if p := ss.InitializeParams(); p != nil && p.ClientInfo != nil {
			return strings.TrimSpace(p.ClientInfo.Name + " " + p.ClientInfo.Version)
		}
	}
	return ""
}
