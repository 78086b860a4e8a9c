package session

import (
	"bytes"
	"context"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
)

// Via values name the layer of the completion verdict that decided, strongest
// first (DESIGN.md, "Is the command finished?").
const (
	ViaExited   = "exited"
	ViaUntil    = "until"
	ViaExitCode = "exit-code"
	ViaMark     = "mark"
	ViaPrompt   = "prompt"
	ViaShell    = "shell"
	ViaTimeout  = "timeout"
)

// shellQuiet is how long output must be quiet, with the shell owning the
// terminal again, before the shell layer calls a command finished. It only
// applies to shells without ttymux's integration hook.
const shellQuiet = 50 * time.Millisecond

// shellQuietBare is the quiet that decides when no program was seen in
// the foreground (a builtin, or a program too short to be seen).
const shellQuietBare = 300 * time.Millisecond

// echoGrace is how long a terminal gets to echo typed text before ttymux
// decides it does not echo (a password prompt, stty -echo); echoGraceSilent
// when nothing at all has arrived since the send: a far end on a busy
// machine (ssh typed into the session) may take longer than echoGrace to
// echo, and its echo must not be taken for output.
const (
	echoGrace       = 100 * time.Millisecond
	echoGraceSilent = time.Second
)

// pollEvery is how often the foreground process group is checked while the
// shell layer is the one that can decide.
const pollEvery = 5 * time.Millisecond

// A command is what one Send typed, as far as the verdict needs to know.
type command struct {
	sendOff int64          // log offset when the text was written
	sent    time.Time      // when it was written
	lines   []string       // the typed lines, to recognise their echo
	until   *regexp.Regexp // nil when the caller gave none
	// atPrompt: the integrated shell was waiting at its prompt, so it will
	// mark the start of the command's output.
	atPrompt bool
	// mark matches the sentinel line of a send with mark: true; markEcho is
	// how its typed command line appears.
	mark        *regexp.Regexp
	markEcho    string
	markScanned int64
	// prompt is the rendered text at the cursor when the text was sent
	// (the prompt the command was typed at), or "" when it did not look
	// like a prompt.
	prompt string

	// Derived while waiting.
	anchor  int64 // start of the command's output; -1 while the echo is still arriving
	scanned int64 // until has been tried against output up to here
	pre     *prerender
	// With ttymux's hook, the command ends at the dueD-th D mark after
	// sendOff: 1 normally, more when it was typed ahead of commands still
	// running (their D marks come first, and the shell reads this line
	// only then). needC: the command is a line typed to the hooked shell,
	// so its own D follows its own C mark; a D with no C before it ends
	// something earlier (or a line the shell did not run: accepted after
	// bareDoneQuiet).
	dueD  int
	needC bool
	// owes is how many D marks the shell prints after sendOff before it
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

	// ranProgram: the shell layer saw another program own the terminal.
	ranProgram bool
	// shellBack is when the shell layer last saw the shell take the
	// terminal back (zero while another program owns it).
	shellBack time.Time
}

func newCommand(sendOff int64, sent time.Time, typed string, until *regexp.Regexp) *command {
	var lines []string
	if typed != "" {
		// The last newline is the Enter that ends the last line; one
		// before it ends an empty line of its own, which a REPL waits for
		// (a blank line ends a block) and echoes.
		lines = strings.Split(strings.TrimSuffix(typed, "\n"), "\n")
	}
	return &command{sendOff: sendOff, sent: sent, lines: lines, until: until, anchor: -1, scanned: sendOff, dueD: 1, earlierFrom: -1, earlierEcho: -1}
}

// bareDoneQuiet is how long output must be quiet after a D mark with no C
// mark before it before that D is taken as the end of a command line the
// hooked shell read but did not run (a syntax error, a comment): the shell
// prints C within milliseconds of reading a line it runs.
const bareDoneQuiet = time.Second

// ownMarks are the hook's marks that belong to a command.
type ownMarks struct {
	earlier, cmd, done       verdict.Mark
	earlierOK, cmdOK, doneOK bool
	bare                     bool // done has no C before it
}

// ownMarksLocked finds c's marks among those after its send: the D that
// ends what ran before it (when it was typed ahead), then its own C and D.
// s.mu must be held.
func (s *Session) ownMarksLocked(c *command) ownMarks {
	var o ownMarks
	due := max(c.dueD, 1)
	n := 0
	for _, m := range s.det.Marks() {
		if m.Off < c.sendOff {
			continue
		}
		switch {
		case n < due-1:
			if m.Kind == verdict.MarkDone {
				n++
				if n == due-1 {
					o.earlier, o.earlierOK = m, true
				}
			}
		case m.Kind == verdict.MarkCommand:
			if !o.cmdOK {
				o.cmd, o.cmdOK = m, true
			}
		case m.Kind == verdict.MarkDone:
			o.done, o.doneOK, o.bare = m, true, !o.cmdOK
			return o
		}
	}
	return o
}

// setMark makes c wait for the sentinel line of the mark command with id
// (see Send): "__TTYMUX_MARK_<id>:<status>", alone on its line. The line
// counts only with its newline: output cut after "…:4" may be the start of
// status 42.
func (c *command) setMark(id string) {
	c.mark = regexp.MustCompile(`(?m)^__TTYMUX_MARK_` + id + `:(\d+)\r?\n`)
	c.markEcho = "__TTYMUX_ MARK_" + id
}

// outcome is the verdict on on a command.
type outcome struct {
	complete bool
	via      string
	exitCode *int
	anchor   int64 // where the command's output starts
	end      int64 // where it ends (exclusive)
	match    string
	// earlier: the D mark that ended what ran before a typed-ahead
	// command was seen (earlierEnd is its offset, earlierCode its status).
	earlier     bool
	earlierEnd  int64
	earlierCode int
	// waiting is the state of a terminal that waits for a human
	// (password_prompt, pager …): the wait ended early, not complete.
	waiting status
}

// await waits for c's verdict, at most timeout. tick, when non-nil, is
// called about once a second while waiting (progress notifications).
func (s *Session) await(ctx context.Context, c *command, timeout time.Duration, tick func(elapsed time.Duration)) outcome {
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
		if v.complete {
			return v
		}
		// A terminal that waits for a human ends the wait after a short
		// quiet: only input can change it (issue #13).
		if w, left := s.humanWait(c); w.state != "" {
			v.via, v.waiting = ViaTimeout, w
			return v
		} else {
			human.Reset(left)
		}
		s.prerender(c)
		last = time.Now()
		if needPoll && poll == nil {
			t := time.NewTicker(pollEvery)
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
			if !v.complete {
				v.via = ViaTimeout
			}
			return v
		case <-ctx.Done():
			v.via = ViaTimeout
			return v
		}
		if coalesced != nil {
			coalesce.Stop()
		}
	}
}

// humanQuiet is how long output must be quiet, after output that came
// since the send, before a terminal that waits for a human ends the wait;
// humanQuietIdle when nothing came since the send (a key the program has
// not answered yet).
const (
	humanQuiet     = 300 * time.Millisecond
	humanQuietIdle = time.Second
)

// humanWait reports the state of a terminal that waits for a human, once
// output has been quiet long enough, or how long to wait before asking
// again. A running program (a quiet sleep) is not waiting for a human.
func (s *Session) humanWait(c *command) (status, time.Duration) {
	s.mu.Lock()
	last := s.lastOutput
	lastMark, hasMark := s.det.Last()
	ready := s.ready
	s.mu.Unlock()
	from, need := last, humanQuiet
	if !last.After(c.sent) {
		from, need = c.sent, humanQuietIdle
	}
	if quiet := s.now().Sub(from); quiet < need {
		return status{}, need - quiet
	}
	st := s.classify()
	switch st.state {
	case "password_prompt", "confirm_prompt", "pager", "alt_screen", "input_prompt":
		return st, 0
	case "running":
		// A full-screen program that draws without the alternate screen
		// (top) hides the cursor while it runs.
		s.mu.Lock()
		hidden := s.det.CursorHiddenSince(c.sendOff)
		s.mu.Unlock()
		if hidden && st.foreground != "" {
			st.state = "alt_screen"
			return st, 0
		}
	case "repl", "prompt":
		// A prompt at the cursor inside a command the hook tracks (a
		// REPL, a nested shell over SSH), where the prompt layer may not
		// decide because the terminal's echo flag cannot be read to tell
		// a program editing its input line from printed text.
		// Otherwise the prompt layer decides; until and mark, when given,
		// are what the caller waits for.
		if c.until != nil || c.mark != nil || !knownPromptRe.MatchString(st.lastLine) {
			break
		}
		if known, _ := s.echoState(); !known && ready && c.atPrompt && hasMark && lastMark.Kind == verdict.MarkCommand {
			return st, 0
		}
	}
	return status{}, humanQuiet
}

// waitNote says what a terminal that waits for a human wants sent.
func waitNote(st status) string {
	switch st.state {
	case "password_prompt":
		return fmt.Sprintf("waiting for a password (%q): send it with secret: true", st.lastLine)
	case "confirm_prompt":
		return fmt.Sprintf("waiting for an answer to %q: send it as text, e.g. yes or no (y or n)", st.lastLine)
	case "pager":
		return `a pager waits: send {"text": "q", "enter": false} to quit, keys ["space"] for the next page, or text "/word" to search`
	case "alt_screen":
		fg := st.foreground
		if fg == "" {
			fg = "a full-screen program"
		}
		return fmt.Sprintf(`%s waits for keys; output is its screen: text is typed as keystrokes (e.g. {"text": ":wq"} in vim), keys press ["esc"] or ["ctrl+c"]`, fg)
	case "input_prompt":
		return fmt.Sprintf("waiting for a line of input after %q: send it as text (secret: true for anything sensitive)", st.lastLine)
	case "repl", "prompt":
		return fmt.Sprintf("a prompt (%q) waits for the next line: send it; until with a pattern for this prompt makes the next wait exact", st.lastLine)
	}
	return ""
}

// coalesceEvery is the least time between two evaluations woken by output.
const coalesceEvery = 2 * time.Millisecond

// evaluate applies the verdict layers once. It returns the channels closed
// on the next output and on the next mark (or the end), and whether the
// foreground must be polled because no event will announce completion.
func (s *Session) evaluate(c *command) (v outcome, changed, marked <-chan struct{}, poll bool) {
	s.mu.Lock()
	end := s.ring.End()
	exited, code := s.exited, s.exitCode
	o := s.ownMarksLocked(c)
	done, doneOK, cmd, cmdOK := o.done, o.doneOK, o.cmd, o.cmdOK
	quietFor := s.now().Sub(s.lastOutput)
	bareWait := false
	if doneOK && o.bare && c.needC && quietFor < bareDoneQuiet && !s.exited {
		// A D with no C: the shell has not run this line (yet).
		doneOK, bareWait = false, true
	}
	echoFrom := c.sendOff
	if o.earlierOK {
		echoFrom = o.earlier.End
	}
	ready := s.ready
	ch, mch := s.changedLocked(), s.marked
	if cmdOK && c.needC && (!doneOK || cmd.Off < done.Off) {
		// Its own C mark: the shell read the line (an anchor found from
		// the echo before the hook was ready gives way to it).
		c.anchor = max(c.anchor, cmd.End)
	}
	if c.anchor < 0 {
		switch {
		case cmdOK && (!doneOK || cmd.Off < done.Off):
			// The hook marked where the command's output starts.
			c.anchor = cmd.End
		case ready && c.atPrompt && !doneOK && !exited:
			// The hook will mark it: wait for C (or D for an empty line).
		case ready && c.dueD > 1 && !o.earlierOK && !exited:
			// Typed ahead: what runs before it has not ended yet.
		default:
			limit := end
			if doneOK {
				limit = done.Off
			}
			c.anchor = s.echoEndLocked(c, echoFrom, limit, doneOK || exited)
		}
	}
	hookTracks := ready && c.atPrompt
	var markRegion []byte
	markFrom := c.anchor
	if c.mark != nil && c.anchor >= 0 {
		markFrom = max(c.anchor, c.markScanned-256)
		markRegion, _ = s.ring.AppendRange(nil, markFrom, end)
	}
	var region []byte
	if c.until != nil && c.anchor >= 0 {
		from := max(c.anchor, c.scanned-4096)
		region, _ = s.ring.AppendRange(nil, from, end)
		if from > c.anchor {
			// Start at a line boundary so ^ anchors mean what they say.
			if i := bytes.IndexByte(region, '\n'); i >= 0 {
				region = region[i+1:]
			}
		}
	}
	s.mu.Unlock()

	echoPending := c.anchor < 0 && !(ready && c.atPrompt && !doneOK && !exited)
	v = outcome{anchor: c.anchor, end: end}
	if o.earlierOK {
		v.earlier, v.earlierEnd, v.earlierCode = true, o.earlier.Off, o.earlier.Status
	}
	if v.anchor < 0 {
		v.anchor = end
	}
	switch {
	case exited:
		v.complete, v.via, v.exitCode = true, ViaExited, code
		if doneOK {
			v.end = done.Off
		}
		return v, ch, mch, false
	}
	if c.until != nil && region != nil {
		text := strings.Join(reduce.Render(region), "\n")
		c.scanned = end
		if loc := c.until.FindStringIndex(text); loc != nil {
			v.complete, v.via, v.match = true, ViaUntil, text[loc[0]:loc[1]]
			return v, ch, mch, false
		}
	}
	if doneOK {
		st := done.Status
		v.complete, v.via, v.exitCode, v.end = true, ViaExitCode, &st, done.Off
		return v, ch, mch, false
	}
	if bareWait {
		return v, ch, mch, true
	}
	if c.mark != nil {
		// Only the sentinel decides: the prompt between the command and the
		// sentinel's printf must not.
		c.markScanned = end
		if loc := c.mark.FindSubmatchIndex(markRegion); loc != nil {
			st, _ := strconv.Atoi(string(markRegion[loc[2]:loc[3]]))
			v.complete, v.via, v.exitCode = true, ViaMark, &st
			v.end = markFrom + int64(loc[0])
			if echo := s.markEchoEnd(c, v.end); echo > v.anchor {
				// A line editor redrew the typed lines (a multi-line paste
				// is echoed, then redrawn): output starts after the last
				// echo of the sentinel's command line.
				v.anchor = echo
			}
			return v, ch, mch, false
		}
		return v, ch, mch, echoPending
	}
	// With the hook tracking the command, only its marks end it: output
	// shaped like the prompt (printf '$ '; sleep 3) must not (issue #13).
	// A program the command started that edits its own input line (a
	// nested shell, a REPL: the terminal's echo is off) draws prompts the
	// hook cannot see, and the prompt layer serves it.
	if c.anchor >= 0 && c.anchor < end && (!hookTracks || s.echoOff()) {
		switch at, ok := s.promptBack(c, end, quietFor); {
		case ok:
			v.complete, v.via, v.end = true, ViaPrompt, at
			return v, ch, mch, false
		case at >= 0:
			// A prompt is at the cursor; complete once output stays quiet.
			return v, ch, mch, true
		}
	}
	if !s.shell || ready {
		return v, ch, mch, echoPending
	}
	// The shell layer: no hook, so ask the kernel who owns the terminal.
	fg, ok := s.foreground()
	if !ok {
		return v, ch, mch, echoPending
	}
	now := s.now()
	if !fg.IsShell {
		c.ranProgram = true
		c.shellBack = time.Time{}
	} else if c.shellBack.IsZero() {
		c.shellBack = now
	}
	// Quiet counts from when the shell took the terminal back too: after
	// "sleep 1; echo x" the output has been quiet for a second when sleep
	// ends, and on a busy machine the shell may take a while to run echo
	// (issue #13).
	if back := now.Sub(c.shellBack); back < quietFor {
		quietFor = back
	}
	if sw, ok := s.conn.(shellWaiter); ok && fg.IsShell && c.anchor >= 0 {
		// The kernel can say whether the shell is blocked reading the
		// terminal, that is, has run everything typed: no guessing from
		// quiet on a busy machine.
		if waiting, err := sw.ShellWaitsForInput(); err == nil {
			if waiting && quietFor >= shellQuiet {
				v.complete, v.via, v.end = true, ViaShell, s.promptStart(v.anchor, end)
				return v, ch, mch, false
			}
			return v, ch, mch, true
		}
	}
	if fg.IsShell && quietFor >= shellQuiet && now.Sub(c.sent) >= shellQuiet && c.anchor >= 0 {
		// The shell owning the terminal is not enough: on a busy machine
		// it may not have started the command yet. Done means: a program
		// ran and the shell is back, or (a builtin) a longer quiet. A
		// prompt at the cursor proves nothing: a shell started just
		// before the send draws its first prompt after the echo.
		at := s.promptStart(v.anchor, end)
		if c.ranProgram || (quietFor >= shellQuietBare && now.Sub(c.sent) >= shellQuietBare) {
			v.complete, v.via, v.end = true, ViaShell, at
			return v, ch, mch, false
		}
	}
	return v, ch, mch, true
}

// shellWaiter is implemented by Conns that can tell whether the session's
// own top-level process is blocked reading the terminal (local PTYs).
type shellWaiter interface {
	ShellWaitsForInput() (bool, error)
}

// echoEndLocked finds where the echo of the typed lines ends, scanning from
// the send offset up to limit. It returns -1 while the echo may still be
// arriving. final says no more output will belong to the command. s.mu must
// be held.
func (s *Session) echoEndLocked(c *command, from, limit int64, final bool) int64 {
	pos := from
	if len(c.lines) == 0 {
		return pos
	}
	b, _ := s.ring.AppendRange(nil, pos, min(limit, pos+64<<10))
	for _, line := range c.lines {
		nl := bytes.IndexByte(b, '\n')
		if nl < 0 {
			// The echo of this line may still be arriving. Decide it is
			// not coming only once the terminal has had time to echo, and
			// only for the first line: once a line was echoed, the rest
			// will be, and until they are the program has not read all
			// that was typed (a REPL shows "... " between the lines of a
			// block).
			got := strings.TrimSpace(strings.Join(reduce.Render(b), ""))
			want := strings.TrimSpace(line)
			grace := echoGrace
			if got == "" {
				grace = echoGraceSilent
			}
			if final || (pos == from && !echoes(got, want) && s.now().Sub(c.sent) >= grace) {
				return pos
			}
			return -1
		}
		got := strings.Join(reduce.Render(b[:nl]), "")
		if !echoes(got, strings.TrimSpace(line)) {
			return pos
		}
		pos += int64(nl + 1)
		b = b[nl+1:]
	}
	if len(c.lines) > 1 {
		n := skipRedraw(b, c.lines, final)
		if n < 0 {
			return -1
		}
		pos += int64(n)
	}
	return pos
}

// skipRedraw returns how many bytes at the start of b redraw typed lines
// that were echoed already, or -1 while such a redraw may still be
// arriving. A line editor shows a multi-line paste, then redraws it when
// it is accepted (bash and psql with readline); the redraw of the first
// line may share a line with the last echo (the editor moves the cursor
// up), the others follow on lines of their own: lines[j:], in order, for
// some j. They are echo, not output, and until must never match them.
func skipRedraw(b []byte, lines []string, final bool) int {
	for j := range lines {
		n := 0
		k := j
		for ; k < len(lines); k++ {
			want := strings.TrimSpace(lines[k])
			nl := bytes.IndexByte(b[n:], '\n')
			if nl < 0 {
				got := strings.TrimSpace(strings.Join(reduce.Render(b[n:]), ""))
				if !final && got != "" && want != "" && (strings.HasPrefix(want, got) || echoes(got, want)) {
					return -1
				}
				break
			}
			if want == "" || !echoes(strings.Join(reduce.Render(b[n:n+nl]), ""), want) {
				break
			}
			n += nl + 1
		}
		if k == len(lines) {
			return n
		}
	}
	return 0
}

// echoes reports whether got, one rendered line of output, can be the echo
// of the typed line want. The echo may follow a prompt and may be redrawn,
// so the test is containment of want's head (for a partial line) or tail.
func echoes(got, want string) bool {
	if want == "" {
		// An empty line echoes as nothing but the prompt it was typed at.
		got = strings.TrimSpace(got)
		return got == "" || len(got) <= maxPrompt && knownPromptRe.MatchString(got)
	}
	if strings.Contains(got, want) {
		return true
	}
	head := want[:min(len(want), 12)]
	tail := want[max(0, len(want)-12):]
	return strings.Contains(got, tail) || strings.HasSuffix(got, head) || strings.Contains(got, head)
}

// promptStart returns where the last, unterminated line of [from, end)
// starts: the prompt the shell drew after the command, which is not part of
// its output.
func (s *Session) promptStart(from, end int64) int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	b, _ := s.ring.AppendRange(nil, max(from, end-4096), end)
	if i := bytes.LastIndexByte(b, '\n'); i >= 0 {
		return end - int64(len(b)-i-1)
	}
	if int64(len(b)) == end-from {
		return from
	}
	return end
}

// markEchoEnd returns the offset just after the line holding the last echo
// of the sentinel's command line before end, or -1.
func (s *Session) markEchoEnd(c *command, end int64) int64 {
	s.mu.Lock()
	b, _ := s.ring.AppendRange(nil, c.anchor, end)
	s.mu.Unlock()
	i := bytes.LastIndex(b, []byte(c.markEcho))
	if i < 0 {
		return -1
	}
	nl := bytes.IndexByte(b[i:], '\n')
	if nl < 0 {
		return -1
	}
	return c.anchor + int64(i+nl+1)
}
