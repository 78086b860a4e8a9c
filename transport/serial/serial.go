package serial

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"os"
	"strings"
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/transport"
)

// Default line settings: what nearly every console (U-Boot, Linux, ESP-IDF,
// BusyBox) speaks.
const (
	DefaultBaud     = 115200
	DefaultDataBits = 8
)

// maxBaud bounds the rate; the fastest common UARTs run at 12–16 Mbit/s, so
// anything beyond is a typo.
const maxBaud = 100_000_000

var (
	// ErrBusy is wrapped by Open's error when another program (or another
	// ttymux session) has the port open exclusively.
	ErrBusy = errors.New("serial port in use")
	// ErrDisconnected is wrapped by a Conn's errors while its device is
	// unplugged, and for good when the device went away without Reconnect.
	ErrDisconnected = errors.New("serial device disconnected")
)

// Opener opens serial ports. The zero value is ready to use.
type Opener struct {
	// Logger receives connection events (unplugged, back); nil discards
	// them.
	Logger *slog.Logger
	// OnLinkState, if set, is called with the port path and the new state
	// (transport.LinkDisconnected, transport.LinkUp) each time a Conn's link
	// changes. It runs synchronously on the goroutine that noticed the
	// change, in order; it must not block or call the Conn's Close.
	OnLinkState func(port, state string)
}

var (
	_ transport.Opener          = (*Opener)(nil)
	_ transport.Conn            = (*Conn)(nil)
	_ transport.Breaker         = (*Conn)(nil)
	_ transport.ModemController = (*Conn)(nil)
	_ transport.LinkStater      = (*Conn)(nil)
)

// lineSettings are validated SerialParams in termios terms.
type lineSettings struct {
	baud     int
	dataBits int    // 5–8
	parity   string // none, odd, even, mark, space
	stopBits int    // 1 or 2 (2 also stands for 1.5 with 5 data bits)
	rtscts   bool
}

// settings validates p and fills in defaults. Its errors say what is
// allowed.
func settings(p transport.SerialParams) (lineSettings, error) {
	ls := lineSettings{baud: p.Baud, dataBits: p.DataBits}
	switch {
	case ls.baud == 0:
		ls.baud = DefaultBaud
	case ls.baud < 0 || ls.baud > maxBaud:
		return ls, fmt.Errorf("baud %d is out of range: give a positive rate such as 9600, 57600, 115200 (the default) or 921600", p.Baud)
	}
	switch {
	case ls.dataBits == 0:
		ls.dataBits = DefaultDataBits
	case ls.dataBits < 5 || ls.dataBits > 8:
		return ls, fmt.Errorf("data bits %d is not allowed: use 5, 6, 7 or 8 (8 is the default)", p.DataBits)
	}
	switch par := strings.ToLower(strings.TrimSpace(p.Parity)); par {
	case "", "none":
		ls.parity = "none"
	case "odd", "even":
		ls.parity = par
	case "mark", "space":
		if !haveStickParity {
			return ls, fmt.Errorf("%s parity is not available on this system: use none, odd or even", par)
		}
		ls.parity = par
	default:
		return ls, fmt.Errorf("parity %q is not allowed: use none (the default), odd, even, mark or space", p.Parity)
	}
	switch strings.TrimSpace(p.StopBits) {
	case "", "1":
		ls.stopBits = 1
	case "2":
		ls.stopBits = 2
	case "1.5":
		// termios has one knob, CSTOPB, which a UART turns into 1.5 stop
		// bits for 5-bit characters and 2 otherwise (16550 LCR bit 2).
		if ls.dataBits != 5 {
			return ls, fmt.Errorf("1.5 stop bits exist only with 5 data bits: use stop bits 1 or 2")
		}
		ls.stopBits = 2
	default:
		return ls, fmt.Errorf("stop bits %q is not allowed: use 1 (the default), 2, or 1.5 with 5 data bits", p.StopBits)
	}
	switch strings.ToLower(strings.TrimSpace(p.FlowControl)) {
	case "", "none":
	case "rtscts":
		ls.rtscts = true
	default:
		return ls, fmt.Errorf("flow control %q is not allowed: use none (the default) or rtscts (hardware)", p.FlowControl)
	}
	return ls, nil
}

// String formats the settings the way consoles are usually described:
// "115200 8N1".
func (ls lineSettings) String() string {
	s := fmt.Sprintf("%d %d%c%d", ls.baud, ls.dataBits, strings.ToUpper(ls.parity)[0], ls.stopBits)
	if ls.rtscts {
		s += " rtscts"
	}
	return s
}

// Open opens the port t.Command with the settings in t.Serial and returns a
// *Conn. The port is opened exclusively: a port another program holds gives
// an error wrapping ErrBusy; a missing one an error wrapping fs.ErrNotExist;
// a port the user may not open an error wrapping fs.ErrPermission. Each
// names the port and says what to do. ctx only bounds setup.
func (o *Opener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	port := t.Command
	if port == "" {
		return nil, errors.New("no serial port given: pass its path, such as /dev/ttyUSB0 (serial_ports lists the ports)")
	}
	ls, err := settings(t.Serial)
	if err != nil {
		return nil, fmt.Errorf("serial port %s: %w", port, err)
	}
	f, err := openPort(port, ls)
	if err != nil {
		return nil, err
	}
	log := o.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	c := &Conn{
		port:      port,
		line:      ls,
		reconnect: t.Serial.Reconnect,
		log:       log.With("port", port),
		onState:   o.OnLinkState,
		closing:   make(chan struct{}),
		done:      make(chan struct{}),
		f:         f,
		gen:       1,
		state:     transport.LinkUp,
		wake:      make(chan struct{}),
		modem:     map[transport.ModemLine]bool{},
	}
	c.log.Debug("serial port opened", "settings", ls.String(), "reconnect", c.reconnect)
	return c, nil
}

// openPort opens path, locks it and sets the line. The descriptor is
// non-blocking and registered with the runtime poller: reads and writes
// never go through select(2), whatever the descriptor's number.
func openPort(path string, ls lineSettings) (*os.File, error) {
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

// makeRaw sets f's termios for a byte-exact line, like cfmakeraw(3) plus
// CLOCAL|CREAD (ignore carrier, enable the receiver) and no software flow
// control, then applies the character size, parity, stop bits and hardware
// flow control. A read returns as soon as one byte is there (VMIN 1,
// VTIME 0); the descriptor is non-blocking anyway.
func makeRaw(t *unix.Termios, ls lineSettings) {
	t.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL |
		unix.IXON | unix.IXOFF | unix.IXANY | unix.INPCK | unix.IGNPAR | extraIflag
	t.Oflag &^= unix.OPOST
	t.Lflag &^= unix.ECHO | unix.ECHOE | unix.ECHOK | unix.ECHONL | unix.ECHOCTL | unix.ECHOPRT | unix.ECHOKE |
		unix.ICANON | unix.ISIG | unix.IEXTEN
	t.Cflag &^= unix.CSIZE | unix.PARENB | unix.PARODD | unix.CSTOPB | unix.CRTSCTS
	t.Cflag |= unix.CREAD | unix.CLOCAL
	t.Cc[unix.VMIN] = 1
	t.Cc[unix.VTIME] = 0

	switch ls.dataBits {
	case 5:
		t.Cflag |= unix.CS5
	case 6:
		t.Cflag |= unix.CS6
	case 7:
		t.Cflag |= unix.CS7
	default:
		t.Cflag |= unix.CS8
	}
	if ls.stopBits == 2 {
		t.Cflag |= unix.CSTOPB
	}
	if ls.rtscts {
		t.Cflag |= unix.CRTSCTS
	}
	// A character with a parity error reads as NUL (INPCK without IGNPAR
	// or PARMRK, termios(3)).
	switch ls.parity {
	case "odd":
		t.Cflag |= unix.PARENB | unix.PARODD
		t.Iflag |= unix.INPCK
	case "even":
		t.Cflag |= unix.PARENB
		t.Iflag |= unix.INPCK
	case "mark", "space":
		setStickParity(t, ls.parity == "mark")
		t.Iflag |= unix.INPCK
	}
}
