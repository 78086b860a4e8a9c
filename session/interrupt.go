package session

import (
	"context"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// interruptFollow is how long after a ctrl+c typed while the shell owned
// the terminal a program that takes the terminal is still the one the key
// was meant for. It ends early when the command ends (the shell took the
// key) or a program takes the terminal: a long wait is a rare one.
const interruptFollow = 2 * time.Second

// followInterrupt makes a ctrl+c typed while a command starts reach that
// command. The kernel sends the interrupt to whoever owns the terminal when
// it reads the key. Typed between the shell reading a command line and the
// program it starts taking the terminal (on a busy machine that can be a
// long moment), it reaches the shell, which waits for its job and lets it
// run on: `sleep 100` kept sleeping and the send waited its whole timeout
// for the prompt. So when the shell owned the terminal as the key was
// typed, a command was running, and a program takes the terminal within
// interruptFollow without the command ending, that program gets SIGINT, as
// the key would have given it.
func (s *Session) followInterrupt(ctx context.Context, ty typing, look sendLook) {
	if ty.breaks == 0 || ty.owed == 0 || !look.fgOK || !look.fg.IsShell {
		return
	}
	sg, ok := s.conn.(transport.Signaler)
	if !ok {
		return
	}
	ended := func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.exited || s.det.DoneSince(ty.sendOff) > 0
	}
	tick := time.NewTicker(verdict.PollEvery)
	defer tick.Stop()
	deadline := time.NewTimer(interruptFollow)
	defer deadline.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-deadline.C:
			return
		case <-tick.C:
		}
		if ended() {
			return // the shell or the program took it: the prompt is back
		}
		fg, ok := s.foreground()
		if !ok || fg.IsShell || fg.Pgid == 0 || fg.Pgid == look.fg.Pgid {
			continue
		}
		if ended() {
			return
		}
		if err := sg.Signal(ctx, "INT"); err != nil {
			s.log.Debug("pass the interrupt on to the program that took the terminal", "err", err)
		}
		s.log.Debug("interrupt passed on", "program", fg.Name)
		return
	}
}

// interruptSettle bounds how long a send waits for the hooked shell to
// answer an interrupt typed at its prompt (awaitInterrupt): past it, the
// send is typed as before. interruptNudge is how long it waits before it
// wakes a line editor that holds the interrupt until a key comes.
const (
	interruptSettle = 3 * time.Second
	interruptNudge  = 400 * time.Millisecond
)

// awaitInterrupt holds a send while the hooked shell has not yet answered
// a ctrl+c the last send typed at its prompt with the D mark of its next
// prompt. zsh's and bash's line editors read a key at a time with the
// terminal's ISIG on: the key reaches the shell as SIGINT, and a key typed
// right after it can be read before the signal is handled, then dropped
// with the line the interrupt discards. A command sent at once after
// ctrl+c (waited for or not) lost its first key so ("zsh: command not
// found: cho" for echo), about once in fifteen on a loaded machine. Once
// the D mark is out the line editor has let the interrupt go, and keys
// typed then wait in the terminal for its next line.
//
// zsh can also take the signal while it is busy with a key and then block
// reading the next one, the interrupt noted but not acted on: no D comes
// until a key does, and that key is lost (bash lost keys the same way
// with the D wait alone, 1 run in 3). So when the D is late the hook's
// line-kill key is typed: a held interrupt discards it, and a line editor
// already at its next prompt empties a line that is empty. fish reads
// ctrl+c as a key, in order with the rest, and is not held.
func (s *Session) awaitInterrupt(ctx context.Context) {
	var deadline, nudge *time.Timer // made only when a send has to wait
	for {
		s.mu.Lock()
		c, marked := s.cmd, s.marked
		fish := s.fish || s.det.Shell() == "fish"
		pending := c != nil && c.breakAtPrompt && !fish && !s.exited && s.det.Hooked() && s.det.DoneSince(c.SendOff) == 0
		canKill := !s.det.NoLine()
		s.mu.Unlock()
		if !pending {
			return
		}
		if deadline == nil {
			deadline, nudge = time.NewTimer(interruptSettle), time.NewTimer(interruptNudge)
			defer deadline.Stop()
			defer nudge.Stop()
		}
		select {
		case <-marked:
		case <-nudge.C:
			if fg, ok := s.foreground(); canKill && ok && fg.IsShell && (fg.Name == "zsh" || fg.Name == "bash") {
				if err := s.write([]byte(lineKillKey)); err != nil {
					s.log.Debug("wake the line editor after an interrupt", "err", err)
				}
			}
		case <-deadline.C:
			s.log.Debug("the shell did not answer an interrupt at its prompt in time; typing anyway")
			return
		case <-ctx.Done():
			return
		}
	}
}
