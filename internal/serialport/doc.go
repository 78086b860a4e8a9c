// Package serialport opens and drives a serial port: line settings,
// exclusive access, reads and writes through the Go runtime's poller,
// unplug detection and reopening, BREAK, and the DTR and RTS lines. It is
// shared by transport/serial (serial sessions in the ttymux server) and the
// agent (agentd), which holds serial sessions that outlive the
// server, so it imports only the standard library and golang.org/x/sys.
//
// Open opens any path (/dev/ttyUSB0, /dev/serial/by-id/…, a
// pseudo-terminal or a symbolic link to one) with the settings in Params,
// exclusively, and returns a *Port.
//
// # I/O
//
// go.bug.st/serial waits for input with select(2), which panics for a
// descriptor ≥ 1024, a number a long-running server with many sessions
// reaches. Its Port also hides the descriptor. So this package opens the
// device itself (O_RDWR|O_NOCTTY|O_NONBLOCK), sets termios with
// golang.org/x/sys/unix, and reads and writes through an *os.File that the Go
// runtime's poller (epoll, kqueue) waits on. Every ioctl runs inside
// SyscallConn().Control: (*os.File).Fd would put the descriptor back into
// blocking mode, after which Close no longer unblocks a Read.
//
// # Exclusive access
//
// Open takes two locks: TIOCEXCL, which makes the kernel refuse further opens
// of the device (except to root, which it lets through), and flock(2), which
// other ttymux sessions and cooperating programs (pyserial's exclusive=True,
// flock-aware terminal programs) honour whatever their user. A port held by
// either gives an error wrapping ErrBusy that names the port.
//
// # Modem lines on open
//
// Params.DTR and Params.RTS say what opening does to those lines: "on"
// (asserted, as the kernel leaves them after open(2)), "off" (released as
// the first thing after open(2) and the lock) or "keep" (not touched, and
// HUPCL cleared so that closing leaves them too). modem.go explains what
// the kernel does and why a pseudo-terminal cannot show it.
//
// # Unplugging
//
// A USB adapter or board that goes away hangs up the terminal: reads return
// end of file or EIO, ENXIO or ENODEV. The Port then closes its descriptor at
// once (so that the kernel can give the device its old name when it comes
// back) and its link is LinkDisconnected.
//
// With Options.Reconnect the Port lives on. Read blocks; a goroutine owned
// by the Port looks for the path every 200 ms and, once it is back, opens it
// with the same settings (backing off to 2 s while opening fails, for
// example while udev has not yet given the new node its group), restores
// DTR and RTS as last set, and the link is LinkUp again: Read delivers the
// device's bytes as if nothing had happened. Write, Break and SetModemLine
// fail at once while the link is down, with an error wrapping
// ErrDisconnected. Wait returns only when the Port is closed. Without
// Reconnect, Read, Write and Wait return an error wrapping ErrDisconnected
// that names the port.
//
// # Concurrency
//
// Read, Write, Close, Wait, Break, SetModemLine and LinkState may be called
// from different goroutines; exactly one goroutine should Read. Close is
// idempotent, unblocks pending Reads and Writes, discards output the device
// has not taken yet (rather than wait up to 30 s for it in close(2)), stops
// the reconnect goroutine and waits for it. Options.OnLinkState is called
// synchronously, in order, from the goroutine that noticed the change.
//
// The package owns the descriptor and the reconnect goroutine. It does not
// own the screen, line endings (what Enter sends is the session's business),
// listing the ports, or deciding when a command has finished.
package serialport
