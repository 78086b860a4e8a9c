package session

import "testing"

// TestPrependNoteGoesAheadOfTheHint: what a send notes about itself went
// ahead of "not finished yet" and the other hints when session wrote
// them; with the words in cmd, it must still come first (Hint.NoteAt).
func TestPrependNoteGoesAheadOfTheHint(t *testing.T) {
	r := Result{Hint: Hint{Kind: HintRunning}, Note: "the hook stopped"}
	prependNote(&r, "typed as keystrokes")
	if r.Note != "typed as keystrokes; the hook stopped" || r.Note[:r.Hint.NoteAt] != "typed as keystrokes" {
		t.Fatalf("with a hint: note %q, the hint at %d", r.Note, r.Hint.NoteAt)
	}
	prependNote(&r, "sent BREAK")
	if r.Note[:r.Hint.NoteAt] != "sent BREAK; typed as keystrokes" {
		t.Fatalf("twice: note %q, the hint at %d", r.Note, r.Hint.NoteAt)
	}
	r = Result{Note: "the hook stopped"}
	prependNote(&r, "typed as keystrokes")
	if r.Hint.NoteAt != 0 || r.Note != "typed as keystrokes; the hook stopped" {
		t.Fatalf("without a hint: note %q, the hint at %d", r.Note, r.Hint.NoteAt)
	}
}
