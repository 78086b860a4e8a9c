package verdict

import (
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// A Log is the session's output, addressed by absolute offset
// (*ring.Ring): bytes before Start have left it.
type Log interface {
	Start() int64
	End() int64
	// AppendRange appends the bytes of [from, to) still held to dst and
	// returns how many of them had left the log.
	AppendRange(dst []byte, from, to int64) ([]byte, int64)
}

// Held is what the session knows of its output besides the bytes, read
// inside Source.View.
type Held struct {
	LastOutput time.Time // when output last arrived
	Exited     bool      // the far end has ended
	ExitCode   *int      // its exit status, once known
	Ready      bool      // the shell integration has printed a D mark and has not been found broken since
	// HookLost: the session has a hook that was found broken (it did not
	// report at a prompt): its marks say nothing of what runs now.
	HookLost bool
}

// State is the terminal's output as the engine reads it, held still for
// the length of a Source.View call.
type State struct {
	Log Log
	Det *Detector
	Held
}

// A Source is the terminal whose output the engine reads. View calls f
// with its State held still: no output arrives and nothing it holds changes
// until f returns. f must not block, call back into the Source or keep Log
// or Det once it returns. The Source decides how it holds its state still
// (the session takes its terminal's lock); the engine never sees how.
type Source interface {
	View(f func(State))
}

// A Terminal is a session as the engine sees it: the boundary between the
// session, which owns the Conn, the pump, the lock and the waiting, and
// the engine, which owns every rule of the verdict. The session makes one
// when it starts; its methods are safe for concurrent use as far as Src,
// Conn and AltScreen are.
type Terminal struct {
	// Src is the output: the log, the detector and what Held reports.
	// The engine reads them only inside Src.View, never across a call to
	// Conn or AltScreen.
	Src Source
	// Conn is the far end. Its optional capabilities are used when it
	// has them: transport.Foregrounder (who owns the terminal),
	// transport.EchoReporter (the ECHO flag), transport.LinkStater (a
	// dropped link) and ShellWaiter.
	Conn any
	// AltScreen reports whether the alternate screen is up (the screen
	// takes its own lock).
	AltScreen func() bool
	Now       func() time.Time
	// Shell: the top-level program is a shell, so the shell layer may
	// decide from the foreground process group.
	Shell bool

	// tail is the log's last line as the last Classify rendered it.
	tail atomic.Pointer[tailLine]
}

// A ShellWaiter is a Conn that can tell whether the session's own
// top-level process is blocked reading the terminal (local PTYs).
type ShellWaiter interface {
	ShellWaitsForInput() (bool, error)
}

// A ShellReadCounter is a Conn that can tell how many bytes the session's
// own top-level process has read (local PTYs).
type ShellReadCounter interface {
	ShellReadCount() (int64, error)
}

// ShellReadMark returns how many bytes the shell has read when it owns
// the terminal and waits for input, or -1 when it does not or the Conn
// cannot tell. A send takes it before it types (Command.ShellRead): the
// shell layer then knows whether the shell has read what was typed. It
// does not hold Src still.
func (t *Terminal) ShellReadMark() int64 {
	rc, ok := t.Conn.(ShellReadCounter)
	if !ok || !t.Shell {
		return -1
	}
	if fg, ok := t.Foreground(); !ok || !fg.IsShell {
		return -1
	}
	if w, ok := t.shellWaits(); !ok || !w {
		return -1
	}
	n, err := rc.ShellReadCount()
	if err != nil {
		return -1
	}
	return n
}

// shellReadSince reports whether the shell has read anything since it
// had read n bytes; true when that cannot be told (n < 0).
func (t *Terminal) shellReadSince(n int64) bool {
	if n < 0 {
		return true
	}
	rc, ok := t.Conn.(ShellReadCounter)
	if !ok {
		return true
	}
	now, err := rc.ShellReadCount()
	return err != nil || now > n
}

// Foreground returns the far end's foreground program, if the transport
// can tell. It does not hold Src still.
func (t *Terminal) Foreground() (transport.Foreground, bool) {
	f, ok := t.Conn.(transport.Foregrounder)
	if !ok {
		return transport.Foreground{}, false
	}
	fg, err := f.Foreground()
	if err != nil {
		return transport.Foreground{}, false
	}
	return fg, true
}

// EchoOff reports whether the terminal's ECHO flag is known to be off:
// a program edits its input line itself (readline in a shell or REPL, a
// full-screen program) or reads a password.
func (t *Terminal) EchoOff() bool {
	known, off := t.EchoState()
	return known && off
}

// EchoState reports whether the terminal's ECHO flag can be read (local
// and agent PTYs) and whether it is off.
func (t *Terminal) EchoState() (known, off bool) {
	if er, ok := t.Conn.(transport.EchoReporter); ok {
		if on, err := er.Echo(); err == nil {
			return true, !on
		}
	}
	return false, false
}

// shellWaits reports whether the kernel says the shell is blocked reading
// the terminal; ok is false when the Conn cannot tell.
func (t *Terminal) shellWaits() (waiting, ok bool) {
	sw, is := t.Conn.(ShellWaiter)
	if !is {
		return false, false
	}
	w, err := sw.ShellWaitsForInput()
	return w, err == nil
}

// held reads the session's state through Src.View.
func (t *Terminal) held() (h Held) {
	t.Src.View(func(st State) { h = st.Held })
	return h
}

// HookQuiet is how long output must be quiet, the shell back in its line
// editor, before a prompt without the hook's D mark is taken for a broken
// hook. bash and zsh print the D mark before their line editor takes the
// terminal, so once it has (echo off) and all output is read the mark
// would be in the log; the quiet covers an agent, whose reports of the
// echo flag travel apart from the output.
const HookQuiet = 100 * time.Millisecond

// ShellEditsLine reports whether the session's shell is in its line
// editor, waiting at a prompt: the shell owns the terminal, the terminal's
// echo is off (readline and zle echo by themselves), output has been quiet
// for HookQuiet with nothing left unread, the kernel says the shell waits
// to read (where it can tell), and the line editor shows itself: it turned
// bracketed paste on at or after from, or, when shaped, the last line ends
// like a prompt (a read -s, also with echo off, asks with "Password: ").
// While a command runs only bracketed paste counts: an agent's report of
// the foreground may lag, and the command may print a prompt-shaped line.
// When it is not (yet), it returns how long to wait before asking again.
// It does not hold Src still.
func (t *Terminal) ShellEditsLine(from int64, shaped bool) (bool, time.Duration) {
	if !t.Shell {
		return false, 0
	}
	h := t.held()
	if q := t.Now().Sub(h.LastOutput); q < HookQuiet {
		return false, HookQuiet - q
	}
	if fg, ok := t.Foreground(); !ok || !fg.IsShell || !t.EchoOff() || t.unread() {
		return false, HookQuiet
	}
	if w, ok := t.shellWaits(); ok && !w {
		return false, HookQuiet
	}
	var paste bool
	var b []byte
	t.Src.View(func(st State) {
		paste = st.Det.BracketedPaste() && st.Det.PasteOnAt() >= from
		end := st.Log.End()
		b, _ = st.Log.AppendRange(nil, max(st.Log.Start(), from, end-1024), end)
	})
	if paste {
		return true, 0
	}
	if l := lastLine(b); shaped && l != "" && len(l) <= maxPrompt && isPromptLine(l) && !arrowRe().MatchString(l) {
		return true, 0
	}
	return false, HookQuiet
}

// ShellIdle reports whether the session's shell owns the terminal, waits
// to read it (where the kernel can tell; else after a longer quiet) and
// output has been quiet: a shell without a line editor (dash) at its
// prompt. It does not hold Src still.
// ShellStarting reports whether the shell is known to be busy before its
// first prompt: the kernel says it is not waiting to read (its startup
// files still run, or it waits for a program they started). False when
// that cannot be told (SSH).
func (t *Terminal) ShellStarting() bool {
	w, ok := t.shellWaits()
	return ok && !w
}

func (t *Terminal) ShellIdle() bool {
	if !t.Shell {
		return false
	}
	q := t.Now().Sub(t.held().LastOutput)
	if fg, ok := t.Foreground(); !ok || !fg.IsShell || q < ShellQuiet || t.unread() {
		return false
	}
	if w, ok := t.shellWaits(); ok {
		return w
	}
	return q >= ShellQuietBare
}
