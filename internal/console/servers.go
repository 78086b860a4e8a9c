package console

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/transport"
)

// The console's side of the servers' offers (offer.go has the protocol):
// ttymux web finds the servers' sockets, checks each server, lists,
// watches and drives their sessions, and joins them to the agent's.

// Servers is the console's side: the sessions the servers in Dir offer.
// A row's id is the server's id for the session, "@", and the server's
// pid ("s1@4242"), so two servers' s1 stay apart. Its methods may be
// called concurrently.
type Servers struct {
	Dir    string
	Logger *slog.Logger

	mu        sync.Mutex     // mu protects the following
	refused   map[int]string // servers not trusted, logged once
	refusedBy map[int]string // servers that did not trust this process
}

// Offered is what one server offers.
type Offered struct {
	Server   ServerInfo
	Sessions []Session // ids as the console routes them (Servers)
	Attached []string  // the local agent's sessions it uses
}

// Holder is how the page names a server that holds sessions.
func (i ServerInfo) Holder() string {
	s := "ttymux mcp, pid " + strconv.Itoa(i.PID)
	if i.Client != "" {
		s += " (" + i.Client + ")"
	}
	return s
}

// pids lists the servers whose sockets are in Dir.
func (v *Servers) pids() []int {
	ents, err := os.ReadDir(v.Dir)
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range ents {
		n, ok := strings.CutPrefix(e.Name(), OfferPrefix)
		if !ok {
			continue
		}
		n, ok = strings.CutSuffix(n, OfferSuffix)
		if pid, err := strconv.Atoi(n); ok && err == nil && pid > 0 {
			out = append(out, pid)
		}
	}
	return out
}

func (v *Servers) log() *slog.Logger {
	if v.Logger == nil {
		return slog.New(slog.DiscardHandler)
	}
	return v.Logger
}

// errGone: the server's socket is there, nobody listens.
var errGone = errors.New("the server is gone")

// dial connects to server pid, checks it is a ttymux server the human
// started, and sends req; it returns the connection and the reply.
func (v *Servers) dial(ctx context.Context, pid int, req offerRequest) (*net.UnixConn, *bufio.Reader, offerReply, error) {
	path := OfferPath(v.Dir, pid)
	if err := agentsock.CheckSocket(path); err != nil {
		return nil, nil, offerReply{}, fmt.Errorf("server pid %d: %w", pid, err)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if _, serr := os.Stat("/proc/" + strconv.Itoa(pid)); errors.Is(serr, os.ErrNotExist) {
			_ = os.Remove(path) // the server died without cleaning up
		}
		return nil, nil, offerReply{}, fmt.Errorf("server pid %d: %w", pid, errGone)
	}
	uc := nc.(*net.UnixConn)
	peer, err := CheckPeer(uc)
	if err == nil && peer != pid {
		err = &UntrustedError{PID: peer, Why: fmt.Sprintf("it listens on the socket of pid %d", pid)}
	}
	if err != nil {
		_ = uc.Close() // nothing was sent
		v.mu.Lock()
		if v.refused == nil {
			v.refused = map[int]string{}
		}
		first := v.refused[pid] == ""
		v.refused[pid] = err.Error()
		v.mu.Unlock()
		if first {
			v.log().Warn("console: a process on a server's socket is not trusted; its sessions are not shown", "path", path, "err", err)
		}
		return nil, nil, offerReply{}, fmt.Errorf("server pid %d is not trusted: %w", pid, err)
	}
	if dl, ok := ctx.Deadline(); ok {
		_ = uc.SetDeadline(dl)
	}
	b, _ := json.Marshal(req)
	if err := writeAll(uc, append(b, '\n')); err != nil {
		_ = uc.Close()
		return nil, nil, offerReply{}, fmt.Errorf("server pid %d: %w", pid, err)
	}
	br := bufio.NewReaderSize(uc, 64<<10)
	line, err := br.ReadBytes('\n')
	var r offerReply
	if err == nil {
		err = json.Unmarshal(line, &r)
	}
	if err != nil {
		_ = uc.Close()
		return nil, nil, offerReply{}, fmt.Errorf("server pid %d: %w", pid, err)
	}
	if r.Error != "" {
		_ = uc.Close()
		if strings.HasPrefix(r.Error, "not trusted") {
			v.mu.Lock()
			if v.refusedBy == nil {
				v.refusedBy = map[int]string{}
			}
			v.refusedBy[pid] = r.Error
			v.mu.Unlock()
		}
		err := fmt.Errorf("server pid %d: %s", pid, r.Error)
		if r.NoSession {
			err = fmt.Errorf("%w (%v)", transport.ErrNoSession, err)
		}
		return nil, nil, r, err
	}
	_ = uc.SetDeadline(time.Time{})
	return uc, br, r, nil
}

// Untrusted returns the processes on server sockets that failed the
// check, by pid, with why.
func (v *Servers) Untrusted() map[int]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[int]string, len(v.refused))
	for k, x := range v.refused {
		out[k] = x
	}
	return out
}

// RefusedBy returns the servers that did not trust this process (it runs
// inside a session: ttymux doctor started by the AI), by pid, with why.
func (v *Servers) RefusedBy() map[int]string {
	v.mu.Lock()
	defer v.mu.Unlock()
	out := make(map[int]string, len(v.refusedBy))
	for k, x := range v.refusedBy {
		out[k] = x
	}
	return out
}

// Offers asks every server in Dir for its sessions, at once; a server
// that does not answer, or is not trusted, is left out.
func (v *Servers) Offers(ctx context.Context) []Offered {
	pids := v.pids()
	out := make([]*Offered, len(pids))
	var wg sync.WaitGroup
	for i, pid := range pids {
		wg.Go(func() {
			ctx, cancel := context.WithTimeout(ctx, 2*time.Second)
			defer cancel()
			uc, _, r, err := v.dial(ctx, pid, offerRequest{Op: opList})
			if err != nil {
				v.log().Debug("console: a server's sessions", "pid", pid, "err", err)
				return
			}
			_ = uc.Close()
			o := &Offered{Attached: r.Attached}
			if r.Server != nil {
				o.Server = *r.Server
			}
			o.Server.PID = pid // the socket's pid, which the kernel vouched for
			for _, s := range r.Sessions {
				s.ID = s.ID + "@" + strconv.Itoa(pid)
				s.Server = o.Server.Holder()
				o.Sessions = append(o.Sessions, s)
			}
			out[i] = o
		})
	}
	wg.Wait()
	var res []Offered
	for _, o := range out {
		if o != nil {
			res = append(res, *o)
		}
	}
	return res
}

// List returns every server's sessions.
func (v *Servers) List(ctx context.Context) ([]Session, error) {
	var out []Session
	for _, o := range v.Offers(ctx) {
		out = append(out, o.Sessions...)
	}
	return out, nil
}

// SplitOfferID splits a row id of Servers into the server's id for the
// session and the server's pid.
func SplitOfferID(id string) (string, int, bool) {
	i := strings.LastIndexByte(id, '@')
	if i <= 0 {
		return "", 0, false
	}
	pid, err := strconv.Atoi(id[i+1:])
	if err != nil || pid <= 0 || strconv.Itoa(pid) != id[i+1:] {
		return "", 0, false
	}
	return id[:i], pid, true
}

func (v *Servers) route(id string) (string, int, error) {
	rid, pid, ok := SplitOfferID(id)
	if !ok {
		return "", 0, fmt.Errorf("session %s: %w", id, transport.ErrNoSession)
	}
	return rid, pid, nil
}

// AttachTail watches a session a server offers.
func (v *Servers) AttachTail(ctx context.Context, id string, tail int64) (Stream, Session, error) {
	rid, pid, err := v.route(id)
	if err != nil {
		return nil, Session{}, err
	}
	uc, br, r, err := v.dial(ctx, pid, offerRequest{Op: opWatch, ID: rid, Tail: tail})
	if err != nil {
		return nil, Session{}, err
	}
	row := Session{ID: id}
	if r.Session != nil {
		row = *r.Session
		row.ID = id
	}
	return &watchStream{c: uc, br: br}, row, nil
}

// Drive opens a stream to type into a session a server offers.
func (v *Servers) Drive(ctx context.Context, id string) (Stream, error) {
	rid, pid, err := v.route(id)
	if err != nil {
		return nil, err
	}
	uc, br, _, err := v.dial(ctx, pid, offerRequest{Op: opDrive, ID: rid})
	if err != nil {
		return nil, err
	}
	return &driveStream{c: uc, br: br}, nil
}

// watchStream is the console's end of a watch: Read returns the output.
type watchStream struct {
	c    *net.UnixConn
	br   *bufio.Reader
	buf  []byte
	left []byte // output of the last frame not yet returned
}

func (w *watchStream) Read(p []byte) (int, error) {
	for len(w.left) == 0 {
		kind, b, err := readFrame(w.br, w.buf)
		if err != nil {
			return 0, err
		}
		w.buf = b
		switch kind {
		case frameOutput:
			w.left = b
		case frameGap:
			var g struct{ From, To int64 }
			_ = json.Unmarshal(b, &g)
			return 0, &transport.GapError{From: g.From, To: g.To}
		case frameEnd:
			return 0, io.EOF
		}
	}
	n := copy(p, w.left)
	w.left = w.left[n:]
	return n, nil
}

func (w *watchStream) Write(p []byte) (int, error) {
	return 0, errors.New("a watch takes no keys: take the session over")
}

func (w *watchStream) Resize(context.Context, transport.Size) error {
	return errors.New("a watch does not resize: take the session over")
}

func (w *watchStream) Close() error { return w.c.Close() }

// driveStream is the console's end of a drive: each Write or Resize is
// one frame, answered by the server before it returns.
type driveStream struct {
	c   *net.UnixConn
	br  *bufio.Reader
	mu  sync.Mutex // one request at a time
	buf []byte
}

func (d *driveStream) do(kind byte, p []byte) error {
	d.mu.Lock()
	defer d.mu.Unlock()
	_ = d.c.SetDeadline(time.Now().Add(10 * time.Second))
	defer d.c.SetDeadline(time.Time{})
	if err := writeFrame(d.c, kind, p); err != nil {
		return err
	}
	k, b, err := readFrame(d.br, d.buf)
	if err != nil {
		return err
	}
	d.buf = b
	switch k {
	case frameDone:
		return nil
	case frameUnsup:
		return transport.ErrUnsupported
	default:
		return errors.New(string(b))
	}
}

func (d *driveStream) Read([]byte) (int, error) { return 0, io.EOF }

func (d *driveStream) Write(p []byte) (int, error) {
	if len(p) > maxFrame {
		return 0, fmt.Errorf("input of %d bytes (at most %d)", len(p), maxFrame)
	}
	if err := d.do(frameInput, p); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (d *driveStream) Resize(_ context.Context, sz transport.Size) error {
	b, _ := json.Marshal(sz)
	return d.do(frameResize, b)
}

func (d *driveStream) Close() error { return d.c.Close() }

// WithServers returns the Source of ttymux web: the local agent's sessions
// (agent) and those the servers offer (v), oldest first. An agent session
// a server has attached says which server uses it.
func WithServers(agent Source, v *Servers) Source { return &joined{agent: agent, v: v} }

type joined struct {
	agent Source
	v     *Servers
}

func (j *joined) List(ctx context.Context) ([]Session, error) {
	var offers []Offered
	done := make(chan struct{})
	go func() { // the servers and the agent at once
		defer close(done)
		offers = j.v.Offers(ctx)
	}()
	rows, err := j.agent.List(ctx)
	<-done
	if err != nil {
		// The servers' rows still show: the agent's problem is a notice.
		rows, err = nil, &PartialError{Err: fmt.Errorf("the agent's sessions are not shown: %w", err)}
	}
	users := map[string][]string{}
	for _, o := range offers {
		for _, id := range o.Attached {
			users[id] = append(users[id], o.Server.Holder())
		}
	}
	for i := range rows {
		rows[i].Server = "agent"
		if u := users[rows[i].ID]; len(u) > 0 {
			rows[i].Server = "agent; used by " + strings.Join(u, ", ")
		}
	}
	for _, o := range offers {
		rows = append(rows, o.Sessions...)
	}
	slices.SortStableFunc(rows, func(a, b Session) int { return cmp.Compare(a.Created, b.Created) })
	return rows, err
}

// PartialError is what a Source's List returns with the rows it could
// list: Err says what is missing, and the page shows it as a notice
// above those rows.
type PartialError struct{ Err error }

func (e *PartialError) Error() string { return e.Err.Error() }
func (e *PartialError) Unwrap() error { return e.Err }

func (j *joined) AttachTail(ctx context.Context, id string, tail int64) (Stream, Session, error) {
	if _, _, ok := SplitOfferID(id); ok {
		return j.v.AttachTail(ctx, id, tail)
	}
	return j.agent.AttachTail(ctx, id, tail)
}

func (j *joined) Drive(ctx context.Context, id string) (Stream, error) {
	if _, _, ok := SplitOfferID(id); ok {
		return j.v.Drive(ctx, id)
	}
	return attachToDrive(ctx, j.agent, id)
}

// drive returns a stream to type into id: the source's Driver, or else a
// full attachment with its output drained (an agent's size follows its
// attached clients: one attachment drives).
func drive(ctx context.Context, src Source, id string) (Stream, error) {
	if d, ok := src.(Driver); ok {
		return d.Drive(ctx, id)
	}
	return attachToDrive(ctx, src, id)
}

func attachToDrive(ctx context.Context, src Source, id string) (Stream, error) {
	st, _, err := src.AttachTail(ctx, id, 0)
	if err != nil {
		return nil, err
	}
	go io.Copy(io.Discard, st) // ends when st closes
	return st, nil
}
