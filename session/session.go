package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"io"
	"log/slog"
	"regexp"
	"regexp/syntax"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/session/asciicast"
	"github.com/ttymux/ttymux/session/screen"
	"github.com/ttymux/ttymux/transport"
)

// Info is a snapshot of a session's identity and state, as list shows it.
type Info struct {
	ID         string `json:"session_id" jsonschema:"session id for send/read/close"`
	Name       string `json:"name,omitempty" jsonschema:"optional name"`
	Transport  string `json:"transport" jsonschema:"local, ssh, serial or agent"`
	Command    string `json:"command" jsonschema:"what runs in the session"`
	State      string `json:"state" jsonschema:"prompt, running, password_prompt, confirm_prompt, pager, repl, alt_screen or exited"`
	Foreground string `json:"foreground,omitempty" jsonschema:"the program in the foreground, when not the shell"`
	IdleMS     int64  `json:"idle_ms" jsonschema:"milliseconds since the last output"`
	Created    string `json:"created" jsonschema:"when the session started (RFC 3339)"`
	Rows       int    `json:"rows" jsonschema:"terminal rows"`
	Cols       int    `json:"cols" jsonschema:"terminal columns"`
	Bytes      int64  `json:"bytes" jsonschema:"bytes of output so far"`
	Lines      int64  `json:"lines" jsonschema:"lines of output so far"`
	ExitCode   *int   `json:"exit_code,omitempty" jsonschema:"exit status once the program ended"`
	Persistent bool   `json:"persistent" jsonschema:"kept by the agent: survives the server and can be attached by a human (ttymux attach ID)"`
	Integrated bool   `json:"integrated" jsonschema:"ttymux shell integration is active (exact exit codes)"`
	Recording  string `json:"recording,omitempty" jsonschema:"the asciicast v2 file the session is recorded to (play it with asciinema play)"`
	// RecordingNote says why a recording stopped (a full disk, say).
	RecordingNote string `json:"recording_note,omitempty" jsonschema:"why the recording stopped, when it did; the session itself goes on"`
	// Kernel names what holds a read-only session besides the command
	// checks: "landlock" (Session.Confined), else absent.
	Kernel string `json:"kernel,omitempty" jsonschema:"landlock: the kernel also keeps this read-only session from writing files outside its terminal and signalling other processes"`
}

// kernelWord is Info.Kernel for a program confined under Landlock ABI abi.
func kernelWord(abi int) string {
	if abi > 0 {
		return "landlock"
	}
	return ""
}

// A Session owns one transport.Conn and the one goroutine that reads it.
// Every byte read goes, in order, to the output log (a ring addressed by
// absolute offset), the line index, the detector and the screen. All methods
// are safe for concurrent use; Send calls on one session are serialised.
type Session struct {
	id        string
	name      string
	transport string
	command   string
	created   time.Time
	conn      transport.Conn
	scr       *screen.Screen
	log       *slog.Logger
	now       func() time.Time
	shell     bool   // the top-level program is a shell (enables the shell layer)
	enter     string // what the Enter key sends: "\r", or the serial line ending
	pace      Pacing // how Send types by default (pacing.go; guarded by mu)

	policyHost string // the policy's name for where it runs (Kind.PolicyHost)
	confined   int    // the Landlock ABI its program runs under; 0: none (set once)
	port       string // the device it talks to (Kind.Port), or ""

	kept   bool             // held by an agent: Close detaches, Kill ends it
	keeper transport.Keeper // the agent that holds it, when kept

	sendMu  sync.Mutex     // serialises Send: two sends never interleave
	feedMu  sync.Mutex     // held while output is handed to the tap or fed to the session, so both keep the terminal's order
	storeMu sync.Mutex     // serialises persist: metadata reaches the agent in the order it was taken
	pending string         // text typed since the last Enter, for the gate (guarded by sendMu)
	policy  *policy.Policy // set once when the session is made; nil is the default
	// approver settles held lines (approver.go); set once when the session
	// is made; nil refuses them.
	approver Approver

	mu         sync.Mutex // mu protects the following
	ring       *ring.Ring
	lines      *ring.LineIndex
	times      *ring.Times // when each chunk arrived (timestamps.go)
	det        *verdict.Detector
	lastOutput time.Time
	readOff    int64 // where mode "new" resumes
	size       transport.Size
	exited     bool
	exitErr    error
	exitCode   *int
	ready      bool   // the shell integration has printed a D mark and was not found broken since
	hookLost   string // why the hook was found broken ("" while it works or has not reported yet); see hook.go
	hookNote   string // a note on hookLost the next result carries
	hookNoted  bool   // hookNote was made: the session says it once
	hookless   bool   // the far end said no hook will load (verdict.Detector.Hookless)
	// promptPending: where the D mark of the last result ended when the
	// prompt after it was not drawn yet (its B mark to come); 0: none.
	promptPending int64
	fish          bool          // the program is fish (the hook also says so: verdict.Detector.Shell)
	changed       chan struct{} // closed and replaced on every change someone waits for
	watched       bool          // someone took changed since it was last replaced
	marked        chan struct{} // closed and replaced on a new mark or the end
	secrets       []string
	red           redactState // how far the output was searched for their echoes (redact.go)
	closed        bool
	cmd           *command         // the last command sent, for read {wait: true}
	lastScreen    *screen.Snapshot // what the last diff read saw
	meta          meta             // what was last stored with a kept session
	gaps          int64            // output bytes the agent dropped for us
	openNote      string           // why a persistent open is not persistent, or what attach lost
	target        transport.Target // what it was opened with (transfer.go)
	cwd           cwdTracker       // the directory OSC 7 last reported (transfer.go)
	tap           *Tap             // a transfer that borrowed the terminal (transfer.go)
	seed          screenSeed       // the screen a result last returned for a program that redraws in place (readseed.go)

	rec *asciicast.Recorder // the asciicast recording, or nil; fed by the pump

	// term is the session as the verdict engine sees it (session/verdict):
	// it reads the log, the detector and the fields under mu, the Conn and
	// the screen.
	term verdict.Terminal

	pumpDone chan struct{}
}

// ErrClosed is returned by operations on a session that was closed.
var ErrClosed = errors.New("session closed")

type sessionConfig struct {
	id, name, transport, command string
	policyHost                   string // see Session.PolicyHost
	port                         string // see Kind.Port
	conn                         transport.Conn
	size                         transport.Size
	ringSize                     int
	nonce                        string
	shell                        bool
	fish                         bool // the shell is fish (the mark layer's syntax)
	enter                        string
	confined                     int // see Session.Confined; 0: ask the Conn
	log                          *slog.Logger

	// For a session kept by an agent: where the replayed output starts, and
	// what an earlier server recorded in the session's metadata.
	kept      bool
	keeper    transport.Keeper
	from      int64
	fromLine  int64
	readOff   int64
	cmd       *command
	persisted meta

	rec *asciicast.Recorder // set up by the Manager; the session starts and closes it
}

func newSession(c sessionConfig) *Session {
	r := ring.NewAt(c.ringSize, c.from)
	lines := ring.NewLineIndexAt(r, max(c.fromLine, 1))
	s := &Session{
		id:        c.id,
		name:      c.name,
		transport: c.transport,
		command:   c.command,
		created:   time.Now(),
		conn:      c.conn,
		log:       c.log,
		now:       time.Now,
		shell:     c.shell,
		fish:      c.fish,
		enter:     cmp.Or(c.enter, "\r"),
		ring:      r,
		lines:     lines,
		times:     ring.NewTimes(r),
		det:       verdict.NewDetector(c.nonce, c.from),
		size:      c.size,
		changed:   make(chan struct{}),
		marked:    make(chan struct{}),
		pumpDone:  make(chan struct{}),
		readOff:   max(c.readOff, c.from),
		cmd:       c.cmd,
		kept:      c.kept,
		keeper:    c.keeper,
		meta:      c.persisted,
		rec:       c.rec,
	}
	s.policyHost, s.port = c.policyHost, c.port
	s.confined = c.confined
	if cf, ok := c.conn.(transport.Confiner); ok && s.confined == 0 {
		s.confined = cf.Confined()
	}
	s.lastOutput = s.created
	// The log keeps history; the emulator's scrollback costs about 15 KB a line,
	// so keep only a little of it.
	s.scr = screen.New(c.size.Rows, c.size.Cols, screen.Options{Reply: replyWriter{s}, Scrollback: 64})
	s.term = verdict.Terminal{
		Mu: &s.mu, Log: s.ring, Det: s.det, Conn: s.conn, AltScreen: s.scr.AltScreen, Shell: s.shell,
		Held: func() verdict.Held {
			return verdict.Held{LastOutput: s.lastOutput, Exited: s.exited, ExitCode: s.exitCode, Ready: s.ready, HookLost: s.hookLost != ""}
		},
		Now: func() time.Time { return s.now() }, // tests replace s.now
	}
	s.rec.Start(s.persistRecording)
	go s.pump()
	return s
}

// replyWriter forwards the emulator's answers to terminal queries (cursor
// position, device attributes) to the far end, as a real terminal would,
// when a program that asked will read them (replies.go); else it drops them.
type replyWriter struct{ s *Session }

func (w replyWriter) Write(p []byte) (int, error) {
	if !w.s.replyAllowed() {
		return len(p), nil
	}
	return w.s.conn.Write(p)
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Name returns the session's optional name.
func (s *Session) Name() string { return s.name }

// Changed returns a channel closed at the session's next change (output,
// a mark, its end). Call it again for the change after that. It does not
// block.
func (s *Session) Changed() <-chan struct{} {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.changedLocked()
}

// notifyLocked wakes every waiter. s.mu must be held.
func (s *Session) notifyLocked() {
	if !s.watched {
		return // nobody holds the channel: no one to wake
	}
	close(s.changed)
	s.changed = make(chan struct{})
	s.watched = false
}

// changedLocked returns the channel closed on the next change. s.mu must be
// held.
func (s *Session) changedLocked() <-chan struct{} {
	s.watched = true
	return s.changed
}

// notifyMarkLocked wakes the waiters that care only about shell-integration
// marks and the end of the session, which are rare, so that a flood of
// output does not wake them once per chunk. s.mu must be held.
func (s *Session) notifyMarkLocked() {
	close(s.marked)
	s.marked = make(chan struct{})
}

// feed takes the terminal's output p, which arrived at at, into the
// session. s.feedMu must be held.
func (s *Session) feed(p []byte, at time.Time) {
	// The screen first: whoever the log's new bytes wake (a verdict) must
	// find them on the screen too (the alternate screen switches a result
	// to the rendered screen).
	s.scr.Write(p)
	s.mu.Lock()
	s.ring.Write(p)
	s.lines.Write(p)
	s.times.Write(p, at)
	marks, dones := s.det.Count(), s.det.Dones()
	s.det.Write(p)
	s.cwd.Write(p)
	s.lastOutput = s.now()
	if s.det.Count() != marks {
		s.hookMarksLocked(dones) // hook.go
		s.notifyMarkLocked()
	}
	if !s.hookless && !s.ready && s.det.Hookless() {
		// No hook will load (a login shell the remote bootstrap has
		// none for): the lower layers judge from now on, and the open
		// need not wait for a mark.
		s.hookless = true
		s.det.SetNonce("")
		s.notifyMarkLocked()
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.rec.Output(p)
	s.redactEchoes() // redact.go: a secret's echo is masked as it arrives
}

// pump is the session's one reader. It runs until the Conn reports the end
// of the stream, then records the exit status.
func (s *Session) pump() {
	defer close(s.pumpDone)
	buf := make([]byte, 32<<10)
	for {
		n, err := s.conn.Read(buf)
		at := s.now() // the chunk's arrival, before the screen takes its time
		if ar, ok := s.conn.(transport.ArrivalReporter); ok && n > 0 {
			// An agent that held the bytes while no server was attached
			// says when they came (read {timestamps} after a restart).
			if t, ok := ar.Arrival(); ok && t.Before(at) {
				at = t
			}
		}
		if n > 0 {
			s.feedMu.Lock()
			if !s.tapped(buf[:n]) {
				s.feed(buf[:n], at)
			}
			s.feedMu.Unlock()
		}
		if err != nil {
			var gap *transport.GapError
			if errors.As(err, &gap) {
				// The agent could not keep this client's output: record an
				// explicit gap, never a silent one.
				s.feedMu.Lock()
				s.mu.Lock()
				s.ring.Skip(gap.To - gap.From)
				s.lines.Skip(gap.To - gap.From)
				s.det.Skip(gap.To - gap.From)
				s.gaps += gap.To - gap.From
				s.notifyLocked()
				s.mu.Unlock()
				s.rec.Skip(gap.To - gap.From)
				s.feedMu.Unlock()
				s.log.Warn("output lost", "bytes", gap.To-gap.From)
				continue
			}
			if !errors.Is(err, io.EOF) && !errors.Is(err, ErrClosed) {
				s.log.Debug("read ended", "err", err)
			}
			break
		}
	}
	s.endTap()
	werr := s.conn.Wait()
	s.mu.Lock()
	s.exited = true
	s.exitErr = werr
	s.notifyMarkLocked()
	code := 0
	var ee *transport.ExitError
	switch {
	case werr == nil:
		s.exitCode = &code
	case errors.As(werr, &ee):
		code = ee.ExitStatus()
		s.exitCode = &code
	}
	s.notifyLocked()
	s.mu.Unlock()
	s.rec.Close()
	s.log.Info("session ended", "err", werr)
}

// Close ends the session: the far end is closed and the pump waited for.
// It is idempotent.
func (s *Session) Close() error {
	s.mu.Lock()
	already := s.closed
	s.closed = true
	s.mu.Unlock()
	if already {
		<-s.pumpDone
		return nil
	}
	err := s.conn.Close()
	<-s.pumpDone
	_ = s.scr.Close() // best effort; nothing to report
	return err
}

// waitFor waits until cond, called with s.mu held, is true, ctx ends or d
// elapses. It reports whether cond became true.
func (s *Session) waitFor(ctx context.Context, d time.Duration, cond func() bool) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		ok, ch := cond(), s.changedLocked()
		s.mu.Unlock()
		if ok {
			return true
		}
		select {
		case <-ch:
		case <-t.C:
			return false
		case <-ctx.Done():
			return false
		}
	}
}

// waitSettled waits until the far end has printed something and then been
// quiet for verdict.ShellQuiet, the session ended, or d elapsed. Everything printed
// so far is then marked as read.
func (s *Session) waitSettled(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	for {
		s.mu.Lock()
		printed, exited, ch := s.ring.End() > 0, s.exited, s.changedLocked()
		quiet := verdict.ShellQuiet - s.now().Sub(s.lastOutput)
		if printed && quiet <= 0 || exited {
			s.readOff = s.ring.End()
			s.mu.Unlock()
			return
		}
		s.mu.Unlock()
		var q <-chan time.Time
		if printed {
			qt := time.NewTimer(quiet)
			defer qt.Stop()
			q = qt.C
		}
		select {
		case <-ch:
		case <-q:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

// Resize changes the window size of the far end and of the screen.
func (s *Session) Resize(ctx context.Context, sz transport.Size) error {
	if !sz.Valid() {
		return fmt.Errorf("invalid size %dx%d: rows and cols must be between 1 and 1000", sz.Rows, sz.Cols)
	}
	r, ok := s.conn.(transport.Resizer)
	if !ok {
		return fmt.Errorf("session %s (%s) has no window size to change", s.id, s.transport)
	}
	if err := r.Resize(ctx, sz); err != nil {
		return fmt.Errorf("resize session %s: %w", s.id, err)
	}
	s.scr.Resize(sz.Rows, sz.Cols)
	s.mu.Lock()
	s.size = sz
	s.mu.Unlock()
	s.rec.Resize(sz.Rows, sz.Cols)
	return nil
}

// Signal delivers sig to the far end's foreground process group.
func (s *Session) Signal(ctx context.Context, sig transport.Signal) error {
	sg, ok := s.conn.(transport.Signaler)
	if !ok {
		return fmt.Errorf("session %s (%s) cannot deliver signals; send a key such as ctrl+c instead", s.id, s.transport)
	}
	return sg.Signal(ctx, sig)
}

// foreground returns the far end's foreground program, if the transport can
// tell.
func (s *Session) foreground() (transport.Foreground, bool) { return s.term.Foreground() }

// classify says what the terminal is doing now.
func (s *Session) classify() verdict.Status { return s.term.Classify() }

func (s *Session) lastOutputAt() time.Time {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.lastOutput
}

// Info returns a snapshot of the session's state.
func (s *Session) Info() Info {
	st := s.classify()
	s.mu.Lock()
	defer s.mu.Unlock()
	in := Info{
		ID:         s.id,
		Name:       s.name,
		Transport:  s.transport,
		Command:    s.command,
		State:      st.State,
		Foreground: st.Foreground,
		IdleMS:     s.now().Sub(s.lastOutput).Milliseconds(),
		Created:    s.created.UTC().Format(time.RFC3339),
		Rows:       s.size.Rows,
		Cols:       s.size.Cols,
		Bytes:      s.ring.End(),
		Lines:      s.lines.Lines(),
		ExitCode:   s.exitCode,
		Integrated: s.ready,
		Persistent: s.kept,
		Kernel:     kernelWord(s.confined),
	}
	in.Recording, _, _, in.RecordingNote = s.rec.State()
	return in
}

// compileUntil compiles a caller's until pattern with a clear error.
func compileUntil(pattern string) (*regexp.Regexp, error) {
	if pattern == "" {
		return nil, nil
	}
	if len(pattern) > 1000 {
		return nil, fmt.Errorf("until pattern is %d characters; keep it under 1000", len(pattern))
	}
	re, err := regexp.Compile(pattern)
	if err != nil {
		return nil, fmt.Errorf("until is not a valid regular expression (Go RE2 syntax): %v; escape literal characters such as ( [ . * with a backslash", err)
	}
	// RE2 never backtracks, but its cost per byte of output grows with the
	// compiled program: `[\p{L}\p{N}]{1000}` scans about 60 s per MB, and a
	// match cannot be interrupted. Cap the program (issue #8).
	if n := untilSteps(pattern); n > maxUntilSteps {
		return nil, fmt.Errorf("until compiles to %d steps, over the %d-step limit that keeps matching fast on large output; use a shorter pattern, such as the literal prompt ('>>> ', '\\$ $') or a short alternation (done|failed), without large repeat counts", n, maxUntilSteps)
	}
	return re, nil
}

// maxUntilSteps bounds the compiled size of an until pattern: about 2 s per
// MB of output scanned in the worst case, well under a millisecond per
// screenful.
const maxUntilSteps = 100

// untilSteps returns the number of instructions pattern compiles to (0 when
// it does not parse; regexp.Compile has said so already).
func untilSteps(pattern string) int {
	re, err := syntax.Parse(pattern, syntax.Perl)
	if err != nil {
		return 0
	}
	prog, err := syntax.Compile(re.Simplify())
	if err != nil {
		return 0
	}
	return len(prog.Inst)
}

// OpenNote says why a session asked to be persistent is not, or what an
// attach could not recover; empty when there is nothing to say.
func (s *Session) OpenNote() string { return s.openNote }

// isHookless reports whether the far end said no hook will load.
func (s *Session) isHookless() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.hookless
}

// waitPromptDrawn waits, at most d, until the prompt after the hook's last
// D mark is drawn (its B mark came) or the session ended. For a shell
// hooked through PS1 the D comes before the prompt, and BusyBox ash asks
// for the cursor right after it: open returns once that query is in, so
// the first send waits for its answer (screen.AwaitAnswers) instead of
// being typed ahead of it.
func (s *Session) waitPromptDrawn(ctx context.Context, d time.Duration) {
	s.waitFor(ctx, d, func() bool {
		last, ok := s.det.Last()
		if !ok || s.exited || s.det.NoB() {
			return true
		}
		_, drawn := s.det.PromptEndAfter(last.Off)
		return drawn
	})
	s.mu.Lock()
	s.readOff = s.ring.End()
	s.mu.Unlock()
}

// hookPrintsNoC reports whether the hook prints no C marks (a PS1 hook).
func (s *Session) hookPrintsNoC() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.det.NoC()
}

// waitOutputAfterNoHook waits, at most d, until the far end has printed
// something after the mark that said no hook will load (the shell starts
// after it), or the session ended.
func (s *Session) waitOutputAfterNoHook(ctx context.Context, d time.Duration) {
	s.waitFor(ctx, d, func() bool { return s.ring.End() > s.det.HooklessEnd() || s.exited })
}
