package serialport_test

import (
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/serialport"
	"github.com/ttymux/ttymux/internal/serialtest"
)

// modemCall is one TIOCMBIS or TIOCMBIC a Port made.
type modemCall struct {
	req  uint
	bits int
}

func (c modemCall) String() string {
	op := "set"
	if c.req == unix.TIOCMBIC {
		op = "clear"
	}
	var lines []string
	if c.bits&unix.TIOCM_DTR != 0 {
		lines = append(lines, "dtr")
	}
	if c.bits&unix.TIOCM_RTS != 0 {
		lines = append(lines, "rts")
	}
	return op + " " + strings.Join(lines, "+")
}

// recordModem records the modem-line ioctls. With pass, they go on to the
// device, which answers as a pseudo-terminal does (ENOTTY); without, they
// succeed as on a UART.
func recordModem(t *testing.T, pass bool) func() []string {
	var mu sync.Mutex
	var calls []string
	restore := serialport.SetModemIoctl(func(fd int, req uint, bits int) error {
		mu.Lock()
		calls = append(calls, modemCall{req, bits}.String())
		mu.Unlock()
		if !pass {
			return nil
		}
		return serialport.RealModemIoctl(fd, req, bits)
	})
	t.Cleanup(restore)
	return func() []string {
		mu.Lock()
		defer mu.Unlock()
		return append([]string(nil), calls...)
	}
}

// TestOpenModemLines pins what opening does to DTR and RTS. Linux raises
// both inside open(2); a pseudo-terminal has no modem lines, so TIOCMGET
// cannot read them back there (ENOTTY): the test records the ioctls the
// Port makes, answering them as a UART would, and checks HUPCL, which a
// pseudo-terminal does keep. TestOpenWithoutModemLines opens the same
// device for real.
func TestOpenModemLines(t *testing.T) {
	tests := []struct {
		name     string
		dtr, rts string
		want     []string
		hupcl    bool // HUPCL left set
	}{
		{"default", "", "", []string{"set dtr+rts"}, true},
		{"dtr off", "off", "", []string{"clear dtr", "set rts"}, true},
		{"rts off", "on", "off", []string{"clear rts", "set dtr"}, true},
		{"both off", "off", "off", []string{"clear dtr+rts"}, true},
		{"dtr keep", "keep", "on", []string{"set rts"}, false},
		{"both keep", "keep", "keep", nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			calls := recordModem(t, false)
			dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
			setHUPCL(t, dev)
			p, err := serialport.Open(dev.Path, serialport.Params{DTR: tt.dtr, RTS: tt.rts}, serialport.Options{})
			if err != nil {
				t.Fatalf("open with dtr %q rts %q on a device without modem lines: %v", tt.dtr, tt.rts, err)
			}
			defer p.Close()
			if got := calls(); strings.Join(got, ", ") != strings.Join(tt.want, ", ") {
				t.Errorf("modem calls %q, want %q", got, tt.want)
			}
			// HUPCL is readable on a pseudo-terminal: keep clears it, so
			// closing does not drop the lines.
			var hupcl bool
			rc, err := p.SyscallConn()
			if err != nil {
				t.Fatal(err)
			}
			_ = rc.Control(func(fd uintptr) {
				tio, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
				if err != nil {
					t.Error(err)
					return
				}
				hupcl = tio.Cflag&unix.HUPCL != 0
			})
			if hupcl != tt.hupcl {
				t.Errorf("HUPCL %v, want %v", hupcl, tt.hupcl)
			}
			// The port works.
			if _, err := p.Write([]byte("x")); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// setHUPCL sets HUPCL on the device's port, as a UART's driver has it by
// default (a pseudo-terminal starts without it). Termios ioctls on a
// pseudo-terminal's master act on its slave.
func setHUPCL(t *testing.T, dev *serialtest.Device) {
	t.Helper()
	rc, err := dev.Master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ierr error
	_ = rc.Control(func(fd uintptr) {
		tio, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		if err != nil {
			ierr = err
			return
		}
		tio.Cflag |= unix.HUPCL
		ierr = unix.IoctlSetTermios(int(fd), unix.TCSETS, tio)
	})
	if ierr != nil {
		t.Fatal(ierr)
	}
}

// TestOpenWithoutModemLines: on a device without modem lines (a
// pseudo-terminal answers ENOTTY) every choice opens, after one attempt.
func TestOpenWithoutModemLines(t *testing.T) {
	for _, dtr := range []string{"on", "off", "keep"} {
		calls := recordModem(t, true)
		dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
		p, err := serialport.Open(dev.Path, serialport.Params{DTR: dtr, RTS: "off"}, serialport.Options{})
		if err != nil {
			t.Fatalf("dtr %s on a pseudo-terminal: %v", dtr, err)
		}
		if got := calls(); len(got) != 1 || got[0] != "clear "+map[string]string{"on": "rts", "off": "dtr+rts", "keep": "rts"}[dtr] {
			t.Errorf("dtr %s: calls %q", dtr, got)
		}
		_ = p.Close()
	}
}

// TestModemLinesOnAPseudoTerminal documents why the tests above look at
// the calls rather than the line: a pseudo-terminal has no modem lines.
func TestModemLinesOnAPseudoTerminal(t *testing.T) {
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	p, err := serialport.Open(dev.Path, serialport.Params{}, serialport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	rc, err := p.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var gerr error
	_ = rc.Control(func(fd uintptr) { _, gerr = unix.IoctlGetInt(int(fd), unix.TIOCMGET) })
	if !errors.Is(gerr, unix.ENOTTY) && !errors.Is(gerr, unix.EINVAL) {
		t.Fatalf("TIOCMGET on a pseudo-terminal = %v; if it works now, check DTR itself in TestOpenModemLines", gerr)
	}
}

// TestModemLinesRestoredOnReconnect: the open-time choice holds after the
// device comes back.
func TestModemLinesRestoredOnReconnect(t *testing.T) {
	calls := recordModem(t, false)
	path := filepath.Join(t.TempDir(), "ttyUSB0")
	dev := serialtest.New(t, path)
	p, err := serialport.Open(dev.Path, serialport.Params{DTR: "off"}, serialport.Options{Reconnect: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Close()
	back := make(chan struct{})
	go func() {
		defer close(back)
		buf := make([]byte, 16)
		_, _ = p.Read(buf) // blocks through the unplug, returns with the new device's byte
	}()
	dev.Unplug()
	dev = serialtest.New(t, path)
	dev.Write(t, "!")
	select {
	case <-back:
	case <-t.Context().Done():
		t.Fatal("no reconnect")
	}
	got := calls()
	if strings.Join(got, ", ") != "clear dtr, set rts, clear dtr, set rts" {
		t.Fatalf("modem calls %q: the reopen should release DTR again", got)
	}
}

func TestModemLineChoiceErrors(t *testing.T) {
	_, err := serialport.Validate(serialport.Params{DTR: "low"})
	if err == nil || !strings.Contains(err.Error(), `dtr "low" is not allowed`) {
		t.Fatalf("Validate(dtr low) = %v", err)
	}
}
