package session

import (
	"context"
	"github.com/ttymux/ttymux/session/verdict"
	"time"
)

// secretWait bounds how long a secret waits for the program it is for to
// ask (the engine's Terminal.WaitsForSecret says when it does).
const secretWait = 5 * time.Second

// awaitSecretPrompt waits, before a secret is typed, until the command line
// the previous send submitted to the hooked shell has been accepted (its C
// mark) and the terminal waits for the input: echo off (read -s, a
// password prompt), the shell itself blocked reading the terminal (read),
// a line that asks ("Password: ", "Name: "), or a program that has gone
// quiet. A human waits for the prompt as well: typed earlier, a secret
// reaches the shell's line editor instead, is echoed, or is thrown away by
// a password reader that flushes pending input (TCSAFLUSH). It returns at
// once where none of this can be known (no hook, no ECHO flag) and reports
// false when it gave up after secretWait or timeout.
func (s *Session) awaitSecretPrompt(ctx context.Context, timeout time.Duration) bool {
	s.mu.Lock()
	c := s.cmd
	hooked := s.det.Hooked() && s.ready
	s.mu.Unlock()
	if !hooked || c == nil || c.reported || !c.NeedC {
		return true
	}
	if known, _ := s.term.EchoState(); !known {
		return true
	}
	deadline := time.NewTimer(min(timeout, secretWait))
	defer deadline.Stop()
	poll := time.NewTicker(2 * verdict.PollEvery)
	defer poll.Stop()
	for {
		s.mu.Lock()
		_, accepted := s.det.FirstAfter(verdict.MarkCommand, c.SendOff)
		ended := s.det.DoneSince(c.SendOff) > 0 || s.exited || s.closed
		last, ch := s.lastOutput, s.changedLocked()
		s.mu.Unlock()
		if ended {
			return true // the line has run: the secret goes to the prompt, as typed
		}
		if accepted && s.term.WaitsForSecret(last) {
			return true
		}
		select {
		case <-ch:
		case <-poll.C:
		case <-deadline.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}
