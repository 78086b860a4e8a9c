package session

import (
	"context"
	"github.com/ttymux/ttymux/session/verdict"
	"time"
)

// secretWait bounds how long a secret waits for the program it is for to
// ask; secretQuiet is how long a program other than the shell must have
// been quiet, with the terminal still echoing, before it is taken to read
// with echo on.
const (
	secretWait  = 5 * time.Second
	secretQuiet = 2 * time.Second
)

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
	if !hooked || c == nil || c.reported || !c.needC {
		return true
	}
	if known, _ := s.echoState(); !known {
		return true
	}
	deadline := time.NewTimer(min(timeout, secretWait))
	defer deadline.Stop()
	poll := time.NewTicker(2 * pollEvery)
	defer poll.Stop()
	for {
		s.mu.Lock()
		_, accepted := s.det.FirstAfter(verdict.MarkCommand, c.sendOff)
		ended := s.det.DoneSince(c.sendOff) > 0 || s.exited || s.closed
		last, ch := s.lastOutput, s.changedLocked()
		s.mu.Unlock()
		if ended {
			return true // the line has run: the secret goes to the prompt, as typed
		}
		if accepted && s.waitsForSecret(last) {
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

// waitsForSecret reports whether the terminal, a command running, waits
// for input a secret may answer. last is when output last arrived.
func (s *Session) waitsForSecret(last time.Time) bool {
	if s.echoOff() {
		return true
	}
	if fg, ok := s.foreground(); ok && fg.IsShell {
		if sw, ok := s.conn.(shellWaiter); ok {
			// The kernel knows whether the shell (read) reads.
			if w, err := sw.ShellWaitsForInput(); err == nil {
				return w
			}
		}
	}
	switch s.classify().state {
	case "password_prompt", "input_prompt", "confirm_prompt":
		return true // it asks, in so many words
	}
	return s.now().Sub(last) >= secretQuiet
}
