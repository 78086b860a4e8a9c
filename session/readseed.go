package session

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/ttymux/ttymux/session/screen"
)

// A screenSeed is the screen a result returned for a program that redraws
// the normal screen in place (top), and the log offset that result ended
// at. The output after it repaints that screen: its frames skip the rows
// that did not change, which only the screen holds. A result that starts
// there (top's remaining frames in the result of the "q" that quits it, or
// in its earlier) renders its output over the screen, so that those rows
// are not blank (issue #13 item 8).
type screenSeed struct {
	ok   bool
	off  int64  // where the result ended
	draw []byte // output that draws the screen, cursor included
	nl   int    // the '\n' bytes in draw
}

// keepSeed records snap, the screen a result that ended at off returned,
// if the program on it redraws it in place.
func (s *Session) keepSeed(snap screen.Snapshot, off int64) {
	if !s.scr.RedrawsInPlace() {
		return
	}
	lines := snap.Lines
	for len(lines) > 0 && len(lines) > snap.CursorRow+1 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	var b strings.Builder
	b.WriteString("\x1b[H\x1b[2J")
	b.WriteString(strings.Join(lines, "\r\n"))
	fmt.Fprintf(&b, "\x1b[%d;%dH", snap.CursorRow+1, snap.CursorCol+1)
	seed := screenSeed{ok: true, off: off, draw: []byte(b.String()), nl: max(len(lines)-1, 0)}
	s.mu.Lock()
	s.seed = seed
	s.mu.Unlock()
}

// maxSeedGap is how far past the end of the result that returned the
// screen a result may start and still render over it: what lies between
// is the echo of what was typed, which a result leaves out (Enter's
// "\r\n" for a program that reads a line).
const maxSeedGap = 4 << 10

// seedLocked returns the output to render before the log from from on,
// and how many lines it draws (see screenSeed): nothing unless from is
// where a result that returned an in-place screen ended, or a little
// after it with only an echo between (which comes along: it moves the
// cursor). The seed is used once: the output after it is rendered over
// the screen once, by whichever result returns it first (the earlier
// part of a result, before its own). s.mu must be held.
func (s *Session) seedLocked(from int64) (draw []byte, nl int) {
	if !s.seed.ok || from < s.seed.off || from-s.seed.off > maxSeedGap || s.ring.Start() > s.seed.off {
		return nil, 0
	}
	draw = append([]byte(nil), s.seed.draw...)
	n := len(draw)
	draw, _ = s.ring.AppendRange(draw, s.seed.off, from)
	if bytes.IndexByte(draw[n:], 0x1b) >= 0 {
		return nil, 0 // more than an echo: output a result returned
	}
	nl = s.seed.nl + bytes.Count(draw[n:], []byte{'\n'})
	s.seed = screenSeed{}
	return draw, nl
}
