package main

import (
	"encoding/json"
	"testing"

	"github.com/ttymux/ttymux/session"
)

// TestModelBill pins what the model pays for a plain command: Claude Code
// hands it JSON.stringify(structuredContent) on every call, so `echo
// hello` costs at most 80 bytes (DESIGN.md, Targets), with the exit code;
// detail: true brings back the positions, the timing and the mode, and a
// folded result keeps the lines its fold marker points into.
func TestModelBill(t *testing.T) {
	cs := newTestClient(t)
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"persistent": false}, &open)
	res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo hello"}, nil)
	b, err := json.Marshal(res.StructuredContent)
	if err != nil {
		t.Fatal(err)
	}
	var r session.Result
	if err := json.Unmarshal(b, &r); err != nil {
		t.Fatal(err)
	}
	if len(b) > 80 || r.Output != "hello" || !r.Complete || r.ExitCode == nil || *r.ExitCode != 0 || r.Via != "exit-code" {
		t.Fatalf("echo hello costs %d bytes (at most 80): %s", len(b), b)
	}

	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo again", "detail": true}, &r)
	if r.SessionID != open.ID || r.NextOffset <= r.Offset || r.FirstLine == 0 || r.Mode != "new" {
		t.Fatalf("detail: true lacks positions: %+v", r)
	}

	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "seq 1 5000"}, &r)
	if r.Reduction == nil || r.Reduction.Elided == 0 || r.FirstLine == 0 || r.LastLine <= r.FirstLine {
		t.Fatalf("a folded result lacks the lines its marker points into: %+v", r)
	}
}
