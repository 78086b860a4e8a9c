package sshconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/transport"
)

// closeGrace is how long Close waits for the server to confirm the session
// is gone before it stops waiting (the link may be black-holed).
const closeGrace = 2 * time.Second

// Conn is one SSH session with a pty: a remote login shell or command. It
// implements transport.Conn, transport.Resizer and transport.Signaler. Read,
// Write, Close, Wait, Resize and Signal may be called from different
// goroutines; exactly one goroutine should Read.
type Conn struct {
	c     *client
	sess  *ssh.Session
	stdin io.WriteCloser
	pr    *io.PipeReader // stdout and stderr, merged
	pw    *io.PipeWriter

	closeOnce sync.Once
	closed    chan struct{} // closed by Close

	exitOnce sync.Once
	exited   chan struct{} // closed once exitErr is set
	exitErr  error
}

// openSession opens a session channel on c, requests a pty and starts the
// shell or command. On error the caller still holds its reference.
//
// x/crypto's channel requests take no context, and on a black-holed link
// they wait until the connection dies. So the setup runs on a goroutine of
// the connection; if ctx ends first, Open returns, the connection leaves the
// pool (it is probably dead), and the goroutine closes whatever it opened.
func (c *client) openSession(ctx context.Context, t transport.Target, size transport.Size) (*Conn, error) {
	if err := c.broken(); err != nil {
		return nil, c.linkError()
	}
	type result struct {
		s   *started
		err error
	}
	res := make(chan result, 1)
	var mu sync.Mutex
	gaveUp := false
	if !c.spawn(func() {
		s, err := c.startSession(t, size)
		mu.Lock()
		defer mu.Unlock()
		if gaveUp {
			if s != nil {
				_ = s.sess.Close() // nobody wants it any more
			}
			return
		}
		res <- result{s, err}
	}) {
		return nil, c.linkError()
	}
	var r result
	select {
	case r = <-res:
	case <-ctx.Done():
		mu.Lock()
		gaveUp = true
		mu.Unlock()
		select {
		case r = <-res: // finished just in time
		default:
			c.o.retire(c)
			return nil, fmt.Errorf("ssh: start a session on %s: no answer from the server before %w; the connection may be dead, the next open uses a new one", c.host, ctx.Err())
		}
	}
	if r.err != nil {
		return nil, r.err
	}
	pr, pw := io.Pipe()
	conn := &Conn{
		c:      c,
		sess:   r.s.sess,
		stdin:  r.s.stdin,
		pr:     pr,
		pw:     pw,
		closed: make(chan struct{}),
		exited: make(chan struct{}),
	}
	if !c.spawn(func() { conn.run(r.s.stdout, r.s.stderr) }) {
		// Shutdown began under us; the connection is closing.
		_ = r.s.sess.Close() // best effort
		return nil, c.linkError()
	}
	return conn, nil
}

// started is a session whose program runs.
type started struct {
	sess           *ssh.Session
	stdin          io.WriteCloser
	stdout, stderr io.Reader
}

// startSession does the channel requests: session, pty-req, env, then
// shell or exec (RFC 4254 sections 6.1 to 6.5).
func (c *client) startSession(t transport.Target, size transport.Size) (*started, error) {
	sess, err := c.ssh.NewSession()
	if err != nil {
		if le := c.linkError(); le != nil {
			return nil, le
		}
		return nil, fmt.Errorf("ssh: open a session on %s: %w", c.host, err)
	}
	fail := func(op string, err error) (*started, error) {
		_ = sess.Close() // best effort; err says why
		if le := c.linkError(); le != nil {
			return nil, le
		}
		return nil, fmt.Errorf("ssh: %s on %s: %w", op, c.host, err)
	}
	term := t.Term
	if term == "" {
		term = defaultTerm
	}
	modes := ssh.TerminalModes{ssh.ECHO: 1, ssh.IUTF8: 1, ssh.TTY_OP_ISPEED: 38400, ssh.TTY_OP_OSPEED: 38400}
	if err := sess.RequestPty(term, size.Rows, size.Cols, modes); err != nil {
		return fail("request a pty", err)
	}
	// Environment: sshd accepts only what AcceptEnv lists and most servers
	// list little, so ask without waiting for the (usually negative) reply.
	for _, kv := range t.Env {
		k, v, _ := strings.Cut(kv, "=")
		if _, err := sess.SendRequest("env", false, ssh.Marshal(&struct{ Name, Value string }{k, v})); err != nil {
			return fail("send environment", err)
		}
	}
	s := &started{sess: sess}
	if s.stdin, err = sess.StdinPipe(); err != nil {
		return fail("attach stdin", err)
	}
	if s.stdout, err = sess.StdoutPipe(); err != nil {
		return fail("attach stdout", err)
	}
	if s.stderr, err = sess.StderrPipe(); err != nil {
		return fail("attach stderr", err)
	}
	if t.Command == "" {
		err = sess.Shell()
	} else {
		err = sess.Start(t.Command)
	}
	if err != nil {
		what := "start the login shell"
		if t.Command != "" {
			what = fmt.Sprintf("start %q", t.Command)
		}
		return fail(what, err)
	}
	return s, nil
}

// run copies the output into the pipe and implements the teardown order:
// output drained, then the exit status published, then Read sees the end.
// With a pty the server merges stderr into stdout; the stderr stream is
// drained anyway, into the same reader.
func (c *Conn) run(stdout, stderr io.Reader) {
	var copiers sync.WaitGroup
	for _, r := range []io.Reader{stdout, stderr} {
		copiers.Go(func() {
			_, _ = io.Copy(c.pw, r) // ends at the channel's EOF, or when Close closes pr
		})
	}
	copiers.Wait()
	werr := c.sess.Wait()
	var ee *ssh.ExitError
	var me *ssh.ExitMissingError
	var exit, readEnd error = nil, io.EOF
	switch {
	case werr == nil:
	case errors.As(werr, &ee):
		exit = exitError(ee)
	case errors.As(werr, &me):
		exit = c.missingExit()
		var le *LinkError
		if errors.As(exit, &le) || errors.Is(exit, ErrOpenerClosed) {
			readEnd = exit
		}
	default:
		exit = fmt.Errorf("ssh: session on %s: %w", c.c.host, werr)
	}
	c.publish(exit)
	_ = c.pw.CloseWithError(readEnd) // CloseWithError(io.EOF) is Close
}

// exitError converts x/crypto's exit data. For a signal, Status is
// 128+number as a shell reports it, with Linux numbers (x/crypto knows only
// some signals and gives 128 for the others).
func exitError(ee *ssh.ExitError) *transport.ExitError {
	sig := ee.Signal()
	if sig == "" {
		return &transport.ExitError{Status: ee.ExitStatus()}
	}
	status := ee.ExitStatus()
	if n, ok := linuxSignals[sig]; ok {
		status = 128 + n
	}
	return &transport.ExitError{Status: status, Signal: transport.Signal(sig)}
}

// linuxSignals numbers the RFC 4254 signal names as Linux does.
var linuxSignals = map[string]int{
	"HUP": 1, "INT": 2, "QUIT": 3, "ILL": 4, "ABRT": 6, "FPE": 8, "KILL": 9,
	"USR1": 10, "SEGV": 11, "USR2": 12, "PIPE": 13, "ALRM": 14, "TERM": 15,
}

// missingExit explains a session that ended without an exit status: our
// own Close, a dead link, or a server that didn't say.
func (c *Conn) missingExit() error {
	select {
	case <-c.closed:
		return errClosedConn
	default:
	}
	if err := c.c.linkError(); err != nil {
		return err
	}
	// The channel closed while the link looked fine. x/crypto closes all
	// channels before it reports a dead connection (a DISCONNECT from the
	// server doesn't fail a read), so ask the server: a failed request
	// means the connection is gone.
	if _, _, err := c.c.ssh.SendRequest("keepalive@openssh.com", true, nil); err != nil {
		<-c.c.dead // the watcher records the cause right after
		return c.c.linkError()
	}
	return fmt.Errorf("ssh: session on %s: %w", c.c.host, ErrNoExitStatus)
}

// publish sets the result of Wait, once.
func (c *Conn) publish(err error) {
	c.exitOnce.Do(func() {
		c.exitErr = err
		close(c.exited)
	})
}

// Read returns the session's output (stdout, with stderr merged). It
// returns io.EOF after the remote program exited and its output was read, a
// *LinkError if the connection died first, and an error matching
// os.ErrClosed after Close.
func (c *Conn) Read(b []byte) (int, error) {
	n, err := c.pr.Read(b)
	if errors.Is(err, io.ErrClosedPipe) {
		err = errClosedConn // Close closed the reader
	}
	return n, err
}

// Write sends input to the remote pty. It blocks while the server's window
// is full; after Close it returns an error matching os.ErrClosed.
func (c *Conn) Write(b []byte) (int, error) {
	select {
	case <-c.closed:
		return 0, errClosedConn
	default:
	}
	n, err := c.stdin.Write(b)
	if err != nil {
		select {
		case <-c.closed:
			return n, errClosedConn
		default:
		}
		if le := c.c.linkError(); le != nil {
			return n, le
		}
		return n, fmt.Errorf("ssh: write to session on %s: %w", c.c.host, err)
	}
	return n, nil
}

// Wait blocks until the session ends and its output has been read to the
// end (the output is drained before the exit status is published, so keep
// reading): nil for exit status 0, a
// *transport.ExitError for another status or a signal, a *LinkError when
// the connection died before the exit status arrived, an error wrapping
// ErrNoExitStatus when the server sent none, and an error matching
// os.ErrClosed when Close came first. Any number of goroutines may call it.
func (c *Conn) Wait() error {
	<-c.exited
	return c.exitErr
}

// Close ends the session: Read and Write return at once, the channel is
// closed (sshd then hangs up the remote program), and the connection is
// closed if this was its last session. It waits up to two seconds for the
// server to confirm, then stops waiting; Wait returns after Close. It may be
// called more than once and concurrently with other methods.
func (c *Conn) Close() error {
	c.closeOnce.Do(func() {
		close(c.closed)
		_ = c.pr.CloseWithError(errClosedConn) // unblocks Read and the copiers
		_ = c.sess.Close()                     // io.EOF if the server closed first
		t := time.NewTimer(closeGrace)
		select {
		case <-c.exited:
		case <-c.c.dead:
		case <-t.C:
		}
		t.Stop()
		c.publish(errClosedConn)
		c.c.o.release(c.c)
	})
	return nil
}

// Resize sends a window-change request (RFC 4254 section 6.7); the remote
// foreground program gets SIGWINCH.
func (c *Conn) Resize(_ context.Context, sz transport.Size) error {
	if !sz.Valid() {
		return fmt.Errorf("invalid window size %dx%d", sz.Rows, sz.Cols)
	}
	if err := c.sess.WindowChange(sz.Rows, sz.Cols); err != nil {
		return c.opError("resize", err)
	}
	return nil
}

// Signal sends a "signal" request (RFC 4254 section 6.10). As the RFC
// says, it asks for no reply, so a server that ignores it (sshd before 7.9,
// or for a forced command) does so silently. OpenSSH's sshd delivers it to
// the process group of the session's program, that is the shell rather than
// a job the shell started: to interrupt the foreground job, write the
// terminal's interrupt character (Ctrl-C) instead. Only the RFC 4254 names
// are accepted; a "SIG" prefix is dropped.
func (c *Conn) Signal(_ context.Context, sig transport.Signal) error {
	name := strings.TrimPrefix(strings.ToUpper(string(sig)), "SIG")
	if _, ok := linuxSignals[name]; !ok {
		return fmt.Errorf("ssh: signal %q cannot be sent over SSH (RFC 4254 names only: ABRT ALRM FPE HUP ILL INT KILL PIPE QUIT SEGV TERM USR1 USR2); write the control character instead", sig)
	}
	if err := c.sess.Signal(ssh.Signal(name)); err != nil {
		return c.opError("signal", err)
	}
	return nil
}

// opError explains a failed request on the session.
func (c *Conn) opError(op string, err error) error {
	select {
	case <-c.closed:
		return errClosedConn
	default:
	}
	if le := c.c.linkError(); le != nil {
		return le
	}
	select {
	case <-c.exited:
		return fmt.Errorf("ssh: %s: the session on %s has ended", op, c.c.host)
	default:
	}
	return fmt.Errorf("ssh: %s session on %s: %w", op, c.c.host, err)
}

// Client describes the connection the session runs on: user@host:port, the
// jump chain, and a serial number distinguishing reconnections. Sessions
// sharing a connection return the same string.
func (c *Conn) Client() string { return c.c.id }
