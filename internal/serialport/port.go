package serialport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Reconnect timing: the path is looked for every pollInterval; while it is
// there but cannot be opened (udev still setting its group, a driver still
// binding) the wait doubles up to maxBackoff.
const (
	pollInterval = 200 * time.Millisecond
	maxBackoff   = 2 * time.Second
)

// defaultBreak is the BREAK length when the caller gives none: what
// tcsendbreak(fd, 0) sends on Linux (0.25 s; POSIX asks for 0.25–0.5 s).
const defaultBreak = 250 * time.Millisecond

// Port is an open serial port. See the package doc for what it does while
// its device is unplugged.
type Port struct {
	port      string
	line      Settings
	reconnect bool
	log       *slog.Logger
	onState   func(state string)

	closing   chan struct{} // closed by Close
	done      chan struct{} // closed when Wait may return
	closeOnce sync.Once
	closeErr  error
	doneOnce  sync.Once
	wg        sync.WaitGroup // the reconnect goroutine

	// stateMu serialises link transitions with their OnLinkState calls, so
	// the callback sees them in order. Taken before mu.
	stateMu sync.Mutex

	// mu protects the following. It is never held across I/O.
	mu     sync.Mutex
	f      *os.File           // nil while disconnected and after Close
	gen    uint64             // counts the files opened; identifies f
	state  string             // LinkUp or LinkDisconnected
	closed bool               // Close was called
	gone   error              // the device vanished for good (Reconnect off)
	wake   chan struct{}      // closed, and replaced, when a new f is installed
	modem  map[ModemLine]bool // lines set through SetModemLine, restored on reopen
}

// Path returns the path the Port was opened with.
func (c *Port) Path() string { return c.port }

// Settings returns the line settings the Port was opened with.
func (c *Port) Settings() Settings { return c.line }

// SyscallConn returns the current descriptor for ioctls this package does
// not issue. While the device is unplugged, or after Close, it fails with
// the error Write would return. Do not call Fd on the descriptor (see the
// package doc).
func (c *Port) SyscallConn() (syscall.RawConn, error) {
	f, _, err := c.active("use")
	if err != nil {
		return nil, err
	}
	return f.SyscallConn()
}

// LinkState reports LinkUp or LinkDisconnected.
func (c *Port) LinkState() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.state
}

// Read reads what the device sent. It blocks until there is at least one
// byte, the Port is closed (an error wrapping os.ErrClosed) or, without
// Reconnect, the device goes away (an error wrapping ErrDisconnected that
// names the port). With Reconnect it keeps blocking while the device is
// unplugged and continues with its bytes once it is back.
func (c *Port) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	for {
		f, gen, wake, err := c.current("read")
		if err != nil {
			return 0, err
		}
		if f == nil {
			select {
			case <-wake:
			case <-c.closing:
			}
			continue
		}
		n, err := f.Read(p)
		if n > 0 {
			return n, nil // a pending error comes back on the next call
		}
		if c.isClosed() {
			return 0, closedError("read", c.port)
		}
		if vanished(err) || errors.Is(err, os.ErrClosed) {
			// Closed here means lost() already closed f for another
			// goroutine; lost(gen) then does nothing.
			c.lost(gen, err)
			continue
		}
		return 0, &fs.PathError{Op: "read", Path: c.port, Err: unwrapPath(err)}
	}
}

// Write sends p to the device. It blocks while the device is not accepting
// data (hardware flow control); Close unblocks it. While the device is
// unplugged it fails at once with an error wrapping ErrDisconnected.
func (c *Port) Write(p []byte) (int, error) {
	f, gen, _, err := c.current("write")
	if err != nil {
		return 0, err
	}
	if f == nil {
		return 0, c.disconnectedError()
	}
	n, err := f.Write(p)
	if err == nil {
		return n, nil
	}
	if c.isClosed() {
		return n, closedError("write", c.port)
	}
	if vanished(err) || errors.Is(err, os.ErrClosed) {
		c.lost(gen, err)
		return n, c.linkError()
	}
	return n, &fs.PathError{Op: "write", Path: c.port, Err: unwrapPath(err)}
}

// Unread returns how many bytes the device has sent that Read has not
// returned yet (FIONREAD: the kernel's input queue). Unplugged, it is 0.
func (c *Port) Unread() (int, error) {
	f, _, _, err := c.current("count unread input")
	if err != nil || f == nil {
		return 0, err
	}
	var n int
	err = control(f, func(fd int) (err error) {
		n, err = unix.IoctlGetInt(fd, fionread)
		return err
	})
	return n, err
}

// Close closes the port, unblocks pending Reads and Writes, stops waiting
// for an unplugged device and makes Wait return. Output the device has not
// taken yet is discarded rather than waited for. It may be called more
// than once and concurrently with every other method; it returns the first
// error.
func (c *Port) Close() error {
	c.closeOnce.Do(func() {
		c.mu.Lock()
		c.closed = true
		f := c.f
		c.f = nil
		c.mu.Unlock()
		close(c.closing)
		if f != nil {
			// close(2) of a serial port waits for queued output to drain,
			// up to closing_wait (30 s; setserial(8)): seconds at a low
			// baud rate, the full 30 s when the device holds CTS off.
			// Close promptly instead; the queue holds at most a few KiB.
			_ = control(f, flushOutput) // best effort
			c.closeErr = release(f)
		}
		c.wg.Wait()
		c.finish()
	})
	return c.closeErr
}

// Wait blocks until the Port is closed (nil) or, without Reconnect, the
// device went away (an error wrapping ErrDisconnected that names the port).
func (c *Port) Wait() error {
	<-c.done
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.gone
}

// Break sends a line BREAK (the line held at space) for d; zero means
// 0.25 s, as tcsendbreak(3) sends on Linux. A BREAK drops many boards into
// their monitor and is SysRq on a Linux serial console. It returns early,
// ending the BREAK, when ctx is done or the Port is closed.
func (c *Port) Break(ctx context.Context, d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("break duration %v is negative", d)
	}
	if d == 0 {
		d = defaultBreak
	}
	f, gen, err := c.active("send BREAK")
	if err != nil {
		return err
	}
	if err := control(f, func(fd int) error { return unix.IoctlSetInt(fd, unix.TIOCSBRK, 0) }); err != nil {
		return c.ioctlError("send BREAK", gen, err)
	}
	t := time.NewTimer(d)
	defer t.Stop()
	var werr error
	select {
	case <-t.C:
	case <-ctx.Done():
		werr = ctx.Err()
	case <-c.closing:
		return closedError("send BREAK", c.port) // closing the port ends the BREAK
	}
	if err := control(f, func(fd int) error { return unix.IoctlSetInt(fd, unix.TIOCCBRK, 0) }); err != nil {
		return c.ioctlError("end BREAK", gen, err)
	}
	return werr
}

// SetModemLine asserts (on) or clears a modem control line. DTR and RTS
// are commonly wired to a board's reset and boot-mode pins. A device
// without modem lines (a pseudo-terminal) gives an error wrapping
// ErrUnsupported. The lines set are set again after a reconnect.
func (c *Port) SetModemLine(line ModemLine, on bool) error {
	var bit int
	switch line {
	case DTR:
		bit = unix.TIOCM_DTR
	case RTS:
		bit = unix.TIOCM_RTS
	default:
		return fmt.Errorf("modem line %q is not one of dtr, rts", line)
	}
	f, gen, err := c.active("set " + string(line))
	if err != nil {
		return err
	}
	if err := control(f, func(fd int) error { return setModemBit(fd, bit, on) }); err != nil {
		if errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL) {
			return &portError{
				msg:  fmt.Sprintf("this device has no %s line (a pseudo-terminal?)", strings.ToUpper(string(line))),
				errs: []error{ErrUnsupported, err},
			}
		}
		return c.ioctlError("set "+string(line), gen, err)
	}
	c.mu.Lock()
	if c.gen == gen {
		c.modem[line] = on
	}
	c.mu.Unlock()
	return nil
}

func setModemBit(fd, bit int, on bool) error {
	if on {
		return modemIoctl(fd, unix.TIOCMBIS, bit)
	}
	return modemIoctl(fd, unix.TIOCMBIC, bit)
}

// current returns the open file and its generation, or nil and a channel
// closed when a new one is installed while the device is unplugged.
func (c *Port) current(op string) (*os.File, uint64, <-chan struct{}, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return nil, 0, nil, closedError(op, c.port)
	case c.gone != nil:
		return nil, 0, nil, c.gone
	}
	return c.f, c.gen, c.wake, nil
}

// active returns the open file for a control operation, or the error that
// says why there is none.
func (c *Port) active(op string) (*os.File, uint64, error) {
	f, gen, _, err := c.current(op)
	if err == nil && f == nil {
		err = c.disconnectedError()
	}
	return f, gen, err
}

// ioctlError classifies an ioctl's failure on file generation gen.
func (c *Port) ioctlError(op string, gen uint64, err error) error {
	if c.isClosed() {
		return closedError(op, c.port)
	}
	if vanished(err) || errors.Is(err, os.ErrClosed) {
		c.lost(gen, err)
		return c.linkError()
	}
	return fmt.Errorf("%s on serial port %s: %w", op, c.port, err)
}

func (c *Port) isClosed() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.closed
}

// linkError is the error for an operation that found the link down.
func (c *Port) linkError() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	switch {
	case c.closed:
		return closedError("use", c.port)
	case c.gone != nil:
		return c.gone
	}
	return c.disconnectedError()
}

func (c *Port) disconnectedError() error {
	return &portError{
		msg:  fmt.Sprintf("serial port %s is disconnected (device unplugged?); ttymux reopens it when it comes back", c.port),
		errs: []error{ErrDisconnected},
	}
}

func closedError(op, port string) error {
	return &fs.PathError{Op: op, Path: port, Err: os.ErrClosed}
}

// lost records that the device behind file generation gen went away. It
// closes the file at once: a USB serial device keeps its name (ttyUSB0)
// only if nobody holds the old one when it comes back. Without Reconnect
// the Port is finished; with it, a goroutine waits for the device.
func (c *Port) lost(gen uint64, cause error) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	c.mu.Lock()
	if c.closed || c.gen != gen || c.f == nil {
		c.mu.Unlock()
		return // already handled, or closing
	}
	f := c.f
	c.f = nil
	c.state = LinkDisconnected
	if c.reconnect {
		c.wg.Add(1) // under mu, so Close cannot be waiting yet
	} else {
		c.gone = &portError{
			msg:  fmt.Sprintf("serial port %s disappeared (device unplugged or powered off); open it again once it is back, or open it with reconnect to wait for it", c.port),
			errs: []error{ErrDisconnected, cause},
		}
	}
	c.mu.Unlock()
	_ = f.Close() // the device is gone: nothing to flush, no flag to clear
	c.log.Info("serial device disconnected", "cause", cause, "reconnect", c.reconnect)
	c.notify(LinkDisconnected)
	if !c.reconnect {
		c.finish()
		return
	}
	go c.redial()
}

// redial waits for the port's path to come back and reopens it with the
// same settings. It ends when it has, or when the Port is closed.
func (c *Port) redial() {
	defer c.wg.Done()
	delay := pollInterval
	t := time.NewTimer(delay)
	defer t.Stop()
	for {
		select {
		case <-c.closing:
			return
		case <-t.C:
		}
		if _, err := os.Stat(c.port); err != nil {
			delay = pollInterval
		} else if f, err := openPort(c.port, c.line); err != nil {
			c.log.Debug("serial port back but not openable yet", "err", err)
			delay = min(2*delay, maxBackoff)
		} else {
			c.install(f)
			return
		}
		t.Reset(delay)
	}
}

// install makes f, a fresh open of the port, the Port's file.
func (c *Port) install(f *os.File) {
	c.stateMu.Lock()
	defer c.stateMu.Unlock()
	c.mu.Lock()
	modem := make(map[ModemLine]bool, len(c.modem))
	for l, on := range c.modem {
		modem[l] = on
	}
	c.mu.Unlock()
	// Opening raised DTR and RTS again; put back what the user chose
	// before anyone can write. (SetModemLine fails while disconnected, so
	// the map cannot change meanwhile.)
	for l, on := range modem {
		bit := unix.TIOCM_DTR
		if l == RTS {
			bit = unix.TIOCM_RTS
		}
		if err := control(f, func(fd int) error { return setModemBit(fd, bit, on) }); err != nil {
			c.log.Warn("restore modem line after reconnect", "line", l, "on", on, "err", err)
		}
	}
	c.mu.Lock()
	if c.closed {
		c.mu.Unlock()
		_ = release(f) // best effort; closing anyway
		return
	}
	c.f = f
	c.gen++
	c.state = LinkUp
	close(c.wake)
	c.wake = make(chan struct{})
	c.mu.Unlock()
	c.log.Info("serial device back", "settings", c.line.String())
	c.notify(LinkUp)
}

func (c *Port) notify(state string) {
	if c.onState != nil {
		c.onState(state)
	}
}

func (c *Port) finish() { c.doneOnce.Do(func() { close(c.done) }) }

// vanished reports whether err from I/O on the port means the device has
// gone: end of file (a hung-up terminal reads as EOF) or EIO, ENXIO,
// ENODEV.
func vanished(err error) bool {
	if errors.Is(err, io.EOF) {
		return true
	}
	var errno unix.Errno
	return errors.As(err, &errno) && vanishedErrno(errno)
}

// unwrapPath strips os.File's *PathError, whose path is the one we opened,
// so that we can name the port once.
func unwrapPath(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}
