package serialport

import (
	"fmt"
	"strings"

	"golang.org/x/sys/unix"
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

// Params are a port's line settings as a caller gives them. Zero values
// mean 115200 baud, 8 data bits, no parity, 1 stop bit, no flow control.
type Params struct {
	Baud     int
	DataBits int    // 5–8
	Parity   string // "none", "odd", "even", "mark", "space"
	StopBits string // "1", "1.5", "2"
	// FlowControl is "none" or "rtscts" (hardware).
	FlowControl string
	// DTR and RTS say what opening does to the modem lines: "on" (the
	// default: asserted, as the kernel leaves them after open(2)), "off"
	// (released at once after open(2)) or "keep" (not touched, and left
	// as they are on close: HUPCL off). See modem.go.
	DTR, RTS string
}

// Settings are validated Params in termios terms.
type Settings struct {
	baud     int
	dataBits int    // 5–8
	parity   string // none, odd, even, mark, space
	stopBits int    // 1 or 2 (2 also stands for 1.5 with 5 data bits)
	rtscts   bool
	dtr, rts string // LineOn, LineOff or LineKeep
}

// Validate checks p and fills in defaults. Its errors say what is allowed.
func Validate(p Params) (Settings, error) {
	ls := Settings{baud: p.Baud, dataBits: p.DataBits}
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
	var err error
	if ls.dtr, err = lineChoice("dtr", p.DTR); err != nil {
		return ls, err
	}
	if ls.rts, err = lineChoice("rts", p.RTS); err != nil {
		return ls, err
	}
	return ls, nil
}

// String formats the settings the way consoles are usually described:
// "115200 8N1".
func (ls Settings) String() string {
	s := fmt.Sprintf("%d %d%c%d", ls.baud, ls.dataBits, strings.ToUpper(ls.parity)[0], ls.stopBits)
	if ls.rtscts {
		s += " rtscts"
	}
	if ls.dtr != LineOn {
		s += " dtr " + ls.dtr
	}
	if ls.rts != LineOn {
		s += " rts " + ls.rts
	}
	return s
}

// MakeRaw sets t as Open sets a port's termios, the rate aside: raw, with
// the character size, parity, stop bits and flow control of ls.
func (ls Settings) MakeRaw(t *unix.Termios) { makeRaw(t, ls) }

// makeRaw sets f's termios for a byte-exact line, like cfmakeraw(3) plus
// CLOCAL|CREAD (ignore carrier, enable the receiver) and no software flow
// control, then applies the character size, parity, stop bits and hardware
// flow control. A read returns as soon as one byte is there (VMIN 1,
// VTIME 0); the descriptor is non-blocking anyway.
func makeRaw(t *unix.Termios, ls Settings) {
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
	if ls.dtr == LineKeep || ls.rts == LineKeep {
		// Closing would drop both lines (termios(3), HUPCL): "keep"
		// leaves them as they are, for the next open to find.
		t.Cflag &^= unix.HUPCL
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
