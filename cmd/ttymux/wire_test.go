package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
)

// rawStdio is the built server driven with raw JSON lines, as a client
// nobody here wrote would drive it.
type rawStdio struct {
	t      *testing.T
	stdin  io.WriteCloser
	lines  chan string
	mu     sync.Mutex
	stderr bytes.Buffer
}

func startRawStdio(t *testing.T) *rawStdio {
	t.Helper()
	cmd := serverCmd(t)
	r := &rawStdio{t: t, lines: make(chan string, 100)}
	cmd.Stderr = lockedWriter{&r.mu, &r.stderr}
	var err error
	if r.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(nil, 16<<20)
		for sc.Scan() {
			r.lines <- sc.Text()
		}
		close(r.lines)
	}()
	t.Cleanup(func() {
		_ = r.stdin.Close()
		ended := make(chan error, 1)
		go func() { ended <- cmd.Wait() }()
		select {
		case <-ended:
		case <-time.After(30 * time.Second):
			_ = cmd.Process.Kill()
			<-ended
		}
		<-done
	})
	r.send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	if got := r.next(); !strings.Contains(got, `"id":1,"result"`) {
		t.Fatalf("initialize: %s", got)
	}
	r.send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	return r
}

type lockedWriter struct {
	mu *sync.Mutex
	w  io.Writer
}

func (l lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

func (r *rawStdio) send(line string) {
	r.t.Helper()
	if _, err := io.WriteString(r.stdin, line+"\n"); err != nil {
		r.t.Fatalf("write %s: %v", line, err)
	}
}

// next is the next line the server writes.
func (r *rawStdio) next() string {
	r.t.Helper()
	select {
	case l, ok := <-r.lines:
		if !ok {
			r.t.Fatalf("the server closed stdout; stderr:\n%s", r.errText())
		}
		return l
	case <-time.After(60 * time.Second):
		r.t.Fatalf("no line from the server in 60 s; stderr:\n%s", r.errText())
	}
	return ""
}

// reply is the next response the server writes; notifications the server
// sends on its own (resources/list_changed after an open) are skipped.
func (r *rawStdio) reply() rpcReply {
	r.t.Helper()
	for {
		line := r.next()
		var probe struct {
			Method string `json:"method"`
		}
		if json.Unmarshal([]byte(line), &probe) == nil && probe.Method != "" {
			continue
		}
		return parseReply(r.t, line)
	}
}

func (r *rawStdio) errText() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.stderr.String()
}

// rpcReply is the part of a response the tests look at.
type rpcReply struct {
	ID     any             `json:"id"`
	Result json.RawMessage `json:"result"`
	Error  *struct {
		Code    int    `json:"code"`
		Message string `json:"message"`
	} `json:"error"`
}

func parseReply(t *testing.T, line string) rpcReply {
	t.Helper()
	var r rpcReply
	if err := json.Unmarshal([]byte(line), &r); err != nil {
		t.Fatalf("not JSON from the server: %q", line)
	}
	return r
}

// TestStdioErrorCodes: every malformed or invalid request gets its JSON-RPC
// error code, and the server answers the next call. On go-sdk's own stdio
// transport one line that is not JSON ended the server ("invalid character
// 'n' looking for beginning of object key string", then "server stopped"),
// and the resource and prompt errors came with code 0.
func TestStdioErrorCodes(t *testing.T) {
	t.Parallel() // waits on builds and processes: overlaps the other parallel tests
	r := startRawStdio(t)
	for _, c := range []struct {
		name, line string
		id         any
		code       int
	}{
		{"not JSON", `{nope`, nil, -32700},
		{"a batch", `[{"jsonrpc":"2.0","id":9,"method":"ping"}]`, nil, -32600},
		{"method not a string", `{"jsonrpc":"2.0","id":"m","method":5}`, "m", -32600},
		{"unknown method", `{"jsonrpc":"2.0","id":2,"method":"no/such"}`, 2.0, -32601},
		{"unknown tool", `{"jsonrpc":"2.0","id":3,"method":"tools/call","params":{"name":"nope","arguments":{}}}`, 3.0, -32602},
		{"arguments not an object", `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"list","arguments":"x"}}`, 4.0, -32602},
		{"subscribe to a non-screen", `{"jsonrpc":"2.0","id":5,"method":"resources/subscribe","params":{"uri":"test://watched-resource"}}`, 5.0, -32602},
		{"prompt without its required argument", `{"jsonrpc":"2.0","id":6,"method":"prompts/get","params":{"name":"homelab_ssh","arguments":{}}}`, 6.0, -32602},
		{"unknown prompt", `{"jsonrpc":"2.0","id":7,"method":"prompts/get","params":{"name":"nope"}}`, 7.0, -32602},
		{"a resource that is not there", `{"jsonrpc":"2.0","id":8,"method":"resources/read","params":{"uri":"ttymux://session/s999/screen"}}`, 8.0, -32602},
	} {
		t.Run(c.name, func(t *testing.T) {
			r.send(c.line)
			got := r.reply()
			if got.Error == nil || got.Error.Code != c.code || got.ID != c.id {
				t.Fatalf("%s: got %+v (error %+v), want id %v code %d", c.line, got, got.Error, c.id, c.code)
			}
			r.send(`{"jsonrpc":"2.0","id":"after","method":"ping"}`)
			if p := r.reply(); p.ID != "after" || p.Error != nil {
				t.Fatalf("ping after %s: %+v", c.name, p)
			}
		})
	}
}

// TestStdioCancelledGetsNoResponse: a call the client cancels gets no
// response (MCP "Cancellation"). go-sdk answered it anyway:
// {"id":43,"result":{…"context canceled"…}}.
func TestStdioCancelledGetsNoResponse(t *testing.T) {
	t.Parallel() // waits on builds and processes: overlaps the other parallel tests
	r := startRawStdio(t)
	r.send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"open_local","arguments":{"persistent":false}}}`)
	var open struct {
		StructuredContent OpenOut `json:"structuredContent"`
	}
	if err := json.Unmarshal(r.reply().Result, &open); err != nil || open.StructuredContent.ID == "" {
		t.Fatalf("open_local: %v %+v", err, open)
	}
	r.send(`{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"send","arguments":{"session_id":"` + open.StructuredContent.ID + `","text":"sleep 30","timeout_ms":60000}}}`)
	r.send(`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":43,"reason":"user pressed escape"}}`)
	// The server logs the response it leaves out: wait for that, then a
	// ping's answer is the next line (a response to 43 would precede it).
	testwait.Until(t, "the cancelled call to end", 60*time.Second, func() bool {
		return strings.Contains(r.errText(), "no response to a cancelled request")
	})
	r.send(`{"jsonrpc":"2.0","id":44,"method":"ping"}`)
	if got := r.reply(); got.ID != 44.0 {
		t.Fatalf("after the cancel the server wrote %+v, want only the ping's answer", got)
	}
}

// rawPost sends one JSON-RPC body to the HTTP endpoint as a client would.
func rawPost(t *testing.T, hs *httptest.Server, session, body string) *http.Response {
	t.Helper()
	return rawPostVersion(t, hs, session, "2025-11-25", body)
}

// rawPostVersion is rawPost with the MCP-Protocol-Version header version.
func rawPostVersion(t *testing.T, hs *httptest.Server, session, version, body string) *http.Response {
	t.Helper()
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, hs.URL+httpPath, strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "Bearer "+testToken)
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	if session != "" {
		req.Header.Set("Mcp-Session-Id", session)
		req.Header.Set("Mcp-Protocol-Version", version)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { res.Body.Close() })
	return res
}

// rawHTTPSession initializes a session with raw requests and returns its id.
func rawHTTPSession(t *testing.T, hs *httptest.Server) string {
	t.Helper()
	res := rawPost(t, hs, "", `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"raw","version":"1"}}}`)
	body, _ := io.ReadAll(res.Body)
	sid := res.Header.Get("Mcp-Session-Id")
	if res.StatusCode != 200 || sid == "" {
		t.Fatalf("initialize: %s %q\n%s", res.Status, sid, body)
	}
	res = rawPost(t, hs, sid, `{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	if res.StatusCode != http.StatusAccepted {
		t.Fatalf("initialized: %s", res.Status)
	}
	return sid
}

// TestHTTPProtocol: what the Streamable HTTP transport specification asks
// of the server, with raw requests. On go-sdk alone a POST without
// Mcp-Session-Id after initialization got 200, a 401 had no
// WWW-Authenticate, and an SSE stream had neither a priming event nor a
// retry field.
func TestHTTPProtocol(t *testing.T) {
	t.Parallel() // waits on builds and processes: overlaps the other parallel tests
	hs := httpTestServer(t)
	sid := rawHTTPSession(t, hs)

	t.Run("no session id", func(t *testing.T) {
		res := rawPost(t, hs, "", `{"jsonrpc":"2.0","id":2,"method":"tools/list"}`)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"code":-32600`) {
			t.Fatalf("tools/list without Mcp-Session-Id: %s %s", res.Status, body)
		}
	})
	t.Run("not JSON", func(t *testing.T) {
		res := rawPost(t, hs, sid, `{nope`)
		body, _ := io.ReadAll(res.Body)
		if res.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"code":-32700`) {
			t.Fatalf("a body that is not JSON: %s %s", res.Status, body)
		}
	})
	t.Run("401 challenge", func(t *testing.T) {
		for _, auth := range []string{"", "Bearer wrong-token-0123456789"} {
			req, _ := http.NewRequest(http.MethodPost, hs.URL+httpPath, strings.NewReader(`{}`))
			if auth != "" {
				req.Header.Set("Authorization", auth)
			}
			res, err := http.DefaultClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			res.Body.Close()
			if res.StatusCode != http.StatusUnauthorized || !strings.HasPrefix(res.Header.Get("WWW-Authenticate"), "Bearer") {
				t.Fatalf("Authorization %q: %s, WWW-Authenticate %q", auth, res.Status, res.Header.Get("WWW-Authenticate"))
			}
		}
	})
	t.Run("priming event with retry", func(t *testing.T) {
		res := rawPost(t, hs, sid, `{"jsonrpc":"2.0","id":3,"method":"tools/list"}`)
		body, _ := io.ReadAll(res.Body)
		first, _, _ := strings.Cut(string(body), "\n\n")
		if !strings.Contains(first, "id: ") || !strings.Contains(first, "retry: ") || !strings.HasSuffix(first, "data: ") {
			t.Fatalf("the stream's first event is %q, want a priming event (id, retry, empty data); whole body:\n%.300s", first, body)
		}
		if !strings.Contains(string(body), `"id":3,"result"`) {
			t.Fatalf("no tools/list result in %.300s", body)
		}
	})
	t.Run("priming event with an older header", func(t *testing.T) {
		// The conformance suite's SSE checks send 2025-03-26 in a
		// 2025-11-25 session; the SDK judged by the header and sent no
		// priming event.
		res := rawPostVersion(t, hs, sid, "2025-03-26", `{"jsonrpc":"2.0","id":31,"method":"tools/list"}`)
		body, _ := io.ReadAll(res.Body)
		if first, _, _ := strings.Cut(string(body), "\n\n"); !strings.Contains(first, "retry: ") || !strings.HasSuffix(first, "data: ") {
			t.Fatalf("the stream's first event is %q, want a priming event", first)
		}
	})
	t.Run("cancelled", func(t *testing.T) {
		res := rawPost(t, hs, sid, `{"jsonrpc":"2.0","id":4,"method":"tools/call","params":{"name":"open_local","arguments":{"persistent":false}}}`)
		body, _ := io.ReadAll(res.Body)
		id := between(string(body), `"session_id":"`, `"`)
		if id == "" {
			t.Fatalf("open_local: %s", body)
		}
		call := rawPost(t, hs, sid, `{"jsonrpc":"2.0","id":43,"method":"tools/call","params":{"name":"send","arguments":{"session_id":"`+id+`","text":"sleep 30","timeout_ms":60000}}}`)
		// The stream is open once its priming event is in.
		br := bufio.NewReader(call.Body)
		if line, err := br.ReadString('\n'); err != nil || !strings.HasPrefix(line, "event: prime") && !strings.HasPrefix(line, "id: ") {
			t.Fatalf("send's stream began %q, %v", line, err)
		}
		c := rawPost(t, hs, sid, `{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":43}}`)
		if c.StatusCode != http.StatusAccepted {
			t.Fatalf("notifications/cancelled: %s", c.Status)
		}
		rest, err := io.ReadAll(br) // ends when the server closes the stream
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(rest), `"id":43`) {
			t.Fatalf("a cancelled call was answered: %s", rest)
		}
	})
}

// between is the text of s between the first a and the next b.
func between(s, a, b string) string {
	_, rest, ok := strings.Cut(s, a)
	if !ok {
		return ""
	}
	v, _, _ := strings.Cut(rest, b)
	return v
}
