// Package console serves the human's window on ttymux: a page on 127.0.0.1
// listing every session the user's agent holds, and those the user's
// ttymux servers offer over their sockets (offer.go, servers.go), updating
// live, and for each a live terminal (xterm.js, embedded) that opens
// read-only and can be taken over to type, then given back.
//
// Access: a random 128-bit token, given once in the URL the server prints,
// is traded for an HttpOnly, SameSite=Strict cookie on the first visit;
// every other request needs that cookie (or the token as a bearer header).
// The Host header must name a loopback address (DNS rebinding), and a
// request that changes anything must come from the page's own origin.
//
// Its other tabs (holds.go, audittab.go) show the questions ttymux servers
// put to the human over the console's Unix socket — held commands to
// approve or decline, secrets to type — and the audit log's tail. Every
// state-changing request also carries the CSRF token.
//
// What the page shows is what the terminal shows: secrets typed with echo
// off never reach the output, and the agent's redacted ranges come back
// redacted. Session metadata (which holds the session's nonce) never leaves
// the server: only its name, transport and host do.
package console

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/transport"
)

//go:embed static
var static embed.FS

// Stream is a live attachment to one session.
type Stream interface {
	io.ReadWriteCloser
	Resize(ctx context.Context, sz transport.Size) error
}

// Source is where sessions come from: the user's agent (ttymux web), or a
// server's own sessions (ttymux mcp --http). kept.go turns an agent's
// list into rows.
type Source interface {
	// List returns the sessions, oldest first (Driven is the console's
	// to set).
	List(ctx context.Context) ([]Session, error)
	// AttachTail attaches to id, replaying up to tail bytes of recent
	// output first. Writes to the stream are a person's typing.
	AttachTail(ctx context.Context, id string, tail int64) (Stream, Session, error)
}

// Options configure a Server.
type Options struct {
	Source Source
	Logger *slog.Logger
	// Token is the access token; "" makes a random one.
	Token string
	// Poll is how often the session list is refreshed for watching pages
	// (default 1 s).
	Poll time.Duration
	// Holds are the questions servers put to the human (holds.go); nil:
	// none are taken.
	Holds *Holds
	// AuditLog is the audit log whose tail the page shows (audittab.go);
	// "" shows none.
	AuditLog string
}

// Server is the console's http.Handler.
type Server struct {
	src    Source
	log    *slog.Logger
	token  string
	poll   time.Duration
	mux    *http.ServeMux
	cookie string
	holds  *Holds
	audit  string

	mu      sync.Mutex        // protects drivers and streams
	drivers map[string]string // session id -> the page id driving it
	// streams: the attachment the driving page types through, made at
	// take-over and closed at give-back (one attachment, not one per
	// key: the agent's size follows its attached clients).
	streams map[string]Stream
}

// cookieName holds the token in the browser; cookieFor adds the port.
const cookieName = "ttymux_console"

// cookieFor names the cookie for the server r reached: browsers keep
// cookies per host, not per port, and ttymux web and ttymux mcp --http
// may serve consoles on the same host with different tokens.
func cookieFor(r *http.Request) string {
	if _, port, err := net.SplitHostPort(r.Host); err == nil && port != "" {
		return cookieName + "_" + port
	}
	return cookieName
}

// attachTail is how much recent output a terminal page replays to draw
// the screen, as ttymux attach does.
const attachTail = 64 << 10

// New returns a console server.
func New(o Options) *Server {
	s := &Server{src: o.Source, log: o.Logger, token: o.Token, poll: o.Poll, holds: o.Holds, audit: o.AuditLog, drivers: map[string]string{}, streams: map[string]Stream{}}
	if s.log == nil {
		s.log = slog.New(slog.DiscardHandler)
	}
	if s.token == "" {
		var b [16]byte
		rand.Read(b[:])
		s.token = hex.EncodeToString(b[:])
	}
	if s.poll <= 0 {
		s.poll = time.Second
	}
	sub, _ := fs.Sub(static, "static")
	mux := http.NewServeMux()
	mux.Handle("GET /static/", http.StripPrefix("/static/", http.FileServerFS(sub)))
	mux.HandleFunc("GET /{$}", s.page("console.html"))
	mux.HandleFunc("GET /s/{id}", s.page("terminal.html"))
	mux.HandleFunc("GET /api/sessions", s.sessions)
	mux.HandleFunc("GET /api/events", s.events)
	mux.HandleFunc("GET /api/s/{id}/output", s.output)
	mux.HandleFunc("POST /api/s/{id}/takeover", s.takeover)
	mux.HandleFunc("POST /api/s/{id}/giveback", s.giveback)
	mux.HandleFunc("POST /api/s/{id}/input", s.input)
	mux.HandleFunc("POST /api/s/{id}/resize", s.resize)
	s.registerHolds(mux)
	s.registerAudit(mux)
	s.mux = mux
	return s
}

// Token is the access token, for the URL to print.
func (s *Server) Token() string { return s.token }

// URL is the address to open for a server listening on addr.
func (s *Server) URL(addr string) string { return "http://" + addr + "/?token=" + s.token }

// ServeHTTP checks the Host header and the token, then serves.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if !loopbackHost(r.Host) {
		http.Error(w, "the console answers only to a loopback Host (127.0.0.1, localhost, [::1])", http.StatusMisdirectedRequest)
		return
	}
	w.Header().Set("X-Content-Type-Options", "nosniff")
	w.Header().Set("X-Frame-Options", "DENY")
	w.Header().Set("Referrer-Policy", "no-referrer")
	w.Header().Set("Content-Security-Policy", "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; frame-ancestors 'none'")
	if tok := r.URL.Query().Get("token"); tok != "" && r.Method == http.MethodGet && strings.HasPrefix(r.URL.Path, "/") && !strings.HasPrefix(r.URL.Path, "/api/") {
		if !s.tokenOK(tok) {
			http.Error(w, "wrong token: open the URL ttymux web printed", http.StatusUnauthorized)
			return
		}
		// Trade the token for a cookie and drop it from the address bar
		// (and from the history).
		http.SetCookie(w, &http.Cookie{Name: cookieFor(r), Value: s.token, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		u := *r.URL
		q := u.Query()
		q.Del("token")
		u.RawQuery = q.Encode()
		http.Redirect(w, r, u.RequestURI(), http.StatusSeeOther)
		return
	}
	if !s.authorized(r) {
		w.Header().Set("WWW-Authenticate", `Bearer realm="ttymux console"`)
		http.Error(w, "not authorized: open the URL ttymux web printed (it carries the token)", http.StatusUnauthorized)
		return
	}
	if r.Method != http.MethodGet && !sameOrigin(r) {
		http.Error(w, "cross-origin request refused", http.StatusForbidden)
		return
	}
	if r.Method != http.MethodGet && !s.csrfOK(r) {
		http.Error(w, "CSRF token missing or wrong: reload the console's page", http.StatusForbidden)
		return
	}
	s.mux.ServeHTTP(w, r)
}

func (s *Server) tokenOK(t string) bool {
	return subtle.ConstantTimeCompare([]byte(t), []byte(s.token)) == 1
}

func (s *Server) authorized(r *http.Request) bool {
	if c, err := r.Cookie(cookieFor(r)); err == nil && s.tokenOK(c.Value) {
		return true
	}
	if b, ok := strings.CutPrefix(r.Header.Get("Authorization"), "Bearer "); ok && s.tokenOK(b) {
		return true
	}
	return false
}

// sameOrigin: a POST must carry an Origin naming this server (browsers
// send it on every cross-origin and every POST request).
func sameOrigin(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		// Not a browser (curl, a test with the bearer token).
		return r.Header.Get("Authorization") != ""
	}
	return o == "http://"+r.Host
}

// loopbackHost reports whether a Host header names a loopback address.
func loopbackHost(h string) bool {
	host := h
	if hh, _, err := net.SplitHostPort(h); err == nil {
		host = hh
	}
	host = strings.Trim(host, "[]")
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// Session is one row of the console.
type Session struct {
	ID         string `json:"id"`
	Name       string `json:"name,omitempty"`
	Transport  string `json:"transport"`
	Host       string `json:"host,omitempty"`
	Command    string `json:"command"`
	State      string `json:"state"`
	Foreground string `json:"foreground,omitempty"`
	Clients    int    `json:"clients"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	Created    string `json:"created"`
	Driven     bool   `json:"driven,omitempty"` // a person has taken it over
	// LastOutput is when the session last printed (RFC 3339), where the
	// source knows: the page shows the idle time.
	LastOutput string `json:"last_output,omitempty"`
	// Server says who holds the session: the agent, or which ttymux mcp
	// server (and its MCP client), for ttymux web.
	Server string `json:"server,omitempty"`
}

// list returns the source's rows and, when some could not be listed
// (a PartialError), a notice saying what is missing.
func (s *Server) list(ctx context.Context) ([]Session, string, error) {
	out, err := s.src.List(ctx)
	notice := ""
	if pe := (*PartialError)(nil); errors.As(err, &pe) {
		notice, err = pe.Error(), nil
	}
	if err != nil {
		return nil, "", err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	for i := range out {
		out[i].Driven = s.drivers[out[i].ID] != ""
	}
	return out, notice, nil
}

// NoticeHeader carries, on /api/sessions, what the list is missing (the
// agent's sessions when the agent failed to list them); the event stream
// sends it as a "notice" event.
const NoticeHeader = "X-Ttymux-Notice"

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

func (s *Server) sessions(w http.ResponseWriter, r *http.Request) {
	l, notice, err := s.list(r.Context())
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	if notice != "" {
		w.Header().Set(NoticeHeader, notice)
	}
	writeJSON(w, l)
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	json.NewEncoder(w).Encode(v)
}

// sse starts a Server-Sent Events stream.
func sse(w http.ResponseWriter) (func(event, data string) error, bool) {
	fl, ok := w.(http.Flusher)
	if !ok {
		http.Error(w, "streaming unsupported", http.StatusInternalServerError)
		return nil, false
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("X-Accel-Buffering", "no")
	w.WriteHeader(http.StatusOK)
	// A retry field tells EventSource how soon to come back after a drop.
	io.WriteString(w, "retry: 1000\n\n")
	fl.Flush()
	return func(event, data string) error {
		if event != "" {
			if _, err := fmt.Fprintf(w, "event: %s\n", event); err != nil {
				return err
			}
		}
		if _, err := fmt.Fprintf(w, "data: %s\n\n", data); err != nil {
			return err
		}
		fl.Flush()
		return nil
	}, true
}

// events streams the session list whenever it changes.
func (s *Server) events(w http.ResponseWriter, r *http.Request) {
	send, ok := sse(w)
	if !ok {
		return
	}
	var last, lastNotice string
	t := time.NewTicker(s.poll)
	defer t.Stop()
	for {
		l, notice, err := s.list(r.Context())
		var b []byte
		if err != nil {
			b, _ = json.Marshal(map[string]string{"error": err.Error()})
		} else {
			b, _ = json.Marshal(l)
		}
		// The notice goes first, so that the page shows it with the rows.
		if notice != lastNotice {
			lastNotice = notice
			nb, _ := json.Marshal(notice)
			if send("notice", string(nb)) != nil {
				return
			}
		}
		if string(b) != last {
			last = string(b)
			if send("sessions", last) != nil {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

// output streams one session's output (base64 chunks) from a replay of its
// recent tail on.
func (s *Server) output(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
	st, ks, err := s.src.AttachTail(ctx, id, attachTail)
	cancel()
	if err != nil {
		code := http.StatusBadGateway
		if errors.Is(err, transport.ErrNoSession) {
			code = http.StatusNotFound
		}
		http.Error(w, err.Error(), code)
		return
	}
	defer st.Close()
	send, ok := sse(w)
	if !ok {
		return
	}
	info, _ := json.Marshal(map[string]any{"id": ks.ID, "rows": ks.Rows, "cols": ks.Cols, "command": ks.Command})
	if send("info", string(info)) != nil {
		return
	}
	fr := newFrames(st) // frames.go: a flood goes as a few events a second
	defer fr.Close()
	stop := context.AfterFunc(r.Context(), func() { fr.Close() })
	defer stop()
	buf := make([]byte, frameBytes)
	for {
		n, err := fr.Read(buf)
		if n > 0 {
			if send("", base64.StdEncoding.EncodeToString(buf[:n])) != nil {
				return
			}
		}
		var gap *transport.GapError
		if errors.As(err, &gap) {
			send("note", "some output was lost while this page fell behind")
			continue
		}
		if err != nil {
			send("end", "the session ended or the agent went away")
			return
		}
	}
}

// A page drives a session after taking it over; its id (random, per page
// load) comes in the X-Ttymux-Page header.
func pageID(r *http.Request) string { return r.Header.Get("X-Ttymux-Page") }

func (s *Server) takeover(w http.ResponseWriter, r *http.Request) {
	id, p := r.PathValue("id"), pageID(r)
	if p == "" {
		http.Error(w, "X-Ttymux-Page missing", http.StatusBadRequest)
		return
	}
	s.mu.Lock()
	cur := s.drivers[id]
	s.mu.Unlock()
	if cur != "" && cur != p && r.URL.Query().Get("force") != "1" {
		http.Error(w, "another page is driving this session; take it over from there, or force it", http.StatusConflict)
		return
	}
	st := s.stream(id)
	if st == nil {
		ctx, cancel := context.WithTimeout(r.Context(), 5*time.Second)
		var err error
		st, err = drive(ctx, s.src, id) // offer.go
		cancel()
		if err != nil {
			code := http.StatusBadGateway
			if errors.Is(err, transport.ErrNoSession) {
				code = http.StatusNotFound
			}
			http.Error(w, err.Error(), code)
			return
		}
	}
	s.mu.Lock()
	s.drivers[id] = p
	if old := s.streams[id]; old != nil && old != st {
		old.Close()
	}
	s.streams[id] = st
	s.mu.Unlock()
	s.log.Info("console: a person took over a session", "session", id)
	writeJSON(w, map[string]bool{"driving": true})
}

func (s *Server) stream(id string) Stream {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.streams[id]
}

func (s *Server) giveback(w http.ResponseWriter, r *http.Request) {
	id, p := r.PathValue("id"), pageID(r)
	var st Stream
	s.mu.Lock()
	if s.drivers[id] == p {
		delete(s.drivers, id)
		st = s.streams[id]
		delete(s.streams, id)
	}
	s.mu.Unlock()
	if st != nil {
		st.Close()
	}
	s.log.Info("console: a person gave a session back", "session", id)
	writeJSON(w, map[string]bool{"driving": false})
}

// Close ends the attachments of pages that still drive a session.
func (s *Server) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for id, st := range s.streams {
		st.Close()
		delete(s.streams, id)
		delete(s.drivers, id)
	}
}

func (s *Server) driving(id string, r *http.Request) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	p := pageID(r)
	return p != "" && s.drivers[id] == p
}

// maxInput bounds one input request (a paste).
const maxInput = 1 << 20

func (s *Server) input(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.driving(id, r) {
		http.Error(w, "take the session over first: it is read-only while the agent drives it", http.StatusConflict)
		return
	}
	b, err := io.ReadAll(io.LimitReader(r.Body, maxInput+1))
	if err != nil || len(b) > maxInput {
		http.Error(w, "input too large (1 MiB at most)", http.StatusRequestEntityTooLarge)
		return
	}
	if err := s.write(r.Context(), id, func(st Stream) error { _, err := st.Write(b); return err }); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

func (s *Server) resize(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !s.driving(id, r) {
		http.Error(w, "only the page driving a session resizes it", http.StatusConflict)
		return
	}
	var sz struct{ Rows, Cols int }
	if err := json.NewDecoder(io.LimitReader(r.Body, 1024)).Decode(&sz); err != nil {
		http.Error(w, "want {rows, cols}", http.StatusBadRequest)
		return
	}
	size := transport.Size{Rows: sz.Rows, Cols: sz.Cols}
	if !size.Valid() {
		http.Error(w, "invalid size", http.StatusBadRequest)
		return
	}
	resize := func(st Stream) error {
		err := st.Resize(r.Context(), size)
		if errors.Is(err, transport.ErrUnsupported) {
			return nil // a serial port has no window size: nothing to follow
		}
		return err
	}
	if err := s.write(r.Context(), id, resize); err != nil {
		http.Error(w, err.Error(), http.StatusBadGateway)
		return
	}
	w.WriteHeader(http.StatusNoContent)
}

// write runs op on the driving page's attachment to id.
func (s *Server) write(_ context.Context, id string, op func(Stream) error) error {
	st := s.stream(id)
	if st == nil {
		return errors.New("the session is not taken over: take it over first")
	}
	if err := op(st); err != nil {
		s.mu.Lock()
		if s.streams[id] == st {
			delete(s.streams, id)
			delete(s.drivers, id)
		}
		s.mu.Unlock()
		st.Close()
		return fmt.Errorf("the session's attachment failed (%v): take it over again", err)
	}
	return nil
}
