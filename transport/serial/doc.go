// Package serial is the transport for serial consoles: routers, single-board
// computers and microcontrollers reached through a UART, a USB serial adapter
// or anything else the kernel presents as a terminal device.
//
// An Opener opens Target.Command as the port path (any path: /dev/ttyUSB0,
// /dev/serial/by-id/…, a pseudo-terminal or a symbolic link to one) with the
// line settings in Target.Spec (transport.SerialParams), exclusively, and returns a *Conn. The Conn
// implements transport.Conn, Breaker (line BREAK), ModemController (DTR and
// RTS) and LinkStater. Ports lists the serial ports the machine has.
//
// The port itself (opening with the line settings, exclusive access, I/O
// through the runtime poller, unplug detection and reopening, BREAK, DTR and
// RTS) is internal/serialport, which the ttymux agent shares to hold serial
// sessions that outlive the server; its package doc describes the design.
// A Conn adds the transport interfaces: an error for a missing modem line
// also matches transport.ErrUnsupported.
//
// # Unplugging
//
// A device that goes away makes the link transport.LinkDisconnected. With
// SerialParams.Reconnect the Conn lives on: Read blocks until the port's
// path is back and reopened with the same settings (DTR and RTS as last
// set), and the link is transport.LinkUp again; meanwhile Write, Break and
// SetModemLine fail at once with an error wrapping ErrDisconnected.
// Without Reconnect, Read, Write and Wait return an error wrapping
// ErrDisconnected that names the port.
//
// Use a stable path such as /dev/serial/by-id/usb-…-if00-port0 for a device
// that may come back under another number (PortInfo.ByID gives it).
//
// # Concurrency
//
// Read, Write, Close, Wait, Break, SetModemLine and LinkState may be called
// from different goroutines; exactly one goroutine should Read. Close is
// idempotent, unblocks pending Reads and Writes, discards output the device
// has not taken yet (rather than wait up to 30 s for it in close(2)), stops
// the reconnect goroutine and waits for it. Opener.OnLinkState is called
// synchronously, in order, from the goroutine that noticed the change.
//
// The package owns the Conn (serialport owns the descriptor and the
// reconnect goroutine) and the port listing. It does not own the screen,
// line endings (what Enter sends is the session's business), or deciding
// when a command has finished.
package serial
