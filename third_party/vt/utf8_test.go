package vt

import (
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"
)

// A combining mark belongs to the character before it, however that character
// arrived. The printable-ASCII path used to write its cell immediately, which
// left a following mark with nowhere to go: it became a zero-width cell of its
// own, and the next write or erase destroyed it. This is the grapheme
// clustering of mode 2027.
func TestCombiningMarkJoinsPrecedingASCII(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		{"bare", "bcé", []string{"b", "c", "é"}},
		{"then erase", "bcé\x1b[K", []string{"b", "c", "é"}},
		{"then another character", "bcéx", []string{"b", "c", "é", "x"}},
		{"several in a row", "áb́c", []string{"á", "b́", "c"}},
		{"mark on a wide character", "世́x", []string{"世́", "", "x"}},
		{"emoji with a modifier", "\U0001f44b\U0001f3ffx", []string{"\U0001f44b\U0001f3ff", "", "x"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := newTestTerminal(t, 10, 1)
			term.WriteString(ansi.SetModeUnicodeCore + tc.input)
			for x, want := range tc.want {
				cell := term.CellAt(x, 0)
				if cell == nil {
					t.Fatalf("cell %d: nil", x)
				}
				if cell.Content != want {
					t.Errorf("cell %d: got %q, want %q", x, cell.Content, want)
				}
			}
		})
	}
}

// A character is held back until the next one arrives, so it has to be flushed
// when the write ends or a caller reading the screen would not see it.
func TestLastCharacterIsFlushedWhenTheWriteEnds(t *testing.T) {
	term := newTestTerminal(t, 10, 1)
	term.WriteString("hi")
	for x, want := range []string{"h", "i"} {
		if cell := term.CellAt(x, 0); cell == nil || cell.Content != want {
			t.Errorf("cell %d: got %v, want %q", x, cell, want)
		}
	}
}

// A single shift applies to one character, and the character it applies to may
// be a cluster no charset has a mapping for. Taking the shift only when the
// mapping happens left it set, and it landed on the character after.
func TestSingleShiftDoesNotLeakPastACluster(t *testing.T) {
	for _, tc := range []struct {
		name  string
		input string
		want  []string
	}{
		// SS2, then a cluster, then a plain character. The cluster has no
		// mapping; the "b" must not be drawn from the shifted set.
		{"cluster then plain", "\x1b*0\x8eáb", []string{"á", "b"}},
		// The same shift with a mappable character, to show it still applies.
		{"plain then plain", "\x1b*0\x8eab", []string{"▒", "b"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := newTestTerminal(t, 10, 1)
			term.WriteString(tc.input)
			for x, want := range tc.want {
				if cell := term.CellAt(x, 0); cell == nil || cell.Content != want {
					t.Errorf("cell %d: got %v, want %q", x, cell, want)
				}
			}
		})
	}
}

// A run of combining marks is one cluster that keeps growing. Asking where its
// boundaries are on every character costs the length of the buffer each time,
// which is quadratic: 64KB of marks took six seconds before this was a single
// segmentation at the end of the run.
//
// The budget below is thousands of times the linear cost and a fraction of the
// quadratic one, so it says which of the two is in place without being a
// stopwatch on the machine it runs on.
func TestLongClusterRunStaysLinear(t *testing.T) {
	input := "a" + strings.Repeat("́", 32*1024)

	for _, mode := range []string{ansi.SetModeUnicodeCore, ansi.ResetModeUnicodeCore} {
		done := make(chan time.Duration, 1)
		go func() {
			term := NewEmulator(80, 24)
			start := time.Now()
			term.WriteString(mode + input)
			done <- time.Since(start)
		}()

		select {
		case elapsed := <-done:
			t.Logf("%q: %d bytes in %v", mode, len(input), elapsed)
		case <-time.After(10 * time.Second):
			t.Fatalf("%q: writing %d bytes of one cluster did not finish in 10s", mode, len(input))
		}
	}
}

// Without mode 2027, text is laid out one code point at a time by wcwidth,
// as vim, less and ncurses lay it out: an emoji with a variation selector
// is as wide as its base, a skin tone modifier is a wide character of its
// own, a soft hyphen takes a cell. Grapheme clustering measured them as
// clusters and put every character after them in another column than the
// program meant. With mode 2027 on, clusters are measured as before. The
// widths are those tmux gives.
func TestWidthsPerCodePointUnlessMode2027(t *testing.T) {
	for _, tc := range []struct {
		name       string
		input      string
		wcwidth    int // cursor column after input
		clustering int // the same with mode 2027
		firstCell  string
	}{
		{"emoji with VS16", "❤️✔️", 2, 4, "❤️"},
		{"keycap", "1️⃣", 1, 2, "1️⃣"},
		{"skin tone modifier", "👍🏽", 4, 2, "👍"},
		{"soft hyphen", "a\u00adb", 3, 2, "a"},
		{"zero width joiner sequence", "👨‍👩‍👧", 2, 2, "👨‍👩‍👧"},
		{"regional indicators", "🇫🇷", 2, 2, "🇫"},
		{"Hangul jamo", "ᄀ각", 4, 2, "ᄀ"},
		{"combining mark", "é", 1, 1, "é"},
		{"combining mark at the left edge", "\u0301x", 1, 1, "x"},
		{"unassigned code point", "\u0378x", 1, 2, "x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			term := newTestTerminal(t, 20, 1)
			term.WriteString(tc.input)
			if x := term.CursorPosition().X; x != tc.wcwidth {
				t.Errorf("cursor at column %d, want %d", x, tc.wcwidth)
			}
			if c := term.CellAt(0, 0); c == nil || c.Content != tc.firstCell {
				t.Errorf("cell 0: got %v, want %q", c, tc.firstCell)
			}

			term = newTestTerminal(t, 20, 1)
			term.WriteString(ansi.SetModeUnicodeCore + tc.input)
			if x := term.CursorPosition().X; x != tc.clustering {
				t.Errorf("mode 2027: cursor at column %d, want %d", x, tc.clustering)
			}
		})
	}
}
