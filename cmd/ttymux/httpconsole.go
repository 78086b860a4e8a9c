package main

import (
	"fmt"
	"io"
	"log/slog"
	"net/http"

	"github.com/ttymux/ttymux/internal/console"
)

// The console next to the MCP endpoint: ttymux mcp --http serves the same
// pages as ttymux web, for the server's own sessions, behind the same
// token (traded for a cookie on the first visit).

// newHTTPConsole returns the console for src, reached with token, and
// says where it is on stderr: the URL with the token only when the token
// was just made (it is printed then anyway), else where to find it.
func newHTTPConsole(src console.Source, token, addr, tokenFile string, created bool, stderr io.Writer, log *slog.Logger) *console.Server {
	cs := console.New(console.Options{Source: src, Token: token, Logger: log.With("component", "console")})
	if created {
		fmt.Fprintf(stderr, "ttymux: console: %s\n", cs.URL(addr))
	} else {
		fmt.Fprintf(stderr, "ttymux: console: http://%s/?token=TOKEN (the token in %s)\n", addr, tokenFile)
	}
	return cs
}

// withConsole routes httpPath to the MCP endpoint and every other path to
// the console.
func withConsole(mcpHandler http.Handler, cs http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == httpPath {
			mcpHandler.ServeHTTP(w, r)
			return
		}
		cs.ServeHTTP(w, r)
	})
}
