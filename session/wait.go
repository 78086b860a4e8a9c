package session

import (
	"context"
	"regexp"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
)

// Via values name the layer of the completion verdict that decided,
// strongest first (DESIGN.md, "Is the command finished?"); the engine in
// session/verdict decides.
const (
	ViaExited   = verdict.ViaExited
	ViaUntil    = verdict.ViaUntil
	ViaExitCode = verdict.ViaExitCode
	ViaMark     = verdict.ViaMark
	ViaPrompt   = verdict.ViaPrompt
	ViaShell    = verdict.ViaShell
	ViaTimeout  = verdict.ViaTimeout
)

// A command is what one Send typed: what the verdict engine needs
// (verdict.Command) and how its result is told apart from what ran before
// it. Its fields are guarded by s.mu once it is the session's last
// command.
type command struct {
	verdict.Command

	pre *prerender // its output rendered ahead while it runs (prerender.go)
	// owes is how many D marks the shell prints after SendOff before it
	// has read everything typed so far (this line's own when it submits
	// one): the next send is typed ahead while some are outstanding.
	owes int
	// timedOut: a wait on it ended before it did (a timeout, a cancelled
	// call); text sent next is a command typed ahead.
	timedOut bool
	// earlierFrom is where output not yet returned begins that belongs
	// to what ran before this command (-1: none); for a command typed
	// ahead it runs to the earlier command's D mark.
	earlierFrom int64
	// earlierEcho, when ≥ 0, is where the line of the command typed ahead
	// of was sent before the shell had read it: its echo up to its C mark
	// is not output.
	earlierEcho int64
	// before is what was unread when the command was typed and belongs to
	// an earlier command that had finished, or a note-worthy rest.
	before *Earlier
	// reported: a complete result for this command was returned, and
	// reportedVia what decided it.
	reported    bool
	reportedVia string
	// input: the text was input to a program the shell ran (not a command
	// line for the shell).
	input bool
}

func newCommand(sendOff int64, sent time.Time, typed string, until *regexp.Regexp) *command {
	return &command{Command: verdict.NewCommand(sendOff, sent, typed, until), earlierFrom: -1, earlierEcho: -1}
}

// await waits for c's verdict, at most timeout. tick, when non-nil, is
// called about once a second while waiting (progress notifications).
func (s *Session) await(ctx context.Context, c *command, timeout time.Duration, tick func(elapsed time.Duration)) verdict.Verdict {
	start := s.now()
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	// During a flood, re-evaluating on every chunk costs more than the
	// reading itself, so evaluations on output are at least coalesceEvery
	// apart; marks and the end of the session are acted on at once.
	coalesce := time.NewTimer(time.Hour)
	coalesce.Stop()
	defer coalesce.Stop()
	var poll <-chan time.Time
	var progress <-chan time.Time
	if tick != nil {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		progress = t.C
	}
	var last time.Time
	human := time.NewTimer(time.Hour)
	defer human.Stop()
	for {
		v, changed, marked, needPoll := s.evaluate(c)
		if v.Complete {
			return v
		}
		// A terminal that waits for a human ends the wait after a short
		// quiet: only input can change it (issue #13).
		if w, left := s.term.HumanWait(&c.Command); w.State != "" {
			v.Via, v.Waiting = ViaTimeout, w
			return v
		} else {
			human.Reset(left)
		}
		s.prerender(c)
		last = time.Now()
		if needPoll && poll == nil {
			t := time.NewTicker(verdict.PollEvery)
			defer t.Stop()
			poll = t.C
		}
		var coalesced <-chan time.Time
	wait:
		select {
		case <-changed:
			if d := coalesceEvery - time.Since(last); d > 0 && coalesced == nil {
				coalesce.Reset(d)
				coalesced, changed = coalesce.C, nil
				goto wait
			}
		case <-coalesced:
		case <-human.C:
		case <-marked:
		case <-poll:
		case <-progress:
			tick(s.now().Sub(start))
		case <-deadline.C:
			v, _, _, _ = s.evaluate(c)
			if !v.Complete {
				v.Via = ViaTimeout
			}
			return v
		case <-ctx.Done():
			v.Via = ViaTimeout
			return v
		}
		if coalesced != nil {
			coalesce.Stop()
		}
	}
}

// coalesceEvery is the least time between two evaluations woken by output.
const coalesceEvery = 2 * time.Millisecond

// evaluate asks the engine for c's verdict now. It returns the channels
// closed on the next output and on the next mark (or the end), taken
// before the engine looks, so no change after its look is missed, and
// whether the foreground must be polled because no event will announce
// completion.
func (s *Session) evaluate(c *command) (v verdict.Verdict, changed, marked <-chan struct{}, poll bool) {
	s.mu.Lock()
	changed, marked = s.changedLocked(), s.marked
	s.mu.Unlock()
	v, poll = s.term.Evaluate(&c.Command)
	return v, changed, marked, poll
}
