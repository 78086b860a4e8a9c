package screen

import (
	"strconv"
	"strings"
)

// A Snapshot is the visible screen at one moment.
type Snapshot struct {
	// Lines holds one string per row, top to bottom, without trailing
	// spaces; empty rows are kept, so len(Lines) == Rows.
	Lines []string
	// CursorRow and CursorCol are the cursor position, 0-based.
	CursorRow, CursorCol int
	// AltScreen is true while a full-screen program (vim, less, htop)
	// uses the alternate screen.
	AltScreen bool
	// Rows and Cols are the size of the screen.
	Rows, Cols int
	// Title is the window title last set by the program (OSC 0 or 2).
	Title string
}

// Empty reports whether no row has any text.
func (s Snapshot) Empty() bool {
	for _, l := range s.Lines {
		if l != "" {
			return false
		}
	}
	return true
}

// Text returns the rows joined by newlines, without the empty rows at the
// bottom.
func (s Snapshot) Text() string {
	n := len(s.Lines)
	for n > 0 && s.Lines[n-1] == "" {
		n--
	}
	return strings.Join(s.Lines[:n], "\n")
}

// A LineChange is the new text of one row.
type LineChange struct {
	Row  int // 0-based
	Text string
}

// Diff returns the rows of cur whose text differs from the same row of
// prev, in order. Rows missing from prev count as empty, so a Diff against
// the zero Snapshot lists every non-empty row. The cursor, title and size
// are not compared.
func Diff(prev, cur Snapshot) []LineChange {
	var changes []LineChange
	for row, text := range cur.Lines {
		old := ""
		if row < len(prev.Lines) {
			old = prev.Lines[row]
		}
		if text != old {
			changes = append(changes, LineChange{Row: row, Text: text})
		}
	}
	return changes
}

// FormatDiff renders changes one per line as "@row text", with the 0-based
// row of Snapshot.Lines: "@3 $ make" means row 3 now reads "$ make", and a
// bare "@4" that row 4 is now empty. It returns "" for no changes.
func FormatDiff(changes []LineChange) string {
	var b strings.Builder
	for i, c := range changes {
		if i > 0 {
			b.WriteByte('\n')
		}
		b.WriteByte('@')
		b.WriteString(strconv.Itoa(c.Row))
		if c.Text != "" {
			b.WriteByte(' ')
			b.WriteString(c.Text)
		}
	}
	return b.String()
}
