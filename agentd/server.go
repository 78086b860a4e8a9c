package agentd

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"slices"
	"strconv"
	"sync"
	"syscall"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/ring"
)

// Defaults and limits for Options.
const (
	// DefaultMaxSessions is the number of sessions an agent holds at once
	// when Options.MaxSessions is 0.
	DefaultMaxSessions = 64
	// MaxSessionsLimit caps Options.MaxSessions, so that a ListReply with
	// every session (each up to MaxMeta of metadata and a 1 KiB command
	// line) fits in one frame (agentproto.MaxPayload).
	MaxSessionsLimit = 100
	// DefaultExitedTTL is how long an exited session stays readable when
	// Options.ExitedTTL is 0.
	DefaultExitedTTL = 10 * time.Minute
	// MaxMeta bounds a session's client metadata (Create.Meta, SetMeta).
	MaxMeta = 8 << 10
)

const (
	// maxChunk bounds the data of one Output frame.
	maxChunk = 32 << 10
	// maxCommand bounds SessionInfo.Command (the command line, for humans).
	maxCommand = 1 << 10
	// handshakeTimeout bounds the header exchange and the request frame:
	// a peer that connects and says nothing must not pin a goroutine.
	handshakeTimeout = 10 * time.Second
	// defaultRows and defaultCols are the window size of a Create that
	// gives none.
	defaultRows, defaultCols = 40, 120
)

// Options configure a Server. The zero value works.
type Options struct {
	// RingSize is the output kept per session, in bytes; 0 means 8 MiB
	// (ring.DefaultSize). The ring's memory grows as output arrives, so
	// an idle session costs a few KiB, not RingSize.
	RingSize int
	// MaxSessions is how many sessions (running or exited and not yet
	// reaped) the agent holds; 0 means DefaultMaxSessions, and values
	// above MaxSessionsLimit are lowered to it.
	MaxSessions int
	// ExitedTTL is how long an exited session keeps its final output and
	// exit status readable (listable, attachable) before it is forgotten;
	// 0 means DefaultExitedTTL. A running session is never reaped.
	ExitedTTL time.Duration
	// Shell is the program a Create without a command starts; empty means
	// $SHELL, then /bin/sh.
	Shell string
	// IdleExit, when positive, makes Serve return once the agent has held
	// no session and had no connection for that long. 0 means never.
	IdleExit time.Duration
	// Epoch, when set, is added to every session id: s1-<Epoch>, s2-<Epoch>,
	// …. A new agent (after a crash, a kill or a reboot) then never hands
	// out an id an earlier agent used, so a stale id cannot address
	// someone else's session (issue #14). cmd/ttymux-agent sets a fresh
	// NewEpoch at every start; empty means plain s1, s2, ….
	Epoch string
	// Logger receives the agent's log; nil discards it.
	Logger *slog.Logger
	// Events, when set, is called for each Event. It is a test hook (nil
	// in production): tests wait for events instead of sleeping. It is
	// called from the server's goroutines, possibly concurrently, and must
	// return quickly without calling back into the Server.
	Events func(Event)

	// floodHold replaces the package's floodHold when set (tests: a
	// longer hold makes the count of writes in a flood independent of the
	// machine's speed).
	floodHold time.Duration
}

// NewEpoch returns a fresh agent epoch for Options.Epoch: four random
// characters of [0-9a-z] (1.7 million values), short enough for ids a
// person types (s3-k9x2).
func NewEpoch() string {
	const digits = "0123456789abcdefghijklmnopqrstuvwxyz"
	var b [4]byte
	_, _ = rand.Read(b[:])
	for i := range b {
		b[i] = digits[int(b[i])%len(digits)]
	}
	return string(b[:])
}

// Event kinds passed to Options.Events.
const (
	EventServing     = "serving"      // Serve accepts connections
	EventCreated     = "created"      // a session started (Session)
	EventAttached    = "attached"     // a client started streaming (Session)
	EventDetached    = "detached"     // a client stopped streaming (Session; Detail: why)
	EventChildExited = "child-exited" // a session's program ended and its output is all in the ring (Session; Detail: status)
	EventKilled      = "killed"       // a Kill ended and forgot a session (Session)
	EventReaped      = "reaped"       // an exited session was forgotten (Session)
	EventRefused     = "refused"      // a connection was refused (Detail: why)
	EventStopping    = "stopping"     // the server began shutting down (Detail: why)
	EventLink        = "link"         // a serial session's device went away or came back (Session; Detail: the state)
)

// An Event is something tests may wait for. See Options.Events.
type Event struct {
	Kind    string // one of the Event* constants
	Session string // the session concerned, if any
	Detail  string
}

func (e Event) String() string {
	s := e.Kind
	if e.Session != "" {
		s += " " + e.Session
	}
	if e.Detail != "" {
		s += ": " + e.Detail
	}
	return s
}

// A Server holds sessions and serves the agent protocol on a listener. See
// the package documentation for what it owns and its concurrency contract.
type Server struct {
	opts Options
	log  *slog.Logger

	stopping chan struct{} // closed when shutdown begins
	stopOnce sync.Once
	done     chan struct{} // closed when Serve has returned
	kick     chan struct{} // wakes the janitor (capacity 1)

	// wg counts every goroutine Serve starts, directly or through a
	// connection or a session; Serve waits for all of them.
	wg sync.WaitGroup

	mu sync.Mutex
	// mu guards the following. Lock order: Server.mu before session.mu.
	serving   bool
	closing   bool // shutdown has begun: no new sessions or connections
	listener  net.Listener
	sessions  map[string]*session
	seq       int // the number of the last session id handed out
	conns     map[net.Conn]struct{}
	idleSince time.Time // when sessions and conns last became both empty
	why       string    // why shutdown began
}

// NewServer returns a Server configured by opts. It starts nothing until
// Serve.
func NewServer(opts Options) *Server {
	if opts.RingSize <= 0 {
		opts.RingSize = ring.DefaultSize
	}
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	opts.MaxSessions = min(opts.MaxSessions, MaxSessionsLimit)
	if opts.ExitedTTL <= 0 {
		opts.ExitedTTL = DefaultExitedTTL
	}
	if opts.Shell == "" {
		opts.Shell = os.Getenv("SHELL")
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/sh"
	}
	if opts.floodHold <= 0 {
		opts.floodHold = floodHold
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Server{
		opts:     opts,
		log:      log,
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
		kick:     make(chan struct{}, 1),
		sessions: make(map[string]*session),
		conns:    make(map[net.Conn]struct{}),
	}
}

func (s *Server) event(kind, session, detail string) {
	if s.opts.Events != nil {
		s.opts.Events(Event{Kind: kind, Session: session, Detail: detail})
	}
}

// Serve accepts connections on l and serves them until Close, a Stop
// request, the idle timeout (Options.IdleExit) or a failure of l. It then
// closes l, disconnects every client, hangs up every session, and returns
// once every goroutine it started has ended. It returns nil after Close,
// Stop or an idle exit, and the Accept error otherwise. Serve may be called
// once.
func (s *Server) Serve(l net.Listener) error {
	s.mu.Lock()
	if s.serving {
		s.mu.Unlock()
		return errors.New("agent: Serve called twice")
	}
	s.serving = true
	s.listener = l
	s.idleSince = time.Now()
	closing := s.closing
	s.mu.Unlock()
	defer close(s.done)
	if closing { // Close came first
		_ = l.Close()
		return nil
	}
	s.log.Info("agent serving", "addr", l.Addr().String(), "protocol", agentproto.Version, "pid", os.Getpid())
	s.wg.Add(1)
	go s.janitor()
	s.event(EventServing, "", l.Addr().String())
	var err error
	for backoff := time.Duration(0); ; {
		c, aerr := l.Accept()
		if aerr != nil {
			if s.isStopping() {
				break
			}
			// Out of descriptors: wait for some to be released, as
			// net/http does, rather than spin or give up.
			if errors.Is(aerr, syscall.EMFILE) || errors.Is(aerr, syscall.ENFILE) {
				backoff = min(max(2*backoff, 5*time.Millisecond), time.Second)
				s.log.Warn("accept failed; retrying", "err", aerr, "in", backoff)
				t := time.NewTimer(backoff)
				select {
				case <-t.C:
				case <-s.stopping:
					t.Stop()
				}
				continue
			}
			err = fmt.Errorf("accept: %w", aerr)
			s.log.Error("accept failed; shutting down", "err", aerr)
			s.beginShutdown("accept failed")
			break
		}
		backoff = 0
		if !s.track(c) {
			_ = c.Close() // shutting down
			continue
		}
		s.wg.Add(1)
		go s.handle(c)
	}
	s.shutdown()
	s.wg.Wait()
	s.log.Info("agent stopped", "why", s.reason())
	return err
}

// Close shuts the server down: it stops accepting, disconnects every client,
// hangs up every session and waits for Serve to return. It is idempotent and
// returns nil. It must not be called from an Events callback.
func (s *Server) Close() error {
	s.beginShutdown("closed")
	s.mu.Lock()
	serving := s.serving
	s.mu.Unlock()
	if serving {
		<-s.done
	}
	return nil
}

func (s *Server) isStopping() bool {
	select {
	case <-s.stopping:
		return true
	default:
		return false
	}
}

func (s *Server) reason() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.why
}

// beginShutdown makes Serve stop accepting and tear down. It does not wait,
// so a connection handler (Stop) or the janitor (idle exit) may call it.
func (s *Server) beginShutdown(why string) {
	s.stopOnce.Do(func() {
		s.mu.Lock()
		s.closing = true
		s.why = why
		l := s.listener
		s.mu.Unlock()
		close(s.stopping)
		s.event(EventStopping, "", why)
		if l != nil {
			_ = l.Close() // wakes Accept
		}
	})
}

// shutdown runs in Serve after the accept loop: disconnect clients, then
// hang up every session; their goroutines then end by themselves.
func (s *Server) shutdown() {
	s.mu.Lock()
	s.closing = true
	conns := make([]net.Conn, 0, len(s.conns))
	for c := range s.conns {
		conns = append(conns, c)
	}
	sessions := s.sessionsLocked()
	s.mu.Unlock()
	_ = s.listener.Close() // unlinks the socket; already closed unless Accept failed
	for _, c := range conns {
		_ = c.Close() // handlers notice and end
	}
	// Hang up concurrently: a program that ignores SIGHUP costs a second
	// (ptyproc's grace before SIGKILL), and that should not add up.
	var wg sync.WaitGroup
	for _, sess := range sessions {
		wg.Go(sess.hangup)
	}
	wg.Wait()
}

// track records a new connection, or reports false once shutdown has begun.
func (s *Server) track(c net.Conn) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closing {
		return false
	}
	s.conns[c] = struct{}{}
	return true
}

func (s *Server) untrack(c net.Conn) {
	_ = c.Close() // may already be closed
	s.mu.Lock()
	delete(s.conns, c)
	s.noteIdleLocked()
	s.mu.Unlock()
	s.kickJanitor()
}

// noteIdleLocked restarts the idle clock when the agent has just become
// idle (no sessions, no connections).
func (s *Server) noteIdleLocked() {
	if len(s.conns) == 0 && len(s.sessions) == 0 {
		s.idleSince = time.Now()
	}
}

// sessionsLocked returns the sessions in creation order.
func (s *Server) sessionsLocked() []*session {
	out := make([]*session, 0, len(s.sessions))
	for _, sess := range s.sessions {
		out = append(out, sess)
	}
	slices.SortFunc(out, func(a, b *session) int { return a.seq - b.seq })
	return out
}

func (s *Server) lookup(id string) *session {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sessions[id]
}

// forget removes sess from the table if it is still there.
func (s *Server) forget(sess *session) bool {
	s.mu.Lock()
	ok := s.sessions[sess.id] == sess
	if ok {
		delete(s.sessions, sess.id)
		s.noteIdleLocked()
	}
	s.mu.Unlock()
	s.kickJanitor()
	return ok
}

func (s *Server) kickJanitor() {
	select {
	case s.kick <- struct{}{}:
	default:
	}
}

// janitor reaps exited sessions after ExitedTTL and ends an idle agent after
// IdleExit. It sleeps until the next deadline; nothing ticks while the agent
// is idle.
func (s *Server) janitor() {
	defer s.wg.Done()
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		if next := s.sweep(time.Now()); !next.IsZero() {
			t.Reset(time.Until(next))
		} else {
			t.Stop()
		}
		select {
		case <-s.stopping:
			return
		case <-s.kick:
		case <-t.C:
		}
	}
}

// sweep forgets sessions whose exit is older than ExitedTTL, starts the
// shutdown of an agent idle for IdleExit, and returns the next deadline
// (zero if none).
func (s *Server) sweep(now time.Time) (next time.Time) {
	sooner := func(t time.Time) {
		if next.IsZero() || t.Before(next) {
			next = t
		}
	}
	var reaped []string
	s.mu.Lock()
	for id, sess := range s.sessions {
		at := sess.exitedAt()
		if at.IsZero() {
			continue
		}
		if dl := at.Add(s.opts.ExitedTTL); now.Before(dl) {
			sooner(dl)
		} else {
			delete(s.sessions, id)
			reaped = append(reaped, id)
		}
	}
	if len(reaped) > 0 {
		s.noteIdleLocked()
	}
	idle := false
	if s.opts.IdleExit > 0 && len(s.sessions) == 0 && len(s.conns) == 0 && !s.closing {
		if dl := s.idleSince.Add(s.opts.IdleExit); now.Before(dl) {
			sooner(dl)
		} else {
			idle = true
		}
	}
	s.mu.Unlock()
	for _, id := range reaped {
		s.log.Info("exited session forgotten", "session", id, "after", s.opts.ExitedTTL)
		s.event(EventReaped, id, "")
	}
	if idle {
		s.log.Info("idle; exiting", "idle_exit", s.opts.IdleExit)
		s.beginShutdown("idle")
	}
	return next
}

// handle serves one connection: peer check, headers, one request.
func (s *Server) handle(c net.Conn) {
	defer s.wg.Done()
	defer s.untrack(c)
	_ = c.SetDeadline(time.Now().Add(handshakeTimeout))
	uid, perr := agentsock.PeerUID(c)
	// Both sides write their header first, then read the other's.
	if err := agentproto.WriteHeader(c); err != nil {
		s.log.Debug("write header", "err", err)
		return
	}
	if err := agentproto.ReadHeader(c); err != nil {
		var ve *agentproto.VersionError
		if errors.As(err, &ve) {
			why := fmt.Sprintf("protocol version mismatch (client %d, agent %d)", ve.Remote, ve.Local)
			s.log.Warn("client refused: "+why, "peer_uid", uid)
			s.event(EventRefused, "", why)
		} else {
			s.log.Debug("read header", "err", err)
		}
		return
	}
	br := bufio.NewReader(c)
	f, err := agentproto.ReadFrame(br, nil)
	if err != nil {
		s.log.Debug("read request", "err", err)
		return
	}
	if perr != nil || uid != os.Geteuid() {
		why := "peer uid " + strconv.Itoa(uid) + " is not " + strconv.Itoa(os.Geteuid())
		if perr != nil {
			why = perr.Error()
		}
		s.log.Warn("client refused", "why", why, "request", f.Type)
		s.event(EventRefused, "", why)
		msg := "this agent serves uid " + strconv.Itoa(os.Geteuid()) + " only"
		if f.Type == agentproto.TypeHello {
			s.send(c, agentproto.HelloReply{Status: agentproto.StatusForbidden, Message: msg})
		} else if f.Type == agentproto.TypeCreate || f.Type == agentproto.TypeAttach {
			s.send(c, agentproto.AttachReply{Status: agentproto.StatusForbidden, Message: msg})
		} else {
			s.send(c, agentproto.Reply{Status: agentproto.StatusForbidden, Message: msg})
		}
		return
	}
	if f.Type == agentproto.TypeHello {
		// The client wants proof that we run as its user before it sends
		// its request (issue #14); the request follows on this connection.
		s.send(c, s.hello(f))
		if f, err = agentproto.ReadFrame(br, nil); err != nil {
			s.log.Debug("read request after hello", "err", err)
			return
		}
	}
	_ = c.SetDeadline(time.Time{})
	m, err := s.decodeRequest(f)
	if err != nil {
		s.log.Debug("bad request", "type", f.Type, "err", err)
		s.send(c, agentproto.Reply{Status: agentproto.StatusFailed, Message: err.Error()})
		return
	}
	switch m := m.(type) {
	case listRequest:
		s.send(c, agentproto.ListReply{Sessions: s.list()})
	case agentproto.Kill:
		s.send(c, s.kill(m.ID))
	case agentproto.Stop:
		s.stop(c, m)
	case agentproto.Create:
		sess, rep := s.create(m)
		if sess == nil {
			s.send(c, rep)
			return
		}
		s.stream(c, br, sess, rep, m.Model)
	case agentproto.Attach:
		sess := s.lookup(m.ID)
		if sess == nil {
			s.send(c, agentproto.AttachReply{Status: agentproto.StatusNotFound, Message: "no session " + strconv.Quote(m.ID)})
			return
		}
		s.stream(c, br, sess, sess.attach(m), m.Model)
	}
}

// hello answers a Hello: the proof that this agent can read the token file
// the client names, which only the client's user can read.
func (s *Server) hello(f agentproto.Frame) agentproto.HelloReply {
	m, err := agentproto.Unmarshal(f)
	if err != nil {
		return agentproto.HelloReply{Status: agentproto.StatusFailed, Message: err.Error()}
	}
	h := m.(agentproto.Hello)
	if len(h.Nonce) < 16 {
		return agentproto.HelloReply{Status: agentproto.StatusFailed, Message: "hello nonce shorter than 16 bytes"}
	}
	tok, err := agentsock.ReadToken(h.TokenPath)
	if err != nil {
		s.log.Warn("hello without proof", "err", err)
		return agentproto.HelloReply{Status: agentproto.StatusFailed, Message: err.Error()}
	}
	// The token is one line of text; its final newline is no part of it.
	return agentproto.HelloReply{Status: agentproto.StatusOK, Proof: agentproto.Proof(bytes.TrimSpace(tok), h.Nonce)}
}

// listRequest stands for List, whose payload is empty.
type listRequest struct{}

// decodeRequest decodes the first frame of a connection, which must be a
// request.
func (s *Server) decodeRequest(f agentproto.Frame) (any, error) {
	switch f.Type {
	case agentproto.TypeList:
		return listRequest{}, nil
	case agentproto.TypeKill, agentproto.TypeStop, agentproto.TypeCreate, agentproto.TypeAttach:
		return agentproto.Unmarshal(f)
	}
	// Unknown types may come from a newer client of the same Version.
	return nil, fmt.Errorf("unsupported request %s", f.Type)
}

// send writes one message, bounded by handshakeTimeout so that a peer that
// does not read cannot pin the handler.
func (s *Server) send(c net.Conn, m any) {
	_ = c.SetWriteDeadline(time.Now().Add(handshakeTimeout))
	if _, err := c.Write(appendMsg(nil, m)); err != nil {
		s.log.Debug("write reply", "err", err)
	}
}

func (s *Server) list() []agentproto.SessionInfo {
	s.mu.Lock()
	sessions := s.sessionsLocked()
	s.mu.Unlock()
	out := make([]agentproto.SessionInfo, 0, len(sessions))
	for _, sess := range sessions {
		out = append(out, sess.info(true))
	}
	return out
}

// kill hangs up a session's program, waits for its exit to be recorded,
// and forgets the session. Clients still attached receive the rest of the
// output and the Exit.
func (s *Server) kill(id string) agentproto.Reply {
	sess := s.lookup(id)
	if sess == nil {
		return agentproto.Reply{Status: agentproto.StatusNotFound, Message: "no session " + strconv.Quote(id)}
	}
	sess.hangup()
	<-sess.done
	if s.forget(sess) {
		sess.log.Info("session killed")
		s.event(EventKilled, id, "")
	}
	return agentproto.Reply{Status: agentproto.StatusOK}
}

func (s *Server) stop(c net.Conn, m agentproto.Stop) {
	s.mu.Lock()
	running := 0
	for _, sess := range s.sessions {
		if sess.exitedAt().IsZero() {
			running++
		}
	}
	s.mu.Unlock()
	if running > 0 && !m.Force {
		s.send(c, agentproto.Reply{Status: agentproto.StatusBusy,
			Message: strconv.Itoa(running) + " session(s) still running; stop with force to hang them up"})
		return
	}
	s.send(c, agentproto.Reply{Status: agentproto.StatusOK})
	why := "stop request"
	if running > 0 {
		why = "forced stop request (" + strconv.Itoa(running) + " sessions running)"
	}
	s.log.Info("stopping", "why", why)
	s.beginShutdown(why)
}

// create starts a session. On failure it returns a nil session and the
// reply to send.
func (s *Server) create(req agentproto.Create) (*session, agentproto.AttachReply) {
	// Echoing a kind this agent knows, also in a refusal, tells the client
	// that it was understood (agentproto's doc, "Session kinds").
	kind := req.Kind
	if kind != agentproto.KindPTY && kind != agentproto.KindSerial {
		kind = agentproto.KindPTY
	}
	fail := func(st agentproto.Status, msg string) (*session, agentproto.AttachReply) {
		return nil, agentproto.AttachReply{Status: st, Message: msg, Kind: kind}
	}
	if kind != req.Kind {
		return fail(agentproto.StatusFailed, "this agent cannot hold sessions of "+req.Kind.String()+"; upgrade it")
	}
	if len(req.Meta) > MaxMeta {
		return fail(agentproto.StatusFailed, "metadata of "+strconv.Itoa(len(req.Meta))+" bytes is over the "+strconv.Itoa(MaxMeta)+"-byte limit")
	}
	var evicted *session
	s.mu.Lock()
	if s.closing {
		s.mu.Unlock()
		return fail(agentproto.StatusFailed, "the agent is shutting down")
	}
	if len(s.sessions) >= s.opts.MaxSessions {
		// Make room by forgetting the oldest exited session nobody
		// watches; running sessions are never dropped.
		for _, sess := range s.sessionsLocked() {
			if sess.idleExited() {
				evicted = sess
				delete(s.sessions, sess.id)
				break
			}
		}
		if evicted == nil {
			s.mu.Unlock()
			return fail(agentproto.StatusLimit, "the agent holds "+strconv.Itoa(len(s.sessions))+" sessions, its limit")
		}
	}
	s.seq++
	id := "s" + strconv.Itoa(s.seq)
	if s.opts.Epoch != "" {
		id += "-" + s.opts.Epoch
	}
	// Starting the child under s.mu keeps the limit exact and lets
	// shutdown see every session; fork+exec takes about a millisecond.
	sess, err := s.startSession(id, s.seq, req)
	if err != nil {
		s.mu.Unlock()
		s.log.Warn("create failed", "session", id, "err", err)
		if evicted != nil {
			s.event(EventReaped, evicted.id, "evicted to make room")
		}
		return fail(agentproto.StatusFailed, err.Error())
	}
	rows, cols := sess.rows, sess.cols // before anyone else can see sess
	s.sessions[id] = sess
	s.mu.Unlock()
	if evicted != nil {
		s.log.Info("exited session forgotten to make room", "session", evicted.id)
		s.event(EventReaped, evicted.id, "evicted to make room")
	}
	sess.log.Info("session created", "kind", sess.kind, "command", sess.command, "pid", sess.pid, "rows", rows, "cols", cols)
	s.event(EventCreated, id, sess.command)
	rep := sess.attach(agentproto.Attach{ID: id, FromStart: true})
	rep.Status = agentproto.StatusCreated
	return sess, rep
}
