package main

import (
	"context"
	"encoding/json"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// The tests validate every tool result against its output schema, which a
// server skips (checkOutput): a result that does not fit its schema fails
// the test that produced it.
func init() { checkOutput = true }

// TestOutputCheckedInTests: a result that does not fit its tool's output
// schema is an error while checkOutput is set.
func TestOutputCheckedInTests(t *testing.T) {
	type out struct {
		N int `json:"n"`
	}
	srv := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	tool := &mcp.Tool{Name: "probe"}
	addTool(srv, tool, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
		return nil, out{N: 1}, nil
	})
	// The same tool with a schema its results do not fit.
	bad := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	bad.AddTool(&mcp.Tool{Name: "probe", InputSchema: map[string]any{"type": "object"}}, typedHandler(
		func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, out, error) {
			return nil, out{N: 1}, nil
		},
		resolver("probe", []byte(`{"type":"object"}`)),
		resolver("probe", []byte(`{"type":"object","properties":{"n":{"type":"string"}}}`))))
	for _, tc := range []struct {
		srv     *mcp.Server
		wantErr bool
	}{{srv, false}, {bad, true}} {
		cs := connect(t, tc.srv, nil)
		res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe", Arguments: map[string]any{}})
		if got := err != nil || res.IsError; got != tc.wantErr {
			t.Errorf("error %v (%v), want an error: %v", err, res, tc.wantErr)
		}
	}
}

// TestApplySchemaSkipsAbsentDefaults: a schema without defaults is not
// walked for them at every call (jsonschema's ApplyDefaults formats the
// schema before it looks: send's arguments cost 3× the allocations with
// it), and a schema with one still gets it applied.
func TestApplySchemaSkipsAbsentDefaults(t *testing.T) {
	send, err := resolver("send", json.RawMessage(toolSchemaTable["send"].Input))()
	if err != nil {
		t.Fatal(err)
	}
	args := json.RawMessage(`{"session_id":"s1","text":"echo hello","timeout_ms":1000.0}`)
	got, err := applySchema(args, send, false)
	if err != nil {
		t.Fatal(err)
	}
	// Without defaults to apply the arguments come back as they came:
	// decodeInput decodes them (1000.0 into an int by the old path,
	// TestTypedHandlerMatchesAddTool).
	if string(got) != string(args) {
		t.Errorf("send's arguments became %s, want them as they came, %s", got, args)
	}
	allocs := testing.AllocsPerRun(200, func() { _, _ = applySchema(args, send, false) })
	if allocs > 97 {
		t.Errorf("applySchema made %.0f allocations for send's arguments; walking the schema for defaults made 111", allocs)
	}
	withDefault, err := resolver("probe", json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer","default":7}}}`))()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := applySchema(json.RawMessage(`{}`), withDefault, false); err != nil || string(got) != `{"n":7}` {
		t.Errorf("a default was not applied: %s %v", got, err)
	}
}
