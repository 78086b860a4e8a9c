package serialport

import (
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

var (
	// ErrBusy is wrapped by Open's error when another program (or another
	// ttymux session) has the port open exclusively.
	ErrBusy = errors.New("serial port in use")
	// ErrDisconnected is wrapped by a Port's errors while its device is
	// unplugged, and for good when the device went away without Reconnect.
	ErrDisconnected = errors.New("serial device disconnected")
	// ErrUnsupported is wrapped by SetModemLine's error for a device that
	// has no such line (a pseudo-terminal).
	ErrUnsupported = errors.New("not supported by this device")
)

// Link states reported by LinkState and Options.OnLinkState. They are the
// values of transport.LinkUp and transport.LinkDisconnected.
const (
	LinkUp           = "up"
	LinkDisconnected = "disconnected"
)

// ModemLine names a modem control line.
type ModemLine string

// The modem control lines SetModemLine drives.
const (
	DTR ModemLine = "dtr"
	RTS ModemLine = "rts"
)

// Options configure a Port. The zero value works.
type Options struct {
	// Reconnect keeps the Port when its device goes away and reopens the
	// path when it comes back (see the package doc).
	Reconnect bool
	// Logger receives connection events (unplugged, back); nil discards
	// them.
	Logger *slog.Logger
	// OnLinkState, if set, is called with the new state (LinkDisconnected,
	// LinkUp) each time the link changes. It runs synchronously on the
	// goroutine that noticed the change, in order; it must not block or
	// call the Port's Close.
	OnLinkState func(state string)
}

// Open opens the port at path with the settings p and returns a *Port. The
// port is opened exclusively: a port another program holds gives an error
// wrapping ErrBusy; a missing one an error wrapping fs.ErrNotExist; a port
// the user may not open an error wrapping fs.ErrPermission. Each names the
// port and says what to do.
func Open(path string, p Params, opts Options) (*Port, error) {
	if path == "" {
		return nil, errors.New("no serial port given: pass its path, such as /dev/ttyUSB0 (serial_ports lists the ports)")
	}
	ls, err := Validate(p)
	if err != nil {
		return nil, fmt.Errorf("serial port %s: %w", path, err)
	}
	f, err := openPort(path, ls)
	if err != nil {
		return nil, err
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Port{
		port:      path,
		line:      ls,
		reconnect: opts.Reconnect,
		log:       log.With("port", path),
		onState:   opts.OnLinkState,
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
		f:         f,
		gen:       1,
		state:     LinkUp,
		wake:      make(chan struct{}),
		modem:     map[ModemLine]bool{},
	}
	c.log.Debug("serial port opened", "settings", ls.String(), "reconnect", c.reconnect)
	return c, nil
}

// openPort opens path, locks it and sets the line. The descriptor is
// non-blocking and registered with the runtime poller: reads and writes
// never go through select(2), whatever the descriptor's number.
func openPort(path string, ls Settings) (*os.File, error) {
	// O_NONBLOCK also keeps open from waiting for carrier (DCD) on a port
	// without CLOCAL (termios(3), "O_NONBLOCK").
	f, err := os.OpenFile(path, os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, openError(path, err)
	}
	step := "prepare"
	err = control(f, func(fd int) error {
		// flock first: if another ttymux session holds the port, say so
		// before touching its settings.
		step = "lock"
		if err := unix.Flock(fd, unix.LOCK_EX|unix.LOCK_NB); err != nil {
			return err
		}
		// The modem lines next, before the termios work: DTR off must
		// follow the open as closely as it can (modem.go).
		step = "set the modem lines"
		if err := initModem(fd, ls); err != nil {
			return err
		}
		step = "configure"
		if err := configure(fd, ls); err != nil {
			return err
		}
		step = "set TIOCEXCL"
		return unix.IoctlSetInt(fd, unix.TIOCEXCL, 0)
	})
	if err == nil {
		return f, nil
	}
	_ = f.Close() // best effort; err already set
	switch {
	case step == "lock" && errors.Is(err, unix.EWOULDBLOCK):
		return nil, busyError(path, err)
	case step == "configure" && errors.Is(err, unix.ENOTTY):
		return nil, &portError{
			msg:  fmt.Sprintf("%s is not a serial port (not a terminal device); serial_ports lists the serial ports", path),
			errs: []error{err},
		}
	case step == "configure" && errors.Is(err, unix.EINVAL):
		return nil, &portError{
			msg:  fmt.Sprintf("serial port %s does not accept %s; try another baud rate or line setting", path, ls),
			errs: []error{err},
		}
	}
	return nil, fmt.Errorf("serial port %s: %s: %w", path, step, err)
}

// openError explains why open(2) failed, for the model and the user.
func openError(path string, err error) error {
	var errno syscall.Errno
	errors.As(err, &errno)
	switch {
	case errno == unix.EBUSY:
		return busyError(path, err)
	case errors.Is(err, fs.ErrNotExist):
		return &portError{
			msg:  fmt.Sprintf("serial port %s does not exist; call serial_ports to list the ports on this machine (a USB adapter may have come back under another number)", path),
			errs: []error{err},
		}
	case errors.Is(err, fs.ErrPermission):
		return &portError{
			msg: fmt.Sprintf("permission denied opening serial port %s; add the user running ttymux to the group that owns it "+
				"(usually dialout: sudo usermod -aG dialout $USER, then log in again), or adjust its udev rule", path),
			errs: []error{err},
		}
	case errno == unix.ENXIO || errno == unix.ENODEV || errno == unix.EIO:
		return &portError{
			msg:  fmt.Sprintf("serial port %s has no device behind it (unplugged, or no UART at that address); call serial_ports to list the ports", path),
			errs: []error{err},
		}
	}
	return fmt.Errorf("open serial port: %w", err) // *PathError names the port
}

func busyError(path string, err error) error {
	return &portError{
		msg:  fmt.Sprintf("serial port %s is in use by another program (opened exclusively); close it there or pick another port", path),
		errs: []error{ErrBusy, err},
	}
}

// portError is an error whose message is written for the reader who must
// act on it, and which still matches its sentinel and cause with errors.Is.
type portError struct {
	msg  string
	errs []error
}

func (e *portError) Error() string   { return e.msg }
func (e *portError) Unwrap() []error { return e.errs }

// control runs fn on f's descriptor without taking it out of non-blocking
// mode (see the package doc).
func control(f *os.File, fn func(fd int) error) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		return err
	}
	return ferr
}

// release drops the exclusive flag (it belongs to the device, not to the
// descriptor, and would outlive us while anyone else has the device open)
// and closes f.
func release(f *os.File) error {
	_ = control(f, func(fd int) error { return unix.IoctlSetInt(fd, unix.TIOCNXCL, 0) }) // best effort: a vanished device has no flag to clear
	return f.Close()
}
