// Issue #13, "waits end when the terminal waits for a human", through the
// in-process MCP client with real PTYs: a line typed without Enter at the
// hooked shell's prompt, and man before its pager shows anything.
package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestSlowManThenQuit: `man ls` on a busy machine formats for a while
// before its pager shows anything. The send returned state pager at once
// (the foreground is named man) with a note to send q; q was typed before
// the pager ran, and the next command's result was the man page with
// man's exit code, its own output coming a call later. A stand-in man
// that takes 2 s to format makes it deterministic: man is a pager only
// once the terminal shows one.
func TestSlowManThenQuit(t *testing.T) {
	if _, err := exec.LookPath("less"); err != nil {
		t.Skip("less not installed")
	}
	bin := t.TempDir()
	script := "#!/bin/sh\nsleep 2\nseq 1 300 | less\n"
	if err := os.WriteFile(filepath.Join(bin, "man"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	cs := newTestClient(t)
	id := openPlain(t, cs, map[string]string{"PATH": bin + ":" + os.Getenv("PATH"), "LESS": "", "PAGER": "less"})
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "man ls", "timeout_ms": 20000})
	if r.State == "pager" && !strings.Contains(r.Output, "1") {
		t.Errorf("man: state pager with nothing on the screen yet (output %q, note %q): the pager is not running", r.Output, r.Note)
	}
	if r.Complete {
		t.Fatalf("man: complete %+v", r)
	}
	if r.State != "pager" || !strings.Contains(r.Note, "q") {
		t.Errorf("man once its pager shows: state %q note %q, want pager and a note saying q quits", r.State, r.Note)
	}
	// As the note says: q quits the pager.
	mustSend(t, cs, map[string]any{"session_id": id, "text": "q", "enter": false, "timeout_ms": 20000})
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo after-man", "timeout_ms": 20000})
	if !r.Complete || r.Output != "after-man" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("the command after man: complete=%v output=%q exit=%s; want after-man, exit 0", r.Complete, r.Output, exitText(r.ExitCode))
	}
}

// TestUnsubmittedLineReturnsSoon: text typed without Enter (a line to
// finish, tab completion) or a key that edits the line leaves the shell's
// line editor waiting for more keys: a human wait. Each such call waited
// for its whole timeout (30 s by default) with state prompt. It returns
// after the short quiet, not complete, state prompt, with a note saying
// what the line holds and that Enter runs it; Enter then runs it.
func TestUnsubmittedLineReturnsSoon(t *testing.T) {
	cs := newTestClient(t)
	id := openPlain(t, cs, nil)
	for _, tt := range []struct {
		args map[string]any
		note string // in the note
	}{
		{map[string]any{"text": "echo E1", "enter": false}, `typed, not run: the shell's line holds "echo E1"`},
		{map[string]any{"keys": []string{"ctrl+u"}}, "empty line"},
		{map[string]any{"keys": []string{"up"}}, ""}, // history is the user's: some line, or none
		{map[string]any{"keys": []string{"ctrl+u"}}, "empty line"},
		{map[string]any{"text": "echo E2", "enter": false}, `"echo E2"`},
	} {
		args := tt.args
		args["session_id"], args["timeout_ms"] = id, 20000
		start := time.Now()
		r := mustSend(t, cs, args)
		el := time.Since(start)
		if r.Complete {
			t.Errorf("%v: complete %+v, though no line was run", args, r)
		}
		if el > 5*time.Second {
			t.Errorf("%v: returned after %s (state %q, note %q); a line editor waiting for keys ends the wait in well under 2 s", args, el.Round(time.Millisecond), r.State, r.Note)
		}
		if r.State != "prompt" || !strings.Contains(r.Note, tt.note) {
			t.Errorf("%v: state %q note %q, want prompt and a note with %q", args, r.State, r.Note, tt.note)
		}
	}
	r := mustSend(t, cs, map[string]any{"session_id": id, "keys": []string{"enter"}, "timeout_ms": 20000})
	if !r.Complete || r.Output != "E2" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Errorf("enter after the typed line: complete=%v output=%q exit=%s note=%q; want E2, exit 0", r.Complete, r.Output, exitText(r.ExitCode), r.Note)
	}
}
