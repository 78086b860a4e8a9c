package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestNewServerSkipsSchemaDecoding holds the part of start-up that builds
// the tool table to what it needs: go-sdk's AddTool marshalled and decoded
// every tool's schemas two or three times, each decode with a 32 KiB
// buffer of its own (5,098 allocations and 1.96 MB per server). It fails
// when the tools are registered with their full schemas again, or when
// go-sdk marshals the stand-in (schemaInTable).
func TestNewServerSkipsSchemaDecoding(t *testing.T) {
	newServerWith(nil, nil, humanConfig{}, nil) // once: anything built once per process
	allocs := testing.AllocsPerRun(5, func() { newServerWith(nil, nil, humanConfig{}, nil) })
	if allocs > 1000 {
		t.Errorf("newServerWith made %.0f allocations; registering the tool table's schemas with go-sdk made 5,098", allocs)
	}
}

// TestToolsListHasTableSchemas checks what listSchemas gives back: every
// tool in a tools/list answer has its input and output schemas from
// toolschemas_gen.go, as the server sent them before the
// stand-in, and never the stand-in itself.
func TestToolsListHasTableSchemas(t *testing.T) {
	cs := newTestClient(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Tools) != len(toolSchemaTable) {
		t.Fatalf("tools/list has %d tools, the table %d", len(res.Tools), len(toolSchemaTable))
	}
	decode := func(what string, b []byte) any {
		var v any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
	for _, tool := range res.Tools {
		sc, ok := toolSchemaTable[tool.Name]
		if !ok {
			t.Errorf("%s is not in the table", tool.Name)
			continue
		}
		in, _ := json.Marshal(tool.InputSchema)
		out, _ := json.Marshal(tool.OutputSchema)
		if !reflect.DeepEqual(decode(tool.Name, in), decode(tool.Name, []byte(sc.Input))) {
			t.Errorf("%s: input schema\n got: %s\nwant: %s", tool.Name, in, sc.Input)
		}
		if !reflect.DeepEqual(decode(tool.Name, out), decode(tool.Name, []byte(sc.Output))) {
			t.Errorf("%s: output schema\n got: %s\nwant: %s", tool.Name, out, sc.Output)
		}
	}
}

// TestEncodeResultMatches holds lineConn's encoding of a successful
// response, which writes go-sdk's result as it is, to
// jsonrpc.EncodeMessage's, which compacts it again: the same bytes for
// every response it takes, EncodeMessage for the rest.
func TestEncodeResultMatches(t *testing.T) {
	// The result as go-sdk makes it (jsonrpc2 marshalToRaw): an encoder
	// that does not escape HTML, without its newline.
	result := func(v any) json.RawMessage {
		var b bytes.Buffer
		enc := json.NewEncoder(&b)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(v); err != nil {
			t.Fatal(err)
		}
		return bytes.TrimRight(b.Bytes(), "\n")
	}
	id := func(v any) jsonrpc.ID {
		i, err := jsonrpc.MakeID(v)
		if err != nil {
			t.Fatal(err)
		}
		return i
	}
	tools := listedTools()
	for _, tc := range []struct {
		name string
		msg  jsonrpc.Message
		fast bool
	}{
		{"int id", &jsonrpc.Response{ID: id(float64(7)), Result: result(map[string]any{"a": "<b>&\u2028", "n": 1.5})}, true},
		{"string id", &jsonrpc.Response{ID: id("req-1 <&>"), Result: result([]any{"x", nil, true})}, true},
		{"string id to escape", &jsonrpc.Response{ID: id("a\"b\\c\u00e9\n"), Result: result(1)}, false},
		{"tools/list", &jsonrpc.Response{ID: id(float64(2)), Result: result(map[string]any{"tools": tools})}, true},
		{"error", &jsonrpc.Response{ID: id(float64(3)), Error: &jsonrpc.Error{Code: -32602, Message: "bad <params>"}}, false},
		{"no result", &jsonrpc.Response{ID: id(float64(4))}, false},
		{"request", &jsonrpc.Request{ID: id(float64(5)), Method: "ping"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want, err := jsonrpc.EncodeMessage(tc.msg)
			if err != nil {
				t.Fatal(err)
			}
			got, ok := encodeResult(tc.msg)
			if ok != tc.fast {
				t.Fatalf("encodeResult took it: %v, want %v", ok, tc.fast)
			}
			if ok && !bytes.Equal(got, want) {
				t.Errorf("encodeResult:\n%s\nEncodeMessage:\n%s", trim(got), trim(want))
			}
		})
	}
}

func trim(b []byte) string {
	s := string(b)
	if len(s) > 400 {
		s = s[:200] + " … " + s[len(s)-200:]
	}
	return strings.TrimSpace(s)
}

// TestToolsListSmall keeps what every client reads and decodes at the start
// of every session small: output schemas say which fields a result has and
// their types, without descriptions (undescribed), and the schemas are
// stored compact, as they go on the wire. The tools/list answer was 49 KB
// before output schemas lost their descriptions (issue #37); a new tool or
// parameter that needs more than the budget should be weighed against
// that cost, then the budget raised.
func TestToolsListSmall(t *testing.T) {
	const budget = 36 << 10
	for name, sc := range toolSchemaTable {
		var out any
		if err := json.Unmarshal([]byte(sc.Output), &out); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if path := describedAt(out, "outputSchema"); path != "" {
			t.Errorf("%s: a description in the output schema at %s", name, path)
		}
		for what, s := range map[string]string{"input": sc.Input, "output": sc.Output} {
			var b bytes.Buffer
			if err := json.Compact(&b, []byte(s)); err != nil || b.String() != s {
				t.Errorf("%s: the %s schema is not stored compact (go generate ./cmd/ttymux)", name, what)
			}
		}
	}
	cs := newTestClient(t)
	res, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(res)
	if err != nil {
		t.Fatal(err)
	}
	if len(b) > budget {
		t.Errorf("the tools/list answer is %d bytes, over its budget of %d", len(b), budget)
	}
}

// describedAt is the path of the first "description" of a schema in v (a
// decoded JSON schema), or "". A property named description is not one.
func describedAt(v any, path string) string {
	switch v := v.(type) {
	case map[string]any:
		for k, e := range v {
			if k == "description" {
				if _, ok := e.(string); ok {
					return path
				}
			}
			if k == "properties" {
				if props, ok := e.(map[string]any); ok {
					for name, p := range props {
						if at := describedAt(p, path+".properties."+name); at != "" {
							return at
						}
					}
					continue
				}
			}
			if at := describedAt(e, path+"."+k); at != "" {
				return at
			}
		}
	case []any:
		for i, e := range v {
			if at := describedAt(e, fmt.Sprintf("%s[%d]", path, i)); at != "" {
				return at
			}
		}
	}
	return ""
}

// TestToolsListAnswerCached holds the tools/list answer whose tools are
// encoded in advance (cachedList, toolsListTools) to the one go-sdk makes
// from the registered tools: the same bytes (the client speaks the
// 2026-07-28 revision, whose answers carry the server's name in _meta), of
// a server as ttymux mcp builds it; an MCP Apps client gets go-sdk's.
func TestToolsListAnswerCached(t *testing.T) {
	answer := func(cache bool, opts *mcp.ClientOptions, params *mcp.ListToolsParams) (string, bool) {
		saved := listCache
		listCache = cache
		defer func() { listCache = saved }()
		srv := newServer(newTestManager(t), nil)
		var raw []byte
		var cached bool
		srv.AddReceivingMiddleware(func(next mcp.MethodHandler) mcp.MethodHandler {
			return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
				res, err := next(ctx, method, req)
				if method == "tools/list" && err == nil {
					_, cached = res.(*listAnswer)
					var buf bytes.Buffer
					enc := json.NewEncoder(&buf)
					enc.SetEscapeHTML(false) // as jsonrpc2 encodes a result
					if err := enc.Encode(res); err != nil {
						t.Fatal(err)
					}
					raw = bytes.TrimRight(buf.Bytes(), "\n")
				}
				return res, err
			}
		})
		if _, err := connect(t, srv, opts).ListTools(t.Context(), params); err != nil {
			t.Fatal(err)
		}
		return string(raw), cached
	}
	got, cached := answer(true, nil, nil)
	want, _ := answer(false, nil, nil)
	if !cached {
		t.Fatal("a plain tools/list was not answered with toolsListTools")
	}
	if got != want || !strings.HasSuffix(got, `"tools":`+toolsListTools+"}") {
		t.Fatalf("the cached answer differs from go-sdk's (go generate ./cmd/ttymux):\n got: %.300s\nwant: %.300s", got, want)
	}
	app := &mcp.ClientOptions{Capabilities: &mcp.ClientCapabilities{Extensions: map[string]any{uiExtension: map[string]any{}}}}
	for what, c := range map[string]struct {
		opts   *mcp.ClientOptions
		params *mcp.ListToolsParams
	}{
		"an MCP Apps client": {app, nil},
	} {
		if _, cached := answer(true, c.opts, c.params); cached {
			t.Errorf("%s was answered from the cache", what)
		}
	}
}

// TestStartupInitsAreLazy: the package init of the ttymux binary's main
// package builds nothing `ttymux mcp` may never use; a client waits for it
// at the start of every session (issue #37). The built binary is run with
// GODEBUG=inittrace=1, which reports each package init's allocations (a
// count, not a time, so load does not move it). It was 9,936 bytes in 49
// allocations while resultDocs, read only by go generate and tools-doc,
// was built at init.
func TestStartupInitsAreLazy(t *testing.T) {
	cmd := exec.Command(ttymuxBinary(t), "version")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`init main @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace for main in:\n%s", out)
	}
	if n, _ := strconv.Atoi(string(m[1])); n > 6_000 {
		t.Errorf("main's package init allocates %d bytes in %s allocations: build tables on first use", n, m[2])
	}
}
