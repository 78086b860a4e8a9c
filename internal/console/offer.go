package console

import (
	"bufio"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/transport"
)

// The sessions servers offer (docs/console.md, "Every server's sessions";
// docs/security.md, "The console decides").
//
// Every ttymux mcp server listens on mcp-<pid>.sock in ttymux's private
// runtime directory (agentsock.Dir: 0700, the user's; the socket 0600).
// ttymux web finds the servers by listing that directory each time a page
// refreshes its list, and dials each. Both ends check the other before
// anything else is read or written (CheckPeer: the same user, this very
// ttymux binary, not inside a session): a server shows its sessions'
// output and types a person's keys — with Session.HumanWrite, which the
// gate does not see — only for the console the human started, and the
// console shows output and sends keys only to a genuine server. A process
// that fails the check gets one line saying why, and nothing else.
//
// One request per connection, a JSON line (offerRequest), answered by one
// JSON line (offerReply):
//
//	{"op":"list"}                        {"server":{…},"sessions":[…],"attached":[…]}, then closed
//	{"op":"watch","id":"s1","tail":N}    {"session":{…}}, then frames from the server
//	{"op":"drive","id":"s1"}             {"session":{…}}, then frames both ways
//	(anything refused)                   {"error":"…"} ("no_session": true for an unknown id), closed
//
// A frame is a kind byte, a 4-byte big-endian length and the payload:
//
//	watch, server → console: 'o' output bytes (at most 64 KiB); 'g' output
//	  was lost, JSON {"from":N,"to":M}; 'x' the end, why in words. The
//	  console ends a watch by closing the connection.
//	drive, console → server: 'i' a person's keys (at most 1 MiB); 'r' a
//	  resize, JSON {"rows":R,"cols":C}. The server answers each with one
//	  frame: 'k' done, 'u' unsupported (a serial port has no window
//	  size), 'e' failed, why in words.
//
// Nothing is read from a session's log unless a console watches it: an
// unwatched server only keeps the listening socket.

// OfferPrefix and OfferSuffix name a server's socket in the runtime
// directory: mcp-<pid>.sock.
const (
	OfferPrefix = "mcp-"
	OfferSuffix = ".sock"
)

// OfferPath is the socket of the server with process id pid in dir.
func OfferPath(dir string, pid int) string {
	return filepath.Join(dir, OfferPrefix+strconv.Itoa(pid)+OfferSuffix)
}

// Ops of an offerRequest.
const (
	opList  = "list"
	opWatch = "watch"
	opDrive = "drive"
)

type offerRequest struct {
	Op   string `json:"op"`
	ID   string `json:"id,omitempty"`
	Tail int64  `json:"tail,omitempty"`
}

// ServerInfo says which server offers sessions.
type ServerInfo struct {
	PID    int    `json:"pid"`
	Client string `json:"client,omitempty"` // the MCP client it serves (clientInfo)
}

type offerReply struct {
	Error     string      `json:"error,omitempty"`
	NoSession bool        `json:"no_session,omitempty"`
	Server    *ServerInfo `json:"server,omitempty"`
	Sessions  []Session   `json:"sessions,omitempty"`
	Attached  []string    `json:"attached,omitempty"`
	Session   *Session    `json:"session,omitempty"`
}

// Frame kinds.
const (
	frameOutput = 'o'
	frameGap    = 'g'
	frameEnd    = 'x'
	frameInput  = 'i'
	frameResize = 'r'
	frameDone   = 'k'
	frameUnsup  = 'u'
	frameFailed = 'e'
)

// maxFrame bounds a frame's payload: a person's paste (maxInput) at most.
const maxFrame = maxInput

func writeFrame(w io.Writer, kind byte, p []byte) error {
	var h [5]byte
	h[0] = kind
	binary.BigEndian.PutUint32(h[1:], uint32(len(p)))
	if _, err := w.Write(append(h[:], p...)); err != nil {
		return err
	}
	return nil
}

// readFrame reads one frame into buf (grown as needed).
func readFrame(r io.Reader, buf []byte) (byte, []byte, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return 0, nil, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > maxFrame {
		return 0, nil, fmt.Errorf("a frame of %d bytes (at most %d)", n, maxFrame)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		return 0, nil, err
	}
	return h[0], buf, nil
}

// A Driver gives a stream to type into a session without following its
// output: the console's take-over, whose page reads the output through
// its own watch. Read on such a stream returns io.EOF at once.
type Driver interface {
	Drive(ctx context.Context, id string) (Stream, error)
}

// OfferOptions configure a server's offer.
type OfferOptions struct {
	// Source is the server's sessions. A person's keys go through its
	// streams' Write (Session.HumanWrite); a Source that is a Driver
	// too types without following output.
	Source Source
	// Attached, if set, names the sessions of the local agent the server
	// has attached: the console lists those from the agent, and says
	// which server uses them.
	Attached func() []string
	// Client, if set, names the MCP client the server serves.
	Client func() string
	Logger *slog.Logger
}

// Offer is a server's side: it answers the console on the server's
// socket. Its methods may be called concurrently.
type Offer struct {
	srv unixServer
	o   OfferOptions
}

// ListenOffer listens at path (in a private 0700 directory, created if
// missing; the socket 0600). The path is this process's own (OfferPath
// with its pid), so a file left there by an earlier process with the same
// pid is replaced.
func ListenOffer(path string, o OfferOptions) (*Offer, error) {
	if o.Logger == nil {
		o.Logger = slog.New(slog.DiscardHandler)
	}
	if err := agentsock.PrepareDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("offer socket: %w", err)
	}
	if err := agentsock.CheckSocket(path); err == nil {
		_ = os.Remove(path) // stale: no live process has our pid
	}
	ln, err := listenPrivate(path, "offer socket")
	if err != nil {
		return nil, err
	}
	of := &Offer{o: o}
	of.srv.start(ln, path, of.handle)
	return of, nil
}

// Path is the socket's path.
func (of *Offer) Path() string { return of.srv.path }

// Close stops listening, ends every watch and drive, waits for them and
// removes the socket.
func (of *Offer) Close() error {
	if of == nil {
		return nil
	}
	return of.srv.close()
}

func replyLine(c net.Conn, r offerReply) error {
	b, _ := json.Marshal(r)
	return writeAll(c, append(b, '\n'))
}

func writeAll(c net.Conn, b []byte) error {
	_, err := c.Write(b)
	return err
}

// handle answers one request, from the console the human started only.
func (of *Offer) handle(c net.Conn) {
	if _, err := CheckPeer(c); err != nil {
		of.o.Logger.Warn("console offer: a process it does not trust asked for sessions; refused", "err", err)
		_ = c.SetDeadline(time.Now().Add(2 * time.Second))
		_ = replyLine(c, offerReply{Error: "not trusted: " + err.Error()}) // it learns why, nothing more
		// Its request is read and dropped, so that closing does not reset
		// the connection before it reads why.
		_ = c.(*net.UnixConn).CloseWrite()
		_, _ = io.Copy(io.Discard, io.LimitReader(c, maxFrame))
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	br := bufio.NewReaderSize(c, 4096)
	line, err := br.ReadSlice('\n')
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var req offerRequest
	if err := json.Unmarshal(line, &req); err != nil {
		_ = replyLine(c, offerReply{Error: "a request it cannot read"})
		return
	}
	info := ServerInfo{PID: os.Getpid()}
	if of.o.Client != nil {
		info.Client = of.o.Client()
	}
	switch req.Op {
	case opList:
		of.list(c, info)
	case opWatch:
		of.watch(c, br, req, info)
	case opDrive:
		of.drive(c, br, req, info)
	default:
		_ = replyLine(c, offerReply{Error: fmt.Sprintf("op %q: want list, watch or drive", req.Op)})
	}
}

func (of *Offer) list(c net.Conn, info ServerInfo) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	l, err := of.o.Source.List(ctx)
	if err != nil {
		_ = replyLine(c, offerReply{Error: err.Error(), Server: &info})
		return
	}
	r := offerReply{Server: &info, Sessions: l}
	if of.o.Attached != nil {
		r.Attached = of.o.Attached()
	}
	_ = replyLine(c, r)
}

func attachErr(c net.Conn, info ServerInfo, err error) {
	_ = replyLine(c, offerReply{Error: err.Error(), NoSession: errors.Is(err, transport.ErrNoSession), Server: &info})
}

// watch streams one session's output until either end stops.
func (of *Offer) watch(c net.Conn, br *bufio.Reader, req offerRequest, info ServerInfo) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	st, row, err := of.o.Source.AttachTail(ctx, req.ID, max(req.Tail, 0))
	cancel()
	if err != nil {
		attachErr(c, info, err)
		return
	}
	defer st.Close()
	if replyLine(c, offerReply{Server: &info, Session: &row}) != nil {
		return
	}
	var wg sync.WaitGroup
	defer wg.Wait()
	wg.Go(func() { // the console hangs up: the watch ends
		_, _ = io.Copy(io.Discard, br)
		_ = st.Close()
		_ = c.Close()
	})
	buf := make([]byte, frameBytes)
	for {
		n, err := st.Read(buf)
		if n > 0 && writeFrame(c, frameOutput, buf[:n]) != nil {
			break
		}
		var gap *transport.GapError
		if errors.As(err, &gap) {
			b, _ := json.Marshal(map[string]int64{"from": gap.From, "to": gap.To})
			if writeFrame(c, frameGap, b) != nil {
				break
			}
			continue
		}
		if err != nil {
			_ = writeFrame(c, frameEnd, []byte("the session ended or the server stopped"))
			break
		}
	}
	_ = c.Close() // ends the reader above
}

// drive applies a person's keys and resizes, answering each.
func (of *Offer) drive(c net.Conn, br *bufio.Reader, req offerRequest, info ServerInfo) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	var st Stream
	var row Session
	var err error
	row, err = findRow(ctx, of.o.Source, req.ID)
	if err == nil {
		st, err = drive(ctx, of.o.Source, req.ID)
	}
	cancel()
	if err != nil {
		if st != nil {
			_ = st.Close()
		}
		attachErr(c, info, err)
		return
	}
	defer st.Close()
	if replyLine(c, offerReply{Server: &info, Session: &row}) != nil {
		return
	}
	var buf []byte
	for {
		kind, p, err := readFrame(br, buf)
		if err != nil {
			return
		}
		buf = p
		var werr error
		switch kind {
		case frameInput:
			_, werr = st.Write(p)
		case frameResize:
			var sz transport.Size
			if json.Unmarshal(p, &sz) != nil || !sz.Valid() {
				werr = errors.New("invalid size")
				break
			}
			rctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			werr = st.Resize(rctx, sz)
			cancel()
		default:
			werr = fmt.Errorf("frame kind %q: want input or resize", kind)
		}
		switch {
		case werr == nil:
			err = writeFrame(c, frameDone, nil)
		case errors.Is(werr, transport.ErrUnsupported):
			err = writeFrame(c, frameUnsup, nil)
		default:
			err = writeFrame(c, frameFailed, []byte(werr.Error()))
		}
		if err != nil {
			return
		}
	}
}

// findRow is the row of session id in src.
func findRow(ctx context.Context, src Source, id string) (Session, error) {
	l, err := src.List(ctx)
	if err != nil {
		return Session{}, err
	}
	for _, s := range l {
		if s.ID == id {
			return s, nil
		}
	}
	return Session{}, fmt.Errorf("session %s: %w", id, transport.ErrNoSession)
}
