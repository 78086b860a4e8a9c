package serialport_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/ptytest"
	"github.com/ttymux/ttymux/internal/serialport"
	"github.com/ttymux/ttymux/internal/serialtest"
)

// Most of this package's behaviour is tested through transport/serial,
// whose Conn is a thin layer over a Port (transport/serial/*_test.go),
// and through the agent's serial sessions (agentd/serial_test.go).
// These tests pin the API the two share.

const timeout = 15 * time.Second

func TestValidate(t *testing.T) {
	tests := []struct {
		name string
		p    serialport.Params
		want string // String() of the settings, or part of the error
		ok   bool
	}{
		{"defaults", serialport.Params{}, "115200 8N1", true},
		{"7E2 rtscts", serialport.Params{Baud: 9600, DataBits: 7, Parity: "EVEN", StopBits: "2", FlowControl: "rtscts"}, "9600 7E2 rtscts", true},
		{"1.5 stop bits", serialport.Params{DataBits: 5, StopBits: "1.5"}, "115200 5N2", true},
		{"1.5 with 8 bits", serialport.Params{StopBits: "1.5"}, "only with 5 data bits", false},
		{"negative baud", serialport.Params{Baud: -1}, "out of range", false},
		{"9 data bits", serialport.Params{DataBits: 9}, "data bits 9", false},
		{"parity", serialport.Params{Parity: "sometimes"}, `parity "sometimes"`, false},
		{"flow", serialport.Params{FlowControl: "xonxoff"}, `flow control "xonxoff"`, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := serialport.Validate(tt.p)
			switch {
			case tt.ok && err != nil:
				t.Fatalf("Validate: %v", err)
			case tt.ok && s.String() != tt.want:
				t.Errorf("settings %q, want %q", s, tt.want)
			case !tt.ok && (err == nil || !strings.Contains(err.Error(), tt.want)):
				t.Errorf("Validate = %v, want an error containing %q", err, tt.want)
			}
		})
	}
}

// TestMakeRaw: 8N1 without flow control is a raw, receiving, carrier-blind
// line.
func TestMakeRaw(t *testing.T) {
	s, err := serialport.Validate(serialport.Params{})
	if err != nil {
		t.Fatal(err)
	}
	tio := unix.Termios{Iflag: unix.ICRNL | unix.IXON, Oflag: unix.OPOST, Lflag: unix.ECHO | unix.ICANON | unix.ISIG, Cflag: unix.PARENB}
	s.MakeRaw(&tio)
	if tio.Iflag&(unix.ICRNL|unix.IXON) != 0 || tio.Oflag&unix.OPOST != 0 || tio.Lflag&(unix.ECHO|unix.ICANON|unix.ISIG) != 0 {
		t.Errorf("not raw: %+v", tio)
	}
	if tio.Cflag&unix.PARENB != 0 || tio.Cflag&unix.CSIZE != unix.CS8 || tio.Cflag&(unix.CREAD|unix.CLOCAL) != unix.CREAD|unix.CLOCAL {
		t.Errorf("cflag %#x", tio.Cflag)
	}
}

// TestPortLink follows one Port through an unplug and a replug: the
// callback sees each change once, in order; SyscallConn and SetModemLine
// fail while the device is away; bytes flow again once it is back; a
// pseudo-terminal's missing DTR line is ErrUnsupported.
func TestPortLink(t *testing.T) {
	path := filepath.Join(t.TempDir(), "ttyUSB0")
	dev := serialtest.New(t, path)
	states := make(chan string, 8)
	p, err := serialport.Open(path, serialport.Params{}, serialport.Options{Reconnect: true, OnLinkState: func(s string) { states <- s }})
	if err != nil {
		t.Fatal(err)
	}
	if p.Path() != path || p.Settings().String() != "115200 8N1" || p.LinkState() != serialport.LinkUp {
		t.Fatalf("port %s %s %s", p.Path(), p.Settings(), p.LinkState())
	}
	out := ptytest.Pump(t, p, timeout)
	expect := func(want string) {
		t.Helper()
		select {
		case got := <-states:
			if got != want {
				t.Fatalf("link state %q, want %q", got, want)
			}
		case <-time.After(timeout):
			t.Fatalf("no link state %q", want)
		}
	}
	if err := p.SetModemLine(serialport.DTR, true); !errors.Is(err, serialport.ErrUnsupported) || !strings.Contains(err.Error(), "no DTR line") {
		t.Errorf("SetModemLine on a pty: %v", err)
	}
	if rc, err := p.SyscallConn(); err != nil || rc == nil {
		t.Errorf("SyscallConn: %v", err)
	}
	dev.Write(t, "one\r\n")
	out.Expect(t, "one\r\n")

	dev.Unplug()
	expect(serialport.LinkDisconnected)
	if _, err := p.SyscallConn(); !errors.Is(err, serialport.ErrDisconnected) {
		t.Errorf("SyscallConn while unplugged: %v", err)
	}
	if err := p.SetModemLine(serialport.RTS, false); !errors.Is(err, serialport.ErrDisconnected) {
		t.Errorf("SetModemLine while unplugged: %v", err)
	}

	dev2 := serialtest.New(t, path)
	expect(serialport.LinkUp)
	dev2.Write(t, "two\r\n")
	out.Expect(t, "two\r\n")
	in := ptytest.Pump(t, dev2.Master, timeout)
	if _, err := p.Write([]byte("three\r")); err != nil {
		t.Fatal(err)
	}
	in.Expect(t, "three\r")

	if err := p.Close(); err != nil {
		t.Fatal(err)
	}
	if err := p.Wait(); err != nil {
		t.Errorf("Wait after Close: %v", err)
	}
	if _, err := p.SyscallConn(); !errors.Is(err, os.ErrClosed) {
		t.Errorf("SyscallConn after Close: %v", err)
	}
	select {
	case s := <-states:
		t.Errorf("unexpected link state %q", s)
	default:
	}
}
