package session

import (
	"cmp"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/session/screen"
	"github.com/ttymux/ttymux/transport"
)

// Limits on what one call may type or wait for.
const (
	MaxSendBytes   = 1 << 20 // text larger than this is refused: write a file instead
	DefaultTimeout = 30 * time.Second
	MaxTimeout     = 10 * time.Minute
	maxRangeLines  = 2000
	maxRangeBytes  = 512 << 10
)

// SendRequest is what Send types and how it waits.
type SendRequest struct {
	Text    string
	Keys    []string
	Enter   bool // press Enter after Text (ignored when Text is empty)
	Secret  bool // Text is a secret: never logged, redacted from results
	Wait    bool
	Until   string
	Timeout time.Duration
	// lineChecked: the line this send submits was read from the shell's
	// line editor and checked (editline.go).
	lineChecked bool
	// Mark appends a sentinel command that reports the exit status, for
	// POSIX shells ttymux has no hook in (nested, remote, serial).
	Mark bool
	// Integrate types ttymux's hook into the bash, zsh or POSIX shell
	// (mksh, dash; a D mark in PS1) now at the prompt
	// (one typed into the session: ssh host, docker exec, su), after which
	// its commands come back with exit codes.
	Integrate bool
	// Paste sends Text as a bracketed paste even to a program on the
	// alternate screen, which otherwise gets it as typed keys (vim, less,
	// htop: a command letter must act, not become text).
	Paste bool
	// Raw types Text byte for byte and returns output bytes untouched.
	// Without it, control characters other than tab, newline and carriage
	// return are removed from Text (see neutralise).
	Raw bool
	// Progress, when set, is called about once a second while waiting.
	Progress func(elapsed time.Duration, fg string)
	// Bytes are typed as they are after Text (send's hex): no control
	// character removed, no line ending changed (hexread.go). Pacing, when
	// set, overrides the session's (pacing.go).
	Bytes  []byte
	Pacing *Pacing
}

// Result is what Send and Read return. Field names are part of the MCP
// contract (DESIGN.md); what the model reads about each is written in
// cmd/ttymux (resultDocs), not here.
type Result struct {
	SessionID    string     `json:"session_id,omitempty"`
	Earlier      *Earlier   `json:"earlier,omitempty"`
	Output       string     `json:"output"`
	OutputBase64 string     `json:"output_base64,omitempty"`
	Complete     bool       `json:"complete"`
	Via          string     `json:"via,omitempty"`
	ExitCode     *int       `json:"exit_code,omitempty"`
	State        string     `json:"state,omitempty"`
	Foreground   string     `json:"foreground,omitempty"`
	Mode         string     `json:"mode,omitempty"`
	Match        string     `json:"match,omitempty"`
	Offset       int64      `json:"offset,omitempty"`
	NextOffset   int64      `json:"next_offset,omitempty"`
	FirstLine    int64      `json:"first_line,omitempty"`
	LastLine     int64      `json:"last_line,omitempty"`
	Gap          int64      `json:"gap,omitempty"`
	Reduction    *Reduction `json:"reduction,omitempty"`
	Cursor       *Cursor    `json:"cursor,omitempty"`
	ElapsedMS    int64      `json:"elapsed_ms,omitempty"`
	Note         string     `json:"note,omitempty"`
	// Hints say what the model should do next, as facts; cmd/ttymux
	// words them into Note.
	Hints []Hint `json:"-"`
}

// Earlier is output that arrived before a command's own and was never
// returned: the rest of a command still running when the next was typed
// ahead (with its exit code once it ended), a background job's lines, the
// output of a send without wait. Nothing unread is dropped silently.
type Earlier struct {
	Output   string `json:"output"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Via      string `json:"via,omitempty"`
	Gap      int64  `json:"gap,omitempty"`
}

// Reduction says what output reduction did.
type Reduction struct {
	RawBytes  int      `json:"raw_bytes"`
	RawLines  int      `json:"raw_lines"`
	Lines     int      `json:"lines"`
	Bytes     int      `json:"bytes"`
	Elided    int64    `json:"elided_lines,omitempty"`
	Collapsed int64    `json:"collapsed_lines,omitempty"`
	Cut       int      `json:"cut_lines,omitempty"`
	Notes     []string `json:"notes,omitempty"`
	Reducer   string   `json:"reducer,omitempty"`
	Dropped   int64    `json:"dropped_lines,omitempty"`
}

// Cursor is the cursor position on the rendered screen, 1-based.
type Cursor struct {
	Row int `json:"row"`
	Col int `json:"col"`
}

// Send types text and keys into the session and, when asked, waits for the
// verdict and returns the command's output. It reads top to bottom as its
// steps: check the request, gate it, look at the terminal, compose the
// bytes and the situation they land in (under s.mu, once), type them,
// record the command, and return at once or wait for its verdict.
//
// The bytes: composeSend encodes the request (composeStepsLocked, input.go),
// typeSteps and typeBytes (input.go) type it, and terminal.write
// (terminal.go) puts it on the wire.
//
// Locks: the input's sendMu is held from the second gate to the end, so two
// sends never interleave; the terminal's s.mu only inside the helpers that
// say so (each takes and releases it itself, never across I/O).
func (s *Session) Send(ctx context.Context, req SendRequest) (Result, error) {
	if err := s.checkInput(req); err != nil { // serialpolicy.go
		return Result{}, err
	}
	if err := s.lateRemoteFile(ctx); err != nil { // remote.go
		return Result{}, err
	}
	opts, err := s.checkSend(&req)
	if err != nil {
		return Result{}, err
	}
	// personline.go: what a person left on the line is cleared or refused
	// before anything of this send is typed or judged.
	if err := s.personLineCheck(ctx, req); err != nil {
		return Result{}, err
	}
	switch pre, rest, ok, unknown := s.splitEditedSubmit(req); {
	case ok:
		return s.sendEdited(ctx, pre, rest) // editline.go: the line that runs is checked
	case unknown != "":
		return Result{}, s.unknownLine(unknown)
	}
	// What the gate reads: the text, and bytes given in hex after it.
	line := req.Text + string(req.Bytes)
	// Refuse at once, without waiting for another send to finish; a held
	// line is put to the Approver below, under the input lock.
	held, err := s.judge(OpSend, line, req.Secret)
	if err != nil {
		return Result{}, err
	}

	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	// The gate sees the whole line the shell will run: what earlier sends
	// typed without Enter, then this text (or, lineChecked, the line read
	// from the shell's editor was judged instead); the Approver is asked
	// while nothing else can be typed.
	switch {
	case req.lineChecked:
	case s.pending != "":
		err = s.gate(ctx, s.pending+line, req.Secret)
	case held != nil:
		err = s.settle(ctx, held)
	}
	if err != nil {
		return Result{}, err
	}
	if req.Secret && req.Text != "" && !s.awaitSecretPrompt(ctx, opts.timeout) {
		// secretwait.go: typed when the program asks, as a human would.
		opts.notes = append(opts.notes, "the command typed before this secret had not asked for input yet (the terminal still echoed); the secret was typed anyway and is masked in results")
	}
	if text := strings.TrimRight(req.Text, "\r\n"); strings.Contains(text, "\n") || req.Mark && text != "" && sentinelOwnLine(text) {
		s.awaitLineEditor(ctx) // the text, or the text and mark's sentinel, is several lines
	}
	s.awaitInterrupt(ctx) // interrupt.go: a ctrl+c at the prompt is answered first
	s.catchUp(ctx)        // backlog.go: output made before this send is not its own
	s.skipPendingPrompt(ctx)
	// A query the far end made (BusyBox ash asks for the cursor after
	// every prompt) is answered before the text is typed, as a terminal
	// would have: typed after, the answer goes to the command.
	s.scr.AwaitAnswers(ctx, catchUpMax)
	look := s.lookBeforeSend()
	ty, err := s.composeSend(req, look)
	if err != nil {
		return Result{}, err
	}
	start := s.now()
	notes, err := s.typeSteps(ctx, req, ty.steps)
	opts.notes = append(opts.notes, notes...)
	if err != nil {
		return Result{}, err
	}
	s.followInterrupt(ctx, ty, look) // interrupt.go
	s.trackPending(req, ty.lineDone)
	s.scanHuman(ty.sendOff) // human.go: a person's lines before this send
	c := s.sentCommand(req, &opts, look, ty, start)
	if !req.Wait {
		return s.resultNow(c, ty.sendOff, start, req, opts.notes), nil
	}
	return s.waitResult(ctx, c, start, req, opts)
}

// sendOpts is what checkSend makes of a request.
type sendOpts struct {
	until   *regexp.Regexp
	timeout time.Duration
	notes   []string // for the result
}

// checkSend validates req and normalises it in place: integrate becomes
// the hook's text, control characters leave text unless raw.
func (s *Session) checkSend(req *SendRequest) (sendOpts, error) {
	var o sendOpts
	if req.Integrate {
		if req.Text != "" || req.Mark {
			return o, errors.New("integrate types ttymux's hook on its own: send it without text or mark, then send your commands")
		}
		req.Text, req.Enter = s.nestedHook(), true
	}
	if req.Text == "" && len(req.Keys) == 0 && len(req.Bytes) == 0 {
		return o, errors.New(`nothing to send: give text (a command line) or keys (e.g. ["ctrl+c"] or ["enter"])`)
	}
	if len(req.Text) > MaxSendBytes {
		return o, fmt.Errorf("text is %d bytes, over the %d-byte limit for one send; write large content to a file (e.g. with a heredoc in several sends) or split it", len(req.Text), MaxSendBytes)
	}
	var err error
	if o.until, err = compileUntil(req.Until); err != nil {
		return o, err
	}
	if o.timeout, err = clampTimeout(req.Timeout); err != nil {
		return o, err
	}
	if !req.Raw {
		var removed int
		if req.Text, removed = neutralise(req.Text); removed > 0 {
			o.notes = append(o.notes, fmt.Sprintf("%d control characters (escape sequences, ^C, NUL …) were removed from text and not typed; press keys with keys (e.g. [\"esc\"], [\"ctrl+c\"]), or pass raw: true to type text byte for byte", removed))
			if req.Text == "" && len(req.Keys) == 0 && len(req.Bytes) == 0 {
				return o, errors.New(`text holds only control characters, which are not typed from text: send them as keys (e.g. ["esc"] or ["ctrl+c"]), or pass raw: true`)
			}
		}
	}
	return o, nil
}

// sendLook is what the terminal is doing before a send: it decides
// whether text is input to a running program or a command line typed ahead
// of it. Gathered without s.mu held (the screen, the Conn and evaluate
// take their own locks).
type sendLook struct {
	alt     bool // the alternate screen is up
	st      verdict.Status
	echoOff bool
	fg      transport.Foreground
	fgOK    bool
	prev    command // a copy of the last command, whose result was not returned
	hasPrev bool
	pv      verdict.Verdict // prev's verdict now
}

func (s *Session) lookBeforeSend() sendLook {
	l := sendLook{alt: s.scr.AltScreen(), st: s.classify()}
	// classify read the foreground and the echo flag already.
	l.echoOff, l.fg, l.fgOK = l.st.EchoOff, l.st.FG, l.st.FGOK
	s.mu.Lock()
	l.hasPrev = s.cmd != nil && !s.cmd.reported
	if l.hasPrev {
		l.prev = *s.cmd
		l.prev.pre, l.prev.Until = nil, nil
	}
	s.mu.Unlock()
	if l.hasPrev {
		l.pv, _, _, _ = s.evaluate(&l.prev)
	}
	return l
}

// typing is what composeSend decided: the steps to type, and where they
// land, read under one hold of s.mu.
type typing struct {
	steps    []sendStep
	typed    string // the text as the shell will echo it ("" for none)
	markID   string // the sentinel's id, with mark
	lineDone bool   // the typed line is submitted or discarded
	submits  bool   // the send presses Enter
	// enters is how many lines the send submits: each Enter it presses
	// (text's own, keys enter, ctrl+m or ctrl+j, a carriage return or
	// newline in text or hex typed as keys rather than pasted). A hooked
	// shell ends each line with a D mark of its own, an empty one too.
	enters int
	// breaks is how many ctrl+c the send presses: at the hooked shell's
	// prompt a ctrl+c ends the line being edited with a D mark (bash and
	// zsh run their prompt hook again), and bash discards what was typed
	// with it, lines before and after included: one mark in all.
	breaks int

	sendOff   int64 // the output offset when typed
	atPrompt  bool
	prompt    string
	input     bool // input to a running program, not a command line
	ready     bool
	owed      int // D marks the hooked shell prints before it reads this text
	readOff   int64
	oldPrompt string
	shellRead int64 // verdict.Command.ShellRead
	noC       bool  // the hook prints no C marks (verdict.Command.NoC)
}

// composeSend turns the request into steps and reads the situation they
// are typed into, holding s.mu for the whole of it. It fails when the
// session is closed or ended, or a key is unknown.
func (s *Session) composeSend(req SendRequest, look sendLook) (typing, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var ty typing
	if s.closed {
		return ty, fmt.Errorf("session %s was closed; open a new one", s.id)
	}
	if s.exited {
		return ty, fmt.Errorf("session %s has ended (%s); its output is still readable with read, but to run commands open a new session", s.id, describeExit(s.exitCode, s.exitErr))
	}
	steps, err := s.composeStepsLocked(req, look.alt, &ty)
	if err != nil {
		return ty, err
	}
	ty.steps = steps
	if req.Secret && req.Text != "" {
		s.secrets = append(s.secrets, req.Text)
		s.rec.AddSecret(req.Text)
	}
	ty.sendOff = s.ring.End()
	ty.shellRead = -1
	if s.shell && !s.ready {
		ty.shellRead = s.term.ShellReadMark() // only the shell layer asks
	}
	live := s.hookLive() // hook.go: the marks say what the shell does
	last, ok := s.det.Last()
	ok = ok && live
	ty.atPrompt = ok && last.Kind != verdict.MarkCommand
	ty.prompt = verdict.LearnPrompt(s.ring)
	// Echo off while a command runs: a program edits its own input line
	// (a nested shell, a REPL); at the hook's prompt it is the shell's
	// own line editor.
	inCommand := ok && last.Kind == verdict.MarkCommand
	ty.input = req.Secret || req.Text == "" || req.Integrate || look.echoOff && (inCommand || !live) || look.st.WaitsForInput(inCommand)
	if p := s.cmd; p != nil && inCommand && (p.reportedVia == ViaPrompt || p.reportedVia == ViaMark) {
		// The program that drew the prompt that ended the last command
		// (a nested shell, a REPL) still runs: this is its input too.
		ty.input = true
	}
	ty.ready = s.ready
	ty.noC = s.det.NoC()
	// owed: D marks the hooked shell will print before it reads this
	// text, for commands still running (or its first prompt).
	if live {
		switch {
		case !s.ready && !ok:
			ty.owed = 1
		case s.cmd != nil:
			ty.owed = max(s.cmd.owes-s.det.DoneSince(s.cmd.SendOff), 0)
			if ty.owed == 0 && ok && last.Kind == verdict.MarkCommand {
				ty.owed = 1 // human.go: a command not sent here runs (a person's)
			}
		case ok && last.Kind == verdict.MarkCommand:
			ty.owed = 1
		}
	}
	if ty.owed > 0 && s.cmd != nil && look.fgOK && look.fg.IsShell && ok && last.Kind != verdict.MarkCommand && s.now().Sub(latest(s.lastOutput, s.cmd.Sent)) >= owedQuiet {
		// The shell is back at its prompt and has been idle since the
		// last send too: the marks still counted for lines typed earlier
		// will never come (the program that ran read them as its input,
		// cat say). Quiet since output alone is not enough: on a busy
		// machine the last send's own echo and mark may not have come
		// yet.
		ty.owed = 0
	}
	if ty.owed > 0 && !ty.input && look.fgOK && look.fg.Pgid != 0 && !look.fg.IsShell && (s.cmd == nil || !s.cmd.timedOut && !s.cmd.reported) {
		// A program runs that an earlier server started: text typed now
		// is taken as its input (cat, a script asking without a
		// prompt). After a send that timed out or was sent without
		// wait, text is a command typed ahead (issue #13), as it is
		// after a complete result (what runs then is the shell's own:
		// a prompt hook, a line submitted by an extra Enter); await
		// corrects either guess from the marks that follow.
		ty.input = true
	}
	ty.submits = ty.enters > 0
	ty.readOff = s.readOff
	if s.cmd != nil {
		ty.oldPrompt = s.cmd.Prompt
	}
	return ty, nil
}

// sentCommand makes the command this send typed, with what ran before it
// and was not returned (issue #13: results belong to their command), makes
// it the session's last command and stores that with a keeper.
func (s *Session) sentCommand(req SendRequest, opts *sendOpts, look sendLook, ty typing, start time.Time) *command {
	typed := ty.typed
	if req.Secret {
		typed = "" // its echo, if any, is redacted; never match against it
	}
	c := newCommand(ty.sendOff, start, typed, opts.until)
	c.AtPrompt, c.Prompt = ty.atPrompt, ty.prompt
	c.ShellRead = ty.shellRead
	c.NoC = ty.noC
	c.NoEnter = !ty.submits && !strings.ContainsAny(string(req.Bytes), "\r\n") // verdict: an unsubmitted line is a human wait
	if ty.markID != "" {
		c.SetMark(ty.markID)
	}
	prev, hasPrev, pv := look.prev, look.hasPrev, look.pv
	readOff, sendOff, owed := ty.readOff, ty.sendOff, ty.owed
	var parts []*Earlier
	if hasPrev && readOff < prev.SendOff {
		// Unread output from before the earlier command was typed.
		parts = append(parts, s.renderEarlier(readOff, prev.SendOff, nil, ty.oldPrompt))
		readOff = prev.SendOff
	}
	switch {
	case owed > 0 && !ty.input:
		// Typed ahead: the shell reads it once what runs has ended.
		c.DueD, c.NeedC, c.AtPrompt = owed+1, !ty.noC, true
		c.owes = owed + ty.enters
		c.earlierFrom = readOff
		switch {
		case hasPrev && prev.Anchor < 0:
			// Its line may not be read yet: its output starts at its C.
			c.earlierEcho = max(readOff, prev.SendOff)
		case hasPrev && prev.Anchor > readOff && prev.Anchor <= sendOff:
			c.earlierFrom = prev.Anchor
		}
	case owed > 0:
		// Input to the running command; its D mark ends this one too.
		c.DueD, c.AtPrompt, c.owes = owed, false, owed
		var echo []string // the echo of an earlier line nobody waited on is not news
		if hasPrev {
			echo = prev.Lines
		}
		parts = append(parts, s.renderEarlier(readOff, sendOff, echo, ""))
	case hasPrev && pv.Complete:
		// The earlier command finished without its result returned.
		from := max(readOff, pv.Anchor)
		e := s.renderEarlier(from, min(pv.End, sendOff), nil, "")
		if e == nil {
			e = &Earlier{}
		}
		e.ExitCode, e.Via = pv.ExitCode, pv.Via
		parts = append(parts, e, s.renderEarlier(max(from, min(pv.End, sendOff)), sendOff, nil, cmp.Or(ty.prompt, ty.oldPrompt)))
	case hasPrev:
		// No hook: the earlier command still runs, and what follows
		// may be its output or this one's.
		from := readOff
		if pv.Anchor > readOff && pv.Anchor <= sendOff {
			from = pv.Anchor
		}
		parts = append(parts, s.renderEarlier(from, sendOff, nil, ""))
		if !ty.input {
			opts.notes = append(opts.notes, "an earlier command was still running when this text was typed (its output so far is in earlier); without ttymux's shell hook the output below may be that command's as well as this one's")
		}
	default:
		// Output since the last result: a background job, say.
		parts = append(parts, s.renderEarlier(readOff, sendOff, nil, cmp.Or(ty.prompt, ty.oldPrompt)))
	}
	c.input = owed > 0 && ty.input
	if owed == 0 {
		// The hooked shell is at its prompt: every line the send submits
		// ends with a D mark, an empty one too (text and keys ["enter"]
		// submit two); a ctrl+c there ends the send's lines with one. The
		// next send waits for them all (issue #13).
		c.owes = ty.enters
		if ty.breaks > 0 {
			c.owes = 1
			c.breakAtPrompt = ty.ready
		}
	}
	c.submits = ty.submits
	// Nobody waits for it: text sent while it runs is typed ahead, as
	// after a timeout (DESIGN.md, "Output returned to the model"),
	// unless the terminal says a program asks.
	c.timedOut = !req.Wait
	if owed == 0 && c.AtPrompt && ty.ready && req.Text != "" && req.Enter && !req.Integrate && !ty.noC {
		c.NeedC = true
	}
	c.before = joinEarlier(parts...)
	s.mu.Lock()
	s.cmd = c
	s.mu.Unlock()
	s.persist()
	return c
}

// resultNow is the result of a send without wait: what the send typed,
// and what ran before it, returned here so the next result starts after
// it.
func (s *Session) resultNow(c *command, sendOff int64, start time.Time, req SendRequest, notes []string) Result {
	r := s.result(c, verdict.Verdict{Anchor: sendOff, End: sendOff, Via: ""}, start, req.Raw, false)
	if c.before != nil {
		r.Earlier = c.before
		s.mu.Lock()
		s.readOff = max(s.readOff, sendOff)
		s.mu.Unlock()
	}
	prependNote(&r, strings.Join(notes, "; "))
	return r
}

// waitResult waits (bounded by opts.timeout) for c's verdict and returns
// its result. A caller gone meanwhile gets ctx's error and everything stays
// unread, so the next result returns it.
func (s *Session) waitResult(ctx context.Context, c *command, start time.Time, req SendRequest, opts sendOpts) (Result, error) {
	var tick func(time.Duration)
	if req.Progress != nil {
		tick = func(el time.Duration) {
			fg, _ := s.foreground()
			req.Progress(el, fg.Name)
		}
	}
	defer s.floodEnded(c)
	v := s.await(ctx, c, opts.timeout, tick)
	if !v.Complete {
		s.mu.Lock()
		c.timedOut = true
		s.mu.Unlock()
	}
	if ctx.Err() != nil {
		return Result{}, ctx.Err()
	}
	r := s.result(c, v, start, req.Raw, true)
	if len(opts.notes) > 0 {
		prependNote(&r, strings.Join(opts.notes, "; "))
	}
	return r, nil
}

func clampTimeout(d time.Duration) (time.Duration, error) {
	switch {
	case d < 0:
		return 0, fmt.Errorf("timeout_ms must not be negative")
	case d == 0:
		return DefaultTimeout, nil
	case d > MaxTimeout:
		return 0, fmt.Errorf("timeout_ms %d is over the %d ms maximum; wait in several read {wait: true} calls instead", d.Milliseconds(), MaxTimeout.Milliseconds())
	}
	return d, nil
}

func describeExit(code *int, err error) string {
	switch {
	case code != nil:
		return fmt.Sprintf("exit status %d", *code)
	case err != nil:
		return err.Error()
	}
	return "ended"
}

// result builds the Result for a command's verdict and moves the read
// cursor past what it returns.
func (s *Session) result(c *command, v verdict.Verdict, start time.Time, raw, waited bool) Result {
	r := Result{SessionID: s.id, Complete: v.Complete, Via: v.Via, ExitCode: v.ExitCode, Match: v.Match}
	if waited {
		from, to := v.Anchor, v.End
		if v.Waiting.State == "alt_screen" && !raw && !s.scr.AltScreen() {
			// A full-screen program drawing on the main screen (top):
			// its screen, not every frame it drew.
			s.mu.Lock()
			secrets := s.secrets
			s.mu.Unlock()
			s.keepSeed(s.fillScreen(&r, secrets), to)
			r.Offset, r.NextOffset = from, to
		} else {
			s.fill(&r, from, to, raw, c)
		}
		r.Earlier = s.earlier(c, v)
		s.mu.Lock()
		if v.Complete {
			c.reported, c.reportedVia = true, v.Via
			// The prompt drawn after the command is not news; what
			// came after it (a background job's output) is. Without
			// the hook's end-of-prompt mark, all of it is taken as the
			// prompt.
			if e, ok := s.det.PromptEndAfter(v.End); ok && v.Via == ViaExitCode {
				s.readOff = max(s.readOff, e)
			} else {
				s.readOff = max(s.readOff, s.ring.End())
				if v.Via == ViaExitCode && s.det.DrawsPromptEnds() {
					// The prompt is still being drawn (a framework's
					// command substitutions): the rest of it is not news
					// either (skipPendingPrompt).
					s.promptPending = v.End
				}
			}
		} else {
			s.readOff = max(s.readOff, to)
		}
		s.mu.Unlock()
		s.persist()
	} else {
		r.Offset, r.NextOffset = c.SendOff, c.SendOff
		setHint(&r, Hint{Kind: HintSentNoWait})
	}
	st := s.classify()
	r.State, r.Foreground = st.State, st.Foreground
	settledState(&r, v)
	r.ElapsedMS = s.now().Sub(start).Milliseconds()
	switch {
	case !v.Complete && waited && v.Waiting.State != "":
		r.State = v.Waiting.State
		setHint(&r, Hint{Kind: HintWaiting, Status: v.Waiting})
	case !v.Complete && waited && c.DueD > 1 && !v.Earlier && s.Info().Integrated:
		setHint(&r, Hint{Kind: HintTypedAhead, Status: st})
	case !v.Complete && waited:
		setHint(&r, Hint{Kind: HintRunning, Status: st})
	}
	if n := s.takeHookNote(); n != "" {
		r.Note = joinNote(r.Note, n)
	}
	s.noteRecording(&r)
	s.noteHuman(&r)
	return r
}

// fill renders the log range [from, to) into r. c, when not nil, is the
// command the range is the output of: what it prerendered while it ran is
// used.
func (s *Session) fill(r *Result, from, to int64, raw bool, c *command) {
	pre := (*prerender)(nil)
	if c != nil && !raw && c.pre != nil && c.pre.from == from && c.pre.fed <= to {
		pre = c.pre
	}
	s.mu.Lock()
	var b []byte
	var gone int64
	if pre != nil && s.ring.Start() <= pre.fed {
		// Only the tail is left to render; the log still holds it.
		b, _ = s.ring.AppendRange(pre.buf[:0], pre.fed, to)
	} else {
		pre = nil
		b, gone = s.ring.AppendRange(nil, from, to)
	}
	rawBytes := len(b)
	first := s.lines.LineAt(max(from, s.ring.Start()))
	if pre != nil {
		rawBytes, first = int(to-from), pre.first
	}
	secrets := s.secrets
	rows := s.size.Rows
	var seed []byte
	seedNL := 0
	if pre == nil && len(b) > 0 && gone == 0 && !raw {
		seed, seedNL = s.seedLocked(from)
	}
	s.mu.Unlock()
	alt := s.scr.AltScreen()
	inPlace := !alt && s.redrawsInPlace()
	r.Offset, r.NextOffset, r.Gap = from, to, gone
	r.Match = redact(r.Match, secrets)
	if gone > 0 {
		r.Note = fmt.Sprintf("%d bytes of output were produced faster than they were read and left the %d-byte log before this read", gone, s.ring.Size())
	}
	r.Note = joinNote(r.Note, s.garbageNote(b, to-int64(len(b)))) // garbage.go: a wrong baud rate
	if raw {
		out := redact(string(b), secrets)
		if utf8.ValidString(out) {
			r.Output = out
		} else {
			r.OutputBase64 = encodeBase64(out)
			r.Output = strings.ToValidUTF8(out, "\uFFFD")
		}
		r.Mode = "raw"
		return
	}
	if alt || inPlace {
		snap := s.fillScreen(r, secrets)
		if inPlace {
			s.keepSeed(snap, to)
		}
		r.Note = joinNote(r.Note, "a full-screen program is running: output is its rendered screen")
		return
	}
	// Session lines count raw newlines; nums maps rendered lines to them
	// (a program that redraws with cursor-up prints more newlines than
	// lines), so fold markers name exact session lines.
	id := s.id
	hint := func(a, z int64) string {
		return fmt.Sprintf(`read {"session_id":%q,"mode":"range","from_line":%d,"to_line":%d}`, id, a, z)
	}
	var lines []string
	var nums []int64
	var gaps []reduce.Gap
	if pre != nil {
		lines, nums, gaps = pre.finish(b, hint)
		c.pre = nil // flushed: it cannot take more
	} else {
		col := reduce.Collector{Rows: rows} // memory bounded, however long b is
		if len(seed) > 0 {
			// The rest of a program's frames, over its screen (readseed.go).
			col.Write(seed)
			first = max(first-int64(seedNL), 1)
		}
		lines, nums, gaps = col.Finish(b, first, hint)
	}
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	digitRun := 0 // the reducer's default
	if len(lines) <= reduce.DefaultMaxLines && len(gaps) == 0 {
		// Short output is shown whole: collapsing lines that differ only
		// in digits loses information for no real saving.
		digitRun = -1
	}
	cmdText := ""
	if c != nil {
		cmdText = strings.Join(c.Lines, "\n")
	}
	red := reduce.Reduce(lines, reduce.Options{
		Command:     cmdText,
		DigitRun:    digitRun,
		FirstLine:   first,
		LineNumbers: nums,
		Gaps:        gaps,
		ReadHint:    hint,
	})
	r.Output = redact(red.Text, secrets)
	r.FirstLine = first
	if len(lines) > 0 {
		r.LastLine = first + nums[len(lines)-1]
	}
	if len(lines) == 0 {
		r.FirstLine, r.LastLine = 0, 0
	}
	r.Mode = "new"
	if red.Elided > 0 || red.Collapsed > 0 || red.Cut > 0 {
		r.Reduction = &Reduction{
			RawBytes: rawBytes, RawLines: red.RawLines, Lines: len(red.Lines), Bytes: len(red.Text),
			Elided: red.Elided, Collapsed: red.Collapsed, Cut: red.Cut, Notes: red.Notes,
			Reducer: red.Reducer, Dropped: red.Dropped,
		}
	}
}

// redrawsInPlace reports whether the program in the foreground redraws the
// normal screen in place, as top does (screen.Screen.RedrawsInPlace): its
// output is then its screen, as a full-screen program's on the alternate
// screen is. Its frames skip the rows that did not change, so the lines
// of a read that starts after its first frame would leave them blank
// (issue #13 item 8). A shell in the foreground never is one, nor is a
// hooked shell back at its prompt with the cursor left hidden by a
// program that did not show it again (over SSH the foreground is not
// known).
func (s *Session) redrawsInPlace() bool {
	if !s.scr.RedrawsInPlace() {
		return false
	}
	s.mu.Lock()
	marks := s.det.Marks()
	atPrompt := len(marks) > 0 && marks[len(marks)-1].Kind != verdict.MarkCommand &&
		!s.det.CursorHiddenSince(marks[len(marks)-1].End)
	s.mu.Unlock()
	if atPrompt {
		return false
	}
	fg, ok := s.foreground()
	return !ok || !fg.IsShell
}

func (s *Session) fillScreen(r *Result, secrets []string) screen.Snapshot {
	snap := s.scr.Snapshot()
	lines := snap.Lines
	for len(lines) > 0 && strings.TrimSpace(lines[len(lines)-1]) == "" {
		lines = lines[:len(lines)-1]
	}
	r.Output = redact(strings.Join(lines, "\n"), secrets)
	r.Mode = "screen"
	r.Cursor = &Cursor{Row: snap.CursorRow + 1, Col: snap.CursorCol + 1}
	return snap
}

// earlier returns what c's result carries before its own output: what
// was unread when c was typed and, for a command typed ahead, the rest of
// the command that ran before it, up to that command's D mark (or up to
// now while it still runs).
func (s *Session) earlier(c *command, v verdict.Verdict) *Earlier {
	if c.earlierFrom < 0 {
		return c.before
	}
	to := v.End
	if v.Earlier {
		to = v.EarlierEnd
	} else if v.Anchor < to {
		to = v.Anchor
	}
	var e *Earlier
	if c.earlierEcho >= 0 {
		s.mu.Lock()
		m, ok := s.det.FirstAfter(verdict.MarkCommand, c.earlierEcho)
		s.mu.Unlock()
		if ok && m.End <= to {
			e = joinEarlier(s.renderEarlier(c.earlierFrom, c.earlierEcho, nil, ""), s.renderEarlier(m.End, to, c.Lines, ""))
		} else {
			e = s.renderEarlier(c.earlierFrom, to, c.Lines, "")
		}
	} else {
		e = s.renderEarlier(c.earlierFrom, to, c.Lines, "")
	}
	if v.Earlier {
		if e == nil {
			e = &Earlier{}
		}
		code := v.EarlierCode
		e.ExitCode, e.Via = &code, ViaExitCode
	}
	return joinEarlier(c.before, e)
}

// renderEarlier renders the log range [from, to) for Earlier, without the
// echo of the typed lines drop (a command typed ahead is echoed by the
// terminal amid the earlier command's output) and without a shell prompt
// prompt around it. It returns nil when nothing is left.
func (s *Session) renderEarlier(from, to int64, drop []string, prompt string) *Earlier {
	if to <= from {
		return nil
	}
	s.mu.Lock()
	b, gone := s.ring.AppendRange(nil, from, to)
	first := s.lines.LineAt(max(from, s.ring.Start()))
	b = s.cutPromptsLocked(b, max(from, s.ring.Start()), to) // redraw.go
	secrets := s.secrets
	rows := s.size.Rows
	if seed, nl := s.seedLocked(from); len(seed) > 0 && gone == 0 {
		// The rest of a program's frames, over its screen (readseed.go).
		b = append(seed, b...)
		first = max(first-int64(nl), 1)
	}
	s.mu.Unlock()
	lines, nums := reduce.RenderRows(b, rows)
	prompt = strings.TrimRight(prompt, " ")
	keep := lines[:0]
	keepNums := nums[:0]
	for i, l := range lines {
		if prompt != "" {
			if t := strings.TrimRight(l, " "); t == prompt {
				continue
			} else if i == 0 {
				l = strings.TrimPrefix(strings.TrimPrefix(l, prompt), " ")
			}
		}
		if len(drop) > 0 && strings.TrimSpace(l) == strings.TrimSpace(drop[0]) {
			drop = drop[1:]
			continue
		}
		keep, keepNums = append(keep, l), append(keepNums, nums[i])
	}
	for len(keep) > 0 && strings.TrimSpace(keep[len(keep)-1]) == "" {
		keep, keepNums = keep[:len(keep)-1], keepNums[:len(keepNums)-1]
	}
	for len(keep) > 0 && strings.TrimSpace(keep[0]) == "" {
		keep, keepNums = keep[1:], keepNums[1:]
	}
	if len(keep) == 0 && gone == 0 {
		return nil
	}
	id := s.id
	red := reduce.Reduce(keep, reduce.Options{
		FirstLine:   first,
		LineNumbers: keepNums,
		ReadHint: func(a, z int64) string {
			return fmt.Sprintf(`read {"session_id":%q,"mode":"range","from_line":%d,"to_line":%d}`, id, a, z)
		},
	})
	return &Earlier{Output: redact(red.Text, secrets), Gap: gone}
}

// joinEarlier joins parts in order; nil parts are skipped. The exit code
// is the last part's that has one.
func joinEarlier(parts ...*Earlier) *Earlier {
	var e *Earlier
	for _, p := range parts {
		if p == nil {
			continue
		}
		if e == nil {
			cp := *p
			e = &cp
			continue
		}
		if p.Output != "" {
			e.Output = strings.TrimPrefix(e.Output+"\n"+p.Output, "\n")
		}
		e.Gap += p.Gap
		if p.ExitCode != nil {
			e.ExitCode, e.Via = p.ExitCode, p.Via
		}
	}
	return e
}

func joinNote(a, b string) string {
	switch {
	case a == "":
		return b
	case b == "":
		return a
	}
	return a + "; " + b
}

// redact replaces every secret typed into the session with ********.
func redact(s string, secrets []string) string { return redactText(s, secrets) }

// ReadRequest says what Read returns.
type ReadRequest struct {
	Mode     string // "new" (default), "screen", "range", "diff"
	Wait     bool
	Until    string
	Timeout  time.Duration
	FromLine int64
	ToLine   int64
	Raw      bool
	Progress func(elapsed time.Duration, fg string)
	// Timestamps prefixes each line with when its first byte arrived:
	// StampRelative or StampISO (timestamps.go); FromOffset is where mode
	// hex starts (hexread.go).
	Timestamps string
	FromOffset int64
}

// Read returns output according to req.Mode.
func (s *Session) Read(ctx context.Context, req ReadRequest) (Result, error) {
	if req.Timestamps != "" || req.Mode == "hex" {
		return s.readExtra(ctx, req) // timestamps.go
	}
	until, err := compileUntil(req.Until)
	if err != nil {
		return Result{}, err
	}
	timeout, err := clampTimeout(req.Timeout)
	if err != nil {
		return Result{}, err
	}
	start := s.now()
	switch req.Mode {
	case "", "new":
		return s.readNew(ctx, req, until, timeout, start), nil
	case "screen":
		r := Result{SessionID: s.id}
		s.mu.Lock()
		r.Offset, r.NextOffset = s.readOff, s.ring.End()
		secrets := s.secrets
		s.mu.Unlock()
		s.fillScreen(&r, secrets)
		s.finish(&r, start)
		return r, nil
	case "diff":
		r := Result{SessionID: s.id}
		snap := s.scr.Snapshot()
		s.mu.Lock()
		prev := s.lastScreen
		s.lastScreen = &snap
		secrets := s.secrets
		s.mu.Unlock()
		if prev == nil {
			s.fillScreen(&r, secrets)
			r.Note = "first diff of this session: the whole screen"
		} else {
			r.Output = redact(screen.FormatDiff(screen.Diff(*prev, snap)), secrets)
			r.Cursor = &Cursor{Row: snap.CursorRow + 1, Col: snap.CursorCol + 1}
			if r.Output == "" {
				r.Note = "no line changed since the last diff"
			}
		}
		r.Mode = "diff"
		s.finish(&r, start)
		return r, nil
	case "range":
		return s.readRange(req, start)
	}
	return Result{}, fmt.Errorf("unknown mode %q; use new, screen, diff or range", req.Mode)
}

func (s *Session) finish(r *Result, start time.Time) {
	st := s.classify()
	r.State, r.Foreground = st.State, st.Foreground
	r.Complete = st.State == "prompt" || st.State == "exited"
	s.mu.Lock()
	r.ExitCode = s.exitCode
	s.mu.Unlock()
	r.ElapsedMS = s.now().Sub(start).Milliseconds()
	s.noteRecording(r)
	s.noteHuman(r)
}

func (s *Session) readNew(ctx context.Context, req ReadRequest, until *regexp.Regexp, timeout time.Duration, start time.Time) Result {
	s.mu.Lock()
	c := s.cmd
	from := s.readOff
	s.mu.Unlock()
	var tick func(time.Duration)
	if req.Progress != nil {
		tick = func(el time.Duration) {
			fg, _ := s.foreground()
			req.Progress(el, fg.Name)
		}
	}
	var v verdict.Verdict
	switch {
	case req.Wait && c != nil:
		// Wait on the last command sent, with this call's until if given.
		s.mu.Lock()
		wc := *c
		s.mu.Unlock()
		wc.pre, wc.flooding = nil, false // Send's own, if it still waits
		if until != nil {
			wc.Until, wc.Scanned = until, from
		}
		defer s.floodEnded(&wc)
		v = s.await(ctx, &wc, timeout, tick)
	case req.Wait && until != nil:
		wc := newCommand(from, start, "", until)
		defer s.floodEnded(wc)
		v = s.await(ctx, wc, timeout, tick)
	case req.Wait:
		s.waitOutput(ctx, from, timeout)
		v = s.peek(c)
	default:
		v = s.peek(c)
	}
	s.mu.Lock()
	end := s.ring.End()
	s.mu.Unlock()
	to := end
	if v.Complete && v.Via == ViaExitCode && v.End >= from {
		to = v.End
	}
	r := Result{SessionID: s.id, Complete: v.Complete, Via: v.Via, ExitCode: v.ExitCode, Match: v.Match}
	s.fill(&r, from, to, req.Raw, c)
	s.mu.Lock()
	if v.Complete {
		s.readOff = max(s.readOff, end)
		if c != nil && s.cmd == c {
			c.reported, c.reportedVia = true, v.Via
		}
	} else {
		s.readOff = max(s.readOff, to)
	}
	s.mu.Unlock()
	s.persist()
	st := s.classify()
	r.State, r.Foreground = st.State, st.Foreground
	settledState(&r, v)
	r.ElapsedMS = s.now().Sub(start).Milliseconds()
	if n := s.takeHookNote(); n != "" {
		r.Note = joinNote(r.Note, n)
	}
	s.noteRecording(&r)
	s.noteHuman(&r)
	return r
}

// settledState corrects what classify said right after a verdict: the
// agent's foreground reports trail the shell's prompt.
func settledState(r *Result, v verdict.Verdict) {
	switch {
	case v.Complete && (v.Via == ViaExitCode || v.Via == ViaShell):
		// The shell is back; a foreground name the agent has not yet
		// updated would be stale.
		r.State, r.Foreground = "prompt", ""
	case v.Complete && v.Via == ViaPrompt && r.State == "running":
		// A shell typed into the session (ssh, docker exec) is back at
		// its prompt; the local foreground is that shell's client.
		r.State = "prompt"
	}
}

// peek evaluates the last command's verdict without waiting.
func (s *Session) peek(c *command) verdict.Verdict {
	if c == nil {
		s.mu.Lock()
		defer s.mu.Unlock()
		if s.exited {
			return verdict.Verdict{Complete: true, Via: ViaExited, ExitCode: s.exitCode}
		}
		return verdict.Verdict{}
	}
	wc := *c
	v, _, _, _ := s.evaluate(&wc)
	return v
}

// waitOutput waits until there is output past from, the session ends, or
// timeout elapses.
func (s *Session) waitOutput(ctx context.Context, from int64, timeout time.Duration) {
	s.waitFor(ctx, timeout, func() bool { return s.ring.End() > from || s.exited })
}

func (s *Session) readRange(req ReadRequest, start time.Time) (Result, error) {
	if req.FromLine < 1 {
		return Result{}, errors.New("mode range needs from_line ≥ 1 (session line numbers, as given in fold markers and first_line/last_line)")
	}
	to := req.ToLine
	if to == 0 {
		to = req.FromLine + maxRangeLines - 1
	}
	if to < req.FromLine {
		return Result{}, fmt.Errorf("to_line %d is before from_line %d", to, req.FromLine)
	}
	s.mu.Lock()
	total := s.lines.Lines()
	firstHeld := s.lines.FirstLine()
	if req.FromLine > total {
		s.mu.Unlock()
		return Result{}, fmt.Errorf("from_line %d is past the end: the session has %d lines so far", req.FromLine, total)
	}
	from := req.FromLine
	note := ""
	if from < firstHeld {
		note = fmt.Sprintf("lines %d–%d have left the %d-byte output log; showing from line %d", from, firstHeld-1, s.ring.Size(), firstHeld)
		from = firstHeld
	}
	to = min(to, total)
	if to-from+1 > maxRangeLines {
		to = from + maxRangeLines - 1
	}
	fromOff, err := s.lines.LineStart(from)
	if err != nil {
		s.mu.Unlock()
		return Result{}, fmt.Errorf("read lines from %d: %w", from, err)
	}
	toOff := s.ring.End()
	if to < total {
		if o, err := s.lines.LineStart(to + 1); err == nil {
			toOff = o
		}
	}
	if toOff-fromOff > maxRangeBytes {
		toOff = fromOff + maxRangeBytes
		to = s.lines.LineAt(toOff)
	}
	b, _ := s.ring.AppendRange(nil, fromOff, toOff)
	secrets := s.secrets
	rows := s.size.Rows
	s.mu.Unlock()
	r := Result{SessionID: s.id, Mode: "range", Offset: fromOff, NextOffset: toOff, FirstLine: from, LastLine: to, Note: note}
	if req.Raw {
		r.Output = redact(string(b), secrets)
		if !utf8.ValidString(r.Output) {
			r.OutputBase64 = encodeBase64(r.Output)
			r.Output = strings.ToValidUTF8(r.Output, "\uFFFD")
		}
	} else {
		lines, _ := reduce.RenderRows(b, rows)
		if n := int(to - from + 1); len(lines) > n {
			lines = lines[:n]
		}
		r.Output = redact(strings.Join(lines, "\n"), secrets)
	}
	if req.ToLine == 0 || to < req.ToLine {
		if to < total {
			addHint(&r, Hint{Kind: HintMoreLines, From: from, To: to, Total: total})
		}
	}
	s.finish(&r, start)
	return r, nil
}

// neutralise removes from text typed without raw the control characters
// other than tab, newline and carriage return (C0 and DEL): inside text
// they would act on the terminal or the line editor instead of being typed
// (^U erases the line, ^C interrupts, ESC [201~ ends a bracketed paste
// early, NUL sets a mark). Keys press them on purpose. It reports how many
// it removed. UTF-8 sequences never contain these bytes, so the rest of
// text is kept byte for byte.
func neutralise(text string) (string, int) {
	n := 0
	for i := 0; i < len(text); i++ {
		if c := text[i]; c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f {
			n++
		}
	}
	if n == 0 {
		return text, 0
	}
	b := make([]byte, 0, len(text)-n)
	for i := 0; i < len(text); i++ {
		if c := text[i]; !(c < 0x20 && c != '\t' && c != '\n' && c != '\r' || c == 0x7f) {
			b = append(b, c)
		}
	}
	return string(b), n
}

func encodeBase64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// pasteWait bounds how long a multi-line send waits for the shell's line
// editor to switch bracketed paste on after a prompt.
const pasteWait = 300 * time.Millisecond

// sentinelOwnLine reports whether mark's sentinel goes on a line of its own
// after text (a comment, a background job or several lines), rather than
// after "; " on the same line.
func sentinelOwnLine(text string) bool {
	return strings.ContainsAny(text, "\n#") || strings.HasSuffix(strings.TrimSpace(text), "&")
}

// awaitLineEditor waits, briefly, until an integrated shell that has just
// finished a command has its line editor ready with bracketed paste on
// (bash and zsh print the mode switch right before the prompt), so that
// multi-line text arrives as one command line rather than one per line.
// In a program the hooked shell runs (a nested shell, a REPL) it waits the
// same way when that program has turned bracketed paste on before: a
// nested bash turns it off while a command runs and on again at its
// prompt, which can come after the sentinel that ended a mark: true send;
// typed line by line, later lines would be echoed after the output of
// earlier ones.
func (s *Session) awaitLineEditor(ctx context.Context) {
	s.waitFor(ctx, pasteWait, func() bool {
		last, ok := s.det.Last()
		if !s.ready || s.exited || s.det.BracketedPaste() || !ok {
			return true
		}
		return last.Kind == verdict.MarkCommand && s.det.PasteOnAt() < last.End
	})
}

// promptWait bounds how long a send waits for the rest of the prompt that
// followed the last result (skipPendingPrompt).
const promptWait = 250 * time.Millisecond

// skipPendingPrompt: when the last result came before the hook's B mark
// (the shell was still drawing its prompt), wait a little for that mark
// and move the read position past the prompt, so that the prompt's text is
// not taken for output nobody read (earlier). A prompt that is not done
// by then is left as it is.
func (s *Session) skipPendingPrompt(ctx context.Context) {
	s.mu.Lock()
	from := s.promptPending
	s.promptPending = 0
	s.mu.Unlock()
	if from == 0 {
		return
	}
	var end int64
	s.waitFor(ctx, promptWait, func() bool {
		e, ok := s.det.PromptEndAfter(from)
		end = e
		return ok || s.exited
	})
	if end > 0 {
		s.mu.Lock()
		s.readOff = max(s.readOff, end)
		s.mu.Unlock()
	}
}
