package vt

import (
	"io"

	"github.com/charmbracelet/x/ansi"
)

func (e *Emulator) handleMode(params ansi.Params, set, isAnsi bool) {
	for _, p := range params {
		param := p.Param(-1)
		if param == -1 {
			// Missing parameter, ignore
			continue
		}

		var mode ansi.Mode = ansi.DECMode(param)
		if isAnsi {
			mode = ansi.ANSIMode(param)
		}

		setting := e.modes[mode]
		if setting == ansi.ModePermanentlyReset || setting == ansi.ModePermanentlySet {
			// Permanently set modes are ignored.
			continue
		}

		setting = ansi.ModeReset
		if set {
			setting = ansi.ModeSet
		}

		e.setMode(mode, setting)
	}
}

// setAltScreenMode sets the alternate screen mode.
func (e *Emulator) setAltScreenMode(on bool) {
	if (on && e.scr == &e.scrs[1]) || (!on && e.scr == &e.scrs[0]) {
		// Already in alternate screen mode, or normal screen, do nothing.
		return
	}
	if on {
		e.scr = &e.scrs[1]
		e.scrs[1].cur = e.scrs[0].cur
		e.scr.Clear()
		e.scr.ClearTouched()
		e.setCursor(0, 0)
	} else {
		e.scr = &e.scrs[0]
	}
	if e.cb.AltScreen != nil {
		e.cb.AltScreen(on)
	}
	if e.cb.CursorVisibility != nil {
		e.cb.CursorVisibility(!e.scr.cur.Hidden)
	}
}

// savedState is what [ansi.DECSC] saves besides the cursor and its pen:
// the character sets and their shifts, and origin mode (xterm, DEC STD 070).
type savedState struct {
	charsets [4]CharSet
	gl, gr   int
	origin   bool
}

// screenIndex returns which screen is active: 0 for the main one, 1 for the
// alternate. Each has its own saved cursor.
func (e *Emulator) screenIndex() int {
	if e.scr == &e.scrs[1] {
		return 1
	}
	return 0
}

// saveCursor saves the cursor position, its pen, the character sets and
// origin mode.
func (e *Emulator) saveCursor() {
	e.scr.SaveCursor()
	e.saved[e.screenIndex()] = savedState{
		charsets: e.charsets,
		gl:       e.gl,
		gr:       e.gr,
		origin:   e.isModeSet(ansi.ModeOrigin),
	}
}

// restoreCursor restores what saveCursor saved; without a save, the cursor
// goes home with the default character sets, as in xterm.
func (e *Emulator) restoreCursor() {
	e.scr.RestoreCursor()
	s := e.saved[e.screenIndex()]
	e.charsets, e.gl, e.gr = s.charsets, s.gl, s.gr
	// Set the mode without its effect: restoring origin mode does not
	// home the cursor.
	if s.origin {
		e.modes[ansi.ModeOrigin] = ansi.ModeSet
	} else {
		e.modes[ansi.ModeOrigin] = ansi.ModeReset
	}
	e.atPhantom = false
}

// setMode sets the mode to the given value.
func (e *Emulator) setMode(mode ansi.Mode, setting ansi.ModeSetting) {
	e.logf("setting mode %T(%v) to %v", mode, mode, setting)
	e.modes[mode] = setting
	switch mode {
	case ansi.ModeTextCursorEnable:
		e.scr.setCursorHidden(!setting.IsSet())
	case ansi.ModeAltScreen:
		e.setAltScreenMode(setting.IsSet())
	case ansi.ModeSaveCursor:
		if setting.IsSet() {
			e.saveCursor()
		} else {
			e.restoreCursor()
		}
	case ansi.ModeAltScreenSaveCursor: // Alternate Screen Save Cursor (1047 & 1048)
		// Save primary screen cursor position
		// Switch to alternate screen
		// Doesn't support scrollback
		// Restore it after leaving, as DECRC does, even if the alternate
		// screen was not active (xterm, tmux): ncurses programs such as
		// dialog leave it early and reset 1049 again on exit, and expect
		// the cursor back where it was when they started.
		if setting.IsSet() {
			e.saveCursor()
		}
		e.setAltScreenMode(setting.IsSet())
		if !setting.IsSet() {
			e.restoreCursor()
		}
	case ansi.DECMode(3): // Column mode [DECCOLM]
		// The width stays, as in tmux and in xterm without 132-column
		// support, but the switch still clears the screen, resets the
		// margins and homes the cursor, as DEC terminals do.
		e.scr.setVerticalMargins(0, e.Height())
		e.scr.setHorizontalMargins(0, e.Width())
		e.scr.Clear()
		e.setCursor(0, 0)
	case ansi.ModeUnicodeCore:
		e.clustering = setting.IsSet()
	case ansi.ModeInsertReplace:
		e.insert = setting.IsSet()
	case ansi.ModeOrigin:
		// Setting or resetting origin mode homes the cursor, to the top of
		// the scroll region or of the screen.
		e.setCursorPosition(0, 0)
	case ansi.ModeInBandResize:
		if setting.IsSet() {
			_, _ = io.WriteString(e.pw, ansi.InBandResize(e.Height(), e.Width(), 0, 0))
		}
	}
	if setting.IsSet() {
		if e.cb.EnableMode != nil {
			e.cb.EnableMode(mode)
		}
	} else if setting.IsReset() {
		if e.cb.DisableMode != nil {
			e.cb.DisableMode(mode)
		}
	}
}

// isModeSet returns true if the mode is set.
func (e *Emulator) isModeSet(mode ansi.Mode) bool {
	m, ok := e.modes[mode]
	return ok && m.IsSet()
}
