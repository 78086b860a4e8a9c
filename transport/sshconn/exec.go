package sshconn

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"
)

// killGrace is how long Exec waits for the server to answer the KILL
// signal request before it closes the channel anyway.
const killGrace = time.Second

// StoppedError reports that Exec stopped a command because its context
// ended (a timeout, or the caller cancelled). Err is the context's error,
// so errors.Is(err, context.DeadlineExceeded) tells a timeout.
type StoppedError struct {
	Host string
	// Killed is set when the server accepted the KILL signal request.
	// sshd refuses it for root logins (they run without post-authentication
	// privilege separation, which signalling needs) and for forced
	// commands; the command then runs on after its channel closed, until it
	// ends or writes (SIGPIPE).
	Killed bool
	Err    error
}

func (e *StoppedError) Error() string {
	why := "was cancelled"
	if errors.Is(e.Err, context.DeadlineExceeded) {
		why = "timed out"
	}
	if e.Killed {
		return fmt.Sprintf("ssh: the command on %s %s: it was sent SIGKILL and its channel closed", e.Host, why)
	}
	return fmt.Sprintf("ssh: the command on %s %s: its channel was closed, but the server did not accept SIGKILL (sshd signals no command of a root login), so it may still be running until it ends or writes output", e.Host, why)
}

func (e *StoppedError) Unwrap() error { return e.Err }

// Exec runs command on the link's connection in a session without a pty
// (an exec channel, RFC 4254 section 6.5), writing its stdout and stderr,
// interleaved as they arrive, to out. It returns once the command has ended
// and its output has been written: nil for exit status 0, a
// *transport.ExitError for another status or a signal, a *LinkError when the
// connection died first, ErrNoExitStatus when the server reported none.
//
// When ctx ends first, Exec asks the server to send the command SIGKILL
// (RFC 4254 section 6.9), closes the channel and returns a *StoppedError.
// Opening the channel is bounded by ctx too; a server that does not answer
// the open in time takes the connection out of the pool, as Open does.
//
// out is written from connection goroutines, one write at a time, and never
// after Exec returns. Exec may be called concurrently on one Link; sshd
// limits the sessions of one connection (MaxSessions, 10 by default), so a
// refused open is an error wrapping *ssh.OpenChannelError.
func (l *Link) Exec(ctx context.Context, command string, out io.Writer) error {
	c := l.c
	if err := ctx.Err(); err != nil {
		return err
	}
	if err := c.broken(); err != nil {
		return c.linkError()
	}
	w := &gatedWriter{w: out}
	defer w.stop()

	type started struct {
		sess *ssh.Session
		err  error
	}
	setup := make(chan started, 1)
	exited := make(chan error, 1)
	var mu sync.Mutex // protects gaveUp and the send on setup
	gaveUp := false
	// x/crypto's channel requests take no context, and on a black-holed
	// link they wait until the connection dies: they run on a goroutine of
	// the connection, which shutdown waits for.
	if !c.spawn(func() {
		sess, err := c.ssh.NewSession()
		if err == nil {
			sess.Stdout, sess.Stderr = w, w
			if err = sess.Start(command); err != nil {
				_ = sess.Close() // best effort; err says why
				sess = nil
			}
		}
		mu.Lock()
		if gaveUp {
			mu.Unlock()
			if sess != nil {
				_ = sess.Close() // nobody wants it any more
			}
			return
		}
		setup <- started{sess, err}
		mu.Unlock()
		if err == nil {
			exited <- sess.Wait()
		}
	}) {
		return c.linkError()
	}

	var s started
	select {
	case s = <-setup:
	case <-ctx.Done():
		mu.Lock()
		gaveUp = true
		select {
		case s = <-setup: // answered just in time: stop it below
		default:
		}
		mu.Unlock()
		if s.sess == nil && s.err == nil {
			c.o.retire(c)
			return fmt.Errorf("ssh: start a command on %s: no answer from the server before %w; the connection may be dead, the next use makes a new one", c.host, ctx.Err())
		}
	}
	if s.err != nil {
		if le := c.linkError(); le != nil {
			return le
		}
		return fmt.Errorf("ssh: run a command on %s: %w", c.host, s.err)
	}

	select {
	case err := <-exited:
		return c.execResult(err)
	case <-ctx.Done():
	}
	select {
	case err := <-exited: // it ended as the context did
		return c.execResult(err)
	default:
	}
	killed := make(chan bool, 1)
	if c.spawn(func() {
		// sshd answers a signal request with success only when it
		// delivered the signal (session.c session_signal_req).
		ok, err := s.sess.SendRequest("signal", true, ssh.Marshal(&struct{ Signal string }{"KILL"}))
		killed <- ok && err == nil
	}) {
		t := time.NewTimer(killGrace)
		select {
		case <-killed:
			// The reply may have been false; read it below.
		case <-t.C:
		}
		t.Stop()
	}
	// No wait for the server to confirm the close: the command may run on
	// (a refused signal), and out is cut off below anyway. The goroutine
	// waiting for the session ends when the channel or the connection does.
	_ = s.sess.Close() // best effort: the link may be gone
	ok := false
	select {
	case ok = <-killed:
	default:
	}
	return &StoppedError{Host: c.host, Killed: ok, Err: ctx.Err()}
}

// execResult turns what Session.Wait returned into Exec's result.
func (c *client) execResult(err error) error {
	var ee *ssh.ExitError
	var me *ssh.ExitMissingError
	switch {
	case err == nil:
		return nil
	case errors.As(err, &ee):
		return exitError(ee)
	case errors.As(err, &me):
		if le := c.linkError(); le != nil {
			return le
		}
		return ErrNoExitStatus
	}
	if le := c.linkError(); le != nil {
		return le
	}
	return fmt.Errorf("ssh: command on %s: %w", c.host, err)
}

// gatedWriter passes writes to w, one at a time, until stop; later writes
// are discarded (reported as written, so the copier drains the channel).
type gatedWriter struct {
	mu      sync.Mutex
	w       io.Writer
	stopped bool
}

func (g *gatedWriter) Write(p []byte) (int, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.stopped {
		return len(p), nil
	}
	return g.w.Write(p)
}

func (g *gatedWriter) stop() {
	g.mu.Lock()
	g.stopped = true
	g.mu.Unlock()
}
