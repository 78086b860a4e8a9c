package session

import "github.com/ttymux/ttymux/session/verdict"

// A Hint is a fact about a result that tells the model what to do next:
// what the terminal waits for, that the command runs on, where the rest of
// a long read is. session says what is so; cmd/ttymux words it, at NoteAt
// in the result's note.
type Hint struct {
	Kind HintKind
	// Status is the terminal the hint is about: for HintWaiting what
	// waits (State, LastLine, Foreground, Unsubmitted, Line), for
	// HintTypedAhead and HintRunning the terminal as classified at the
	// end of the wait.
	Status verdict.Status
	// SessionID, From, To, Total and Unread place the rest of a read:
	// HintMoreHex (Total bytes follow from offset To; Unread: the read
	// showed output not read before, From bytes at a time) and
	// HintMoreLines (lines From–To of Total shown).
	SessionID       string
	From, To, Total int64
	Unread          bool
	// NoteAt is where in the result's note the hint's words go, so that
	// they read in the order session noted things (addHint, prependNote).
	NoteAt int
}

// A HintKind is what a Hint says.
type HintKind uint8

const (
	// HintNone: nothing to say.
	HintNone HintKind = iota
	// HintWaiting: a program (or the shell's line editor) waits for input
	// only the caller can give; Status.State says which kind:
	// password_prompt, confirm_prompt, pager, alt_screen, input_prompt,
	// prompt or repl.
	HintWaiting
	// HintTypedAhead: an earlier command still runs; the text sent was
	// typed ahead and the shell runs it when that one ends.
	HintTypedAhead
	// HintRunning: the command has not finished within the wait.
	HintRunning
	// HintSentNoWait: the send did not wait; the output and the verdict
	// are read's to return.
	HintSentNoWait
	// HintMoreHex: a hex read stopped at its size; more bytes follow.
	HintMoreHex
	// HintMoreLines: a range read stopped before the session's last line.
	HintMoreLines
)

// setHint makes h the whole of r's note so far, as assigning the note
// did.
func setHint(r *Result, h Hint) {
	r.Note, h.NoteAt = "", 0
	r.Hints = append(r.Hints[:0:0], h)
}

// addHint puts h's words at the end of r's note as it stands.
func addHint(r *Result, h Hint) {
	h.NoteAt = len(r.Note)
	r.Hints = append(r.Hints, h)
}

// prependNote puts n ahead of r's note, and so ahead of where its hints'
// words go.
func prependNote(r *Result, n string) {
	for i := range r.Hints {
		r.Hints[i].NoteAt = len(joinNote(n, r.Note[:r.Hints[i].NoteAt]))
	}
	r.Note = joinNote(n, r.Note)
}
