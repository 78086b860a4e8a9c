// Command noopmcp is the floor of ttymux's benchmarks: a go-sdk MCP server
// over stdio whose one tool, noop, does nothing. Built as install.sh builds
// ttymux, it is what no MCP server written with go-sdk can beat: its
// start-up to the first tools/list answer, and its tool call.
package main

import (
	"context"
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
	if err := srv.Run(context.Background(), &mcp.StdioTransport{}); err != nil {
		os.Exit(1)
	}
}
