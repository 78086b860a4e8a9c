package main

import (
	"context"
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
