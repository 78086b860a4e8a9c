package session

import "github.com/ttymux/ttymux/session/verdict"

// The emulator answers the queries a program prints (cursor position
// ESC[6n, device attributes ESC[c, …) as a terminal does. But whoever reads
// the terminal next gets the answer as typed input: a file printed by cat
// that holds ESC[6n ESC[c left ";1R" and "62;1;6;22c" in the terminal's
// input queue, and the shell's line editor glued them in front of the next
// command line, unseen by the checks (issue #31). A program that asks
// reads the answer itself, so it has put the terminal in raw mode (echo off)
// and is in the foreground; the shell at its prompt is not such a program.

// replyAllowed reports whether an answer may be typed into the terminal now:
// where the ECHO flag can be read (local and agent PTYs), echo is off, the
// foreground program is not the shell, and a hooked shell is running a
// command (its last mark is C); elsewhere (SSH, serial), only while a
// full-screen program runs (and, hooked, a command runs).
func (t *terminal) replyAllowed() bool {
	t.mu.Lock()
	hooked := t.det.Hooked()
	last, marked := t.det.Last()
	exited := t.exited || t.closed
	t.mu.Unlock()
	if exited || hooked && (!marked || last.Kind != verdict.MarkCommand) {
		return false
	}
	if known, off := t.term.EchoState(); known {
		if !off {
			return false
		}
		fg, ok := t.term.Foreground()
		return !ok || !fg.IsShell
	}
	return t.scr.AltScreen()
}
