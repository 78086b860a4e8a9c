package screen

import (
	"fmt"
	"strings"
	"testing"
)

// aptFlood is output as apt and dpkg write it: the bottom row kept for a
// progress bar by a scroll region set once at the start, then lines
// scrolling in the region with the bar redrawn below it now and then,
// about n bytes in all.
func aptFlood(rows, n int) string {
	var b strings.Builder
	b.WriteString("$ apt-get install -y things\r\n")
	fmt.Fprintf(&b, "\n\x1b7\x1b[0;%dr\x1b8\x1b[1A", rows-1) // apt's setup, as in its source
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "Unpacking package-%d (1.%d-1) over (1.%d-0) ...\r\n", i, i, i)
		if i%40 == 0 {
			pct := min(100*b.Len()/n, 99)
			fmt.Fprintf(&b, "\x1b7\x1b[%d;0f\x1b[42m\x1b[30mProgress: [%3d%%]\x1b[49m\x1b[39m [%s%s] \x1b8",
				rows, pct, strings.Repeat("#", pct/5), strings.Repeat(".", 20-pct/5))
		}
	}
	fmt.Fprintf(&b, "Setting up things (1.0) ...\r\n\x1b7\x1b[%d;0f\x1b[42m\x1b[30mProgress: [100%%]\x1b[49m\x1b[39m [####################] \x1b8", rows)
	return b.String()
}

// TestFloodKeepsScrollRegion pins the apt progress bar after a flood: the
// scroll region apt sets at the start is long gone from the tail that the
// replay keeps, and without it the tail scrolled the whole screen: the
// "Progress: [100%]" row was lost and every row was one off. The state the
// skipped output set is now replayed before the tail. The reference is
// the same bytes fed at once to an emulator.
func TestFloodKeepsScrollRegion(t *testing.T) {
	for _, tt := range []struct {
		name       string
		rows, cols int
		size       int
		look       bool // Snapshot before the flood, so that the emulator exists
	}{
		{"24x80 300 KB", 24, 80, 300 << 10, false},
		{"40x120 100 KB emulator made before", 40, 120, 100 << 10, true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			data := aptFlood(tt.rows, tt.size)
			ref := newTestEmu(t, tt.rows, tt.cols, defaultScrollback)
			_, _ = ref.Write([]byte(data))
			want := ref.state()
			if !strings.HasPrefix(want.Lines[tt.rows-1], "Progress: [100%]") {
				t.Fatalf("reference: bottom row %q, not the progress bar", want.Lines[tt.rows-1])
			}

			s := newTestScreen(t, tt.rows, tt.cols, Options{Scrollback: sessionScrollback}, noQuiet)
			if tt.look {
				s.Snapshot()
			}
			for rest := data; len(rest) > 0; {
				n := min(len(rest), 4096)
				writeAll(t, s, rest[:n])
				rest = rest[n:]
			}
			snap := s.Snapshot()
			checkScreen(t, "after the flood", snap.Lines, want.Lines)
			if snap.CursorRow != want.Row || snap.CursorCol != want.Col {
				t.Errorf("cursor at %d,%d, want %d,%d", snap.CursorRow, snap.CursorCol, want.Row, want.Col)
			}

			// Output after the flood still scrolls in the region.
			more := "more output\r\n\x1b7\x1b[" + fmt.Sprint(tt.rows) + ";0fProgress: [ 10%]\x1b8"
			_, _ = ref.Write([]byte(more))
			writeAll(t, s, more)
			checkScreen(t, "after more output", s.Snapshot().Lines, ref.state().Lines)
		})
	}
}

// TestCarriedState: what the skipped part of a flood set is replayed as
// sequences that set the same: modes in the order of their last change,
// designations, the locking shift, the scroll region last; what resets the
// margins drops the region; the alternate-screen modes, in-band resize and
// column mode are left out.
func TestCarriedState(t *testing.T) {
	tests := []struct {
		name, in, want string
	}{
		{"nothing", "plain text\r\n", ""},
		{"region", "\x1b[0;23r", "\x1b[;23r"},
		{"region reset", "\x1b[2;10r\x1b[r", "\x1b[r"},
		{"region then DECALN", "\x1b[2;10r\x1b#8", ""},
		{"region then DECCOLM", "\x1b[2;10r\x1b[?3h", ""},
		{"modes", "\x1b[?6h\x1b[4h\x1b[?7l\x1b[?6l\x1b[?25l", "\x1b[4h\x1b[?7l\x1b[?6l\x1b[?25l"},
		{"modes skipped", "\x1b[?1049h\x1b[?1049l\x1b[?2048h\x1b[?47h", ""},
		{"several modes in one", "\x1b[?1;1049;7h", "\x1b[?1h\x1b[?7h"},
		{"origin mode before region", "\x1b[5;20r\x1b[?6h", "\x1b[?6h\x1b[5;20r"},
		{"charsets and shift", "\x1b(0\x1b)0abc\x0e x \x0f y \x0e", "\x1b(0\x1b)0\x0e"},
		{"locking shift G2", "\x1b*0\x1bn", "\x1b*0\x1bn"},
		{"in a control string", "\x1bP5;6r\x1b\\", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := scanSkipped([]byte(tt.in), []span{{0, len(tt.in)}})
			if got := string(c.appendTo(nil)); got != tt.want {
				t.Errorf("carried %q, want %q", got, tt.want)
			}
		})
	}
}
