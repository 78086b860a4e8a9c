package main

import (
	"testing"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/session/verdict"
)

// TestHintNotes pins the words of the hints session returns as facts
// (they were verdict.Status.WaitNote and notes written in session/io.go):
// each names what to send next.
func TestHintNotes(t *testing.T) {
	for _, tt := range []struct {
		name string
		hint session.Hint
		want string
	}{
		{"password", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "password_prompt", LastLine: "[sudo] password for u:"}},
			`waiting for a password ("[sudo] password for u:"): send it with secret: true`},
		{"confirm", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "confirm_prompt", LastLine: "Continue? [y/N]"}},
			`waiting for an answer to "Continue? [y/N]": send it as text, e.g. yes or no (y or n)`},
		{"pager", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "pager"}},
			`a pager waits: send {"text": "q", "enter": false} to quit, keys ["space"] for the next page, or text "/word" to search`},
		{"vim", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "alt_screen", Foreground: "vim"}},
			`vim waits for keys; output is its screen: text is typed as keystrokes (e.g. {"text": ":wq"} in vim), keys press ["esc"] or ["ctrl+c"]`},
		{"typed", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "prompt", Unsubmitted: true, Line: "echo E1"}},
			`typed, not run: the shell's line holds "echo E1"; send {"keys": ["enter"]} runs it, {"keys": ["ctrl+u"]} clears it`},
		{"empty line", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "prompt", Unsubmitted: true, LastLine: "$ "}},
			`the shell's prompt ("$ ") waits with an empty line: send the next command`},
		{"repl", session.Hint{Kind: session.HintWaiting, Status: verdict.Status{State: "repl", LastLine: ">>> "}},
			`a prompt (">>> ") waits for the next line: send it; until with a pattern for this prompt makes the next wait exact`},
		{"running", session.Hint{Kind: session.HintRunning, Status: verdict.Status{State: "running", Foreground: "sleep"}},
			`not finished yet (running: sleep); read {wait: true} returns the rest when it finishes, or send keys ["ctrl+c"] to interrupt`},
		{"typed ahead", session.Hint{Kind: session.HintTypedAhead, Status: verdict.Status{State: "running", Foreground: "sleep"}},
			`an earlier command is still running (running: sleep); this text was typed ahead and the shell runs it when that one ends: read {wait: true} returns the rest, or send keys ["ctrl+c"] to interrupt`},
		{"no wait", session.Hint{Kind: session.HintSentNoWait},
			"sent without waiting; use read {wait: true} for the output and the verdict"},
		{"more hex", session.Hint{Kind: session.HintMoreHex, Total: 100, SessionID: "s1", To: 4096},
			`100 more bytes follow: read {"session_id":"s1","mode":"hex","from_offset":4096}`},
		{"more unread hex", session.Hint{Kind: session.HintMoreHex, Total: 100, From: 4096, Unread: true},
			`100 more bytes follow: read {mode: "hex"} again for the next 4096`},
		{"more lines", session.Hint{Kind: session.HintMoreLines, From: 1, To: 2000, Total: 5000},
			"showing lines 1–2000 of 5000; continue with from_line 2001"},
		{"none", session.Hint{}, ""},
	} {
		if got := hintNote(tt.hint); got != tt.want {
			t.Errorf("%s:\n got %s\nwant %s", tt.name, got, tt.want)
		}
	}
}

// TestPresentPutsTheHintFirst: the hint is about the command, and went
// ahead of the session's notes (a hook that stopped reporting, a
// recording) when session wrote it.
func TestPresentPutsTheHintFirst(t *testing.T) {
	r := present(session.Result{Note: "ttymux's shell hook stopped reporting", Hints: []session.Hint{{Kind: session.HintRunning, Status: verdict.Status{State: "running"}}}})
	want := `not finished yet (running); read {wait: true} returns the rest when it finishes, or send keys ["ctrl+c"] to interrupt; ttymux's shell hook stopped reporting`
	if r.Note != want || r.Hints != nil {
		t.Fatalf("note %q hints %+v; want %q and the hints spent", r.Note, r.Hints, want)
	}
	// What the send noted (a serial line ending, keystrokes for a
	// full-screen program) went ahead of the hint.
	r = present(session.Result{Note: "typed as keystrokes; recording stopped", Hints: []session.Hint{{Kind: session.HintSentNoWait, NoteAt: len("typed as keystrokes")}}})
	if want := "typed as keystrokes; sent without waiting; use read {wait: true} for the output and the verdict; recording stopped"; r.Note != want {
		t.Fatalf("note %q; want %q", r.Note, want)
	}
	// Two hints, one in the middle and one at the end, each where it was
	// noted.
	r = present(session.Result{Note: "A; B", Hints: []session.Hint{
		{Kind: session.HintSentNoWait, NoteAt: 1},
		{Kind: session.HintMoreLines, From: 1, To: 2, Total: 3, NoteAt: 4},
	}})
	if want := "A; sent without waiting; use read {wait: true} for the output and the verdict; B; showing lines 1–2 of 3; continue with from_line 3"; r.Note != want {
		t.Fatalf("note %q; want %q", r.Note, want)
	}
}
