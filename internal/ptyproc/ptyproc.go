package ptyproc

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/rawio"
	"github.com/ttymux/ttymux/transport"
)

const (
	// quietGrace is how long Read waits for more output once the child has
	// exited while something else still holds the slave open.
	quietGrace = 200 * time.Millisecond
	// closeGrace is how long Close lets the child react to the hangup
	// (SIGHUP) before it kills it.
	closeGrace = time.Second
	// defaultPath is searched when the environment has no PATH, as
	// bash does (bash(1), "PATH").
	defaultPath = "/usr/local/bin:/usr/bin:/bin"
)

// Spec describes the child to start.
type Spec struct {
	// Path is the program to run. A name without a slash is looked up in
	// the PATH of Env; a relative path is taken relative to Dir.
	Path string
	// Args are the arguments after argv[0].
	Args []string
	// Argv0 is argv[0]; empty means Path as given.
	Argv0 string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env is the child's full environment ("KEY=value"); nil means the
	// current process's environment, as with exec.Cmd.
	Env []string
	// Rows and Cols are the initial window size; both zero leaves the size
	// unset (0x0).
	Rows, Cols int
	// Confine runs the child under Landlock where the kernel has it: no
	// filesystem writes outside its terminal and a scratch directory
	// (its TMPDIR, removed by Close), no signals or abstract unix sockets
	// beyond its own process tree (confine.go). Proc.Confined says whether
	// it took effect.
	Confine bool
}

// notFoundError reports a program name that is not in PATH. It unwraps to
// exec.ErrNotFound.
type notFoundError struct{ name string }

func (e *notFoundError) Error() string { return fmt.Sprintf("program %q not found in PATH", e.name) }
func (e *notFoundError) Unwrap() error { return exec.ErrNotFound }

// Proc is a child process running on a PTY. Its methods may be called
// concurrently; see the package documentation.
type Proc struct {
	cmd    *exec.Cmd
	master *os.File        // non-blocking, served by the runtime poller
	raw    syscall.RawConn // master.SyscallConn(), for ioctls

	exited  chan struct{} // closed by the reaper once the child is waited for
	waitErr error         // written by the reaper before exited is closed

	eof    atomic.Bool // Read has reported io.EOF
	closed atomic.Bool // Close has begun

	closeOnce sync.Once
	closeErr  error

	confined int    // the Landlock ABI the child runs under; 0: none
	scratch  string // the confined child's scratch directory, removed by Close

	// leaderComm is the child's /proc/PID/comm, opened by the first
	// Foreground that finds the child in the foreground and kept until
	// Close: reading it again is one pread, not open, read and close
	// (leaderName).
	leaderCommOnce sync.Once
	leaderComm     *os.File
}

// childSignals are the signals a terminal's programs must get with their
// default action that a Go process can have ignored: the Go runtime keeps
// SIGHUP and SIGINT ignored when the process started with them ignored,
// and installs its own handler (so children get the default) for the rest.
var childSignals = []os.Signal{syscall.SIGHUP, syscall.SIGINT}

// ignoredSink receives the signals defaultSignals takes over; nobody reads
// it, so for this process they stay ignored (signal.Notify never blocks).
var ignoredSink = make(chan os.Signal, 1)

// defaultSignals makes sure children start with the default action for
// childSignals. An ignored signal stays ignored across exec: a server
// started by nohup, or in the background of a script (SIGINT ignored),
// would give every shell a terminal whose close does not hang it
// up and whose Ctrl-C does nothing, and an interactive shell cannot undo
// that (POSIX: signals ignored on entry cannot be trapped or reset).
// A signal with a Go handler is reset to the default in the child, so the
// ignored ones get a handler that drops them.
func defaultSignals() {
	for _, sig := range childSignals {
		if signal.Ignored(sig) {
			signal.Notify(ignoredSink, sig)
		}
	}
}

// Start starts the child described by spec as a session leader with a new
// PTY as its controlling terminal and stdin, stdout and stderr. The window
// size is set before the child runs. Start returns a clear error when Dir or
// the program does not exist: `working directory "/nope": no such file or
// directory`, `program "foo" not found in PATH` (which matches
// exec.ErrNotFound).
//
// The caller must call Close, which also ends the goroutine that waits for
// the child.
func Start(spec Spec) (*Proc, error) {
	ws, err := winsize(spec.Rows, spec.Cols, true)
	if err != nil {
		return nil, err
	}
	if spec.Dir != "" {
		if err := checkDir(spec.Dir); err != nil {
			return nil, err
		}
	}
	path, err := resolve(spec.Path, spec.Dir, spec.Env)
	if err != nil {
		return nil, err
	}
	defaultSignals()
	argv0 := spec.Argv0
	if argv0 == "" {
		argv0 = spec.Path
	}
	cmd := &exec.Cmd{
		Path: path,
		Args: append([]string{argv0}, spec.Args...),
		Dir:  spec.Dir,
		Env:  spec.Env,
	}
	confined, scratch := 0, ""
	if spec.Confine {
		if confined = ConfineLevel(); confined > 0 {
			if cmd.Path, cmd.Args, cmd.Env, scratch, err = confinedStart(path, cmd.Args, spec.Env); err != nil {
				return nil, err
			}
		}
	}
	fail := func(err error) (*Proc, error) {
		if scratch != "" {
			_ = os.RemoveAll(scratch) // best effort; err already set
		}
		return nil, fmt.Errorf("start %s on a pty: %w", spec.Path, err)
	}
	var size *pty.Winsize
	if ws != nil {
		size = &pty.Winsize{Rows: ws.Row, Cols: ws.Col}
	}
	// StartWithAttrs opens the pair, sets the size on the master, starts
	// the child with the slave as fds 0-2 and closes the parent's copy of
	// the slave. Setsid+Setctty make the slave (fd 0, Ctty) the child's
	// controlling terminal, as pty.Start does.
	blocking, err := pty.StartWithAttrs(cmd, size, &syscall.SysProcAttr{Setsid: true, Setctty: true})
	if err != nil {
		return fail(err)
	}
	master, err := nonblocking(blocking)
	if err != nil {
		_ = cmd.Process.Kill() // best effort; err already set
		_ = cmd.Wait()
		return fail(err)
	}
	raw, err := master.SyscallConn()
	if err != nil {
		_ = master.Close()
		_ = cmd.Process.Kill() // best effort; err already set
		_ = cmd.Wait()
		return fail(err)
	}
	p := &Proc{cmd: cmd, master: master, raw: raw, exited: make(chan struct{}), confined: confined, scratch: scratch}
	go p.reap()
	return p, nil
}

// nonblocking returns a non-blocking, poller-backed duplicate of f and
// closes f. f is in blocking mode because creack/pty called Fd on it.
func nonblocking(f *os.File) (*os.File, error) {
	defer f.Close()
	raw, err := f.SyscallConn()
	if err != nil {
		return nil, err
	}
	fd := -1
	var dupErr error
	if err := raw.Control(func(old uintptr) {
		// F_DUPFD_CLOEXEC, not dup(2): a child started concurrently by
		// another goroutine must not inherit the master.
		fd, dupErr = unix.FcntlInt(old, unix.F_DUPFD_CLOEXEC, 0)
	}); err != nil {
		return nil, err
	}
	if dupErr != nil {
		return nil, os.NewSyscallError("dup pty master", dupErr)
	}
	// O_NONBLOCK lives in the open file description, which f and fd
	// share; closing f on return leaves the flags alone.
	if err := unix.SetNonblock(fd, true); err != nil {
		_ = unix.Close(fd)
		return nil, os.NewSyscallError("set pty master non-blocking", err)
	}
	// os.NewFile sees O_NONBLOCK and registers fd with the poller, so
	// deadlines and Close interrupt Read.
	return os.NewFile(uintptr(fd), f.Name()), nil
}

// reap waits for the child, records the result and wakes a Read that is
// blocked on a slave that a grandchild keeps open.
func (p *Proc) reap() {
	p.waitErr = exitError(p.cmd.Wait())
	close(p.exited)
	// A deadline in the past makes a pending Read return
	// os.ErrDeadlineExceeded; Read then sees exited and switches to
	// quiet-grace mode. Read tolerates this arriving late.
	_ = p.master.SetReadDeadline(time.Unix(1, 0)) // fails only once closed
}

func exitError(err error) error {
	var ee *exec.ExitError
	if !errors.As(err, &ee) {
		if err != nil {
			return fmt.Errorf("wait for pty process: %w", err)
		}
		return nil
	}
	ws, ok := ee.Sys().(syscall.WaitStatus)
	switch {
	case !ok:
		return &transport.ExitError{Status: ee.ExitCode()}
	case ws.Signaled():
		return &transport.ExitError{Status: 128 + int(ws.Signal()), Signal: transport.Signal(SignalName(ws.Signal()))}
	default:
		return &transport.ExitError{Status: ws.ExitStatus()}
	}
}

func (p *Proc) hasExited() bool {
	select {
	case <-p.exited:
		return true
	default:
		return false
	}
}

// Read reads output from the terminal. It returns io.EOF once the terminal
// has no writers left (EIO from the master), or once the child has exited
// and the master has been quiet for a short grace period. After Close it
// returns an error that matches os.ErrClosed. Once Read has returned
// io.EOF it keeps doing so. Only one goroutine should Read at a time.
func (p *Proc) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	if p.eof.Load() {
		return 0, io.EOF
	}
	for {
		exited := p.hasExited()
		var since time.Time
		if exited {
			since = time.Now()
			if err := p.master.SetReadDeadline(since.Add(quietGrace)); err != nil {
				return 0, &fs.PathError{Op: "read", Path: p.master.Name(), Err: p.closedErr(err)}
			}
		}
		n, err := p.readMaster(b)
		switch {
		case n > 0:
			// Any error comes back on the next call.
			return n, nil
		case errors.Is(err, syscall.EIO):
			p.eof.Store(true)
			return 0, io.EOF
		case errors.Is(err, os.ErrDeadlineExceeded):
			// Either the reaper's wake-up (possibly arriving after we set
			// our own deadline) or a real quiet period.
			if exited && time.Since(since) >= quietGrace {
				// The runtime reports an expired deadline without trying
				// read(2) when this goroutine ran late, so look once more
				// before calling the terminal quiet.
				n, err := p.readNow(b)
				if n > 0 {
					return n, nil
				}
				if err != nil && !errors.Is(err, unix.EAGAIN) && !errors.Is(err, unix.EIO) {
					return 0, err
				}
				p.eof.Store(true)
				return 0, io.EOF
			}
		case err != nil:
			return 0, err
		}
	}
}

// readMaster reads the master as os.File.Read would, and with the same
// errors, but with a raw read(2) (internal/rawio). A PTY read can sleep in
// the kernel until the terminal's worker has moved the output along, tens
// to hundreds of microseconds during a flood; a read the scheduler sees
// then loses its processor to another thread, and the runtime's monitor
// wakes every 20 µs to look again: during `seq 1 1000000` a third of the
// server's context switches were that monitor's (issue #37).
func (p *Proc) readMaster(b []byte) (int, error) {
	n, err := rawio.Read(p.raw, b)
	if errno, ok := err.(syscall.Errno); ok {
		return 0, &fs.PathError{Op: "read", Path: p.master.Name(), Err: errno}
	}
	if err != nil && err != io.EOF { // as os.File: a hung-up terminal reads 0 bytes, EOF
		return 0, &fs.PathError{Op: "read", Path: p.master.Name(), Err: p.closedErr(err)}
	}
	return n, err
}

// readNow makes one read(2) on the non-blocking master, bypassing the
// poller and its deadline.
func (p *Proc) readNow(b []byte) (n int, err error) {
	cerr := p.raw.Control(func(fd uintptr) {
		for {
			n, err = unix.Read(int(fd), b)
			if err != unix.EINTR {
				return
			}
		}
	})
	if cerr != nil {
		return 0, &fs.PathError{Op: "read", Path: p.master.Name(), Err: p.closedErr(cerr)}
	}
	if err != nil {
		return 0, &fs.PathError{Op: "read", Path: p.master.Name(), Err: err}
	}
	return n, nil
}

// Write writes input to the terminal. It blocks while the terminal's input
// queue is full; Close unblocks it.
func (p *Proc) Write(b []byte) (int, error) {
	return p.master.Write(b)
}

// Close closes the master, which hangs up the terminal: the kernel sends
// SIGHUP to the child as the session leader, and the foreground job gets
// SIGHUP when the session leader exits (credentials(7)); bash also passes it
// on to its jobs. If the child has not exited a second later, Close kills it
// (SIGKILL to the child only; background jobs may outlive it). Close waits
// for the child to be reaped, so afterwards Wait returns at once. Close may
// be called concurrently with every other method and more than once; it
// returns the first error.
func (p *Proc) Close() error {
	p.closeOnce.Do(func() {
		p.closed.Store(true)
		p.closeErr = p.master.Close()
		// The kernel hangs the terminal up (SIGHUP to the session) when
		// the master's last reference goes, which with a Read pending is
		// when the reading goroutine returns: on a loaded machine that can
		// be later than the grace below. Signal the session leader now,
		// as the hangup will (Signal is safe against an exited child).
		_ = p.cmd.Process.Signal(syscall.SIGHUP)
		_ = p.cmd.Process.Signal(syscall.SIGCONT) // a stopped leader acts on it
		t := time.NewTimer(closeGrace)
		defer t.Stop()
		select {
		case <-p.exited:
		case <-t.C:
			_ = p.cmd.Process.Kill() // ErrProcessDone if it just exited
			<-p.exited
		}
		p.leaderCommOnce.Do(func() {}) // no Foreground opens it after this
		if p.leaderComm != nil {
			_ = p.leaderComm.Close() // read-only
		}
		if p.scratch != "" {
			// A background job may still use it; the session is over.
			_ = os.RemoveAll(p.scratch) // best effort: it is under the temp dir
		}
	})
	return p.closeErr
}

// Confined returns the Landlock ABI version the child runs under (see
// Spec.Confine), or 0 when it runs unconfined.
func (p *Proc) Confined() int { return p.confined }

// Wait waits for the child to exit. It returns nil for exit status 0, an
// *transport.ExitError for a non-zero status or a signal, or another error if waiting
// failed. Any number of goroutines may call it, any number of times; they
// all get the same result.
func (p *Proc) Wait() error {
	<-p.exited
	return p.waitErr
}

// Pid returns the child's process id, which is also its session and
// process group id.
func (p *Proc) Pid() int { return p.cmd.Process.Pid }

// control runs an ioctl-like f on the master's descriptor without taking
// the file out of non-blocking mode.
func (p *Proc) control(op string, f func(fd int) error) error {
	var ferr error
	if err := p.raw.Control(func(fd uintptr) { ferr = f(int(fd)) }); err != nil {
		return fmt.Errorf("%s: %w", op, p.closedErr(err))
	}
	if ferr != nil {
		return fmt.Errorf("%s: %w", op, ferr)
	}
	return nil
}

// closedErr turns the poller's "use of closed file" (internal/poll's
// ErrFileClosing, which SyscallConn and deadline calls return unwrapped)
// into the os.ErrClosed that Read and Write return after Close.
func (p *Proc) closedErr(err error) error {
	if p.closed.Load() {
		return os.ErrClosed
	}
	return err
}

// Resize sets the terminal's window size; the kernel sends SIGWINCH to the
// foreground process group when it changes (ioctl_tty(2), TIOCSWINSZ).
func (p *Proc) Resize(rows, cols int) error {
	ws, err := winsize(rows, cols, false)
	if err != nil {
		return err
	}
	return p.control("resize pty", func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, ws)
	})
}

func winsize(rows, cols int, zeroOK bool) (*unix.Winsize, error) {
	if zeroOK && rows == 0 && cols == 0 {
		return nil, nil
	}
	if rows <= 0 || cols <= 0 || rows > 0xffff || cols > 0xffff {
		return nil, fmt.Errorf("invalid window size %dx%d", rows, cols)
	}
	return &unix.Winsize{Row: uint16(rows), Col: uint16(cols)}, nil
}

// foregroundPgid returns the terminal's foreground process group, 0 when
// there is none (the session leader has exited).
func (p *Proc) foregroundPgid() (int, error) {
	var pgid int
	// TIOCGPGRP on the master reports the slave's foreground group
	// (ioctl_tty(2); the kernel redirects it to the other side).
	err := p.control("get foreground process group", func(fd int) (err error) {
		pgid, err = unix.IoctlGetInt(fd, unix.TIOCGPGRP)
		return err
	})
	return pgid, err
}

// Foreground returns the terminal's foreground process group and the name
// of its leader (/proc/PGID/comm). While the shell waits for input that is
// the child itself (pgid == Pid()); while it runs a job, the job. pgid is 0
// when there is no foreground group (the child has exited), and name is
// empty when the leader has already exited while its group lives on (the
// first command of a pipeline). It is cheap: one ioctl and one small read.
func (p *Proc) Foreground() (pgid int, name string, err error) {
	pgid, err = p.foregroundPgid()
	if err != nil || pgid <= 0 {
		return 0, "", err
	}
	comm, ok := "", false
	if pgid == p.Pid() {
		comm, ok = p.leaderName()
	}
	if !ok {
		comm, ok = readComm(pgid)
	}
	if !ok {
		return pgid, "", nil // the leader is gone; the group is still the answer
	}
	return pgid, comm, nil
}

// leaderName reads the child's name (its comm, as readComm) through a file
// kept open: the shell is in the foreground at every prompt, and a session
// asks for the foreground twice per command (issue #37). The file follows
// the process, an exec included; once the child has exited and been
// reaped a read fails and the caller reads /proc as before.
func (p *Proc) leaderName() (string, bool) {
	p.leaderCommOnce.Do(func() {
		if p.closed.Load() {
			return
		}
		f, err := os.Open("/proc/" + strconv.Itoa(p.Pid()) + "/comm")
		if err == nil {
			p.leaderComm = f
		}
	})
	if p.leaderComm == nil {
		return "", false
	}
	var buf [64]byte // comm is at most 16 bytes (TASK_COMM_LEN)
	n, err := p.leaderComm.ReadAt(buf[:], 0)
	if n == 0 || err != nil && err != io.EOF {
		return "", false
	}
	return strings.TrimSpace(string(buf[:n])), true
}

// readComm reads /proc/PID/comm with three system calls (open, read,
// close) and no *os.File: os.ReadFile adds two fstat calls, a read to EOF,
// an os.File with its finalizer and a buffer, and a session asks for the
// foreground several times per command (issue #17).
func readComm(pid int) (string, bool) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/comm", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return "", false
	}
	defer unix.Close(fd) // read-only: nothing to flush
	var buf [64]byte     // comm is at most 16 bytes (TASK_COMM_LEN)
	for {
		n, err := unix.Read(fd, buf[:])
		if err == unix.EINTR {
			continue
		}
		if err != nil || n < 0 {
			return "", false
		}
		return strings.TrimSpace(string(buf[:n])), true
	}
}

// WaitsForInput reports whether the child itself is blocked waiting to
// read its terminal (/proc/PID/wchan names the tty read or a poll): a shell
// that has run everything typed and waits for the next line. A runnable
// shell, or one waiting for a child, does not. Linux only; elsewhere, or
// when the kernel hides wchan, it returns an error.
func (p *Proc) WaitsForInput() (bool, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/wchan")
	if err != nil {
		return false, err
	}
	w := strings.TrimSpace(string(b))
	if i := strings.IndexByte(w, '.'); i > 0 {
		// A compiler's clone of the function: "poll_schedule_timeout.constprop.0"
		// (bash's readline polls; Linux 6.x names it so).
		w = w[:i]
	}
	switch w {
	case "wait_woken", "n_tty_read", "do_select", "do_sys_poll", "poll_schedule_timeout", "core_sys_select":
		return true, nil
	case "", "0":
		// Running, or hidden: /proc/sys/kernel/kptr_restrict or a
		// kernel without wchan names says "0" for a sleeping task too.
		st, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/stat")
		if err != nil {
			return false, err
		}
		if i := strings.LastIndexByte(string(st), ')'); i >= 0 && i+2 < len(st) && st[i+2] == 'S' && w == "0" {
			return false, errors.New("wchan hidden")
		}
		return false, nil
	default:
		return false, nil
	}
}

// ReadCount returns how many bytes the child itself has read, from any
// file (rchar in /proc/PID/io): a shell blocked reading its terminal whose
// count has not grown since text was typed has not read that text yet (it
// waits in the kernel's queue on a busy machine). Linux only.
func (p *Proc) ReadCount() (int64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.Pid()) + "/io")
	if err != nil {
		return 0, err
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "rchar:"); ok {
			return strconv.ParseInt(strings.TrimSpace(v), 10, 64)
		}
	}
	return 0, errors.New("no rchar in /proc/PID/io")
}

// Unread returns how many bytes of output the child has written that Read
// has not returned yet (FIONREAD on the master: the kernel's queue).
func (p *Proc) Unread() (int, error) {
	var n int
	err := p.control("count unread output", func(fd int) (err error) {
		n, err = unix.IoctlGetInt(fd, fionread)
		return err
	})
	return n, err
}

// Echo reports whether the terminal's ECHO flag is set. Programs turn it
// off to read passwords; note that readline also turns it off while it
// edits a line, because it echoes by itself.
func (p *Proc) Echo() (bool, error) {
	var t *unix.Termios
	// TCGETS on the master returns the slave's termios.
	err := p.control("get terminal attributes", func(fd int) (err error) {
		t, err = unix.IoctlGetTermios(fd, getTermios)
		return err
	})
	if err != nil {
		return false, err
	}
	return t.Lflag&unix.ECHO != 0, nil
}

// Signal sends sig to the terminal's foreground process group, as typing
// the terminal's INTR or QUIT character would. When there is no foreground
// group it signals the child itself. It returns an error matching
// os.ErrProcessDone when the child has already been reaped.
func (p *Proc) Signal(sig syscall.Signal) error {
	if pgid, err := p.foregroundPgid(); err == nil && pgid > 0 {
		err := unix.Kill(-pgid, sig)
		if err == nil {
			return nil
		}
		if !errors.Is(err, unix.ESRCH) {
			return fmt.Errorf("send SIG%s to process group %d: %w", SignalName(sig), pgid, err)
		}
	}
	// os.Process.Signal uses a pidfd, so it cannot hit a recycled pid.
	if err := p.cmd.Process.Signal(sig); err != nil {
		return fmt.Errorf("send SIG%s to process %d: %w", SignalName(sig), p.Pid(), err)
	}
	return nil
}

func checkDir(dir string) error {
	fi, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("working directory %q: %w", dir, pathErr(err))
	}
	if !fi.IsDir() {
		return fmt.Errorf("working directory %q: %w", dir, syscall.ENOTDIR)
	}
	return nil
}

// pathErr strips the *fs.PathError wrapper whose operation and path the
// caller states better itself.
func pathErr(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// resolve finds the program to run: a name without a slash in the PATH of
// env (like execvp(3), but skipping relative PATH entries, as os/exec does
// since Go 1.19), anything else relative to dir.
func resolve(name, dir string, env []string) (string, error) {
	if name == "" {
		return "", errors.New("no program to run")
	}
	if strings.Contains(name, "/") {
		p := name
		if dir != "" && !filepath.IsAbs(p) {
			p = filepath.Join(dir, p)
		}
		if err := checkExecutable(p); err != nil {
			return "", fmt.Errorf("program %q: %w", name, err)
		}
		return name, nil
	}
	pathList, ok := lookupEnv(env, "PATH")
	if !ok {
		pathList = defaultPath
	}
	for _, d := range filepath.SplitList(pathList) {
		if !filepath.IsAbs(d) {
			continue
		}
		p := filepath.Join(d, name)
		if checkExecutable(p) == nil {
			return p, nil
		}
	}
	return "", &notFoundError{name: name}
}

func checkExecutable(p string) error {
	fi, err := os.Stat(p)
	switch {
	case err != nil:
		return pathErr(err)
	case fi.IsDir():
		return syscall.EISDIR
	case fi.Mode()&0o111 == 0:
		return syscall.EACCES
	}
	return nil
}

// lookupEnv returns the last value of key in env, or in the current
// process's environment when env is nil (as exec.Cmd would pass it).
func lookupEnv(env []string, key string) (string, bool) {
	if env == nil {
		return os.LookupEnv(key)
	}
	val, found := "", false
	for _, kv := range env {
		if k, v, ok := strings.Cut(kv, "="); ok && k == key {
			val, found = v, true
		}
	}
	return val, found
}
