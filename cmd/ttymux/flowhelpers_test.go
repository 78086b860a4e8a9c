package main

import (
	"fmt"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// openPlain opens a local shell (for the MCP flow tests) with a plain prompt and extra environment.
func openPlain(t *testing.T, cs *mcp.ClientSession, env map[string]string) string {
	t.Helper()
	e := map[string]string{"PS1": "$ ", "HOME": t.TempDir()}
	for k, v := range env {
		e[k] = v
	}
	var out OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": e}, &out)
	if res.IsError || out.ID == "" {
		t.Fatalf("open_local failed: %s", resultText(res))
	}
	return out.ID
}

func exitText(p *int) string {
	if p == nil {
		return "none"
	}
	return fmt.Sprint(*p)
}

func earlierText(e *session.Earlier) string {
	if e == nil {
		return "none"
	}
	return fmt.Sprintf("{output %q, exit %s, via %q, gap %d}", e.Output, exitText(e.ExitCode), e.Via, e.Gap)
}

// awaitForeground polls the screen until the session's foreground program
// is name (the screen read returns no output the next send would miss).
func awaitForeground(t *testing.T, cs *mcp.ClientSession, id, name string) {
	t.Helper()
	testwait.Until(t, "foreground "+name, 10*time.Second, func() bool {
		var r session.Result
		if res := call(t, cs, "read", map[string]any{"session_id": id, "mode": "screen"}, &r); res.IsError {
			t.Fatalf("read screen: %s", resultText(res))
		}
		return r.Foreground == name
	})
}
