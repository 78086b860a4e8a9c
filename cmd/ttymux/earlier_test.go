package main

import (
	"testing"
)

// TestSendTypedAheadThroughMCP is issue #13's first flow as an MCP client
// sees it: a send times out, the next send types ahead, and its result is
// its own (B, exit 0) with the earlier command's rest and exit code in
// earlier (A-DONE, exit 4). Before, the second result was A-DONE, exit 4.
func TestSendTypedAheadThroughMCP(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "sleep 2; echo A-DONE; (exit 4)", "timeout_ms": 500})
	if r.Complete {
		t.Fatalf("first send complete early: %+v", r)
	}
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo B"})
	if !r.Complete || r.Output != "B" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("second send: complete=%v output=%q exit=%v note=%q", r.Complete, r.Output, r.ExitCode, r.Note)
	}
	if e := r.Earlier; e == nil || e.Output != "A-DONE" || e.ExitCode == nil || *e.ExitCode != 4 || e.Via != "exit-code" {
		t.Fatalf("earlier = %+v, want A-DONE, exit 4 via exit-code", e)
	}
}
