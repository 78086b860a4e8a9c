package main

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// consoleRig is a console over a real in-process agent holding one bash.
type consoleRig struct {
	srv    *httptest.Server
	cs     *console.Server
	client *agentc.Client
	id     string
	out    *watcher // the session's output, read by a client of its own
}

func newConsoleRig(t *testing.T) *consoleRig {
	t.Helper()
	sock := humanAgent(t)
	c := &agentc.Client{Socket: sock}
	ctx, cancel := context.WithTimeout(context.Background(), humanWait)
	defer cancel()
	meta := []byte(`{"name":"build","transport":"local","nonce":"0123456789abcdef"}`)
	conn, ks, err := c.Create(ctx, transport.Target{Command: "/bin/bash", Args: []string{"--norc", "--noprofile"}, Env: []string{"PS1=web$ ", "HOME=" + t.TempDir()}}, meta)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { conn.Close() })
	r := &consoleRig{client: c, id: ks.ID, out: watch(conn)}
	r.out.waitFor(t, "the session", "web$ ")
	r.cs = console.New(console.Options{Source: agentSource{c}, Poll: 50 * time.Millisecond})
	r.srv = httptest.NewServer(r.cs)
	t.Cleanup(r.srv.Close)
	t.Cleanup(r.cs.Close)
	return r
}

// browser is an HTTP client that keeps cookies and sends what a page of
// the console sends.
func (r *consoleRig) browser(t *testing.T) *http.Client {
	jar, _ := cookiejar.New(nil)
	return &http.Client{Jar: jar, Timeout: humanWait}
}

func (r *consoleRig) post(t *testing.T, c *http.Client, path, page, body string) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("POST", r.srv.URL+path, strings.NewReader(body))
	req.Header.Set("Origin", r.srv.URL)
	req.Header.Set("X-Ttymux-Page", page)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// TestConsoleAccess: the token buys a cookie once; without it, from another
// Host or from another origin, nothing is served or changed.
func TestConsoleAccess(t *testing.T) {
	r := newConsoleRig(t)
	plain := &http.Client{Timeout: humanWait, CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	for _, path := range []string{"/", "/api/sessions", "/s/" + r.id, "/?token=wrong"} {
		resp, err := plain.Get(r.srv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("GET %s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	resp, err := plain.Get(r.srv.URL + "/?token=" + r.cs.Token())
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || !strings.Contains(resp.Header.Get("Set-Cookie"), "HttpOnly") {
		t.Fatalf("the token's visit: %d Location %q Set-Cookie %q", resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie"))
	}
	b := r.browser(t)
	if resp, err := b.Get(r.srv.URL + "/?token=" + r.cs.Token()); err != nil || resp.StatusCode != 200 {
		t.Fatalf("the console page: %v %v", err, resp)
	}
	// DNS rebinding: a page on evil.example resolved to 127.0.0.1.
	req, _ := http.NewRequest("GET", r.srv.URL+"/api/sessions", nil)
	req.Host = "evil.example:80"
	if resp, err := b.Do(req); err != nil || resp.StatusCode != http.StatusMisdirectedRequest {
		t.Fatalf("a foreign Host: %v %v", err, resp)
	}
	// A form on another site posting to the console.
	req, _ = http.NewRequest("POST", r.srv.URL+"/api/s/"+r.id+"/takeover", nil)
	req.Header.Set("Origin", "http://evil.example")
	req.Header.Set("X-Ttymux-Page", "p")
	if resp, err := b.Do(req); err != nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("a cross-origin takeover: %v %v", err, resp)
	}
}

// TestConsoleWatchAndTakeOver: the list shows the session (and not its
// nonce); the output stream replays and follows it; typing is refused until
// the page takes over, then reaches the shell; a second page cannot type
// while the first drives; giving back makes it read-only again.
func TestConsoleWatchAndTakeOver(t *testing.T) {
	r := newConsoleRig(t)
	b := r.browser(t)
	if resp, err := b.Get(r.srv.URL + "/?token=" + r.cs.Token()); err != nil || resp.StatusCode != 200 {
		t.Fatalf("login: %v %v", err, resp)
	}
	resp, err := b.Get(r.srv.URL + "/api/sessions")
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	var list []console.Session
	if err := json.Unmarshal(raw, &list); err != nil || len(list) != 1 || list[0].ID != r.id || list[0].Name != "build" || list[0].State != "running" {
		t.Fatalf("sessions = %s (%v)", raw, err)
	}
	if strings.Contains(string(raw), "0123456789abcdef") || strings.Contains(string(raw), "nonce") {
		t.Fatalf("the session list leaks the metadata's nonce: %s", raw)
	}

	// The output stream.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "GET", r.srv.URL+"/api/s/"+r.id+"/output", nil)
	sresp, err := b.Do(req)
	if err != nil || sresp.StatusCode != 200 {
		t.Fatalf("output stream: %v %v", err, sresp)
	}
	defer sresp.Body.Close()
	stream := newSSEReader(sresp.Body)

	if got := r.post(t, b, "/api/s/"+r.id+"/input", "page1", "echo nope\r"); got.StatusCode != http.StatusConflict {
		t.Fatalf("typing without taking over: %d, want 409", got.StatusCode)
	}
	if got := r.post(t, b, "/api/s/"+r.id+"/takeover", "page1", ""); got.StatusCode != 200 {
		t.Fatalf("take over: %d", got.StatusCode)
	}
	if got := r.post(t, b, "/api/s/"+r.id+"/takeover", "page2", ""); got.StatusCode != http.StatusConflict {
		t.Fatalf("a second page taking over: %d, want 409", got.StatusCode)
	}
	if got := r.post(t, b, "/api/s/"+r.id+"/input", "page1", "echo typed-$((6*7))\r"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing after taking over: %d", got.StatusCode)
	}
	r.out.waitFor(t, "the session", "typed-42")
	stream.waitFor(t, "the page's stream", "typed-42")
	if got := r.post(t, b, "/api/s/"+r.id+"/resize", "page1", `{"rows":30,"cols":100}`); got.StatusCode != http.StatusNoContent {
		t.Fatalf("resize while driving: %d", got.StatusCode)
	}
	// The agent applies a resize after the request returns: wait for it.
	var driven []console.Session
	if !testwait.Poll(t.Context(), humanWait, func() bool {
		getJSON(t, b, r.srv.URL+"/api/sessions", &driven)
		return len(driven) == 1 && driven[0].Rows == 30 && driven[0].Cols == 100
	}) || !driven[0].Driven {
		t.Fatalf("sessions while driven = %+v", driven)
	}
	if got := r.post(t, b, "/api/s/"+r.id+"/giveback", "page1", ""); got.StatusCode != 200 {
		t.Fatalf("give back: %d", got.StatusCode)
	}
	if got := r.post(t, b, "/api/s/"+r.id+"/input", "page1", "echo again\r"); got.StatusCode != http.StatusConflict {
		t.Fatalf("typing after giving back: %d, want 409", got.StatusCode)
	}
	if got := r.post(t, b, "/api/s/nope/takeover", "page1", ""); got.StatusCode != 200 {
		t.Logf("take over of an unknown session: %d", got.StatusCode)
	}
}

func getJSON(t *testing.T, c *http.Client, url string, v any) {
	t.Helper()
	resp, err := c.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if err := json.NewDecoder(resp.Body).Decode(v); err != nil {
		t.Fatal(err)
	}
}

// sseReader decodes the output stream's base64 data events into a watcher.
type sseReader struct{ *watcher }

func newSSEReader(body io.Reader) sseReader {
	pr, pw := io.Pipe()
	go func() {
		sc := bufio.NewScanner(body)
		sc.Buffer(make([]byte, 1<<20), 1<<20)
		event := ""
		for sc.Scan() {
			line := sc.Text()
			switch {
			case strings.HasPrefix(line, "event: "):
				event = strings.TrimPrefix(line, "event: ")
			case strings.HasPrefix(line, "data: "):
				if event == "" {
					b, _ := base64.StdEncoding.DecodeString(strings.TrimPrefix(line, "data: "))
					pw.Write(b)
				}
			case line == "":
				event = ""
			}
		}
		pw.CloseWithError(sc.Err())
	}()
	return sseReader{watch(pr)}
}

// bytes returns what the watcher has seen so far.
func (w *watcher) bytes() []byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return append([]byte(nil), w.buf...)
}
