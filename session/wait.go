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
	// flooding: Options.Flood was told a flood began with this command's
	// prerender, and not yet that the result of the call is built.
	flooding bool
	// owes is how many D marks the shell prints after SendOff before it
	// has read everything typed so far (this line's own when it submits
	// one): the next send is typed ahead while some are outstanding.
	owes int
	// timedOut: a wait on it ended before it did (a timeout, a cancelled
	// call) or nobody waited (wait: false); text sent next while it runs
	// is a command typed ahead, unless the terminal says a program asks.
	timedOut bool
	// submits: the send pressed Enter (a line the shell may run).
	submits bool
	// breakAtPrompt: the send pressed ctrl+c while the hooked shell sat
	// at its prompt: the next send waits for the shell's answer
	// (awaitInterrupt).
	breakAtPrompt bool
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
	// evals counts await's evaluations of it (tests: EvaluationsOfLast).
	evals int
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
	// reading itself, so evaluations on output are spaced (coalesceFor);
	// marks and the end of the session are acted on at once.
	began := time.Now() // s.now may be a test's clock; the spacing is real time
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
	hookT := time.NewTimer(time.Hour)
	hookT.Stop()
	defer hookT.Stop()
	for {
		v, changed, marked, needPoll := s.evaluate(c)
		s.mu.Lock()
		c.evals++
		s.mu.Unlock()
		if v.HookLost {
			// The prompt came back without the hook's D mark: the
			// session goes on without the hook (hook.go), and the
			// lower layers decide.
			s.hookLostIn(c)
			continue
		}
		if v.Recheck > 0 {
			hookT.Reset(v.Recheck)
		}
		var recheck time.Duration
		if v.Complete {
			// Text taken as input to a running program may have been read
			// by the shell as a command line once that program ended.
			switch d, retyped := s.inputRunAsCommand(c, v); {
			case retyped:
				continue
			case d > 0:
				recheck = d
			default:
				return v
			}
		} else if s.settleOwed(c) {
			continue
		}
		if recheck > 0 {
			human.Reset(recheck)
		} else if w, left := s.term.HumanWait(&c.Command); w.State != "" {
			// A terminal that waits for a human ends the wait after a
			// short quiet: only input can change it (issue #13).
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
			if d := coalesceFor(last.Sub(began)) - time.Since(last); d > 0 && coalesced == nil {
				coalesce.Reset(d)
				coalesced, changed = coalesce.C, nil
				goto wait
			}
		case <-coalesced:
		case <-human.C:
		case <-hookT.C:
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

// owedQuiet is how long the hooked shell must have been idle at its
// prompt before D marks still counted for lines typed earlier are taken as
// never coming: the program that ran read those lines as its input. The
// shell reads a line typed ahead within milliseconds of its prompt (as
// verdict's bare D rule assumes).
const owedQuiet = time.Second

// inputHold is how long the end of a command that text was sent to as its
// input must be followed by quiet before the text is taken as read by that
// command: a shell that finds the text still unread runs it at once, and
// its C mark says so.
const inputHold = 150 * time.Millisecond

// settleOwed corrects c when the hooked shell sits idle at its prompt while
// c still waits for D marks counted for lines the shell never got (they
// went to the program that ran, cat say): c ends at the last D there is,
// and a line c typed ahead was that program's input. It reports whether c
// changed.
func (s *Session) settleOwed(c *command) bool {
	// The log first: while a command runs (a flood re-evaluates every
	// 2 ms) it has no D mark yet, and the foreground costs system calls.
	if !s.owesQuietly(c) {
		return false
	}
	if fg, ok := s.foreground(); ok && !fg.IsShell {
		return false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.owesQuietlyLocked(c) {
		return false
	}
	n := s.det.DoneSince(c.SendOff)
	if c.NeedC {
		if !c.submits {
			return false // its line waits in the shell's line editor
		}
		c.NeedC, c.AtPrompt, c.Anchor, c.input = false, false, -1, true
	}
	c.DueD, c.owes = n, n
	return true
}

// owesQuietly reports whether c waits for D marks the hooked shell, idle
// at its prompt for owedQuiet, may never print (settleOwed).
func (s *Session) owesQuietly(c *command) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.owesQuietlyLocked(c)
}

func (s *Session) owesQuietlyLocked(c *command) bool {
	if !s.det.Hooked() || !s.ready || s.exited {
		return false
	}
	last, ok := s.det.Last()
	n := s.det.DoneSince(c.SendOff)
	return ok && last.Kind != verdict.MarkCommand && n >= 1 && n < c.DueD && s.now().Sub(latest(s.lastOutput, c.Sent)) >= owedQuiet
}

// latest returns the later of a and b.
func latest(a, b time.Time) time.Time {
	if a.After(b) {
		return a
	}
	return b
}

// inputRunAsCommand checks the end of c, text sent as input to a running
// program, at the D mark v ends it with: when the hooked shell starts a
// command right after that D, the program never read the text and the
// shell ran it (a program that reads no input, sleep say): c becomes a
// command typed ahead, whose earlier part runs to that D, and retyped is
// true. It returns how long to wait before looking again while the shell
// may still start it, or 0 when c ends at v.
func (s *Session) inputRunAsCommand(c *command, v verdict.Verdict) (wait time.Duration, retyped bool) {
	if !c.input || c.NeedC || !c.submits || v.Via != ViaExitCode {
		return 0, false
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.det.Hooked() || s.exited {
		return 0, false
	}
	// The first C or D after the one that ends c.
	var next verdict.Mark
	found := false
	for _, m := range s.det.Marks() {
		if m.Off > v.End && (m.Kind == verdict.MarkCommand || m.Kind == verdict.MarkDone) {
			next, found = m, true
			break
		}
	}
	switch {
	case found && next.Kind == verdict.MarkCommand:
		c.DueD, c.NeedC, c.AtPrompt, c.Anchor, c.input = c.DueD+1, true, true, -1, false
		c.owes++
		c.earlierFrom = c.SendOff
		return 0, true
	case found:
		return 0, false
	}
	if q := s.now().Sub(s.lastOutput); q < inputHold {
		return inputHold - q, false
	}
	return 0, false
}

// coalesceEvery is the least time between two evaluations woken by output.
const coalesceEvery = 2 * time.Millisecond

// coalesceMax is the most coalesceFor spaces them.
const coalesceMax = 20 * time.Millisecond

// coalesceFor is the least time between two evaluations woken by output
// once a command has been waited for for waited: coalesceEvery at first,
// then a 32nd of the wait, at most coalesceMax. Each evaluation during a
// flood costs two wake-ups (the output's, then the spacing timer's), and
// on a 2-core machine those cost more than the evaluation: at 2 ms apart
// `seq 1 1000000` (0.7 s) was evaluated 350 times and its in-process
// server ran a quarter more CPU than at 20 ms (docs/performance.md, issue
// #37's seq). A verdict that only output gives (a prompt pattern without
// the hook, until) comes at most a 32nd of the wait late; the hook's
// marks and the end of the session wake the wait at once.
func coalesceFor(waited time.Duration) time.Duration {
	return min(max(coalesceEvery, waited/32), coalesceMax)
}

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
