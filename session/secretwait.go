package session

import (
	"context"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
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

// SecretRefusedError says why a secret from the human would not be typed:
// the terminal would show it, or a program that is not a password reader
// would get it (base64 -w0 reads it with echo on and prints it encoded).
type SecretRefusedError struct{ Why string }

func (e *SecretRefusedError) Error() string {
	return "ask_secret refused, nothing was typed: " + e.Why + ". ask_secret types only at a password prompt (echo off): run the command that asks for the password first (sudo …, ssh …, read -rs), then ask_secret"
}

// secretStates are the states in which a terminal with echo off takes a
// secret: a program asks (a password or line prompt) or runs and reads.
// At the shell's prompt (readline keeps echo off and draws the line
// itself), in a pager, a REPL or a full-screen program, echo off does not
// hide what is typed.
var secretStates = map[string]bool{"password_prompt": true, "input_prompt": true, "running": true}

// SecretTarget waits (at most wait) until the terminal would take a secret
// without showing it, and returns nil; else a *SecretRefusedError. Where the
// PTY's ECHO flag can be read (local and agent PTYs) it must be off while a
// program reads; elsewhere (SSH, serial) the state must be
// password_prompt. A program that turns echo off and then prints what it
// read (stty -echo; base64) is not caught: docs/security.md says so.
func (s *Session) SecretTarget(ctx context.Context, wait time.Duration) error {
	deadline := time.NewTimer(wait)
	defer deadline.Stop()
	poll := time.NewTicker(2 * verdict.PollEvery)
	defer poll.Stop()
	for {
		err := s.secretTargetNow()
		if err == nil {
			return nil
		}
		s.mu.Lock()
		ch := s.changedLocked()
		s.mu.Unlock()
		select {
		case <-ch:
		case <-poll.C:
		case <-deadline.C:
			return err
		case <-ctx.Done():
			return err
		}
	}
}

func (s *Session) secretTargetNow() error {
	st := s.term.Classify()
	known, off := s.term.EchoState()
	what := "the terminal"
	if st.Foreground != "" {
		what = st.Foreground
	}
	switch {
	case st.State == "exited":
		return &SecretRefusedError{Why: "the session has ended"}
	case !known && st.State != "password_prompt":
		return &SecretRefusedError{Why: "the terminal is at " + st.State + ", not at a password prompt"}
	case !known:
		return nil
	case !off:
		return &SecretRefusedError{Why: what + " echoes what is typed (the terminal's echo is on), so the secret would be shown and could be read back"}
	case !secretStates[st.State]:
		return &SecretRefusedError{Why: "the terminal is at " + st.State + ", where a secret is typed as visible input"}
	}
	return nil
}
