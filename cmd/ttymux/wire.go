package main

// The thin layer between go-sdk v1.8.0 and the wire, on both transports.
// Each piece fixes one place where the SDK's behaviour and JSON-RPC 2.0 or
// the MCP specification part ways; docs/clients.md ("What the SDK gets
// wrong, and our layer") lists them:
//
//   - stdio: a line that is not JSON ended the whole server (the SDK's
//     json.Decoder stops at the first syntax error). lineTransport answers
//     it with -32700 and reads on; a valid JSON value that is not a
//     message gets -32600.
//   - both: a request the client cancelled (notifications/cancelled) was
//     answered anyway. The SDK always writes the handler's result
//     (jsonrpc2 processResult); cancels drops that response on its way out.
//   - HTTP: a POST without Mcp-Session-Id that is not an initialize got a
//     fresh session and 200; a 401 had no WWW-Authenticate; the SSE
//     priming event came only with an event store and never with retry.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strconv"
	"strings"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// cancels tracks the incoming calls in flight and which of them the client
// has cancelled, so that no response goes out for a cancelled call (MCP
// "Cancellation": the receiver "SHOULD NOT send a response for the
// cancelled request"). Keys are a connection or session id plus the
// request id; a cancel for a call not in flight (already answered, or
// unknown) is ignored, as the specification asks.
type cancels struct {
	mu       sync.Mutex
	inFlight map[cancelKey]bool // value: cancelled
}

type cancelKey struct {
	conn string
	id   jsonrpc.ID
}

// begin records a call as in flight.
func (c *cancels) begin(conn string, id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.inFlight == nil {
		c.inFlight = map[cancelKey]bool{}
	}
	c.inFlight[cancelKey{conn, id}] = false
}

// cancel marks an in-flight call as cancelled.
func (c *cancels) cancel(conn string, id jsonrpc.ID) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cancelKey{conn, id}
	if _, ok := c.inFlight[k]; ok {
		c.inFlight[k] = true
	}
}

// end forgets a call and reports whether it was cancelled, so that its
// response must not be sent.
func (c *cancels) end(conn string, id jsonrpc.ID) (cancelled bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := cancelKey{conn, id}
	cancelled = c.inFlight[k]
	delete(c.inFlight, k)
	return cancelled
}

// observe notes what an incoming message means for cancellation: a call
// begins, or notifications/cancelled names one.
func (c *cancels) observe(conn string, msg jsonrpc.Message) {
	req, ok := msg.(*jsonrpc.Request)
	if !ok {
		return
	}
	if req.IsCall() {
		c.begin(conn, req.ID)
		return
	}
	if req.Method != "notifications/cancelled" {
		return
	}
	if id, ok := cancelledID(req.Params); ok {
		c.cancel(conn, id)
	}
}

// cancelledID is the requestId of notifications/cancelled params.
func cancelledID(params json.RawMessage) (jsonrpc.ID, bool) {
	var p struct {
		RequestID any `json:"requestId"`
	}
	if json.Unmarshal(params, &p) != nil || p.RequestID == nil {
		return jsonrpc.ID{}, false
	}
	id, err := jsonrpc.MakeID(p.RequestID)
	return id, err == nil && id.IsValid()
}

// rpcError is a JSON-RPC error response. The zero ID is written as
// "id": null, which JSON-RPC 2.0 (section 5) requires when the request's
// id could not be read; the SDK's encoder would leave the member out.
func rpcError(id jsonrpc.ID, code int64, msg string) []byte {
	b, _ := json.Marshal(struct {
		JSONRPC string `json:"jsonrpc"`
		ID      any    `json:"id"`
		Error   struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}{JSONRPC: "2.0", ID: id.Raw(), Error: struct {
		Code    int64  `json:"code"`
		Message string `json:"message"`
	}{code, msg}})
	return b
}

// decodeLine turns one line of input into a message, or into the error
// response it deserves: -32700 for text that is not JSON, -32600 for JSON
// that is not a single JSON-RPC message (batches were removed from MCP in
// 2025-06-18; a batch is refused rather than half handled).
func decodeLine(line []byte) (jsonrpc.Message, []byte) {
	if !json.Valid(line) {
		return nil, rpcError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the line is not valid JSON; send one JSON-RPC message per line")
	}
	if line[0] != '{' {
		return nil, rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, "invalid request: send one JSON-RPC message object per line (batches are not supported)")
	}
	if req := decodeRequest(line); req != nil {
		return req, nil
	}
	msg, err := jsonrpc.DecodeMessage(line)
	if err != nil {
		var probe struct {
			ID any `json:"id"`
		}
		_ = json.Unmarshal(line, &probe) // valid JSON: only the id's type can fail
		id, _ := jsonrpc.MakeID(probe.ID)
		return nil, rpcError(id, jsonrpc.CodeInvalidRequest, "invalid request: "+err.Error())
	}
	return msg, nil
}

// lineTransport is the stdio transport: newline-delimited JSON-RPC on in
// and out, like mcp.StdioTransport, but a bad line gets an error response
// and the server keeps serving, and a cancelled call gets no response.
type lineTransport struct {
	in      io.Reader
	out     io.Writer
	maxLine int // longest line accepted, in bytes
	log     *slog.Logger
}

// Connect implements mcp.Transport.
func (t *lineTransport) Connect(context.Context) (mcp.Connection, error) {
	c := &lineConn{
		out:      t.out,
		incoming: make(chan jsonrpc.Message),
		closed:   make(chan struct{}),
		readDone: make(chan struct{}),
		log:      t.log,
	}
	go c.readLoop(t.in, t.maxLine)
	return c, nil
}

type lineConn struct {
	out      io.Writer
	writeMu  sync.Mutex // one message per write, whole
	incoming chan jsonrpc.Message
	closed   chan struct{} // Close was called
	readDone chan struct{} // readLoop has ended; readErr says why
	readErr  error
	once     sync.Once
	cancels  cancels
	log      *slog.Logger
}

// readLoop reads lines until in ends. It is the only reader of in; like
// the SDK's, it may stay blocked in a read of stdin after Close, which
// only the process exit ends.
func (c *lineConn) readLoop(in io.Reader, maxLine int) {
	defer close(c.readDone)
	br := bufio.NewReaderSize(in, 64<<10)
	for {
		line, tooLong, err := readLine(br, maxLine)
		if tooLong {
			c.writeRaw(rpcError(jsonrpc.ID{}, jsonrpc.CodeInvalidRequest, fmt.Sprintf("invalid request: a message longer than %d bytes was skipped", maxLine)))
		} else if line = bytes.TrimSpace(line); len(line) > 0 {
			msg, errResp := decodeLine(line)
			if errResp != nil {
				if c.log != nil {
					c.log.Warn("bad JSON-RPC input", "bytes", len(line))
				}
				c.writeRaw(errResp)
			} else {
				c.cancels.observe("", msg)
				select {
				case c.incoming <- msg:
				case <-c.closed:
					return
				}
			}
		}
		if err != nil {
			c.readErr = err
			return
		}
	}
}

// readLine reads one line (without its newline) of at most max bytes; a
// longer line is read to its end and dropped (tooLong).
func readLine(br *bufio.Reader, max int) (line []byte, tooLong bool, err error) {
	for {
		chunk, err := br.ReadSlice('\n')
		if !tooLong {
			if len(line)+len(chunk) > max+1 { // +1: the newline
				tooLong, line = true, nil
			} else {
				line = append(line, chunk...)
			}
		}
		if errors.Is(err, bufio.ErrBufferFull) {
			continue
		}
		return bytes.TrimSuffix(line, []byte("\n")), tooLong, err
	}
}

// Read implements mcp.Connection.
func (c *lineConn) Read(ctx context.Context) (jsonrpc.Message, error) {
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case m := <-c.incoming:
		return m, nil
	case <-c.readDone:
		select {
		case m := <-c.incoming: // delivered before the end
			return m, nil
		default:
		}
		return nil, c.readErr
	case <-c.closed:
		return nil, io.EOF
	}
}

// Write implements mcp.Connection. A response to a call the client
// cancelled is dropped.
func (c *lineConn) Write(ctx context.Context, msg jsonrpc.Message) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if r, ok := msg.(*jsonrpc.Response); ok && c.cancels.end("", r.ID) {
		if c.log != nil {
			c.log.Debug("no response to a cancelled request", "id", r.ID.Raw())
		}
		return nil
	}
	b, ok := encodeResult(msg)
	if !ok {
		var err error
		if b, err = jsonrpc.EncodeMessage(msg); err != nil {
			return err
		}
	}
	return c.writeRaw(b)
}

// encodeResult encodes a successful response the way jsonrpc.EncodeMessage
// does, without compacting its result a second time: go-sdk makes the
// Result of every response it sends with the encoder EncodeMessage uses
// (jsonrpc2 NewResponse: compact, HTML not escaped), and EncodeMessage
// runs that JSON through the encoder's compaction once more (a 49 KB
// tools/list answer at every start, and every tool result).
// TestEncodeResultMatches holds the two to the same bytes. ok is false for
// any other message, which EncodeMessage encodes.
func encodeResult(msg jsonrpc.Message) (b []byte, ok bool) {
	r, isResp := msg.(*jsonrpc.Response)
	if !isResp || r.Error != nil || len(r.Result) == 0 {
		return nil, false
	}
	b = make([]byte, 0, len(r.Result)+48)
	b = append(b, `{"jsonrpc":"2.0","id":`...)
	switch id := r.ID.Raw().(type) {
	case int64:
		b = strconv.AppendInt(b, id, 10)
	case string:
		if !isPlainID(id) {
			return nil, false
		}
		b = append(append(append(b, '"'), id...), '"')
	default:
		return nil, false
	}
	b = append(b, `,"result":`...)
	b = append(b, r.Result...)
	return append(b, '}'), true
}

// isPlainID reports whether the string id encodes as itself in quotes:
// printable ASCII without a quote or backslash.
func isPlainID(id string) bool {
	for i := 0; i < len(id); i++ {
		if c := id[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

func (c *lineConn) writeRaw(b []byte) error {
	c.writeMu.Lock()
	defer c.writeMu.Unlock()
	_, err := c.out.Write(append(b, '\n'))
	return err
}

// Close implements mcp.Connection.
func (c *lineConn) Close() error {
	c.once.Do(func() { close(c.closed) })
	return nil
}

// SessionID implements mcp.Connection.
func (c *lineConn) SessionID() string { return "" }

// sseRetry is the reconnection delay the priming event of each SSE stream
// announces (SEP-1699), in milliseconds.
const sseRetry = "2000"

// rpcGuard is the HTTP half of the layer, in front of the SDK's
// StreamableHTTPHandler (after the token check):
//   - a POST without Mcp-Session-Id whose messages are not an initialize is
//     refused with 400 (the transport specification: "Servers that require
//     a session ID SHOULD respond to requests without an Mcp-Session-Id
//     header (other than initialization) with HTTP 400"), unless it speaks
//     the sessionless 2026-07-28 revision, which the SDK answers itself;
//   - a body that is not JSON gets 400 with -32700;
//   - the response to a call the client cancelled is not sent;
//   - the priming event of an SSE stream gets a retry field;
//   - a request whose MCP-Protocol-Version header names an older revision
//     than its session negotiated is served as the session's revision. The
//     SDK picks SSE features (the priming event, SEP-1699, from
//     2025-11-25) by the header alone, so such a request got none
//     (the conformance suite's SSE checks send 2025-03-26 in a 2025-11-25
//     session).
func rpcGuard(next http.Handler, g *httpGuard) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sid := r.Header.Get("Mcp-Session-Id")
		if sid != "" {
			g.raiseVersion(r, sid)
		}
		if r.Method == http.MethodDelete && sid != "" {
			defer g.forget(sid)
		}
		if r.Method != http.MethodPost {
			next.ServeHTTP(&sseWriter{ResponseWriter: w}, r)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, mcp.DefaultMaxRequestBodyBytes+1))
		_ = r.Body.Close() // read whole or refused below
		if err != nil {
			http.Error(w, "reading the request: "+err.Error(), http.StatusBadRequest)
			return
		}
		if len(body) > mcp.DefaultMaxRequestBodyBytes {
			http.Error(w, fmt.Sprintf("request body exceeds %d bytes", mcp.DefaultMaxRequestBodyBytes), http.StatusRequestEntityTooLarge)
			return
		}
		r.Body = io.NopCloser(bytes.NewReader(body))
		trimmed := bytes.TrimSpace(body)
		if !json.Valid(trimmed) {
			writeRPCError(w, http.StatusBadRequest, rpcError(jsonrpc.ID{}, jsonrpc.CodeParseError, "parse error: the body is not valid JSON"))
			return
		}
		msgs := decodeBody(trimmed)
		if sid == "" && needsSession(r, msgs) {
			writeRPCError(w, http.StatusBadRequest, rpcError(firstCallID(msgs), jsonrpc.CodeInvalidRequest,
				"Bad Request: no Mcp-Session-Id header; send initialize first and pass the Mcp-Session-Id it returns on every later request"))
			return
		}
		var calls []jsonrpc.ID
		sw := &sseWriter{ResponseWriter: w}
		for _, m := range msgs {
			if sid != "" {
				g.cancels.observe(sid, m)
			}
			if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
				calls = append(calls, req.ID)
				if req.Method == "initialize" && sid == "" {
					sw.initID, sw.negotiated = req.ID, g.negotiated
				}
			}
		}
		if sid != "" && len(calls) > 0 {
			sw.drop = func(id jsonrpc.ID) bool { return g.cancels.end(sid, id) }
			defer func() {
				for _, id := range calls {
					g.cancels.end(sid, id) // answered or abandoned: forget it
				}
			}()
		}
		next.ServeHTTP(sw, r)
	})
}

// httpGuard is rpcGuard's state: calls in flight, and the revision each
// session negotiated.
type httpGuard struct {
	cancels  cancels
	mu       sync.Mutex
	versions map[string]string // session id → negotiated protocol revision
}

// negotiated records the revision a session's initialize answered.
func (g *httpGuard) negotiated(sid, version string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.versions == nil {
		g.versions = map[string]string{}
	}
	g.versions[sid] = version
}

func (g *httpGuard) forget(sid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	delete(g.versions, sid)
}

// raiseVersion sets an MCP-Protocol-Version header older than the
// session's revision to the session's. (Revisions are dates: they compare
// as strings.)
func (g *httpGuard) raiseVersion(r *http.Request, sid string) {
	g.mu.Lock()
	v := g.versions[sid]
	g.mu.Unlock()
	if h := r.Header.Get("Mcp-Protocol-Version"); v != "" && h != "" && h < v {
		r.Header.Set("Mcp-Protocol-Version", v)
	}
}

// decodeBody decodes a POST body: one message or, from old clients, a
// batch. What does not decode is left to the SDK to refuse.
func decodeBody(body []byte) []jsonrpc.Message {
	var raws []json.RawMessage
	if body[0] == '[' {
		if json.Unmarshal(body, &raws) != nil {
			return nil
		}
	} else {
		raws = []json.RawMessage{body}
	}
	var msgs []jsonrpc.Message
	for _, raw := range raws {
		if m, err := jsonrpc.DecodeMessage(raw); err == nil {
			msgs = append(msgs, m)
		}
	}
	return msgs
}

// needsSession reports whether a POST without a session id must be
// refused: it carries requests, none is initialize, and it does not speak
// the sessionless revision (MCP-Protocol-Version 2026-07-28 or later, or
// the per-request protocolVersion in _meta), which the SDK handles.
func needsSession(r *http.Request, msgs []jsonrpc.Message) bool {
	if v := r.Header.Get("Mcp-Protocol-Version"); v >= "2026-07-28" {
		return false
	}
	any := false
	for _, m := range msgs {
		req, ok := m.(*jsonrpc.Request)
		if !ok {
			continue
		}
		if req.Method == "initialize" || bytes.Contains(req.Params, []byte(`"io.modelcontextprotocol/protocolVersion"`)) {
			return false
		}
		any = true
	}
	return any
}

func firstCallID(msgs []jsonrpc.Message) jsonrpc.ID {
	for _, m := range msgs {
		if req, ok := m.(*jsonrpc.Request); ok && req.IsCall() {
			return req.ID
		}
	}
	return jsonrpc.ID{}
}

func writeRPCError(w http.ResponseWriter, status int, body []byte) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client may be gone
}

// sseWriter is the ResponseWriter the SDK writes through. The SDK writes
// each SSE event, and an application/json body, in one Write; sseWriter
// adds a retry field to the priming event (an event with an id and empty
// data) and, when drop says so, leaves out a response to a cancelled call.
type sseWriter struct {
	http.ResponseWriter
	drop   func(jsonrpc.ID) bool
	primed bool
	// initID is the initialize request this response answers, if any;
	// negotiated gets the session id and revision of its result.
	initID     jsonrpc.ID
	negotiated func(sid, version string)
}

func (s *sseWriter) Write(p []byte) (int, error) {
	ct := s.Header().Get("Content-Type")
	if s.initID.IsValid() {
		s.noteInitialize(p, ct)
	}
	switch {
	case strings.HasPrefix(ct, "text/event-stream"):
		if !s.primed {
			s.primed = true
			if q, ok := addRetry(p); ok {
				if _, err := s.ResponseWriter.Write(q); err != nil {
					return 0, err
				}
				return len(p), nil
			}
		}
		if s.drop != nil && s.dropped(sseData(p)) {
			return len(p), nil
		}
	case strings.HasPrefix(ct, "application/json"):
		if s.drop != nil && s.dropped(p) {
			return len(p), nil
		}
	}
	return s.ResponseWriter.Write(p)
}

// noteInitialize records the revision the initialize result names.
func (s *sseWriter) noteInitialize(p []byte, ct string) {
	data := p
	if strings.HasPrefix(ct, "text/event-stream") {
		data = sseData(p)
	}
	sid := s.Header().Get("Mcp-Session-Id")
	if sid == "" || !bytes.Contains(data, []byte(`"protocolVersion"`)) {
		return
	}
	m, err := jsonrpc.DecodeMessage(data)
	if r, ok := m.(*jsonrpc.Response); err == nil && ok && r.ID == s.initID && r.Error == nil {
		var res struct {
			ProtocolVersion string `json:"protocolVersion"`
		}
		if json.Unmarshal(r.Result, &res) == nil && res.ProtocolVersion != "" {
			s.negotiated(sid, res.ProtocolVersion)
			s.initID = jsonrpc.ID{}
		}
	}
}

// dropped reports whether data is a response to a cancelled call.
func (s *sseWriter) dropped(data []byte) bool {
	if len(data) == 0 || !bytes.Contains(data, []byte(`"id"`)) {
		return false
	}
	m, err := jsonrpc.DecodeMessage(data)
	if err != nil {
		return false
	}
	r, ok := m.(*jsonrpc.Response)
	return ok && s.drop(r.ID)
}

// Unwrap lets http.ResponseController reach Flush.
func (s *sseWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// sseData is the data of one SSE event.
func sseData(ev []byte) []byte {
	for _, line := range bytes.Split(ev, []byte("\n")) {
		if d, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
			return d
		}
	}
	return nil
}

// addRetry puts a retry field into a priming event: one with an id and
// empty data ("event: prime\nid: X\ndata: \n\n" from the SDK).
func addRetry(ev []byte) ([]byte, bool) {
	if !bytes.HasSuffix(ev, []byte("data: \n\n")) || !bytes.Contains(ev, []byte("\nid: ")) && !bytes.HasPrefix(ev, []byte("id: ")) {
		return nil, false
	}
	if bytes.Contains(ev, []byte("\nretry: ")) {
		return nil, false
	}
	i := len(ev) - len("data: \n\n")
	out := make([]byte, 0, len(ev)+16)
	out = append(out, ev[:i]...)
	out = append(out, "retry: "+sseRetry+"\n"...)
	return append(out, ev[i:]...), true
}

// invalidParams is a JSON-RPC -32602 error: the SDK sends a plain Go error
// from a resource or prompt handler with code 0, which no client can tell
// from a server fault.
func invalidParams(format string, args ...any) error {
	return &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: fmt.Sprintf(format, args...)}
}

// checkToolParams is receiving middleware: a tools/call whose arguments
// are not a JSON object is a -32602 protocol error, as an unknown tool is.
// The SDK reports it as a tool result ("unmarshaling arguments"). Arguments
// that are an object but break the tool's schema stay tool results with
// isError, which the model reads and corrects (MCP 2025-11-25, "Error
// Handling": input validation errors are tool execution errors).
func checkToolParams(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method == "tools/call" {
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				a := bytes.TrimSpace(p.Arguments)
				if len(a) > 0 && !bytes.Equal(a, []byte("null")) && a[0] != '{' {
					return nil, invalidParams("tools/call: arguments must be a JSON object of the tool's parameters, e.g. {\"session_id\": \"s1\"}")
				}
			}
		}
		return next(ctx, method, req)
	}
}
