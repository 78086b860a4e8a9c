package serialport

import (
	"errors"
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
)

// What opening a port does to DTR and RTS (Params.DTR, Params.RTS).
//
// Linux raises DTR and RTS inside open(2) itself, before any program can
// act (drivers/tty/tty_port.c, tty_port_block_til_ready: "if (C_BAUD(tty))
// tty_port_raise_dtr_rts(port)", for non-blocking opens too), and drops
// them on the last close while HUPCL is set. go.bug.st/serial does the
// same as this file: its Mode.InitialStatusBits, when set, is applied with
// TIOCMGET and TIOCMSET right after open and the termios setup, and when
// nil both lines stay as the kernel raised them.
//
//   - LineOn asserts the line again (TIOCMBIS) right after open(2): what
//     every terminal program leaves.
//   - LineOff releases it (TIOCMBIC) as the first thing after taking the
//     lock, microseconds after open(2) raised it. A board that resets on
//     the line's edge through a capacitor (an Arduino Uno's auto-reset) may
//     still see that edge if the line was released before the open.
//   - LineKeep does not touch it and clears HUPCL, so that closing leaves
//     it as it is too: the next open then finds it already asserted and
//     makes no edge at all. That is what keeps an Arduino from resetting on
//     every open (the first open after plugging it in still resets it).
//
// A device without modem lines (a pseudo-terminal: the pty driver has no
// tiocmset, so TIOCMBIS and TIOCMBIC fail with ENOTTY, and TIOCMGET
// likewise, which is why a test cannot read DTR back from a pseudo-terminal)
// opens all the same: there is no line to reset anything.
const (
	LineOn   = "on"
	LineOff  = "off"
	LineKeep = "keep"
)

func lineChoice(name, v string) (string, error) {
	switch c := strings.ToLower(strings.TrimSpace(v)); c {
	case "", LineOn:
		return LineOn, nil
	case LineOff, LineKeep:
		return c, nil
	}
	return "", fmt.Errorf("%s %q is not allowed: use on (the default: asserted, as opening a port leaves it), off (released right after opening, e.g. so that a board wired to it is not held in reset) or keep (not touched on open or close)", name, v)
}

// modemIoctl issues TIOCMBIS or TIOCMBIC on fd. A variable so that tests
// can see the calls made: on a pseudo-terminal they fail, and the line
// cannot be read back.
var modemIoctl = func(fd int, req uint, bits int) error {
	return unix.IoctlSetPointerInt(fd, req, bits)
}

// initModem sets the modem lines as ls says, right after open(2). A
// device without modem lines is not an error (see above).
func initModem(fd int, ls Settings) error {
	var set, clear int
	for _, l := range []struct {
		choice string
		bit    int
	}{{ls.dtr, unix.TIOCM_DTR}, {ls.rts, unix.TIOCM_RTS}} {
		switch l.choice {
		case LineOn:
			set |= l.bit
		case LineOff:
			clear |= l.bit
		}
	}
	// Release first: a line that must go low should not wait behind
	// another that is raised.
	for _, c := range []struct {
		req  uint
		bits int
	}{{unix.TIOCMBIC, clear}, {unix.TIOCMBIS, set}} {
		if c.bits == 0 {
			continue
		}
		if err := modemIoctl(fd, c.req, c.bits); err != nil {
			if noModemLines(err) {
				return nil
			}
			return err
		}
	}
	return nil
}

// noModemLines reports whether err says the device has no modem lines.
func noModemLines(err error) bool {
	return errors.Is(err, unix.ENOTTY) || errors.Is(err, unix.EINVAL)
}
