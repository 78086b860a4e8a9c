package session

import (
	"context"
	"fmt"
	"regexp"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/session/verdict"
)

// The state of ttymux's shell hook in a session (bash and zsh started with
// it, a shell integrated on demand). The hook reports once it has printed a
// D mark (s.ready); a C mark alone proves nothing of the D marks a
// command's end depends on. It is found broken when a prompt comes back
// without a D mark (the shell in its line editor, output quiet), when it
// says it could not be installed (an N mark), or when it has not reported
// within Options.ReadyTimeout of the start: s.hookLost says why, the
// session behaves as a shell without the hook (the prompt and shell layers
// decide), and the next result says so once. A later D mark makes it
// report again.

// hookMarksLocked takes the marks the detector found in the last chunk;
// dones is how many D marks it had found before. t.mu must be held.
func (t *terminal) hookMarksLocked(dones int) {
	if t.det.Dones() != dones {
		t.ready, t.hookLost = true, ""
		return
	}
	if r := t.det.NoHook(); r != "" && !t.ready && t.hookLost == "" {
		t.loseHookLocked("is not installed: "+r, "")
	}
}

// hookLive reports whether marks carrying the session's nonce say what the
// shell does: a hook was installed and was not found broken. t.mu must be
// held.
func (t *terminal) hookLive() bool { return t.det.Hooked() && t.hookLost == "" }

// loseHookLocked records that the hook is broken: why ("did not report at
// the first prompt"), and a line the terminal showed that says why, when
// there is one. t.mu must be held.
func (t *terminal) loseHookLocked(why, shown string) {
	t.ready = false
	t.hookLost = why
	if shown != "" {
		t.hookLost += fmt.Sprintf(" (the terminal showed %q)", shown)
	}
	if !t.hookNoted {
		t.hookNote = "ttymux's shell hook " + t.hookLost + ": completion now comes from the prompt and the shell, without exit codes (mark: true on send gives them)"
		t.hookNoted = true
	}
	t.notifyMarkLocked()
}

// takeHookNote returns the note on a broken hook once, then "".
func (s *Session) takeHookNote() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	n := s.hookNote
	s.hookNote = ""
	return n
}

// HookProblem says why the session's shell hook does not report, or ""
// when it does or the session has none.
func (s *Session) HookProblem() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hookLost
}

// hookErrorRe matches a line a shell prints when it cannot run something
// the hook depends on (its own code, PROMPT_COMMAND, PS0, a precmd
// function): "bash: PROMPT_COMMAND: line 1: syntax error near unexpected
// token `;;'", "bash: PS0: unbound variable".
var hookErrorRe = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`(?i)(syntax error|unbound variable|readonly variable|parameter not set|parse error|bad substitution|command not found|__ttymux_)`)
})

// hookErrorLocked returns the last line in [from, end) of the log that
// reads like a shell's error, or "". s.mu must be held.
func (s *Session) hookErrorLocked(from int64) string {
	end := s.ring.End()
	b, _ := s.ring.AppendRange(nil, max(s.ring.Start(), from, end-16<<10), end)
	lines := reduce.Render(b)
	for i := len(lines) - 1; i >= 0; i-- {
		l := strings.TrimSpace(lines[i])
		if hookErrorRe().MatchString(l) && strings.Contains(l, ":") {
			if len(l) > 200 {
				l = l[:200] + "…"
			}
			return l
		}
	}
	return ""
}

// startupMax bounds how long open waits past its ready timeout for a
// shell that is visibly still running its startup files.
const startupMax = 30 * time.Second

// startupGrace is how long open waits for the hook once startup files that
// ran past the ready timeout have ended: the shell is between its rc file
// and its first prompt.
const startupGrace = time.Second

// readyPoll is how often waitReady looks at the shell while its hook has
// not reported.
const readyPoll = 10 * time.Millisecond

// evidenceQuiet is how long output must be quiet after a shell's error
// line, with a prompt-shaped line at the cursor, before a hook on a far
// end whose foreground the session cannot see is taken for broken.
const evidenceQuiet = 300 * time.Millisecond

// waitReady waits until the hook has reported (its first D mark), the
// session ended, or the hook is found broken: its shell at its first
// prompt without the mark, an N mark, or no report within d. It reports
// whether the hook reports. Nothing before the first prompt is a
// command's output.
func (s *Session) waitReady(ctx context.Context, d time.Duration) bool {
	started := time.Now()
	deadline := time.NewTimer(d)
	defer deadline.Stop()
	poll := time.NewTicker(readyPoll)
	defer poll.Stop()
	ctxDone := false
	extended, graced := false, false // past d while the startup files ran; the grace after
	for {
		if _, err := s.sendRemoteFile(); err != nil {
			s.log.Warn("shell integration unavailable", "err", err)
		}
		s.mu.Lock()
		done, lost := s.ready || s.exited || s.hookless, s.hookLost != ""
		ch := s.changedLocked()
		s.mu.Unlock()
		if done {
			break
		}
		// At its first prompt (the shell in its line editor), the hook
		// has reported or never will; a hook that said it is not
		// installed is waited for to that prompt too, so that the
		// first command is not typed before it.
		if atPrompt, _ := s.term.ShellEditsLine(0, true); atPrompt {
			s.mu.Lock()
			if !s.ready && s.hookLost == "" {
				s.loseHookLocked("did not report at the first prompt", s.hookErrorLocked(0))
			}
			s.mu.Unlock()
			break
		}
		if lost {
			if s.term.ShellIdle() {
				break
			}
			if _, ok := s.term.Foreground(); !ok {
				s.waitSettled(ctx, min(d, time.Second))
				break
			}
		} else if s.errorAtPrompt() {
			break
		}
		select {
		case <-ch:
		case <-poll.C:
		case <-deadline.C:
			if s.term.ShellStarting() && time.Since(started) < startupMax {
				// The shell still runs its startup files (conda, nvm, a
				// cold compinit): the hook is not late, the rc file is.
				deadline.Reset(readyPoll)
				extended = true
				continue
			}
			if extended && !graced {
				// The startup files have just ended: the rest of the rc
				// file and the first prompt follow (on a loaded machine
				// the kernel said "waits" there before the shell printed
				// anything); the prompt without a D says "broken" above.
				graced = true
				deadline.Reset(startupGrace)
				continue
			}
			// The shell has printed its first prompt, D mark included,
			// and waits; on a loaded machine the reader may not have
			// taken that output from the kernel yet.
			s.catchUp(ctx)
			s.mu.Lock()
			if !s.ready && !s.exited && s.hookLost == "" {
				s.loseHookLocked(fmt.Sprintf("did not report within %v of the start", d), s.hookErrorLocked(0))
			}
			s.mu.Unlock()
			ctxDone = true
		case <-ctx.Done():
			ctxDone = true
		}
		if ctxDone {
			break
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready || s.hookLost != "" {
		s.readOff = s.ring.End()
	}
	if s.hookLost != "" && s.hookNote != "" {
		s.openNote = joinNote(s.openNote, s.hookNote)
		s.hookNote = ""
	}
	return s.ready
}

// errorAtPrompt, for a far end whose foreground the session cannot see
// (SSH), finds the hook broken when the terminal showed a shell's error
// line and then a prompt-shaped line, quiet for evidenceQuiet.
func (s *Session) errorAtPrompt() bool {
	if _, ok := s.term.Foreground(); ok {
		return false // ShellEditsLine decides
	}
	st := s.classify()
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.ready || s.hookLost != "" || s.now().Sub(s.lastOutput) < evidenceQuiet || st.State != "prompt" {
		return false
	}
	shown := s.hookErrorLocked(0)
	if shown == "" {
		return false
	}
	s.loseHookLocked("did not report at the first prompt", shown)
	return true
}

// hookLostIn records a broken hook that Evaluate found while c ran.
func (s *Session) hookLostIn(c *command) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.ready {
		return
	}
	from := c.SendOff
	if m, ok := s.det.FirstAfter(verdict.MarkCommand, c.SendOff); ok {
		from = m.End
	}
	s.loseHookLocked("stopped reporting: the prompt came back without its mark", s.hookErrorLocked(from))
}
