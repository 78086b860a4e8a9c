package vt

import (
	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// handleEsc handles an escape sequence.
func (e *Emulator) handleEsc(cmd ansi.Cmd) {
	e.flushGrapheme() // Flush any pending grapheme before handling ESC sequences.
	e.lastChar = 0    // REP repeats only a character right before it
	if !e.handlers.handleEsc(int(cmd)) {
		var str string
		if inter := cmd.Intermediate(); inter != 0 {
			str += string(inter) + " "
		}
		if final := cmd.Final(); final != 0 {
			str += string(final)
		}
		e.logf("unhandled sequence: ESC %q", str)
	}
}

// fullReset performs a full terminal reset as in [ansi.RIS].
func (e *Emulator) fullReset() {
	e.scrs[0].Reset()
	e.scrs[1].Reset()
	e.resetTabStops()

	// XXX: Do we reset all modes here? Investigate.
	e.resetModes()

	e.gl, e.gr = 0, 1
	e.gsingle = 0
	e.charsets = [4]CharSet{}
	e.saved = [2]savedState{}
	e.atPhantom = false
	e.joining = false
	e.grapheme = e.grapheme[:0]
	e.lastChar = 0
}

// screenAlignment fills the screen with "E", resets the margins and homes
// the cursor, as [ansi.DECALN] does (vttest's screens are drawn with it).
func (e *Emulator) screenAlignment() {
	e.scr.setVerticalMargins(0, e.Height())
	e.scr.setHorizontalMargins(0, e.Width())
	c := uv.EmptyCell
	c.Content = "E"
	c.Width = 1
	e.scr.Fill(&c)
	e.setCursor(0, 0)
}
