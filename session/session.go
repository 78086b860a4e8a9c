package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"log/slog"
	"regexp"
	"regexp/syntax"
	"sync"
	"time"

	"github.com/ttymux/ttymux/session/asciicast"
	"github.com/ttymux/ttymux/session/screen"
	"github.com/ttymux/ttymux/transport"
)

// Info is a snapshot of a session's identity and state, as list shows it.
// What the model reads about each field is written in cmd/ttymux
// (resultDocs).
type Info struct {
	ID         string `json:"session_id"`
	Name       string `json:"name,omitempty"`
	Transport  string `json:"transport"`
	Command    string `json:"command"`
	State      string `json:"state"`
	Foreground string `json:"foreground,omitempty"`
	IdleMS     int64  `json:"idle_ms"`
	Created    string `json:"created"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	Bytes      int64  `json:"bytes"`
	Lines      int64  `json:"lines"`
	ExitCode   *int   `json:"exit_code,omitempty"`
	Persistent bool   `json:"persistent"`
	Integrated bool   `json:"integrated"`
	Recording  string `json:"recording,omitempty"`
	// RecordingNote says why a recording stopped (a full disk, say).
	RecordingNote string `json:"recording_note,omitempty"`
	// Kernel names what holds a read-only session besides the command
	// checks: "landlock" (Session.Confined), else absent.
	Kernel string `json:"kernel,omitempty"`
}

// kernelWord is Info.Kernel for a program confined under Landlock ABI abi.
func kernelWord(abi int) string {
	if abi > 0 {
		return "landlock"
	}
	return ""
}

// A Session is one terminal and the commands run in it, in three parts,
// each with one lock and one job:
//
//   - the terminal (terminal.go): the Conn, the one goroutine that reads
//     it, and everything read (the log, the line index, the detector, the
//     screen), with the change notification; its lock is terminal.mu;
//   - the input (input.go): what is typed and how (compose, keys, pacing,
//     line control, the gate's check), written through the terminal; its
//     lock is input.sendMu, so two sends never interleave;
//   - the command layer (this type, io.go, wait.go): send and read, the
//     verdict, results, composing the two. Its place in the output (offsets
//     into the log, the last command) is read with the log, so the
//     terminal's lock guards it; storeMu only orders what it stores with
//     an agent.
//
// A send becomes bytes on the wire in Send (io.go), composeStepsLocked,
// typeSteps and typeBytes (input.go), and terminal.write (terminal.go).
// All methods are safe for concurrent use.
type Session struct {
	terminal
	input
	id        string
	name      string
	transport string
	command   string
	created   time.Time
	createdAt string           // created as Info writes it, formatted once
	confined  int              // the Landlock ABI its program runs under; 0: none (set once)
	keeper    transport.Keeper // the agent that holds it, when kept
	storeMu   sync.Mutex       // serialises persist: metadata reaches the agent in the order it was taken

	// The command layer's place in the output. Offsets into the log, so
	// the terminal's lock (mu) guards them with it.
	readOff int64 // where mode "new" resumes
	// promptPending: where the D mark of the last result ended when the
	// prompt after it was not drawn yet (its B mark to come); 0: none.
	promptPending int64
	cmd           *command         // the last command sent, for read {wait: true}
	lastScreen    *screen.Snapshot // what the last diff read saw
	seed          screenSeed       // the screen a result last returned for a program that redraws in place (readseed.go)
	meta          meta             // what was last stored with a kept session
	openNote      string           // why a persistent open is not persistent, or what attach lost
	target        transport.Target // what it was opened with (transfer.go)
	human         humanLog         // what a person typed that no result told yet (human.go)
	personKeys    int64            // a person's keys counted in all: HumanWrite's and other clients' (human.go)
	personAtLines int64            // personKeys when command lines no send accounts for were last taken
	flood         func(on bool)    // Options.Flood, or nil
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
	remoteFiles                  map[string][]byte // see Opening.RemoteFiles
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
	s := &Session{
		id:        c.id,
		name:      c.name,
		transport: c.transport,
		command:   c.command,
		created:   time.Now(),
		readOff:   max(c.readOff, c.from),
		cmd:       c.cmd,
		keeper:    c.keeper,
		meta:      c.persisted,
	}
	s.createdAt = s.created.UTC().Format(time.RFC3339)
	s.terminal.start(c, s.created)
	s.enter = cmp.Or(c.enter, "\r")
	s.policyHost, s.port = c.policyHost, c.port
	s.confined = c.confined
	if cf, ok := c.conn.(transport.Confiner); ok && s.confined == 0 {
		s.confined = cf.Confined()
	}
	s.rec.Start(s.persistRecording)
	go s.pump()
	return s
}

// ID returns the session's id.
func (s *Session) ID() string { return s.id }

// Name returns the session's optional name.
func (s *Session) Name() string { return s.name }

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
		return fmt.Errorf("session %s (%s) has no window size to change: %w", s.id, s.transport, transport.ErrUnsupported)
	}
	if err := r.Resize(ctx, sz); err != nil {
		return fmt.Errorf("resize session %s: %w", s.id, err)
	}
	s.resize(sz)
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
		Created:    s.createdAt,
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
