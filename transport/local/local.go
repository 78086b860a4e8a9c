package local

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/transport"
)

// defaultTerm is what ttymux's screen emulates.
const defaultTerm = "xterm-256color"

// Opener starts local programs on a PTY. The zero value is ready to use.
type Opener struct {
	// Shell is the program started for a Target without a Command. Empty
	// means $SHELL, then /bin/bash, then /bin/sh, whichever exists first.
	Shell string
}

var (
	_ transport.Opener       = (*Opener)(nil)
	_ transport.Conn         = (*Conn)(nil)
	_ transport.Resizer      = (*Conn)(nil)
	_ transport.Signaler     = (*Conn)(nil)
	_ transport.Foregrounder = (*Conn)(nil)
	_ transport.EchoReporter = (*Conn)(nil)
	_ transport.Confiner     = (*Conn)(nil)
)

// Open starts t.Command with t.Args (or the shell with t.Args) on a new
// PTY and returns a *Conn. A missing program or working directory is
// reported clearly: `program "foo" not found in PATH` (matching
// exec.ErrNotFound), `working directory "/nope": no such file or
// directory`. ctx only bounds setup; the child lives until it exits or the
// Conn is closed.
func (o *Opener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	size := t.Size
	if size == (transport.Size{}) {
		size = transport.DefaultSize
	}
	if !size.Valid() {
		return nil, fmt.Errorf("invalid window size %dx%d", size.Rows, size.Cols)
	}
	env, err := environ(os.Environ(), t.Term, t.Env)
	if err != nil {
		return nil, err
	}
	path := t.Command
	if path == "" {
		if path, err = o.shell(); err != nil {
			return nil, err
		}
	}
	p, err := ptyproc.Start(ptyproc.Spec{
		Path:    path,
		Args:    t.Args,
		Dir:     t.Dir,
		Env:     env,
		Rows:    size.Rows,
		Cols:    size.Cols,
		Confine: t.Confine,
	})
	if err != nil {
		return nil, err // ptyproc names the program or directory
	}
	return &Conn{p: p}, nil
}

// shell picks the program for a Target without a Command.
func (o *Opener) shell() (string, error) {
	if o.Shell != "" {
		return o.Shell, nil // an explicit choice: let Start report it missing
	}
	for _, sh := range []string{os.Getenv("SHELL"), "/bin/bash", "/bin/sh"} {
		if sh == "" {
			continue
		}
		if fi, err := os.Stat(sh); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
			return sh, nil
		}
	}
	return "", errors.New("no shell found: $SHELL is unset or missing, and so are /bin/bash and /bin/sh")
}

// environ layers TERM and extra over base. Later entries win and each key
// appears once, at the position of its first occurrence.
func environ(base []string, term string, extra []string) ([]string, error) {
	if term == "" {
		term = defaultTerm
	}
	for _, kv := range extra {
		if k, _, ok := strings.Cut(kv, "="); !ok || k == "" {
			return nil, fmt.Errorf("environment entry %q: want KEY=value", kv)
		}
	}
	all := make([]string, 0, len(base)+1+len(extra))
	all = append(all, base...)
	all = append(all, "TERM="+term)
	all = append(all, extra...)

	index := make(map[string]int, len(all)) // key -> position in out
	out := make([]string, 0, len(all))
	for _, kv := range all {
		k, _, _ := strings.Cut(kv, "=")
		if i, ok := index[k]; ok {
			out[i] = kv
			continue
		}
		index[k] = len(out)
		out = append(out, kv)
	}
	return out, nil
}

// Conn is a program running on a local PTY. It implements transport.Conn,
// transport.Resizer, transport.Signaler, transport.Foregrounder and
// transport.EchoReporter. See the package documentation for which methods
// may run concurrently.
type Conn struct {
	p *ptyproc.Proc
}

// Read reads the terminal's output. It returns io.EOF once the child has
// exited and its output is drained, and an error matching os.ErrClosed after
// Close.
func (c *Conn) Read(b []byte) (int, error) { return c.p.Read(b) }

// Write sends input to the terminal. It blocks while the terminal's input
// queue is full; Close unblocks it.
func (c *Conn) Write(b []byte) (int, error) { return c.p.Write(b) }

// Close hangs up the terminal, kills the child if it is still there a
// second later, and waits for it to be reaped. It may be called more than
// once and concurrently with other methods.
func (c *Conn) Close() error { return c.p.Close() }

// Wait blocks until the child has exited. It returns nil for exit status 0
// and a *transport.ExitError for a non-zero status or a signal. Any number
// of goroutines may call it.
func (c *Conn) Wait() error { return c.p.Wait() }

// Pid returns the child's process id.
func (c *Conn) Pid() int { return c.p.Pid() }

// Resize sets the terminal's window size; the foreground program gets
// SIGWINCH.
func (c *Conn) Resize(_ context.Context, sz transport.Size) error {
	if !sz.Valid() {
		return fmt.Errorf("invalid window size %dx%d", sz.Rows, sz.Cols)
	}
	return c.p.Resize(sz.Rows, sz.Cols)
}

// Signal sends sig ("INT", "TERM", ...; a "SIG" prefix is accepted) to the
// terminal's foreground process group, or to the child when there is none.
func (c *Conn) Signal(_ context.Context, sig transport.Signal) error {
	s, ok := ptyproc.SignalByName(string(sig))
	if !ok {
		return fmt.Errorf("unknown signal %q", sig)
	}
	return c.p.Signal(s)
}

// Foreground reports the terminal's foreground process group. IsShell is
// true when that is the child itself, that is, the shell is waiting for
// input. It costs one ioctl and one small file read.
func (c *Conn) Foreground() (transport.Foreground, error) {
	pgid, name, err := c.p.Foreground()
	if err != nil {
		return transport.Foreground{}, err
	}
	return transport.Foreground{Pgid: pgid, Name: name, IsShell: pgid != 0 && pgid == c.p.Pid()}, nil
}

// ShellWaitsForInput reports whether the child (the shell) is blocked
// reading its terminal: it has run everything typed before.
func (c *Conn) ShellWaitsForInput() (bool, error) { return c.p.WaitsForInput() }

// ShellReadCount returns how many bytes the child (the shell) has read.
func (c *Conn) ShellReadCount() (int64, error) { return c.p.ReadCount() }

// Echo reports whether the terminal's ECHO flag is set. Readline clears it
// while it edits a line, so an idle bash prompt reports false too.
func (c *Conn) Echo() (bool, error) { return c.p.Echo() }

// Confined returns the Landlock ABI the program runs under, 0 for none
// (transport.Confiner).
func (c *Conn) Confined() int { return c.p.Confined() }

// Unread returns how many bytes the program has written that Read has not
// returned yet (transport.Backlog).
func (c *Conn) Unread() (int, error) { return c.p.Unread() }
