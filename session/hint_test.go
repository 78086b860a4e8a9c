package session

import "testing"

// TestPrependNoteGoesAheadOfTheHint: what a send notes about itself went
// ahead of "not finished yet" and the other hints when session wrote
// them; with the words in cmd, it must still come first (Hint.NoteAt).
func TestPrependNoteGoesAheadOfTheHint(t *testing.T) {
	var r Result
	setHint(&r, Hint{Kind: HintRunning})
	r.Note = joinNote(r.Note, "the hook stopped")
	addHint(&r, Hint{Kind: HintMoreLines})
	prependNote(&r, "typed as keystrokes")
	if r.Note != "typed as keystrokes; the hook stopped" || r.Note[:r.Hints[0].NoteAt] != "typed as keystrokes" || r.Hints[1].NoteAt != len(r.Note) {
		t.Fatalf("with hints: note %q, hints %+v", r.Note, r.Hints)
	}
	prependNote(&r, "sent BREAK")
	if r.Note[:r.Hints[0].NoteAt] != "sent BREAK; typed as keystrokes" || r.Hints[1].NoteAt != len(r.Note) {
		t.Fatalf("twice: note %q, hints %+v", r.Note, r.Hints)
	}
	r = Result{Note: "the hook stopped"}
	prependNote(&r, "typed as keystrokes")
	if r.Hints != nil || r.Note != "typed as keystrokes; the hook stopped" {
		t.Fatalf("without a hint: note %q, hints %+v", r.Note, r.Hints)
	}
	// setHint drops what was noted before, as assigning the note did.
	r = Result{Note: "an older note"}
	addHint(&r, Hint{Kind: HintMoreHex})
	setHint(&r, Hint{Kind: HintWaiting})
	if r.Note != "" || len(r.Hints) != 1 || r.Hints[0].Kind != HintWaiting || r.Hints[0].NoteAt != 0 {
		t.Fatalf("setHint: note %q, hints %+v", r.Note, r.Hints)
	}
}
