package verdict

import (
	"bytes"
	"cmp"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/transport"
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

// ShellQuiet is how long output must be quiet, with the shell owning the
// terminal again, before the shell layer calls a command finished. It only
// applies to shells without ttymux's integration hook.
const ShellQuiet = 50 * time.Millisecond

// ShellQuietBare is the quiet that decides when no program was seen in
// the foreground (a builtin, or a program too short to be seen).
const ShellQuietBare = 300 * time.Millisecond

// echoGrace is how long a terminal gets to echo typed text before ttymux
// decides it does not echo (a password prompt, stty -echo); echoGraceSilent
// when nothing at all has arrived since the send: a far end on a busy
// machine (ssh typed into the session) may take longer than echoGrace to
// echo, and its echo must not be taken for output.
const (
	echoGrace       = 100 * time.Millisecond
	echoGraceSilent = time.Second
)

// PollEvery is how often the foreground process group is checked while the
// shell layer is the one that can decide.
const PollEvery = 5 * time.Millisecond

// A Command is what one Send typed, as far as the verdict needs to know,
// and what the engine derived while waiting on it. The session fills the
// exported fields at the send (under its mutex, with what the detector
// said then); the engine keeps the rest.
type Command struct {
	SendOff int64          // log offset when the text was written
	Sent    time.Time      // when it was written
	Lines   []string       // the typed lines, to recognise their echo
	Until   *regexp.Regexp // nil when the caller gave none
	// AtPrompt: the integrated shell was waiting at its prompt, so it will
	// mark the start of the command's output.
	AtPrompt bool
	// Prompt is the rendered text at the cursor when the text was sent
	// (the prompt the command was typed at, LearnPrompt), or "" when
	// it did not look like a prompt.
	Prompt string
	// With ttymux's hook, the command ends at the DueD-th D mark after
	// SendOff: 1 normally, more when it was typed ahead of commands still
	// running (their D marks come first, and the shell reads this line
	// only then). NeedC: the command is a line typed to the hooked shell,
	// so its own D follows its own C mark; a D with no C before it ends
	// something earlier (or a line the shell did not run: accepted after
	// bareDoneQuiet).
	DueD  int
	NeedC bool
	// NoC: the hook prints no C marks (a POSIX shell's PS1 hook,
	// Detector.NoC): the command's output starts after the echo of what
	// was typed, and its D mark alone ends it.
	NoC bool
	// NoEnter: the send pressed no Enter (text typed without it, keys
	// such as ctrl+u, up or tab). At the hooked shell's prompt nothing
	// runs: its line editor waits for more keys, a human wait.
	NoEnter bool
	// ShellRead is how many bytes the shell had read when the text was
	// typed at its input (Terminal.ShellReadMark), or -1. Without the
	// hook, a shell blocked reading its terminal has run what was typed
	// only once it has read more: on a busy machine the typed line may
	// still wait in the kernel, echoed or not.
	ShellRead int64

	// Derived while waiting.
	Anchor  int64 // start of the command's output; -1 while the echo is still arriving
	Scanned int64 // Until has been tried against output up to here

	// mark matches the sentinel line of a send with mark: true (SetMark);
	// markEcho is how its typed command line appears.
	mark        *regexp.Regexp
	markEcho    string
	markScanned int64
	// echoAfter, when later than Sent, is when the time the terminal has
	// to echo the typed line starts (NoC, typed ahead: when the shell
	// drew the prompt it reads the line at).
	echoAfter time.Time
	// ranProgram: the shell layer saw another program own the terminal.
	ranProgram bool
	// shellBack is when the shell layer last saw the shell take the
	// terminal back (zero while another program owns it).
	shellBack time.Time
}

// NewCommand returns the command for text typed at log offset sendOff at
// time sent, waiting for until (nil for none). typed is the text as the
// far end echoes it, "" for none (keys, a secret). It returns a value, so
// that the session's record can hold it without another allocation.
func NewCommand(sendOff int64, sent time.Time, typed string, until *regexp.Regexp) Command {
	var lines []string
	if typed != "" {
		// The last newline is the Enter that ends the last line; one
		// before it ends an empty line of its own, which a REPL waits for
		// (a blank line ends a block) and echoes.
		lines = strings.Split(strings.TrimSuffix(typed, "\n"), "\n")
	}
	return Command{SendOff: sendOff, Sent: sent, Lines: lines, Until: until, Anchor: -1, Scanned: sendOff, DueD: 1, ShellRead: -1}
}

// bareDoneQuiet is how long output must be quiet after a D mark with no C
// mark before it before that D is taken as the end of a command line the
// hooked shell read but did not run (a syntax error, a comment): the shell
// prints C within milliseconds of reading a line it runs.
const bareDoneQuiet = time.Second

// ownMarks are the hook's marks that belong to a command.
type ownMarks struct {
	earlier, cmd, done       Mark
	earlierOK, cmdOK, doneOK bool
	bare                     bool // done has no C before it
}

// ownMarksIn finds c's marks among det's after its send: the D that
// ends what ran before it (when it was typed ahead), then its own C and D.
// det is held still (inside Source.View).
func ownMarksIn(det *Detector, c *Command) ownMarks {
	var o ownMarks
	due := max(c.DueD, 1)
	n := 0
	for _, m := range det.marks {
		if m.Off < c.SendOff {
			continue
		}
		switch {
		case n < due-1:
			if m.Kind == MarkDone {
				n++
				if n == due-1 {
					o.earlier, o.earlierOK = m, true
				}
			}
		case m.Kind == MarkCommand:
			if !o.cmdOK {
				o.cmd, o.cmdOK = m, true
			}
		case m.Kind == MarkDone:
			o.done, o.doneOK, o.bare = m, true, !o.cmdOK
			return o
		}
	}
	return o
}

// SetMark makes c wait for the sentinel line of the mark command with id
// (see session.Send): "__TTYMUX_MARK_<id>:<status>", alone on its line.
// The line counts only with its newline: output cut after "…:4" may be the
// start of status 42.
func (c *Command) SetMark(id string) {
	c.mark = regexp.MustCompile(`(?m)^__TTYMUX_MARK_` + id + `:(\d+)\r?\n`)
	c.markEcho = "__TTYMUX_ MARK_" + id
}

// A Verdict is what the engine says of a command now.
type Verdict struct {
	Complete bool
	Via      string // the layer that decided (Via…), "" while undecided
	ExitCode *int
	Anchor   int64 // where the command's output starts
	End      int64 // where it ends (exclusive)
	Match    string
	// Earlier: the D mark that ended what ran before a typed-ahead
	// command was seen (EarlierEnd is its offset, EarlierCode its status).
	Earlier     bool
	EarlierEnd  int64
	EarlierCode int
	// Waiting is the state of a terminal that waits for a human
	// (password_prompt, pager …): the wait ended early, not complete. The
	// session's wait sets it from HumanWait.
	Waiting Status
	// HookLost: the hook tracks the command, which started (its C mark),
	// and the shell is back in its line editor with no D mark: the hook
	// is broken. The session drops it and evaluates again.
	HookLost bool
	// Recheck, when not 0, is when to evaluate again although no output
	// or mark comes (to see whether the hook still reports).
	Recheck time.Duration
}

// humanQuiet is how long output must be quiet, after output that came
// since the send, before a terminal that waits for a human ends the wait;
// humanQuietIdle when nothing came since the send (a key the program has
// not answered yet).
const (
	humanQuiet     = 300 * time.Millisecond
	humanQuietIdle = time.Second
)

// HumanWait reports the state of a terminal that waits for a human, once
// output has been quiet long enough, or how long to wait before asking
// again. A running program (a quiet sleep) is not waiting for a human.
func (t *Terminal) HumanWait(c *Command) (Status, time.Duration) {
	// One struct for what the view reads: the closure escapes, and each
	// variable it sets would be an allocation of its own.
	var q struct {
		h              Held
		lastMark       Mark
		hasMark, drawn bool // drawn: the prompt after the last D is drawn (its B mark came)
		prompt         string
	}
	t.Src.View(func(st State) {
		q.h = st.Held
		q.lastMark, q.hasMark = st.Det.Last()
		if c.NoEnter {
			q.prompt = hookPrompt(st)
			if q.hasMark && q.lastMark.Kind == MarkDone {
				_, q.drawn = st.Det.PromptEndAfter(q.lastMark.End)
			}
		}
	})
	h, lastMark, hasMark, prompt, drawn := q.h, q.lastMark, q.hasMark, q.prompt, q.drawn
	last := h.LastOutput
	from, need := last, humanQuiet
	if !last.After(c.Sent) {
		from, need = c.Sent, humanQuietIdle
	}
	if quiet := t.Now().Sub(from); quiet < need {
		return Status{}, need - quiet
	}
	st := t.Classify()
	switch st.State {
	case "password_prompt", "confirm_prompt", "input_prompt":
		if t.onlyEcho(c) {
			// The line that asks is the echo of what was typed
			// ("sleep 1; echo $?"): the command has printed nothing
			// yet, and an echo never asks (issue #30).
			return Status{}, humanQuiet
		}
		if !c.NoEnter && !last.After(c.Sent) {
			// The answer was submitted and the terminal has shown nothing
			// since: the prompt on it is the one answered, and the program
			// has the line: it checks it (sudo's delay) or has not got to
			// it yet (a busy machine). It asks again with output.
			return Status{}, humanQuiet
		}
		return st, 0
	case "pager", "alt_screen":
		return st, 0
	case "running":
		// A full-screen program that draws without the alternate screen
		// (top) hides the cursor while it runs.
		var hidden bool
		t.Src.View(func(st State) { hidden = st.Det.CursorHiddenSince(c.SendOff) })
		if hidden && st.Foreground != "" {
			st.State = "alt_screen"
			return st, 0
		}
	case "repl", "prompt":
		if st.State == "prompt" && c.NoEnter && c.AtPrompt && h.Ready && hasMark && (lastMark.Kind == MarkPromptStart || drawn) {
			// The hooked shell's line editor holds what was typed (or
			// recalled, or edited) and runs nothing until Enter: until
			// and mark cannot match what never runs. Only once the
			// prompt is drawn (a B mark after the last D): before that
			// the shell is still in its prompt hook and the text waits
			// in the terminal, where a following ctrl+u does not reach
			// the line editor.
			st.Unsubmitted = true
			st.Line = pendingLine(st.LastLine, cmp.Or(prompt, c.Prompt))
			return st, 0
		}
		// A prompt at the cursor inside a command the hook tracks (a
		// REPL, a nested shell over SSH), where the prompt layer may not
		// decide because the terminal's echo flag cannot be read to tell
		// a program editing its input line from printed text.
		// Otherwise the prompt layer decides; until and mark, when given,
		// are what the caller waits for.
		if c.Until != nil || c.mark != nil || !isPromptLine(st.LastLine) {
			break
		}
		if known, _ := t.EchoState(); !known && h.Ready && c.AtPrompt && hasMark && lastMark.Kind == MarkCommand {
			return st, 0
		}
	}
	return Status{}, humanQuiet
}

// editorBack reports whether the shell's line editor drew the prompt at
// [at, end): it turned bracketed paste on since from (readline and zle do
// at every prompt), or the prompt is the one the command was typed at.
func (t *Terminal) editorBack(c *Command, from, at, end int64) bool {
	var paste bool
	var b []byte
	t.Src.View(func(st State) {
		paste = st.Det.BracketedPaste() && st.Det.PasteOnAt() >= from
		b, _ = st.Log.AppendRange(nil, at, end)
	})
	if paste {
		return true
	}
	learned := strings.TrimRight(c.Prompt, " ")
	return learned != "" && lastLine(b) == learned
}

// onlyEcho reports whether c typed lines whose echo was found and nothing
// visible has been printed after it.
func (t *Terminal) onlyEcho(c *Command) bool {
	if len(c.Lines) == 0 || c.Anchor < 0 {
		return false
	}
	var end int64
	var b []byte
	t.Src.View(func(st State) {
		end = st.Log.End()
		b, _ = st.Log.AppendRange(nil, c.Anchor, min(end, c.Anchor+4096))
	})
	if c.Anchor+4096 < end {
		return false
	}
	return strings.TrimSpace(strings.Join(reduce.Render(b), "")) == ""
}

// hookPrompt returns the prompt the hooked shell drew last, rendered:
// from its last D mark to the end of that prompt (the B mark), or "" when
// there is none. st is held still (inside Source.View).
func hookPrompt(st State) string {
	for i := len(st.Det.marks) - 1; i >= 0; i-- {
		m := st.Det.marks[i]
		if m.Kind != MarkDone {
			continue
		}
		e, ok := st.Det.PromptEndAfter(m.Off)
		if !ok || e-m.End > 4096 {
			return ""
		}
		b, _ := st.Log.AppendRange(nil, m.End, e)
		lines := reduce.Render(b)
		if len(lines) == 0 {
			return ""
		}
		return lines[len(lines)-1]
	}
	return ""
}

// pendingLine returns what follows the prompt on the shell's last line:
// the line its editor holds. prompt is the one the text was typed at ("" if
// it was not learned: then the whole line).
func pendingLine(last, prompt string) string {
	if p := strings.TrimRight(prompt, " "); p != "" {
		if i := strings.Index(last, p); i >= 0 {
			last = last[i+len(p):]
		}
	}
	return strings.TrimSpace(last)
}

// evalRead is what Evaluate reads with the terminal held still.
type evalRead struct {
	end        int64
	exited     bool
	code       *int
	o          ownMarks
	done       Mark
	doneOK     bool
	cmd        Mark
	cmdOK      bool
	quietFor   time.Duration
	bareWait   bool
	ready      bool
	hookTracks bool
	markRegion []byte
	region     []byte
	markFrom   int64
}

// readEval is the part of Evaluate that reads the log and the detector:
// st is held still (inside Source.View). It updates c's anchor.
func (t *Terminal) readEval(st State, c *Command) evalRead {
	h := st.Held
	end := st.Log.End()
	exited, code := h.Exited, h.ExitCode
	o := ownMarksIn(st.Det, c)
	done, doneOK, cmd, cmdOK := o.done, o.doneOK, o.cmd, o.cmdOK
	quietFor := t.Now().Sub(h.LastOutput)
	bareWait := false
	if doneOK && o.bare && c.NeedC && quietFor < bareDoneQuiet && !exited {
		// A D with no C: the shell has not run this line (yet).
		doneOK, bareWait = false, true
	}
	echoFrom := c.SendOff
	if o.earlierOK {
		echoFrom = o.earlier.End
		if e, ok := st.Det.PromptEndAfter(o.earlier.Off); ok && c.NoC {
			// No C mark will say where its output starts: the echo
			// (a line editor redraws the line typed ahead) comes after
			// the prompt that follows the earlier D, not in it, and
			// only once the shell reads the line: the time to echo
			// counts from the last output, not from the send.
			echoFrom = e
			c.echoAfter = h.LastOutput
		}
	}
	ready := h.Ready
	if cmdOK && c.NeedC && (!doneOK || cmd.Off < done.Off) {
		// Its own C mark: the shell read the line (an anchor found from
		// the echo before the hook was ready gives way to it).
		c.Anchor = max(c.Anchor, cmd.End)
	}
	if c.Anchor < 0 {
		switch {
		case cmdOK && (!doneOK || cmd.Off < done.Off):
			// The hook marked where the command's output starts.
			c.Anchor = cmd.End
		case ready && c.AtPrompt && !doneOK && !exited && !c.NoC:
			// The hook will mark it: wait for C (or D for an empty line).
		case ready && c.DueD > 1 && !o.earlierOK && !exited:
			// Typed ahead: what runs before it has not ended yet.
		default:
			limit := end
			if doneOK {
				limit = done.Off
			}
			c.Anchor = t.echoEnd(st.Log, c, echoFrom, limit, doneOK || exited)
		}
	}
	hookTracks := ready && c.AtPrompt
	var markRegion []byte
	markFrom := c.Anchor
	if c.mark != nil && c.Anchor >= 0 {
		markFrom = max(c.Anchor, c.markScanned-256)
		markRegion, _ = st.Log.AppendRange(nil, markFrom, end)
	}
	var region []byte
	if c.Until != nil && c.Anchor >= 0 {
		from := max(c.Anchor, c.Scanned-4096)
		region, _ = st.Log.AppendRange(nil, from, end)
		if from > c.Anchor {
			// Start at a line boundary so ^ anchors mean what they say.
			if i := bytes.IndexByte(region, '\n'); i >= 0 {
				region = region[i+1:]
			}
		}
	}
	return evalRead{
		end: end, exited: exited, code: code, o: o,
		done: done, doneOK: doneOK, cmd: cmd, cmdOK: cmdOK,
		quietFor: quietFor, bareWait: bareWait, ready: ready, hookTracks: hookTracks,
		markRegion: markRegion, region: region, markFrom: markFrom,
	}
}

// Evaluate applies the verdict layers once, strongest first. poll says
// the foreground must be polled (every PollEvery) because no output or
// mark will announce completion; otherwise the next output, mark or end of
// the session is the time to evaluate again. It updates what c carries from
// one evaluation to the next (its anchor, how far until and mark have
// scanned, what the shell layer saw), so c must not be evaluated by two
// goroutines at once; evaluate a copy to look without waiting.
func (t *Terminal) Evaluate(c *Command) (v Verdict, poll bool) {
	var r evalRead
	t.Src.View(func(st State) { r = t.readEval(st, c) })
	end, exited, code, o := r.end, r.exited, r.code, r.o
	done, doneOK, cmd, cmdOK := r.done, r.doneOK, r.cmd, r.cmdOK
	quietFor, bareWait, ready, hookTracks := r.quietFor, r.bareWait, r.ready, r.hookTracks
	markRegion, region, markFrom := r.markRegion, r.region, r.markFrom

	echoPending := c.Anchor < 0 && !(ready && c.AtPrompt && !doneOK && !exited && !c.NoC)
	v = Verdict{Anchor: c.Anchor, End: end}
	if o.earlierOK {
		v.Earlier, v.EarlierEnd, v.EarlierCode = true, o.earlier.Off, o.earlier.Status
	}
	if v.Anchor < 0 {
		v.Anchor = end
	}
	switch {
	case exited:
		v.Complete, v.Via, v.ExitCode = true, ViaExited, code
		if doneOK {
			v.End = done.Off
		}
		return v, false
	}
	if c.Until != nil && region != nil {
		text := strings.Join(reduce.Render(region), "\n")
		c.Scanned = end
		if loc := c.Until.FindStringIndex(text); loc != nil {
			v.Complete, v.Via, v.Match = true, ViaUntil, text[loc[0]:loc[1]]
			return v, false
		}
	}
	if doneOK {
		// With mark, the sentinel printed before the hook's D has the
		// command's status; the D has the sentinel printf's.
		if c.mark != nil && t.markFound(c, &v, markRegion, markFrom) && v.End < done.Off {
			return v, false
		}
		st := done.Status
		v.Complete, v.Via, v.ExitCode, v.End = true, ViaExitCode, &st, done.Off
		return v, false
	}
	if bareWait {
		return v, true
	}
	if hookTracks && cmdOK && t.Shell {
		// The command started; if the shell is back at its prompt
		// without a D mark, the hook no longer reports.
		lost, again := t.ShellEditsLine(cmd.End, false)
		if lost {
			v.HookLost = true
			return v, false
		}
		v.Recheck = again
	}
	if c.mark != nil {
		// Only the sentinel decides: the prompt between the command and the
		// sentinel's printf must not.
		c.markScanned = end
		if t.markFound(c, &v, markRegion, markFrom) {
			return v, false
		}
		return v, echoPending
	}
	// With the hook tracking the command, only its marks end it: output
	// shaped like the prompt (printf '$ '; sleep 3) must not (issue #13).
	// A program the command started that edits its own input line (a
	// nested shell, a REPL: the terminal's echo is off) draws prompts the
	// hook cannot see, and the prompt layer serves it.
	if c.Anchor >= 0 && c.Anchor < end && (!hookTracks || t.EchoOff()) {
		switch at, ok := t.promptBack(c, end, quietFor); {
		case ok:
			v.Complete, v.Via, v.End = true, ViaPrompt, at
			if hookTracks && cmdOK {
				// The prompt at the cursor after the command's C mark,
				// with no D: when the session's own shell drew it in its
				// line editor (not a program the command started, nor
				// a read -s asking), the hook no longer reports.
				if fg, ok := t.Foreground(); ok && fg.IsShell && t.editorBack(c, cmd.End, at, end) {
					v.HookLost = true
				}
			}
			return v, false
		case at >= 0:
			// A prompt is at the cursor; complete once output stays quiet.
			return v, true
		}
	}
	if !t.Shell || ready {
		return v, echoPending
	}
	// The shell layer: no hook, so ask the kernel who owns the terminal.
	fg, ok := t.Foreground()
	if !ok {
		return v, echoPending
	}
	now := t.Now()
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
	// settled: output has been quiet long enough for the line it ends
	// with. The kernel says the shell reads once it has written
	// everything, but a PTY may deliver the last chunks late on a busy
	// machine ("slept", then its "\r\n" and the prompt): output that does
	// not end the way the shell's prompt does needs the longer quiet
	// (issue #13). Output the kernel holds unread is never settled.
	settled := func() bool {
		if quietFor < ShellQuiet || t.unread() {
			return false
		}
		return quietFor >= ShellQuietBare || !t.unfinishedLine(c, v.Anchor, end)
	}
	if fg.IsShell && c.Anchor >= 0 {
		// The kernel can say whether the shell is blocked reading the
		// terminal, that is, has run everything typed: no guessing from
		// quiet on a busy machine.
		if waiting, ok := t.shellWaits(); ok {
			if waiting && settled() && (c.ranProgram || t.shellReadSince(c.ShellRead)) {
				v.Complete, v.Via, v.End = true, ViaShell, t.promptStart(v.Anchor, end)
				return v, false
			}
			return v, true
		}
	}
	if fg.IsShell && now.Sub(c.Sent) >= ShellQuiet && c.Anchor >= 0 && settled() {
		// The shell owning the terminal is not enough: on a busy machine
		// it may not have started the command yet. Done means: a program
		// ran and the shell is back, or (a builtin) a longer quiet. A
		// prompt at the cursor proves nothing: a shell started just
		// before the send draws its first prompt after the echo.
		at := t.promptStart(v.Anchor, end)
		if c.ranProgram || (quietFor >= ShellQuietBare && now.Sub(c.Sent) >= ShellQuietBare) {
			v.Complete, v.Via, v.End = true, ViaShell, at
			return v, false
		}
	}
	return v, true
}

// markFound looks for mark's sentinel line in region (output from
// offset from) and, when it is there, makes v complete via mark with its
// status, ending where the sentinel starts.
func (t *Terminal) markFound(c *Command, v *Verdict, region []byte, from int64) bool {
	loc := c.mark.FindSubmatchIndex(region)
	if loc == nil {
		return false
	}
	st, _ := strconv.Atoi(string(region[loc[2]:loc[3]]))
	v.Complete, v.Via, v.ExitCode = true, ViaMark, &st
	v.End = from + int64(loc[0])
	if echo := t.markEchoEnd(c, v.End); echo > v.Anchor {
		// A line editor redrew the typed lines (a multi-line paste
		// is echoed, then redrawn): output starts after the last
		// echo of the sentinel's command line.
		v.Anchor = echo
	}
	return true
}

// echoEnd finds where the echo of the typed lines ends in log, scanning
// from the send offset up to limit. It returns -1 while the echo may still
// be arriving. final says no more output will belong to the command. log is
// held still (inside Source.View).
func (t *Terminal) echoEnd(log Log, c *Command, from, limit int64, final bool) int64 {
	pos := from
	if len(c.Lines) == 0 {
		return pos
	}
	b, _ := log.AppendRange(nil, pos, min(limit, pos+64<<10))
	for _, line := range c.Lines {
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
			since := c.Sent
			if c.echoAfter.After(since) {
				since = c.echoAfter
			}
			if final || (pos == from && !echoes(got, want) && t.Now().Sub(since) >= grace) {
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
	if len(c.Lines) > 1 {
		n := skipRedraw(b, c.Lines, final)
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
		return got == "" || len(got) <= maxPrompt && isPromptLine(got)
	}
	if strings.Contains(got, want) {
		return true
	}
	head := want[:min(len(want), 12)]
	tail := want[max(0, len(want)-12):]
	return strings.Contains(got, tail) || strings.HasSuffix(got, head) || strings.Contains(got, head)
}

// unfinishedLine reports whether the output in [from, end) does not end
// the way the shell's prompt does: its last line is not shaped like a
// prompt (a well-known one, or the line the command was typed at, or one
// of its shape after a cd). An empty last line counts as unfinished too:
// a shell with an empty prompt cannot be told from one whose last chunks
// the PTY has not delivered yet.
func (t *Terminal) unfinishedLine(c *Command, from, end int64) bool {
	var b, before []byte
	t.Src.View(func(st State) {
		b, _ = st.Log.AppendRange(nil, max(from, end-1024), end)
		before, _ = st.Log.AppendRange(nil, max(st.Log.Start(), c.SendOff-1024), c.SendOff)
	})
	got := lastLine(b)
	if got == "" {
		return true
	}
	if isPromptLine(got) && !arrowRe().MatchString(got) {
		return false
	}
	for _, p := range []string{strings.TrimRight(c.Prompt, " "), lastLine(before)} {
		if p != "" && (strings.HasSuffix(got, p) || samePromptShape(got, p)) {
			return false
		}
	}
	return true
}

// lastLine returns b's last, unterminated line rendered, without trailing
// spaces: "" when b ends with a newline.
func lastLine(b []byte) string {
	i := bytes.LastIndexByte(b, '\n')
	if i == len(b)-1 {
		return ""
	}
	lines := reduce.Render(b[i+1:])
	if len(lines) == 0 {
		return ""
	}
	return strings.TrimRight(lines[len(lines)-1], " ")
}

// unread reports whether the kernel holds output the session has not read
// yet (transport.Backlog: a local PTY, a serial port).
func (t *Terminal) unread() bool {
	b, ok := t.Conn.(transport.Backlog)
	if !ok {
		return false
	}
	n, err := b.Unread()
	return err == nil && n > 0
}

// promptStart returns where the last, unterminated line of [from, end)
// starts: the prompt the shell drew after the command, which is not part of
// its output.
func (t *Terminal) promptStart(from, end int64) int64 {
	var b []byte
	t.Src.View(func(st State) { b, _ = st.Log.AppendRange(nil, max(from, end-4096), end) })
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
func (t *Terminal) markEchoEnd(c *Command, end int64) int64 {
	var b []byte
	t.Src.View(func(st State) { b, _ = st.Log.AppendRange(nil, c.Anchor, end) })
	i := bytes.LastIndex(b, []byte(c.markEcho))
	if i < 0 {
		return -1
	}
	nl := bytes.IndexByte(b[i:], '\n')
	if nl < 0 {
		return -1
	}
	return c.Anchor + int64(i+nl+1)
}

// MarkEcho returns how the typed command line of a send with mark appears
// in its echo ("" without SetMark).
func (c *Command) MarkEcho() string { return c.markEcho }

// RanProgram reports whether the shell layer saw a program other than the
// shell own the terminal while c ran.
func (c *Command) RanProgram() bool { return c.ranProgram }
