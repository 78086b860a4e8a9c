// Command noopmcp is the floor of ttymux's benchmarks: a go-sdk MCP server
// over stdio whose one tool, noop, does nothing. Built as install.sh builds
// ttymux, it is what no MCP server written with go-sdk can beat: its
// start-up to the first tools/list answer, and its tool call.
//
// With NOOPMCP_TOOLS=FILE (a JSON array of tools as tools/list sends them)
// it lists those tools besides its own, read at start: the floor of a
// server whose tools/list answer is as large as the one in FILE, which a
// client also pays to read (BenchmarkStartupVsNoop's same-list floor).
package main

import (
	"context"
	"encoding/json"
	"os"

	"github.com/modelcontextprotocol/go-sdk/mcp"
)

func main() {
	srv := mcp.NewServer(&mcp.Implementation{Name: "noop", Version: "0"}, nil)
	type in struct {
		Text string `json:"text,omitempty"`
	}
	type out struct {
		OK bool `json:"ok"`
	}
	mcp.AddTool(srv, &mcp.Tool{Name: "noop", Description: "does nothing"}, func(context.Context, *mcp.CallToolRequest, in) (*mcp.CallToolResult, out, error) {
		return nil, out{OK: true}, nil
	})
	if f := os.Getenv("NOOPMCP_TOOLS"); f != "" {
		tools, err := readTools(f)
		if err != nil {
			os.Exit(2)
		}
		srv.AddReceivingMiddleware(listAlso(tools))
	}
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}

// rawTool is a tool whose schemas are kept as they were read.
type rawTool struct {
	mcp.Tool
	InputSchema  json.RawMessage `json:"inputSchema"`
	OutputSchema json.RawMessage `json:"outputSchema,omitempty"`
}

func readTools(file string) ([]*mcp.Tool, error) {
	b, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	var raw []rawTool
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	tools := make([]*mcp.Tool, len(raw))
	for i := range raw {
		t := raw[i].Tool
		t.InputSchema = raw[i].InputSchema
		if len(raw[i].OutputSchema) > 0 {
			t.OutputSchema = raw[i].OutputSchema
		}
		tools[i] = &t
	}
	return tools, nil
}

// listAlso adds tools to every tools/list answer.
func listAlso(tools []*mcp.Tool) mcp.Middleware {
	return func(next mcp.MethodHandler) mcp.MethodHandler {
		return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListToolsResult); ok && err == nil && method == "tools/list" {
				lr.Tools = append(lr.Tools, tools...)
			}
			return res, err
		}
	}
}
