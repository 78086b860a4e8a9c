package main

// The human side of persistent sessions: "ttymux ls" lists what the local
// agent holds and "ttymux attach ID" puts the user's terminal on one of them,
// next to the AI client that may be driving it.

import (
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"slices"
	"syscall"
	"text/tabwriter"
	"time"

	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
)

// detachKey is ctrl+], as in telnet and "docker attach --detach-keys".
const detachKey = 0x1d

// attachTail is how much recent output attach replays to redraw the
// screen: enough for a full screen of a busy TUI, small enough to be quick.
const attachTail = 64 << 10

// humanTimeout bounds talking to the agent before the terminal is taken over.
const humanTimeout = 5 * time.Second

// agentFlags starts the flags of a command that talks to the local agent
// (ls, attach, web): --socket, and a usage of the text usage followed by
// the flags' defaults, printed to stderr.
func agentFlags(name, usage string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	socket := fs.String("socket", "", "the agent's socket (default: the per-user socket)")
	fs.Usage = func() {
		fmt.Fprint(fs.Output(), usage)
		fs.PrintDefaults()
	}
	return fs, socket
}

// parseArgs parses args into fs and wants exactly n arguments after the
// flags; false means the command exits 2 (the flag package, or the usage
// printed here, has said why).
func parseArgs(fs *flag.FlagSet, args []string, n int) bool {
	if err := fs.Parse(args); err != nil {
		return false
	}
	if fs.NArg() != n {
		fs.Usage()
		return false
	}
	return true
}

// cmdLs implements "ttymux ls": it prints the local agent's sessions. It
// never starts an agent.
func cmdLs(args []string, stdout, stderr io.Writer) int {
	fs, socket := agentFlags("ls", "usage: ttymux ls [--socket PATH]\n\nList the sessions the local ttymux agent holds.\n\n", stderr)
	if !parseArgs(fs, args, 0) {
		return 2
	}
	c := &agent.Client{Socket: *socket}
	ctx, cancel := context.WithTimeout(context.Background(), humanTimeout)
	defer cancel()
	// Ping first: List answers "no sessions" when no agent runs, and a
	// human wants to know which it is (tmux: "no server running on ...").
	if err := c.Ping(ctx); err != nil {
		fmt.Fprintf(stderr, "ttymux: %v\n", err)
		return 1
	}
	sessions, err := c.List(ctx)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux: %v\n", err)
		return 1
	}
	if len(sessions) == 0 {
		fmt.Fprintln(stdout, "no sessions")
		return 0
	}
	slices.SortFunc(sessions, func(a, b transport.KeptSession) int { return a.Created.Compare(b.Created) })
	writeSessions(stdout, sessions, time.Now())
	return 0
}

// writeSessions prints one line per session under a header.
func writeSessions(w io.Writer, sessions []transport.KeptSession, now time.Time) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tSTATE\tPID\tCLIENTS\tOUTPUT\tAGE\tSIZE\tFOREGROUND\tCOMMAND")
	for _, s := range sessions {
		state := "running"
		switch {
		case s.Exited && s.ExitSignal != "":
			state = "killed (" + string(s.ExitSignal) + ")"
		case s.Exited:
			state = fmt.Sprintf("exited (%d)", s.ExitStatus)
		}
		fg := s.Foreground
		if fg == "" || s.Exited {
			fg = "-"
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\t%s\t%dx%d\t%s\t%s\n", s.ID, state, s.Pid, s.Clients,
			humanBytes(s.End), humanAge(now.Sub(s.Created)), s.Size.Cols, s.Size.Rows, fg, s.Command)
	}
	_ = tw.Flush() // a failed write to stdout has nowhere better to go
}

func humanBytes(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d B", n)
	case n < 1<<20:
		return fmt.Sprintf("%.1f KiB", float64(n)/(1<<10))
	case n < 1<<30:
		return fmt.Sprintf("%.1f MiB", float64(n)/(1<<20))
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
}

func humanAge(d time.Duration) string {
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds", int(d.Seconds()))
	case d < time.Hour:
		return fmt.Sprintf("%dm", int(d.Minutes()))
	case d < 48*time.Hour:
		return fmt.Sprintf("%dh%02dm", int(d.Hours()), int(d.Minutes())%60)
	}
	return fmt.Sprintf("%dd", int(d.Hours()/24))
}

const attachUsage = `usage: ttymux attach [--socket PATH] [--raw] ID

Put this terminal on session ID held by the local ttymux agent (see
ttymux ls). Recent output is replayed to redraw the screen, what you type
goes to the session, and the session follows this window's size while you
are attached. An AI client may be driving the same session.

What the session sends is filtered, as tmux does: no clipboard writes
(OSC 52), no queries that would make this terminal type its answers into
the session (DA, DSR, DECRQSS and other DCS requests, CSI 21 t and other
window reports), titles stripped of control characters. --raw passes
everything through.

Detach with ctrl+] : the session keeps running. The exit status is 0 after
a detach and the session's own exit status when it ends while attached.

`

// cmdAttach implements "ttymux attach ID". It never starts an agent.
func cmdAttach(args []string, stdin *os.File, stdout, stderr io.Writer) int {
	fs, socket := agentFlags("attach", attachUsage, stderr)
	raw := fs.Bool("raw", false, "pass everything the session sends to this terminal, clipboard writes and terminal queries included")
	if !parseArgs(fs, args, 1) {
		return 2
	}
	id := fs.Arg(0)
	c := &agent.Client{Socket: *socket}
	ctx, cancel := context.WithTimeout(context.Background(), humanTimeout)
	conn, ks, _, err := c.AttachTail(ctx, id, attachTail)
	cancel()
	switch {
	case errors.Is(err, agent.ErrNoAgent):
		sock := *socket
		if sock == "" {
			sock = agent.DefaultSocket()
		}
		fmt.Fprintf(stderr, "ttymux: no ttymux agent is running on %s, so there is no session %q to attach to\n", sock, id)
		return 1
	case errors.Is(err, transport.ErrNoSession):
		fmt.Fprintf(stderr, "ttymux: %v (ttymux ls lists the sessions)\n", err)
		return 1
	case err != nil:
		fmt.Fprintf(stderr, "ttymux: attach %s: %v\n", id, err)
		return 1
	}
	a := &attachment{id: id, conn: conn, size: ks.Size, stdin: stdin, stdout: stdout, stderr: stderr}
	if !*raw {
		a.filter = &termFilter{}
	}
	return a.run()
}

// attachment is one human attach, from taking over the terminal to giving
// it back.
type attachment struct {
	id     string
	conn   *agent.Conn
	size   transport.Size // the session's size when we attached
	stdin  *os.File
	stdout io.Writer
	stderr io.Writer
	alt    altScreen // written by copyOutput, read after it has returned
	// filter, unless --raw, keeps clipboard writes and terminal queries
	// from the session away from the person's terminal (copyOutput only).
	filter *termFilter
}

// inputResult is how the stdin copier ended.
type inputResult struct {
	detach bool  // ctrl+] or the end of stdin
	err    error // reading stdin or writing to the session failed
}

func (a *attachment) run() int {
	tty, err := openTerminal(a.stdin)
	if err != nil {
		_ = a.conn.Close() // best effort; err already set
		fmt.Fprintf(a.stderr, "ttymux: attach %s: %v\n", a.id, err)
		return 1
	}
	// Catch the signals that would otherwise kill us with the terminal
	// still raw; in raw mode the keyboard sends none of them.
	sigc := make(chan os.Signal, 1)
	signal.Notify(sigc, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	defer signal.Stop(sigc)
	winc := make(chan os.Signal, 1)
	if tty.isTerm {
		signal.Notify(winc, syscall.SIGWINCH)
		defer signal.Stop(winc)
		fmt.Fprint(a.stdout, "\x1b[H\x1b[2J") // clear: the replayed tail redraws it
	}
	fmt.Fprintf(a.stderr, "[attached to %s — detach with ctrl+]]\n", a.id)
	if err := tty.makeRaw(); err != nil {
		tty.close()
		_ = a.conn.Close() // best effort; err already set
		fmt.Fprintf(a.stderr, "ttymux: attach %s: %v\n", a.id, err)
		return 1
	}
	resized := a.followSize(tty)

	outDone := make(chan error, 1)
	go func() { outDone <- a.copyOutput() }()
	inDone := make(chan inputResult, 1)
	go func() { inDone <- a.copyInput(tty.in) }()

	var (
		detached bool
		reason   string
		outErr   error
		haveOut  bool
		haveIn   bool
	)
loop:
	for {
		select {
		case outErr = <-outDone:
			haveOut = true
			break loop
		case r := <-inDone:
			haveIn = true
			if r.detach {
				detached, reason = true, ""
				break loop
			}
			if r.err != nil && !errors.Is(r.err, agent.ErrAgentLost) && !errors.Is(r.err, agent.ErrDetached) {
				detached, reason = true, r.err.Error()
				break loop
			}
			// Writing to the session failed: Read reports why.
			outErr = <-outDone
			haveOut = true
			break loop
		case s := <-sigc:
			detached, reason = true, "signal "+s.String()
			break loop
		case <-winc:
			resized = a.followSize(tty) || resized
		}
	}

	if detached && resized && a.size.Valid() {
		// Give the session back its size: the ttymux server's screen for it
		// was kept at that size.
		ctx, cancel := context.WithTimeout(context.Background(), time.Second)
		_ = a.conn.Resize(ctx, a.size) // best effort: detaching anyway
		cancel()
	}
	_ = a.conn.Close() // detaches; the copier's Read returns
	tty.stopInput()
	if !haveOut {
		outErr = <-outDone
	}
	if !haveIn {
		<-inDone
	}
	tty.close()
	if tty.isTerm {
		// Undo modes a full-screen program may have left on: hidden
		// cursor, mouse reporting, bracketed paste, application keypad,
		// colours, and the alternate screen if it is showing (leaving it
		// restores the cursor saved on entry; when it is not showing that
		// would move the cursor to wherever was saved last).
		if a.alt.on {
			fmt.Fprint(a.stdout, "\x1b[?1049l")
		}
		fmt.Fprint(a.stdout, "\x1b[?25h\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1006l\x1b[?2004l\x1b[?1l\x1b>\x1b[0m")
	}

	if detached {
		if reason != "" {
			reason = " (" + reason + ")"
		}
		fmt.Fprintf(a.stderr, "\r\n[detached from %s%s; it keeps running: ttymux attach %s]\n", a.id, reason, a.id)
		return 0
	}
	if errors.Is(outErr, io.EOF) {
		werr := a.conn.Wait()
		var ee *transport.ExitError
		switch {
		case werr == nil:
			fmt.Fprintf(a.stderr, "\r\n[session %s exited]\n", a.id)
			return 0
		case errors.As(werr, &ee):
			fmt.Fprintf(a.stderr, "\r\n[session %s ended: %v]\n", a.id, ee)
			return ee.ExitStatus()
		}
		outErr = werr
	}
	fmt.Fprintf(a.stderr, "\r\n[%v]\n", outErr)
	return 1
}

// followSize sends the terminal's size to the session when it differs
// from the session's. It reports whether it sent one.
func (a *attachment) followSize(tty *terminal) bool {
	sz, ok := tty.size()
	if !ok {
		return false
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Second)
	defer cancel()
	return a.conn.Resize(ctx, sz) == nil
}

// copyOutput copies the session's output to stdout until Read fails, and
// returns that error (io.EOF when the session ended).
func (a *attachment) copyOutput() error {
	buf := make([]byte, 32<<10)
	var filtered []byte
	for {
		n, err := a.conn.Read(buf)
		if n > 0 {
			a.alt.Write(buf[:n])
			out := buf[:n]
			if a.filter != nil {
				filtered = a.filter.filter(filtered[:0], out)
				out = filtered
			}
			if _, werr := a.stdout.Write(out); len(out) > 0 && werr != nil {
				return fmt.Errorf("write to the terminal: %w", werr)
			}
		}
		var gap *transport.GapError
		if errors.As(err, &gap) {
			fmt.Fprintf(a.stdout, "\r\n[ttymux: %s]\r\n", gap)
			continue
		}
		if err != nil {
			return err
		}
	}
}

// altScreen follows whether the output switched the terminal to the
// alternate screen (DEC private modes 1049, 1047 and 47), across chunk
// boundaries.
type altScreen struct {
	on    bool
	carry []byte // the end of the previous chunk, to match across a split
}

// altLongest is the longest sequence altScreen looks for, "\x1b[?1049h".
const altLongest = 8

func (s *altScreen) Write(p []byte) {
	// A sequence split across chunks lies within carry + p's first bytes.
	joint := append(s.carry, p[:min(len(p), altLongest-1)]...)
	s.scan(joint)
	s.scan(p)
	if len(p) >= altLongest-1 {
		joint = p
	}
	s.carry = append(s.carry[:0:0], joint[max(0, len(joint)-(altLongest-1)):]...)
}

// scan applies the last switch in b.
func (s *altScreen) scan(b []byte) {
	last := -1
	for _, seq := range [...]struct {
		s  string
		on bool
	}{{"\x1b[?1049h", true}, {"\x1b[?1049l", false}, {"\x1b[?1047h", true}, {"\x1b[?1047l", false}, {"\x1b[?47h", true}, {"\x1b[?47l", false}} {
		if i := bytes.LastIndex(b, []byte(seq.s)); i > last {
			last, s.on = i, seq.on
		}
	}
}

// copyInput copies stdin to the session until ctrl+], the end of stdin, or
// an error.
func (a *attachment) copyInput(in io.Reader) inputResult {
	buf := make([]byte, 4<<10)
	for {
		n, err := in.Read(buf)
		if n > 0 {
			p := buf[:n]
			i := bytes.IndexByte(p, detachKey)
			if i >= 0 {
				p = p[:i]
			}
			if len(p) > 0 {
				if _, werr := a.conn.Write(p); werr != nil {
					return inputResult{err: werr}
				}
			}
			if i >= 0 {
				return inputResult{detach: true}
			}
		}
		switch {
		case errors.Is(err, io.EOF):
			return inputResult{detach: true}
		case errors.Is(err, os.ErrDeadlineExceeded):
			return inputResult{} // stopInput: we are ending anyway
		case err != nil:
			return inputResult{err: fmt.Errorf("read the terminal: %w", err)}
		}
	}
}

// terminal is the human's side: stdin, duplicated so that its reads can be
// interrupted, and the terminal modes to restore.
type terminal struct {
	isTerm  bool
	fd      int         // stdin's descriptor, valid while the *os.File lives
	orig    *os.File    // keeps fd alive
	in      *os.File    // a pollable duplicate of fd
	wasNB   bool        // fd's O_NONBLOCK before we set it
	state   *term.State // the modes before makeRaw, nil when not raw
	stopped bool
}

// openTerminal prepares stdin. The duplicate is made non-blocking so the
// runtime poller serves it and SetReadDeadline can end a pending Read (a
// goroutine blocked in read(2) could not be waited for). O_NONBLOCK is a
// property of the open file description shared with the shell we return
// to, so close restores it.
func openTerminal(stdin *os.File) (*terminal, error) {
	t := &terminal{orig: stdin}
	rc, err := stdin.SyscallConn()
	if err != nil {
		return nil, fmt.Errorf("use stdin: %w", err)
	}
	var dup int
	var derr error
	err = rc.Control(func(fd uintptr) {
		t.fd = int(fd)
		t.isTerm = term.IsTerminal(t.fd)
		var fl int
		if fl, derr = unix.FcntlInt(fd, unix.F_GETFL, 0); derr != nil {
			return
		}
		t.wasNB = fl&unix.O_NONBLOCK != 0
		dup, derr = unix.Dup(t.fd)
	})
	if err == nil {
		err = derr
	}
	if err != nil {
		return nil, fmt.Errorf("use stdin: %w", err)
	}
	unix.CloseOnExec(dup)
	if err := unix.SetNonblock(dup, true); err != nil {
		_ = unix.Close(dup) // best effort; err already set
		return nil, fmt.Errorf("use stdin: %w", err)
	}
	t.in = os.NewFile(uintptr(dup), "stdin")
	return t, nil
}

func (t *terminal) makeRaw() error {
	if !t.isTerm {
		return nil
	}
	st, err := term.MakeRaw(t.fd)
	if err != nil {
		return fmt.Errorf("put the terminal in raw mode: %w", err)
	}
	t.state = st
	return nil
}

// size returns the terminal's window size.
func (t *terminal) size() (transport.Size, bool) {
	if !t.isTerm {
		return transport.Size{}, false
	}
	cols, rows, err := term.GetSize(t.fd)
	sz := transport.Size{Rows: rows, Cols: cols}
	return sz, err == nil && sz.Valid()
}

// stopInput ends a pending Read of stdin.
func (t *terminal) stopInput() {
	_ = t.in.SetReadDeadline(time.Unix(1, 0)) // a non-pollable stdin (a file) never blocks
}

// close restores the terminal's modes and stdin's blocking mode. Call it
// after the input copier has returned.
func (t *terminal) close() {
	if t.stopped {
		return
	}
	t.stopped = true
	if t.state != nil {
		_ = term.Restore(t.fd, t.state) // best effort: nothing else to try
	}
	if !t.wasNB {
		_ = unix.SetNonblock(t.fd, false) // shared with the shell we return to
	}
	_ = t.in.Close() // the duplicate only
}
