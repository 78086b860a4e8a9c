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
