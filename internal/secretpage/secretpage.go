// Package secretpage serves one-time pages on 127.0.0.1 where a human
// types a secret (a password, a passphrase) that must reach a terminal or
// an SSH handshake without passing through the AI model.
//
// Each page has a random 128-bit token in its path, lives 5 minutes and
// takes one answer: a POST of the form field "secret", form-encoded. A
// second use, a wrong token, an expired page or a request whose Host header
// is not a loopback name (a DNS-rebinding page in the human's browser) gets
// 404 and delivers nothing. Responses are never cached.
//
// The secret is handed to the page's Deliver function and to nobody else:
// the package never logs, stores or echoes it. A Server is safe for
// concurrent use; Close stops it and waits for its goroutines.
package secretpage

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"html/template"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
	"unicode/utf8"
)

// TTL is how long a page lives.
const TTL = 5 * time.Minute

// Options configure a Server; the zero value works.
type Options struct {
	TTL time.Duration    // default TTL
	Now func() time.Time // default time.Now
}

// A Server serves the pages. It listens on a random loopback port from the
// first Open until Close.
type Server struct {
	opts Options

	mu     sync.Mutex // mu protects the following
	ln     net.Listener
	srv    *http.Server
	pages  map[string]*Page
	closed bool
	done   chan struct{} // closed when Serve returns
}

// A Page is one question.
type Page struct {
	URL string // http://127.0.0.1:PORT/s/TOKEN
	// Prompt is ttymux's own words: what the secret is for, where it goes.
	Prompt string
	// Asked is the AI's words, if any: shown as the AI's, quoted, with
	// control characters made visible, never as ttymux's.
	Asked string

	s        *Server
	token    string
	deadline time.Time
	deliver  func(secret string) error
	answered chan struct{} // closed once the secret was delivered
	err      error         // the deliver error, set before answered is closed
}

// ErrExpired is returned by Wait when the page expired or was closed
// unanswered.
var ErrExpired = errors.New("the secret page expired unanswered")

// New returns a Server; it listens when the first page opens.
func New(opts Options) *Server {
	if opts.TTL <= 0 {
		opts.TTL = TTL
	}
	if opts.Now == nil {
		opts.Now = time.Now
	}
	return &Server{opts: opts, pages: map[string]*Page{}}
}

func (s *Server) listen() error {
	if s.ln != nil {
		return nil
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return fmt.Errorf("listen for the secret page: %w", err)
	}
	s.ln = ln
	s.srv = &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second, ReadTimeout: 30 * time.Second, WriteTimeout: 30 * time.Second, ErrorLog: nil}
	s.done = make(chan struct{})
	go func() {
		defer close(s.done)
		_ = s.srv.Serve(ln) // ends with Close
	}()
	return nil
}

// Open makes a page that asks prompt. deliver receives the secret when the
// human posts it, on the HTTP request's goroutine; its error is shown to
// the human (without the secret) and returned by Wait.
func (s *Server) Open(prompt string, deliver func(secret string) error) (*Page, error) {
	return s.OpenAsked(prompt, "", deliver)
}

// OpenAsked is Open for a page that also shows asked, the AI's own words
// for what it wants, apart from ttymux's prompt.
func (s *Server) OpenAsked(prompt, asked string, deliver func(secret string) error) (*Page, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return nil, errors.New("secret pages are closed")
	}
	if err := s.listen(); err != nil {
		return nil, err
	}
	s.sweepLocked()
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	tok := hex.EncodeToString(b[:])
	p := &Page{
		URL: "http://" + s.ln.Addr().String() + "/s/" + tok, Prompt: prompt, Asked: Visible(asked),
		s: s, token: tok, deadline: s.opts.Now().Add(s.opts.TTL), deliver: deliver,
		answered: make(chan struct{}),
	}
	s.pages[tok] = p
	return p, nil
}

// sweepLocked forgets expired pages.
func (s *Server) sweepLocked() {
	now := s.opts.Now()
	for k, p := range s.pages {
		if now.After(p.deadline) {
			delete(s.pages, k)
		}
	}
}

// Deadline is when the page expires.
func (p *Page) Deadline() time.Time { return p.deadline }

// Answered is closed once the secret was delivered.
func (p *Page) Answered() <-chan struct{} { return p.answered }

// Wait blocks until the secret was delivered (returning deliver's error),
// the page expires (ErrExpired), or ctx ends (ctx.Err()); an expired page
// is closed.
func (p *Page) Wait(ctx context.Context) error {
	d := p.deadline.Sub(p.s.opts.Now())
	t := time.NewTimer(max(d, 0))
	defer t.Stop()
	select {
	case <-p.answered:
		return p.err
	case <-ctx.Done():
		return ctx.Err()
	case <-t.C:
		p.Close()
		select {
		case <-p.answered:
			return p.err
		default:
		}
		return ErrExpired
	}
}

// Close withdraws the page: it answers 404 from now on.
func (p *Page) Close() {
	p.s.mu.Lock()
	defer p.s.mu.Unlock()
	if p.s.pages[p.token] == p {
		delete(p.s.pages, p.token)
	}
}

// Close stops the server and withdraws every page.
func (s *Server) Close() error {
	s.mu.Lock()
	s.closed = true
	s.pages = map[string]*Page{}
	srv, done := s.srv, s.done
	s.mu.Unlock()
	if srv == nil {
		return nil
	}
	err := srv.Close()
	<-done
	return err
}

// loopbackHost reports whether the Host header names this machine's
// loopback (not a DNS name that a rebinding attack could point here).
func loopbackHost(host string) bool {
	h, _, err := net.SplitHostPort(host)
	if err != nil {
		h = host
	}
	h = strings.TrimSuffix(strings.TrimPrefix(h, "["), "]")
	if strings.EqualFold(h, "localhost") {
		return true
	}
	ip := net.ParseIP(h)
	return ip != nil && ip.IsLoopback()
}

// sameOrigin reports whether a POST comes from the page itself: its Origin
// header, when present, is this server's origin, and its Sec-Fetch-Site,
// when present, says same-origin (or none: typed by the user). A client
// that is not a browser sends neither.
func sameOrigin(r *http.Request) bool {
	if o := r.Header.Get("Origin"); o != "" && o != "http://"+r.Host {
		return false
	}
	switch r.Header.Get("Sec-Fetch-Site") {
	case "", "same-origin", "none":
		return true
	}
	return false
}

// Visible makes control characters (C0, DEL, C1, and the bidirectional
// overrides that reorder what is shown) visible as \xNN or \u{NNNN}, so
// text from the AI cannot hide or disguise itself on a human's page.
func Visible(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			b.WriteString(`\ufffd`)
		case r < 0x20 || r == 0x7f || r >= 0x80 && r < 0xa0:
			fmt.Fprintf(&b, `\x%02x`, r)
		case r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 || r == 0x200e || r == 0x200f:
			fmt.Fprintf(&b, `\u{%04x}`, r)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// maxBody bounds a posted form.
const maxBody = 64 << 10

func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Cache-Control", "no-store, no-cache, must-revalidate, max-age=0")
	h.Set("Pragma", "no-cache")
	h.Set("Expires", "0")
	// same-origin, not no-referrer: with no-referrer a browser sends
	// "Origin: null" on the form's POST, and the Origin check below needs
	// the page's own origin. Nothing on the page leads elsewhere.
	h.Set("Referrer-Policy", "same-origin")
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'")
	tok, ok := strings.CutPrefix(r.URL.Path, "/s/")
	if !ok || !loopbackHost(r.Host) || (r.Method != http.MethodGet && r.Method != http.MethodPost) {
		http.NotFound(w, r)
		return
	}
	if r.Method == http.MethodPost && !sameOrigin(r) {
		// Another site's page posting into this one (a browser always
		// sends Origin on a POST): refused before the one use is spent.
		http.Error(w, "forbidden: the form must be posted from its own page", http.StatusForbidden)
		return
	}
	s.mu.Lock()
	p := s.pages[tok]
	if p != nil && s.opts.Now().After(p.deadline) {
		delete(s.pages, tok)
		p = nil
	}
	if p != nil && r.Method == http.MethodPost {
		delete(s.pages, tok) // one use, taken under the lock: a second POST finds nothing
	}
	s.mu.Unlock()
	if p == nil {
		http.NotFound(w, r)
		return
	}
	h.Set("Content-Type", "text/html; charset=utf-8")
	if r.Method == http.MethodGet {
		_ = formPage().Execute(w, p) // the human's browser went away
		return
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxBody)
	if err := r.ParseForm(); err != nil {
		p.finish(errors.New("the form could not be read"))
		w.WriteHeader(http.StatusBadRequest)
		_ = donePage().Execute(w, "The form could not be read; nothing was typed. Ask for a new page.")
		return
	}
	secret := r.PostForm.Get("secret")
	err := p.deliver(secret)
	p.finish(err)
	msg := "Done: the secret went straight to the terminal. You can close this page."
	if err != nil {
		msg = "It could not be delivered: " + err.Error()
	}
	_ = donePage().Execute(w, msg)
}

func (p *Page) finish(err error) {
	p.err = err
	close(p.answered)
}

// The pages are parsed on first use, not at package init: every ttymux
// process links this package, and a client waits for the server's start
// (issue #37; TestInitIsLazy).
var formPage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("form").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><meta name="referrer" content="same-origin"><title>ttymux: a secret for the terminal</title>
<style>body{font:16px system-ui,sans-serif;max-width:36em;margin:3em auto;padding:0 1em}input{font:inherit;padding:.3em}</style></head>
<body><h1>ttymux</h1><p>{{.Prompt}}</p>
{{if .Asked}}<p>The AI asks, in its own words (not ttymux's: check that they match what you expect):</p><blockquote><q>{{.Asked}}</q></blockquote>{{end}}
<form method="post" autocomplete="off"><input type="password" name="secret" autofocus required aria-label="secret"> <button type="submit">Send</button></form>
<p><small>What you type goes straight into the terminal (followed by Enter) or the SSH login; the AI never sees it. This page works once and for 5 minutes.</small></p></body></html>
`))
})

var donePage = sync.OnceValue(func() *template.Template {
	return template.Must(template.New("done").Parse(`<!doctype html>
<html><head><meta charset="utf-8"><title>ttymux</title></head><body><p>{{.}}</p></body></html>
`))
})
