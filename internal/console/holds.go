package console

import (
	"bufio"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/visible"
)

// Questions from ttymux servers (docs/security.md, "The console decides"):
// a server whose client cannot ask the human (no_elicitation = "console")
// puts a held command — or, for ask_secret, a secret prompt — to the
// console the human started, over a Unix socket in ttymux's private
// runtime directory. The console shows it on the page; the human's answer
// goes back over the same connection, and the server (which checked that
// the process listening is this console: its uid, its binary, and that it
// does not run inside a session) turns it into a Grant through its one
// Approver. The console decides nothing itself and keeps no grant.
//
// One question per connection: the server dials, writes one Question as a
// JSON line, and reads one Answer. Closing the connection withdraws the
// question (the call timed out or was cancelled).

// SocketName is the console's socket in ttymux's runtime directory
// (agentsock.Dir).
const SocketName = "console.sock"

// DefaultSocket is where servers look for the console.
func DefaultSocket() string { return filepath.Join(agentsock.Dir(), SocketName) }

// Kinds of Question.
const (
	KindHold   = "hold"   // a held command: approve or decline
	KindSecret = "secret" // a secret for a session's password prompt
)

// A Question is what a server asks the human through the console.
type Question struct {
	Kind    string   `json:"kind"`              // KindHold or KindSecret
	Op      string   `json:"op,omitempty"`      // send, open, upload, download, fanout
	Command string   `json:"command,omitempty"` // the whole line that would run ("" when secret)
	Secret  bool     `json:"secret,omitempty"`  // the held text is secret: not shown
	Session string   `json:"session,omitempty"` // the session ("" for an open or by host)
	Host    string   `json:"host,omitempty"`
	Where   string   `json:"where,omitempty"` // where it would run, in words
	Reasons []string `json:"reasons,omitempty"`
	Prompt  string   `json:"prompt,omitempty"` // a secret: what it is for, in ttymux's words
	Asked   string   `json:"asked,omitempty"`  // a secret: the AI's words
	// TimeoutMS is how long the server waits for the answer.
	TimeoutMS int64 `json:"timeout_ms"`
}

// Decisions of an Answer.
const (
	Approve = "approve"
	Decline = "decline"
)

// An Answer is the human's: Approve or Decline; for a KindSecret
// question, Approve carries the secret.
type Answer struct {
	Decision string `json:"decision"`
	Secret   string `json:"secret,omitempty"`
	// Refused says why the console did not show the question (the asker
	// is not trusted); Decision is then Decline.
	Refused string `json:"refused,omitempty"`
}

// maxQuestion bounds one question on the socket.
const maxQuestion = 1 << 20

// Holds is the console's side of the socket: the questions waiting for the
// human. Its methods may be called concurrently.
type Holds struct {
	srv unixServer
	log *slog.Logger

	mu      sync.Mutex // mu protects the following
	pending map[string]*pendingQ
	order   []string      // ids, oldest first
	changed chan struct{} // closed and replaced on every change
}

type pendingQ struct {
	id       string
	q        Question
	peer     int // the server's pid
	since    time.Time
	deadline time.Time
	answer   chan Answer // buffered 1; the first answer wins
}

// ErrConsoleOpen is returned by ListenHolds when another console already
// listens on the socket.
var ErrConsoleOpen = errors.New("another console is open")

// ListenHolds listens on the socket at path (made 0600 in a private 0700
// directory, created if missing); a stale socket is replaced, a live one
// is not (ErrConsoleOpen).
func ListenHolds(path string, log *slog.Logger) (*Holds, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	if err := agentsock.PrepareDir(filepath.Dir(path)); err != nil {
		return nil, fmt.Errorf("console socket: %w", err)
	}
	if err := agentsock.CheckSocket(path); err == nil {
		if c, err := net.DialTimeout("unix", path, time.Second); err == nil {
			_ = c.Close() // only probing
			return nil, fmt.Errorf("%w (its socket %s answers): close it first", ErrConsoleOpen, path)
		}
		_ = os.Remove(path) // stale; Listen reports a failure
	} else if !errors.Is(err, os.ErrNotExist) {
		return nil, fmt.Errorf("console socket: %w", err)
	}
	ln, err := listenPrivate(path, "console socket")
	if err != nil {
		return nil, err
	}
	h := &Holds{log: log, pending: map[string]*pendingQ{}, changed: make(chan struct{})}
	h.srv.start(ln, path, h.handle)
	return h, nil
}

// Path is the socket's path.
func (h *Holds) Path() string { return h.srv.path }

// Close stops listening, withdraws every question (the servers read a
// refusal) and waits for the connections to end.
func (h *Holds) Close() error {
	if h == nil {
		return nil
	}
	return h.srv.close()
}

// handle takes one question from a server and answers it when the human
// does, or withdraws it when the server hangs up or its time is over.
func (h *Holds) handle(c net.Conn) {
	// The asker must be a ttymux server, not a process the AI started: a
	// secret typed in answer goes to it (CheckPeer).
	pid, err := CheckPeer(c)
	if err != nil {
		h.log.Warn("console: a question from a process it does not trust; refused", "err", err)
		b, _ := json.Marshal(Answer{Decision: Decline, Refused: err.Error()})
		_ = c.SetWriteDeadline(time.Now().Add(time.Second))
		_, _ = c.Write(append(b, '\n')) // best effort: it learns why, nothing more
		return
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Second))
	line, err := bufio.NewReaderSize(io.LimitReader(c, maxQuestion), 64<<10).ReadBytes('\n')
	if err != nil {
		return
	}
	_ = c.SetReadDeadline(time.Time{})
	var q Question
	if err := json.Unmarshal(line, &q); err != nil || (q.Kind != KindHold && q.Kind != KindSecret) {
		h.log.Warn("console: a question it cannot read", "pid", pid)
		return
	}
	timeout := time.Duration(q.TimeoutMS) * time.Millisecond
	if timeout <= 0 || timeout > time.Hour {
		timeout = time.Hour
	}
	p := &pendingQ{id: newID(), q: q, peer: pid, since: time.Now(), deadline: time.Now().Add(timeout), answer: make(chan Answer, 1)}
	h.add(p)
	defer h.remove(p.id)
	gone := make(chan struct{})
	go func() { // the server hangs up: the question is withdrawn
		var b [1]byte
		_, _ = c.Read(b[:])
		close(gone)
	}()
	// The server withdraws the question at its timeout by hanging up; the
	// console's own bound comes later, so that the server (not the
	// console) says the time is over.
	t := time.NewTimer(timeout + 10*time.Second)
	defer t.Stop()
	var a Answer
	select {
	case a = <-p.answer:
	case <-gone:
		return
	case <-t.C:
		return
	}
	b, _ := json.Marshal(a)
	a = Answer{} // the secret lives no longer than it must
	_, _ = c.Write(append(b, '\n'))
	clear(b)
	_ = c.(*net.UnixConn).CloseWrite() // the answer is whole
	<-gone
}

func (h *Holds) add(p *pendingQ) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.pending[p.id] = p
	h.order = append(h.order, p.id)
	h.notify()
}

func (h *Holds) remove(id string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	if _, ok := h.pending[id]; !ok {
		return
	}
	delete(h.pending, id)
	h.order = slices.DeleteFunc(h.order, func(s string) bool { return s == id })
	h.notify()
}

// notify wakes the pages' event streams; call with mu held.
func (h *Holds) notify() {
	close(h.changed)
	h.changed = make(chan struct{})
}

// HoldView is one question as the page shows it: every text a model may
// have written is made visible (control characters, invisible characters),
// and a secret is never in it.
type HoldView struct {
	ID       string   `json:"id"`
	Kind     string   `json:"kind"`
	Op       string   `json:"op,omitempty"`
	Command  string   `json:"command,omitempty"`
	Secret   bool     `json:"secret,omitempty"`
	Session  string   `json:"session,omitempty"`
	Host     string   `json:"host,omitempty"`
	Where    string   `json:"where,omitempty"`
	Reasons  []string `json:"reasons"`
	Prompt   string   `json:"prompt,omitempty"`
	Asked    string   `json:"asked,omitempty"`
	PID      int      `json:"pid,omitempty"` // the asking server's process
	Since    string   `json:"since"`
	Deadline string   `json:"deadline"`
}

// List returns the questions waiting, oldest first.
func (h *Holds) List() []HoldView {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make([]HoldView, 0, len(h.order))
	for _, id := range h.order {
		p := h.pending[id]
		v := HoldView{
			ID: p.id, Kind: p.q.Kind, Op: p.q.Op, Command: visible.String(p.q.Command), Secret: p.q.Secret,
			Session: visible.String(p.q.Session), Host: visible.String(p.q.Host), Where: visible.String(p.q.Where),
			Reasons: make([]string, 0, len(p.q.Reasons)), Prompt: visible.String(p.q.Prompt), Asked: visible.String(p.q.Asked),
			PID: p.peer, Since: p.since.UTC().Format(time.RFC3339), Deadline: p.deadline.UTC().Format(time.RFC3339),
		}
		for _, r := range p.q.Reasons {
			v.Reasons = append(v.Reasons, visible.String(r))
		}
		out = append(out, v)
	}
	return out
}

// ErrNoQuestion is returned by Answer for an id that waits no longer.
var ErrNoQuestion = errors.New("no such question: it was answered, withdrawn or timed out")

// Answer gives the human's answer to the question id.
func (h *Holds) Answer(id string, a Answer) error {
	if a.Decision != Approve && a.Decision != Decline {
		return fmt.Errorf("decision %q: want %q or %q", a.Decision, Approve, Decline)
	}
	h.mu.Lock()
	p := h.pending[id]
	h.mu.Unlock()
	if p == nil {
		return ErrNoQuestion
	}
	if p.q.Kind == KindSecret && a.Decision == Approve && a.Secret == "" {
		return errors.New("type the secret, or decline")
	}
	if p.q.Kind != KindSecret {
		a.Secret = ""
	}
	select {
	case p.answer <- a:
		h.remove(id)
		return nil
	default:
		return ErrNoQuestion
	}
}

// wait returns a channel closed at the next change.
func (h *Holds) wait() <-chan struct{} {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.changed
}

// csrf is the token every state-changing request must carry (X-Ttymux-CSRF):
// derived from the access token, readable only by the console's own pages
// (GET /api/csrf answers no other origin), so a page elsewhere that makes
// the browser send the cookie cannot send it.
func (s *Server) csrf() string {
	m := hmac.New(sha256.New, []byte(s.token))
	m.Write([]byte("ttymux console csrf"))
	return hex.EncodeToString(m.Sum(nil))
}

// csrfHeader carries the CSRF token.
const csrfHeader = "X-Ttymux-CSRF"

// csrfOK reports whether a state-changing request carries the CSRF token.
// A request authorised by the bearer header needs none: a browser never
// adds that header on its own.
func (s *Server) csrfOK(r *http.Request) bool {
	if b, ok := bearer(r); ok && s.tokenOK(b) {
		return true
	}
	return hmac.Equal([]byte(r.Header.Get(csrfHeader)), []byte(s.csrf()))
}

func (s *Server) csrfToken(w http.ResponseWriter, r *http.Request) {
	writeJSON(w, map[string]string{"csrf": s.csrf(), "header": csrfHeader})
}

// registerHolds adds the approvals' routes.
func (s *Server) registerHolds(mux *http.ServeMux) {
	mux.HandleFunc("GET /api/csrf", s.csrfToken)
	mux.HandleFunc("GET /approvals", s.page("approvals.html"))
	if s.holds == nil {
		mux.HandleFunc("GET /api/holds/events", s.noHolds)
		mux.HandleFunc("GET /api/holds", s.noHolds)
		return
	}
	mux.HandleFunc("GET /api/holds", func(w http.ResponseWriter, r *http.Request) { writeJSON(w, s.holds.List()) })
	mux.HandleFunc("GET /api/holds/events", s.holdEvents)
	mux.HandleFunc("POST /api/holds/{id}", s.answer)
}

func (s *Server) noHolds(w http.ResponseWriter, r *http.Request) {
	http.Error(w, "this console takes no questions (its socket is not open)", http.StatusNotFound)
}

// holdEvents streams the questions whenever they change.
func (s *Server) holdEvents(w http.ResponseWriter, r *http.Request) {
	send, ok := sse(w)
	if !ok {
		return
	}
	for {
		ch := s.holds.wait()
		b, _ := json.Marshal(s.holds.List())
		if send("holds", string(b)) != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-ch:
		}
	}
}

// answer takes the human's answer from the page. The secret of a secret
// question passes through memory only: never logged, never echoed back.
func (s *Server) answer(w http.ResponseWriter, r *http.Request) {
	var a Answer
	if err := json.NewDecoder(io.LimitReader(r.Body, 64<<10)).Decode(&a); err != nil {
		http.Error(w, `want {"decision": "approve" or "decline"}`, http.StatusBadRequest)
		return
	}
	id := r.PathValue("id")
	err := s.holds.Answer(id, a)
	a = Answer{}
	switch {
	case errors.Is(err, ErrNoQuestion):
		http.Error(w, err.Error(), http.StatusGone)
		return
	case err != nil:
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	s.log.Info("console: the human answered a question", "question", id)
	w.WriteHeader(http.StatusNoContent)
}

// bearer returns the token of an Authorization: Bearer header.
func bearer(r *http.Request) (string, bool) {
	return strings.CutPrefix(r.Header.Get("Authorization"), "Bearer ")
}

// newID is a random 128-bit id, hex.
func newID() string {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}
