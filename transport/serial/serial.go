package serial

import (
	"context"
	"errors"
	"log/slog"
	"time"

	"github.com/ttymux/ttymux/internal/serialport"
	"github.com/ttymux/ttymux/transport"
)

// Default line settings: what nearly every console (U-Boot, Linux, ESP-IDF,
// BusyBox) speaks.
const (
	DefaultBaud     = serialport.DefaultBaud
	DefaultDataBits = serialport.DefaultDataBits
)

var (
	// ErrBusy is wrapped by Open's error when another program (or another
	// ttymux session) has the port open exclusively.
	ErrBusy = serialport.ErrBusy
	// ErrDisconnected is wrapped by a Conn's errors while its device is
	// unplugged, and for good when the device went away without Reconnect.
	ErrDisconnected = serialport.ErrDisconnected
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

// params converts the transport's line settings to serialport's.
func params(p transport.SerialParams) serialport.Params {
	return serialport.Params{Baud: p.Baud, DataBits: p.DataBits, Parity: p.Parity, StopBits: p.StopBits, FlowControl: p.FlowControl, DTR: p.DTR, RTS: p.RTS}
}

// Open opens the port t.Command with the settings in t.Serial() and returns a
// *Conn. The port is opened exclusively: a port another program holds gives
// an error wrapping ErrBusy; a missing one an error wrapping fs.ErrNotExist;
// a port the user may not open an error wrapping fs.ErrPermission. Each
// names the port and says what to do. ctx only bounds setup.
func (o *Opener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	line, _ := t.Serial() // none: the defaults
	opts := serialport.Options{Reconnect: line.Reconnect, Logger: o.Logger}
	if o.OnLinkState != nil {
		port := t.Command
		opts.OnLinkState = func(state string) { o.OnLinkState(port, state) }
	}
	p, err := serialport.Open(t.Command, params(line), opts)
	if err != nil {
		return nil, err
	}
	return &Conn{p: p}, nil
}

// Conn is an open serial port. See the package doc for what it does while
// its device is unplugged.
type Conn struct{ p *serialport.Port }

// Port returns the path the Conn was opened with.
func (c *Conn) Port() string { return c.p.Path() }

// LinkState reports transport.LinkUp or transport.LinkDisconnected.
func (c *Conn) LinkState() string { return c.p.LinkState() }

// Read reads what the device sent. It blocks until there is at least one
// byte, the Conn is closed (an error wrapping os.ErrClosed) or, without
// Reconnect, the device goes away (an error wrapping ErrDisconnected that
// names the port). With Reconnect it keeps blocking while the device is
// unplugged and continues with its bytes once it is back.
func (c *Conn) Read(p []byte) (int, error) { return c.p.Read(p) }

// Write sends p to the device. It blocks while the device is not accepting
// data (hardware flow control); Close unblocks it. While the device is
// unplugged it fails at once with an error wrapping ErrDisconnected.
func (c *Conn) Write(p []byte) (int, error) { return c.p.Write(p) }

// Close closes the port, unblocks pending Reads and Writes, stops waiting
// for an unplugged device and makes Wait return. Output the device has not
// taken yet is discarded rather than waited for. It may be called more
// than once and concurrently with every other method; it returns the first
// error.
func (c *Conn) Close() error { return c.p.Close() }

// Unread returns how many bytes the device has sent that Read has not
// returned yet (transport.Backlog).
func (c *Conn) Unread() (int, error) { return c.p.Unread() }

// Wait blocks until the Conn is closed (nil) or, without Reconnect, the
// device went away (an error wrapping ErrDisconnected that names the port).
func (c *Conn) Wait() error { return c.p.Wait() }

// Break sends a line BREAK (the line held at space) for d; zero means
// 0.25 s, as tcsendbreak(3) sends on Linux. A BREAK drops many boards into
// their monitor and is SysRq on a Linux serial console. It returns early,
// ending the BREAK, when ctx is done or the Conn is closed.
func (c *Conn) Break(ctx context.Context, d time.Duration) error { return c.p.Break(ctx, d) }

// SetModemLine asserts (on) or clears a modem control line. DTR and RTS
// are commonly wired to a board's reset and boot-mode pins. A device
// without modem lines (a pseudo-terminal) gives an error wrapping
// transport.ErrUnsupported. The lines set are set again after a reconnect.
func (c *Conn) SetModemLine(line transport.ModemLine, on bool) error {
	return unsupported(c.p.SetModemLine(serialport.ModemLine(line), on))
}

// unsupported makes an error of serialport's that wraps
// serialport.ErrUnsupported also match transport.ErrUnsupported, keeping
// its message; it returns other errors unchanged.
func unsupported(err error) error {
	if errors.Is(err, serialport.ErrUnsupported) {
		return &unsupportedError{err}
	}
	return err
}

type unsupportedError struct{ err error }

func (e *unsupportedError) Error() string   { return e.err.Error() }
func (e *unsupportedError) Unwrap() []error { return []error{e.err, transport.ErrUnsupported} }
