//go:build linux

package serial_test

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// TestInvalidSettings checks that each bad parameter is refused before the
// port is touched, with a message that names the port and says what is
// allowed.
func TestInvalidSettings(t *testing.T) {
	d := newDevice(t)
	tests := []struct {
		name string
		p    transport.SerialParams
		want []string // all in the message
	}{
		{name: "negative baud", p: transport.SerialParams{Baud: -9600}, want: []string{"baud -9600", "115200"}},
		{name: "absurd baud", p: transport.SerialParams{Baud: 1 << 40}, want: []string{"out of range"}},
		{name: "data bits 9", p: transport.SerialParams{DataBits: 9}, want: []string{"data bits 9", "5, 6, 7 or 8"}},
		{name: "data bits 4", p: transport.SerialParams{DataBits: 4}, want: []string{"5, 6, 7 or 8"}},
		{name: "parity", p: transport.SerialParams{Parity: "n"}, want: []string{`parity "n"`, "none", "odd", "even", "mark", "space"}},
		{name: "stop bits", p: transport.SerialParams{StopBits: "3"}, want: []string{`stop bits "3"`, "1", "2"}},
		{name: "1.5 stop bits with 8 data bits", p: transport.SerialParams{StopBits: "1.5"}, want: []string{"1.5 stop bits", "5 data bits"}},
		{name: "flow control", p: transport.SerialParams{FlowControl: "xonxoff"}, want: []string{`flow control "xonxoff"`, "none", "rtscts"}},
	}
	var o serial.Opener
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := o.Open(t.Context(), transport.Target{Command: d.Port, Spec: tt.p})
			if err == nil {
				_ = c.Close()
				t.Fatal("Open succeeded")
			}
			msg := err.Error()
			for _, w := range append(tt.want, d.Port) {
				if !strings.Contains(msg, w) {
					t.Errorf("error %q does not mention %q", msg, w)
				}
			}
		})
	}
	if d.exclusive(t) {
		t.Error("a refused Open left the port exclusive")
	}
}

// TestSettingsApplied checks the termios the port ends up with: raw, the
// receiver on, modem status ignored, and the requested line. A
// pseudo-terminal keeps everything but the character size and parity
// enable, which its driver forces to CS8 without parity (drivers/tty/pty.c,
// pty_set_termios), so those two are checked on the termios Open computes.
func TestSettingsApplied(t *testing.T) {
	tests := []struct {
		name   string
		p      transport.SerialParams
		speed  uint32
		size   uint32
		parity uint32 // PARENB|PARODD|CMSPAR bits
		cstopb bool
		rtscts bool
	}{
		{name: "defaults 115200 8N1", speed: 115200, size: unix.CS8},
		{name: "9600 7E1", p: transport.SerialParams{Baud: 9600, DataBits: 7, Parity: "even"}, speed: 9600, size: unix.CS7, parity: unix.PARENB},
		{name: "57600 8O2", p: transport.SerialParams{Baud: 57600, Parity: "Odd", StopBits: "2"}, speed: 57600, size: unix.CS8, parity: unix.PARENB | unix.PARODD, cstopb: true},
		{name: "74880 non-standard (ESP8266 ROM)", p: transport.SerialParams{Baud: 74880}, speed: 74880, size: unix.CS8},
		{name: "mark parity", p: transport.SerialParams{Baud: 19200, Parity: "mark"}, speed: 19200, size: unix.CS8, parity: unix.PARENB | unix.PARODD | unix.CMSPAR},
		{name: "space parity", p: transport.SerialParams{Parity: "space"}, speed: 115200, size: unix.CS8, parity: unix.PARENB | unix.CMSPAR},
		{name: "5 data bits 1.5 stop", p: transport.SerialParams{DataBits: 5, StopBits: "1.5"}, speed: 115200, size: unix.CS5, cstopb: true},
		{name: "6 data bits", p: transport.SerialParams{DataBits: 6, StopBits: "1"}, speed: 115200, size: unix.CS6},
		{name: "rtscts 921600", p: transport.SerialParams{Baud: 921600, FlowControl: "rtscts"}, speed: 921600, size: unix.CS8, rtscts: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			d := newDevice(t)
			// Start from a cooked, 7E2 terminal so that every flag has to
			// be set or cleared.
			cooked := *d.termios(t)
			cooked.Cflag = cooked.Cflag&^unix.CSIZE | unix.CS7 | unix.PARENB | unix.CSTOPB
			computed, err := serial.TermiosFor(tt.p, cooked)
			if err != nil {
				t.Fatal(err)
			}
			if got := computed.Cflag & unix.CSIZE; got != tt.size {
				t.Errorf("computed CSIZE %#x, want %#x", got, tt.size)
			}
			if got := computed.Cflag & (unix.PARENB | unix.PARODD | unix.CMSPAR); got != tt.parity {
				t.Errorf("computed parity bits %#x, want %#x", got, tt.parity)
			}

			open(t, &serial.Opener{}, d.Port, tt.p)
			tio := d.termios(t)
			if tio.Ospeed != tt.speed || tio.Ispeed != tt.speed {
				t.Errorf("speed in %d out %d, want %d", tio.Ispeed, tio.Ospeed, tt.speed)
			}
			if got := tio.Cflag & (unix.PARODD | unix.CMSPAR); got != tt.parity&^unix.PARENB {
				t.Errorf("parity bits %#x, want %#x", got, tt.parity&^unix.PARENB)
			}
			if got := tio.Iflag&unix.INPCK != 0; got != (tt.parity != 0) {
				t.Errorf("INPCK %v with parity bits %#x", got, tt.parity)
			}
			if got := tio.Cflag&unix.CSTOPB != 0; got != tt.cstopb {
				t.Errorf("CSTOPB %v, want %v", got, tt.cstopb)
			}
			if got := tio.Cflag&unix.CRTSCTS != 0; got != tt.rtscts {
				t.Errorf("CRTSCTS %v, want %v", got, tt.rtscts)
			}
			if tio.Cflag&(unix.CLOCAL|unix.CREAD) != unix.CLOCAL|unix.CREAD {
				t.Errorf("CLOCAL|CREAD not set: cflag %#x", tio.Cflag)
			}
			if tio.Lflag&(unix.ICANON|unix.ECHO|unix.ISIG|unix.IEXTEN) != 0 {
				t.Errorf("not raw: lflag %#x", tio.Lflag)
			}
			if tio.Iflag&(unix.ICRNL|unix.IXON|unix.ISTRIP|unix.BRKINT) != 0 {
				t.Errorf("not raw: iflag %#x", tio.Iflag)
			}
			if tio.Oflag&unix.OPOST != 0 {
				t.Errorf("output processing on: oflag %#x", tio.Oflag)
			}
			if tio.Cc[unix.VMIN] != 1 || tio.Cc[unix.VTIME] != 0 {
				t.Errorf("VMIN %d VTIME %d, want 1 0", tio.Cc[unix.VMIN], tio.Cc[unix.VTIME])
			}
		})
	}
}

// allBytes holds every byte value, the control characters a cooked
// terminal would act on (^C, ^D, ^S, ^Q, CR, DEL) included.
func allBytes() []byte {
	b := make([]byte, 256)
	for i := range b {
		b[i] = byte(i)
	}
	return b
}

// TestReadWrite sends every byte value both ways and expects it back
// unchanged: no echo, no CR/LF translation, no signals, no flow control.
func TestReadWrite(t *testing.T) {
	checkGoroutines(t)
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	fromDevice := collect(t, c)
	toDevice := collect(t, d.Master)

	payload := string(allBytes()) + "end-of-test"
	write(t, d.Master, payload)
	if got := fromDevice.waitFor(t, "end-of-test"); got != payload {
		t.Errorf("Conn read %q, want %q", got, payload)
	}
	write(t, c, payload)
	if got := toDevice.waitFor(t, "end-of-test"); got != payload {
		t.Errorf("device read %q, want %q", got, payload)
	}
	if got := c.LinkState(); got != transport.LinkUp {
		t.Errorf("LinkState %q, want %q", got, transport.LinkUp)
	}
	if got := c.Port(); got != d.Port {
		t.Errorf("Port %q, want %q", got, d.Port)
	}
	if n, err := c.Read(nil); n != 0 || err != nil {
		t.Errorf("Read(nil) = %d, %v; want 0, nil", n, err)
	}
}

// TestOpenErrors checks the messages for ports that cannot be opened: they
// name the port, say what to do, and match with errors.Is.
func TestOpenErrors(t *testing.T) {
	dir := t.TempDir()
	regular := filepath.Join(dir, "notatty")
	if err := os.WriteFile(regular, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name string
		port string
		is   error
		want []string
	}{
		{name: "missing", port: filepath.Join(dir, "ttyUSB9"), is: fs.ErrNotExist, want: []string{"does not exist", "serial_ports"}},
		{name: "not a terminal", port: regular, is: unix.ENOTTY, want: []string{"not a serial port"}},
		{name: "empty path", port: "", want: []string{"no serial port given", "serial_ports"}},
	}
	var o serial.Opener
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c, err := o.Open(t.Context(), transport.Target{Command: tt.port})
			if err == nil {
				_ = c.Close()
				t.Fatal("Open succeeded")
			}
			if tt.is != nil && !errors.Is(err, tt.is) {
				t.Errorf("error %v does not match %v", err, tt.is)
			}
			for _, w := range append(tt.want, tt.port) {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not mention %q", err, w)
				}
			}
		})
	}
	t.Run("cancelled context", func(t *testing.T) {
		d := newDevice(t)
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if _, err := o.Open(ctx, transport.Target{Command: d.Port}); !errors.Is(err, context.Canceled) {
			t.Errorf("Open with a cancelled ctx: %v", err)
		}
	})
}

// TestExclusive checks that a port is opened exclusively: a second Open
// (another session, or root, whom TIOCEXCL lets through) is refused with
// ErrBusy, and Close gives the port back.
func TestExclusive(t *testing.T) {
	d := newDevice(t)
	var o serial.Opener
	c := open(t, &o, d.Port, transport.SerialParams{})
	if !d.exclusive(t) {
		t.Error("TIOCEXCL not set on the open port")
	}
	_, err := o.Open(t.Context(), transport.Target{Command: d.Port})
	if !errors.Is(err, serial.ErrBusy) {
		t.Fatalf("second Open: %v, want ErrBusy", err)
	}
	want := "serial port " + d.Port + " is in use by another program (opened exclusively); close it there or pick another port"
	if err.Error() != want {
		t.Errorf("error %q, want %q", err, want)
	}
	// The refused Open must not have disturbed the first one.
	if !d.exclusive(t) {
		t.Error("refused Open cleared TIOCEXCL")
	}
	fromDevice := collect(t, c)
	write(t, d.Master, "still here")
	fromDevice.waitFor(t, "still here")

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if d.exclusive(t) {
		t.Error("TIOCEXCL still set after Close")
	}
	open(t, &o, d.Port, transport.SerialParams{}) // free again
}

// TestBreak checks that BREAK succeeds on a pseudo-terminal (its driver
// has no break_ctl, and the ioctls succeed), stops early when ctx is
// cancelled, and refuses a negative length.
func TestBreak(t *testing.T) {
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	if err := c.Break(t.Context(), 0); err != nil {
		t.Errorf("Break(0): %v", err)
	}
	if err := c.Break(t.Context(), 10*time.Millisecond); err != nil {
		t.Errorf("Break(10ms): %v", err)
	}
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	within(t, "Break with a cancelled ctx", func() {
		if err := c.Break(ctx, time.Hour); !errors.Is(err, context.Canceled) {
			t.Errorf("Break with a cancelled ctx: %v", err)
		}
	})
	if err := c.Break(t.Context(), -time.Second); err == nil {
		t.Error("Break(-1s) succeeded")
	}
}

// TestBreakEndsOnClose checks that Close ends a long BREAK.
func TestBreakEndsOnClose(t *testing.T) {
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	errc := make(chan error, 1)
	go func() { errc <- c.Break(context.Background(), time.Hour) }()
	// Close may come before or during the BREAK: either way it ends.
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("Break after Close: %v, want os.ErrClosed", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Close did not end the BREAK")
	}
}

// TestModemLinesOnPTY checks that DTR and RTS on a pseudo-terminal, which
// has no modem lines (ENOTTY), give an error wrapping ErrUnsupported with a
// message a model can act on.
func TestModemLinesOnPTY(t *testing.T) {
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	for _, tt := range []struct {
		line transport.ModemLine
		want string
	}{
		{transport.DTR, "this device has no DTR line (a pseudo-terminal?)"},
		{transport.RTS, "this device has no RTS line (a pseudo-terminal?)"},
	} {
		for _, on := range []bool{true, false} {
			err := c.SetModemLine(tt.line, on)
			if !errors.Is(err, transport.ErrUnsupported) {
				t.Errorf("SetModemLine(%s, %v): %v, want ErrUnsupported", tt.line, on, err)
				continue
			}
			if !errors.Is(err, unix.ENOTTY) {
				t.Errorf("SetModemLine(%s, %v): %v does not keep its cause", tt.line, on, err)
			}
			if err.Error() != tt.want {
				t.Errorf("error %q, want %q", err, tt.want)
			}
		}
	}
	if err := c.SetModemLine("dsr", true); err == nil || !strings.Contains(err.Error(), "dtr, rts") {
		t.Errorf("SetModemLine(dsr): %v", err)
	}
}

// TestBreakAfterClose: a closed port refuses a BREAK with os.ErrClosed
// (the rest of what Close does is the conformance suite's).
func TestBreakAfterClose(t *testing.T) {
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := c.Break(t.Context(), 0); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Break after Close: %v", err)
	}
}

// TestHighDescriptor pins go.bug.st/serial's select(2) limit: its Read
// indexes an fd_set with the descriptor and panics for one ≥ 1024. The
// Conn must work there, because it waits through the runtime poller.
func TestHighDescriptor(t *testing.T) {
	var lim unix.Rlimit
	if err := unix.Getrlimit(unix.RLIMIT_NOFILE, &lim); err != nil {
		t.Fatal(err)
	}
	const need = 1100
	if lim.Cur < need {
		if lim.Max < need {
			t.Skipf("RLIMIT_NOFILE hard limit %d < %d", lim.Max, need)
		}
		raised := lim
		raised.Cur = need
		if err := unix.Setrlimit(unix.RLIMIT_NOFILE, &raised); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = unix.Setrlimit(unix.RLIMIT_NOFILE, &lim) })
	}
	d := newDevice(t)
	// Fill the descriptor table up to 1024 so that the next open gets a
	// number above it.
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	var held []int
	t.Cleanup(func() {
		for _, fd := range held {
			_ = unix.Close(fd)
		}
	})
	for {
		fd, err := unix.Dup(int(null.Fd()))
		if err != nil {
			t.Fatalf("dup: %v", err)
		}
		held = append(held, fd)
		if fd >= 1024 {
			break
		}
	}

	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	var fd int
	rc, err := c.SyscallConnForTest()
	if err != nil {
		t.Fatal(err)
	}
	if err := rc.Control(func(u uintptr) { fd = int(u) }); err != nil {
		t.Fatal(err)
	}
	if fd < 1024 {
		t.Fatalf("port descriptor %d < 1024: the test did not reach the limit", fd)
	}
	fromDevice := collect(t, c)
	toDevice := collect(t, d.Master)
	write(t, d.Master, "hello from fd above 1024\r\n")
	fromDevice.waitFor(t, "hello from fd above 1024\r\n")
	write(t, c, "ls\r")
	toDevice.waitFor(t, "ls\r")
	if err := c.Break(t.Context(), time.Millisecond); err != nil {
		t.Errorf("Break: %v", err)
	}
	t.Logf("port descriptor %d", fd)
}

// TestPorts checks that listing never fails for want of ports and that
// every port it lists exists.
func TestPorts(t *testing.T) {
	ports, err := serial.Ports()
	if err != nil {
		t.Fatal(err)
	}
	if ports == nil {
		t.Fatal("Ports returned nil, want an empty list")
	}
	for _, p := range ports {
		if _, err := os.Stat(p.Name); err != nil {
			t.Errorf("listed port %+v: %v", p, err)
		}
		t.Logf("%+v", p)
	}
}

// TestPortsSysfs lists ports from a fake sysfs: a USB serial adapter
// (ttyUSB0, with a by-id link), a CDC-ACM board (ttyACM0), a real UART
// (ttyS0), a placeholder UART (ttyS1, type 0), a virtual console (tty1, no
// device) and a port whose node is missing (ttyUSB5).
func TestPortsSysfs(t *testing.T) {
	root := t.TempDir()
	sys, dev := filepath.Join(root, "sys"), filepath.Join(root, "dev")
	mkdir := func(p string) {
		if err := os.MkdirAll(p, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	file := func(p, s string) {
		mkdir(filepath.Dir(p))
		if err := os.WriteFile(p, []byte(s+"\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	symlink := func(target, p string) {
		mkdir(filepath.Dir(p))
		if err := os.Symlink(target, p); err != nil {
			t.Fatal(err)
		}
	}
	usb := filepath.Join(sys, "devices/pci0000:00/usb1/1-2")
	file(filepath.Join(usb, "idVendor"), "10c4")
	file(filepath.Join(usb, "idProduct"), "ea60")
	file(filepath.Join(usb, "serial"), "0001")
	file(filepath.Join(usb, "manufacturer"), "Silicon Labs")
	file(filepath.Join(usb, "product"), "CP2102 USB to UART Bridge Controller")
	mkdir(filepath.Join(sys, "bus/usb-serial"))
	mkdir(filepath.Join(sys, "bus/usb"))
	mkdir(filepath.Join(sys, "bus/pnp"))
	port := filepath.Join(usb, "1-2:1.0/ttyUSB0")
	symlink(filepath.Join(sys, "bus/usb-serial"), filepath.Join(port, "subsystem"))
	symlink(port, filepath.Join(sys, "class/tty/ttyUSB0/device"))

	acm := filepath.Join(sys, "devices/pci0000:00/usb1/1-3")
	file(filepath.Join(acm, "idVendor"), "2e8a")
	file(filepath.Join(acm, "idProduct"), "000a")
	file(filepath.Join(acm, "product"), "Pico")
	symlink(filepath.Join(sys, "bus/usb"), filepath.Join(acm, "1-3:1.0/subsystem"))
	symlink(filepath.Join(acm, "1-3:1.0"), filepath.Join(sys, "class/tty/ttyACM0/device"))

	uart := filepath.Join(sys, "devices/pnp0/00:00")
	symlink(filepath.Join(sys, "bus/pnp"), filepath.Join(uart, "subsystem"))
	symlink(uart, filepath.Join(sys, "class/tty/ttyS0/device"))
	file(filepath.Join(sys, "class/tty/ttyS0/type"), "4")
	symlink(uart, filepath.Join(sys, "class/tty/ttyS1/device"))
	file(filepath.Join(sys, "class/tty/ttyS1/type"), "0")
	mkdir(filepath.Join(sys, "class/tty/tty1"))
	symlink(port, filepath.Join(sys, "class/tty/ttyUSB5/device"))

	for _, n := range []string{"ttyUSB0", "ttyACM0", "ttyS0", "ttyS1", "tty1"} {
		file(filepath.Join(dev, n), "")
	}
	symlink("../../ttyUSB0", filepath.Join(dev, "serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0"))

	got, err := serial.ListPortsIn(sys, dev)
	if err != nil {
		t.Fatal(err)
	}
	want := []serial.PortInfo{
		{Name: filepath.Join(dev, "ttyACM0"), IsUSB: true, VID: "2E8A", PID: "000A", Product: "Pico"},
		{Name: filepath.Join(dev, "ttyS0")},
		{
			Name: filepath.Join(dev, "ttyUSB0"), ByID: filepath.Join(dev, "serial/by-id/usb-Silicon_Labs_CP2102_0001-if00-port0"),
			IsUSB: true, VID: "10C4", PID: "EA60", SerialNumber: "0001",
			Manufacturer: "Silicon Labs", Product: "CP2102 USB to UART Bridge Controller",
		},
	}
	if len(got) != len(want) {
		t.Fatalf("got %d ports %+v, want %+v", len(got), got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("port %d:\n got %+v\nwant %+v", i, got[i], want[i])
		}
	}

	none, err := serial.ListPortsIn(filepath.Join(root, "nosys"), dev)
	if err != nil || none == nil || len(none) != 0 {
		t.Errorf("no sysfs: %v, %v; want an empty list", none, err)
	}
}

// TestCloseUnblocksWrite: a Write blocked because the device does not
// take its bytes (here nobody reads the master, so the pseudo-terminal's
// buffer fills) ends when the Conn is closed.
func TestCloseUnblocksWrite(t *testing.T) {
	checkGoroutines(t)
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	errc := make(chan error, 1)
	go func() {
		_, err := c.Write(make([]byte, 16<<20)) // far more than the tty buffers hold
		errc <- err
	}()
	// The first byte at the device proves the Write has started; 16 MiB
	// cannot fit, so it is blocked or about to be.
	if err := d.Master.SetReadDeadline(time.Now().Add(testTimeout)); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Master.Read(make([]byte, 1)); err != nil {
		t.Fatalf("device read: %v", err)
	}
	within(t, "Close", func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	select {
	case err := <-errc:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("Write after Close: %v, want os.ErrClosed", err)
		}
	case <-time.After(testTimeout):
		t.Fatal("Close did not unblock Write")
	}
}
