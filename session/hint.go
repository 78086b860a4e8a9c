package session

import "github.com/ttymux/ttymux/session/verdict"

// A Hint is a fact about a result that tells the model what to do next:
// what the terminal waits for, or that the command runs on. session says
// what is so; cmd/ttymux words it, first in the result's note.
type Hint struct {
	Kind HintKind
	// Status is the terminal the hint is about: for HintWaiting what
	// waits (State, LastLine, Foreground, Unsubmitted, Line), for the
	// others the terminal as classified at the end of the wait.
	Status verdict.Status
	// NoteAt is where in the result's note the hint's words go: after
	// what the send noted about itself (prependNote), ahead of the notes
	// about the session.
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
)

// prependNote puts n ahead of r's note, and so ahead of where its hint's
// words go.
func prependNote(r *Result, n string) {
	if r.Hint.Kind != HintNone {
		r.Hint.NoteAt = len(joinNote(n, r.Note[:r.Hint.NoteAt]))
	}
	r.Note = joinNote(n, r.Note)
}
