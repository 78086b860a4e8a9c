package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
)

// bearer adds an Authorization header to every request.
type bearer struct {
	token string
	next  http.RoundTripper
}

func (b bearer) RoundTrip(r *http.Request) (*http.Response, error) {
	r = r.Clone(r.Context())
	r.Header.Set("Authorization", "Bearer "+b.token)
	return b.next.RoundTrip(r)
}

const testToken = "test-token-0123456789abcdef"

// httpTestServer serves one ttymux server over HTTP on loopback.
func httpTestServer(t *testing.T) *httptest.Server {
	t.Helper()
	srv := newServer(newTestManager(t), nil)
	hs := httptest.NewServer(httpHandler(srv, testToken, false, nil))
	t.Cleanup(hs.Close)
	return hs
}

// httpClient connects a go-sdk client to hs with token.
func httpClient(t *testing.T, hs *httptest.Server, token string) (*mcp.ClientSession, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{
		Endpoint:   hs.URL + httpPath,
		HTTPClient: &http.Client{Transport: bearer{token, http.DefaultTransport}},
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-test", Version: "v0"}, nil).Connect(ctx, tr, nil)
	if err == nil {
		t.Cleanup(func() { _ = cs.Close() })
	}
	return cs, err
}

// TestHTTPTwoClients is the done-when of the HTTP transport: two clients at
// once, one waiting on a slow command while the other opens, sends and
// lists; both see the same sessions.
func TestHTTPTwoClients(t *testing.T) {
	hs := httpTestServer(t)
	a, err := httpClient(t, hs, testToken)
	if err != nil {
		t.Fatal(err)
	}
	b, err := httpClient(t, hs, testToken)
	if err != nil {
		t.Fatal(err)
	}
	var first OpenOut
	call(t, a, "open_local", map[string]any{"persistent": false}, &first)
	slow := make(chan session.Result, 1)
	go func() {
		var r session.Result
		res, err := a.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{
			"session_id": first.ID, "text": "sleep 3; echo slow-done"}})
		if err == nil && !res.IsError {
			r.Output = resultText(res)
			r.Complete = strings.Contains(r.Output, "complete")
		}
		slow <- r
	}()
	// Meanwhile the other client works in a session of its own.
	var second OpenOut
	call(t, b, "open_local", map[string]any{"persistent": false}, &second)
	var r session.Result
	call(t, b, "send", map[string]any{"session_id": second.ID, "text": "echo from-b"}, &r)
	if r.Output != "from-b" || !r.Complete {
		t.Fatalf("client b send: %+v", r)
	}
	select {
	case <-slow:
		t.Fatal("the slow command finished before the other client was done: the calls were not concurrent")
	default:
	}
	var list ListOut
	call(t, b, "list", map[string]any{}, &list)
	ids := map[string]bool{}
	for _, i := range list.Sessions {
		ids[i.ID] = true
	}
	if !ids[first.ID] || !ids[second.ID] {
		t.Fatalf("client b lists %v, want %s and %s", ids, first.ID, second.ID)
	}
	select {
	case got := <-slow:
		if !strings.Contains(got.Output, "slow-done") {
			t.Fatalf("slow send: %q", got.Output)
		}
	case <-time.After(60 * time.Second):
		t.Fatal("slow send never returned")
	}
}

// TestHTTPClientGoneMidWait: a client that disconnects while its send
// waits leaves the session and its command running for everyone else.
func TestHTTPClientGoneMidWait(t *testing.T) {
	hs := httpTestServer(t)
	a, err := httpClient(t, hs, testToken)
	if err != nil {
		t.Fatal(err)
	}
	var open OpenOut
	call(t, a, "open_local", map[string]any{"persistent": false}, &open)
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_, _ = a.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{
			"session_id": open.ID, "text": "sleep 1; echo survived-$((6*7))"}})
	}()
	b, err := httpClient(t, hs, testToken)
	if err != nil {
		t.Fatal(err)
	}
	// Wait until the command runs, then cut client a off.
	waitUntil(t, "the sleep to run", 30*time.Second, func() bool {
		var r session.Result
		call(t, b, "read", map[string]any{"session_id": open.ID, "mode": "screen"}, &r)
		return strings.Contains(r.Output, "survived-$((6*7))")
	})
	cancel()
	_ = a.Close()
	var r session.Result
	waitUntil(t, "the command to finish", 30*time.Second, func() bool {
		call(t, b, "read", map[string]any{"session_id": open.ID, "mode": "screen"}, &r)
		return strings.Contains(r.Output, "survived-42")
	})
}

// TestHTTPRefused: no token, a wrong token, and a web page's Origin are
// refused before any MCP handling.
func TestHTTPRefused(t *testing.T) {
	hs := httpTestServer(t)
	if _, err := httpClient(t, hs, "wrong-token-0123456789"); err == nil {
		t.Error("a wrong token connected")
	}
	init := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"curl","version":"0"}}}`
	post := func(hdr map[string]string) int {
		req, _ := http.NewRequest("POST", hs.URL+httpPath, strings.NewReader(init))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		for k, v := range hdr {
			req.Header.Set(k, v)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		return res.StatusCode
	}
	for _, tc := range []struct {
		name string
		hdr  map[string]string
		want int
	}{
		{"no token", nil, http.StatusUnauthorized},
		{"wrong token", map[string]string{"Authorization": "Bearer nope"}, http.StatusUnauthorized},
		{"foreign origin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "https://evil.example"}, http.StatusForbidden},
		{"loopback origin", map[string]string{"Authorization": "Bearer " + testToken, "Origin": "http://localhost:3000"}, http.StatusOK},
		{"token, no origin", map[string]string{"Authorization": "Bearer " + testToken}, http.StatusOK},
	} {
		if got := post(tc.hdr); got != tc.want {
			t.Errorf("%s: HTTP %d, want %d", tc.name, got, tc.want)
		}
	}
}

func TestHTTPListenAddr(t *testing.T) {
	for _, tc := range []struct {
		addr string
		any  bool
		ok   bool
	}{
		{"127.0.0.1:8765", false, true},
		{"[::1]:8765", false, true},
		{"localhost:0", false, true},
		{"0.0.0.0:8765", false, false},
		{":8765", false, false},
		{"192.0.2.1:8765", false, false},
		{"0.0.0.0:8765", true, true},
		{"127.0.0.1", false, false},
	} {
		err := checkListenAddr(tc.addr, tc.any)
		if (err == nil) != tc.ok {
			t.Errorf("checkListenAddr(%q, %v) = %v", tc.addr, tc.any, err)
		}
	}
}

func TestHTTPToken(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "state", "ttymux", "http-token")
	tok, created, err := loadOrCreateToken(path)
	if err != nil || !created || len(tok) < 40 {
		t.Fatalf("first load: %q %v %v", tok, created, err)
	}
	st, err := os.Stat(path)
	if err != nil || st.Mode().Perm() != 0o600 {
		t.Fatalf("token file mode %v (%v), want 0600", st.Mode(), err)
	}
	again, created, err := loadOrCreateToken(path)
	if err != nil || created || again != tok {
		t.Fatalf("second load: %q %v %v, want the same token", again, created, err)
	}
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadOrCreateToken(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable token file: %v", err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(path, link); err != nil {
		t.Fatal(err)
	}
	if _, _, err := loadOrCreateToken(link); err == nil {
		t.Fatal("a token file behind a symlink was used")
	}
}
