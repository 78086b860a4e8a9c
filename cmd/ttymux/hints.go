package main

import (
	"fmt"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/session/verdict"
)

// The words of the hints session returns as facts (session.Hint): what
// the model reads about what to do next is written here, not in session.

// present turns the facts of r into what the model reads: each hint,
// worded, goes into the note where session noted it (Hint.NoteAt), so the
// note reads in the order things happened.
func present(r session.Result) session.Result {
	for i := len(r.Hints) - 1; i >= 0; i-- { // the last first: the earlier places stay put
		h := r.Hints[i]
		if w := hintNote(h); w != "" {
			at := min(max(h.NoteAt, 0), len(r.Note))
			r.Note = joinNote(joinNote(r.Note[:at], w), strings.TrimPrefix(r.Note[at:], "; "))
		}
	}
	r.Hints = nil
	return r
}

// hintNote words h, or is "" for none.
func hintNote(h session.Hint) string {
	switch h.Kind {
	case session.HintWaiting:
		return waitNote(h.Status)
	case session.HintTypedAhead:
		return fmt.Sprintf("an earlier command is still running (%s); this text was typed ahead and the shell runs it when that one ends: read {wait: true} returns the rest, or send keys [\"ctrl+c\"] to interrupt", h.Status.Describe())
	case session.HintSentNoWait:
		return "sent without waiting; use read {wait: true} for the output and the verdict"
	case session.HintMoreHex:
		if h.Unread {
			return fmt.Sprintf("%d more bytes follow: read {mode: \"hex\"} again for the next %d", h.Total, h.From)
		}
		return fmt.Sprintf(`%d more bytes follow: read {"session_id":%q,"mode":"hex","from_offset":%d}`, h.Total, h.SessionID, h.To)
	case session.HintMoreLines:
		return fmt.Sprintf("showing lines %d–%d of %d; continue with from_line %d", h.From, h.To, h.Total, h.To+1)
	case session.HintRunning:
		return fmt.Sprintf("not finished yet (%s); read {wait: true} returns the rest when it finishes, or send keys [\"ctrl+c\"] to interrupt", h.Status.Describe())
	}
	return ""
}

// waitNote says what a terminal that waits for a human wants sent, or ""
// when st is not such a state.
func waitNote(st verdict.Status) string {
	switch st.State {
	case "password_prompt":
		return fmt.Sprintf("waiting for a password (%q): send it with secret: true", st.LastLine)
	case "confirm_prompt":
		return fmt.Sprintf("waiting for an answer to %q: send it as text, e.g. yes or no (y or n)", st.LastLine)
	case "pager":
		return `a pager waits: send {"text": "q", "enter": false} to quit, keys ["space"] for the next page, or text "/word" to search`
	case "alt_screen":
		fg := st.Foreground
		if fg == "" {
			fg = "a full-screen program"
		}
		return fmt.Sprintf(`%s waits for keys; output is its screen: text is typed as keystrokes (e.g. {"text": ":wq"} in vim), keys press ["esc"] or ["ctrl+c"]`, fg)
	case "input_prompt":
		return fmt.Sprintf("waiting for a line of input after %q: send it as text (secret: true for anything sensitive)", st.LastLine)
	case "prompt":
		if st.Unsubmitted {
			if st.Line == "" {
				return fmt.Sprintf(`the shell's prompt (%q) waits with an empty line: send the next command`, st.LastLine)
			}
			return fmt.Sprintf(`typed, not run: the shell's line holds %q; send {"keys": ["enter"]} runs it, {"keys": ["ctrl+u"]} clears it`, st.Line)
		}
		fallthrough
	case "repl":
		return fmt.Sprintf("a prompt (%q) waits for the next line: send it; until with a pattern for this prompt makes the next wait exact", st.LastLine)
	}
	return ""
}

// toolResult is what send and read return for r: the text form (summary)
// and the structured result (forModel), both of r presented.
func toolResult(r session.Result, detail bool) (*mcp.CallToolResult, session.Result, error) {
	r = present(r)
	return textResult(summary(r)), forModel(r, detail), nil
}
