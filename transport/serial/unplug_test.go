//go:build linux

package serial_test

import (
	"errors"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// The tests here unplug a fake device by closing its PTY master, which
// hangs up the port exactly as a USB adapter's removal does (reads return
// end of file), and plug it back by making a new PTY pair and pointing the
// port's path, a symbolic link like udev's /dev/serial/by-id ones, at it.
// socat_test.go does the same with socat.

// waiter calls c.Wait in a goroutine the test waits for.
type waiter struct {
	done chan struct{}
	err  error
}

func wait(t *testing.T, c transport.Conn) *waiter {
	w := &waiter{done: make(chan struct{})}
	go func() {
		defer close(w.done)
		w.err = c.Wait()
	}()
	t.Cleanup(func() {
		_ = c.Close()
		<-w.done
	})
	return w
}

func (w *waiter) returned() bool {
	select {
	case <-w.done:
		return true
	default:
		return false
	}
}

func (w *waiter) result(t *testing.T) error {
	t.Helper()
	within(t, "Wait", func() { <-w.done })
	return w.err
}

// TestUnplugWithoutReconnect: the device goes away; Read and Wait return
// an error that names the port and says it disappeared.
func TestUnplugWithoutReconnect(t *testing.T) {
	checkGoroutines(t)
	d := newDevice(t)
	st := newStates()
	c := open(t, &serial.Opener{OnLinkState: st.record}, d.Port, transport.SerialParams{})
	out := collect(t, c)
	waited := wait(t, c)
	write(t, d.Master, "=> ")
	out.waitFor(t, "=> ")

	d.unplug()
	st.expect(t, transport.LinkDisconnected)
	err := out.waitErr(t)
	if !errors.Is(err, serial.ErrDisconnected) {
		t.Fatalf("Read after unplug: %v, want ErrDisconnected", err)
	}
	for _, w := range []string{d.Port, "disappeared"} {
		if !strings.Contains(err.Error(), w) {
			t.Errorf("error %q does not mention %q", err, w)
		}
	}
	if werr := waited.result(t); werr == nil || werr.Error() != err.Error() {
		t.Errorf("Wait: %v, want %v", werr, err)
	}
	if got := c.LinkState(); got != transport.LinkDisconnected {
		t.Errorf("LinkState %q", got)
	}
	if _, werr := c.Write([]byte("x")); !errors.Is(werr, serial.ErrDisconnected) {
		t.Errorf("Write after unplug: %v", werr)
	}
	if err := c.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	if werr := c.Wait(); !errors.Is(werr, serial.ErrDisconnected) {
		t.Errorf("Wait after Close: %v, want the unplug error still", werr)
	}
	st.none(t)
}

// TestUnplugReconnect: with Reconnect the Conn outlives the device. While
// it is away Read blocks, the link is down and Write fails at once; when it
// is back at the same path, bytes flow both ways through the same Conn.
func TestUnplugReconnect(t *testing.T) {
	checkGoroutines(t)
	port := filepath.Join(t.TempDir(), "usb-FTDI_FT232R_A50285BI-if00-port0")
	d1 := newDevice(t)
	d1.link(t, port)
	st := newStates()
	c := open(t, &serial.Opener{OnLinkState: st.record}, port, transport.SerialParams{Reconnect: true})
	out := collect(t, c)
	waited := wait(t, c)
	write(t, d1.Master, "before\r\n")
	out.waitFor(t, "before\r\n")

	// Unplug: udev removes the link and the kernel hangs up the port.
	if err := os.Remove(port); err != nil {
		t.Fatal(err)
	}
	d1.unplug()
	st.expect(t, transport.LinkDisconnected)
	if got := c.LinkState(); got != transport.LinkDisconnected {
		t.Errorf("LinkState %q", got)
	}
	_, err := c.Write([]byte("lost\r"))
	if !errors.Is(err, serial.ErrDisconnected) || !strings.Contains(err.Error(), port) {
		t.Errorf("Write while unplugged: %v", err)
	}
	if err := c.Break(t.Context(), 0); !errors.Is(err, serial.ErrDisconnected) {
		t.Errorf("Break while unplugged: %v", err)
	}
	if err := c.SetModemLine(transport.DTR, false); !errors.Is(err, serial.ErrDisconnected) {
		t.Errorf("SetModemLine while unplugged: %v", err)
	}
	if waited.returned() {
		t.Fatalf("Wait returned while reconnecting: %v", waited.err)
	}

	// Plug it back in at the same path.
	d2 := newDevice(t)
	d2.link(t, port)
	st.expect(t, transport.LinkUp)
	if got := c.LinkState(); got != transport.LinkUp {
		t.Errorf("LinkState %q", got)
	}
	write(t, d2.Master, "after\r\n")
	if got, want := out.waitFor(t, "after\r\n"), "before\r\nafter\r\n"; got != want {
		t.Errorf("Conn read %q, want %q", got, want)
	}
	in := collect(t, d2.Master)
	write(t, c, "reboot\r")
	in.waitFor(t, "reboot\r")

	// And again: a second unplug is handled like the first.
	if err := os.Remove(port); err != nil {
		t.Fatal(err)
	}
	d2.unplug()
	st.expect(t, transport.LinkDisconnected)
	d3 := newDevice(t)
	d3.link(t, port)
	st.expect(t, transport.LinkUp)
	write(t, d3.Master, "third\r\n")
	out.waitFor(t, "after\r\nthird\r\n")

	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	if err := waited.result(t); err != nil {
		t.Errorf("Wait after Close: %v, want nil", err)
	}
	if err := out.waitErr(t); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	st.none(t)
}

// TestCloseWhileDisconnected: Close ends the wait for an unplugged device
// promptly: the pending Read returns, Wait returns nil and the reconnect
// goroutine is gone (checkGoroutines).
func TestCloseWhileDisconnected(t *testing.T) {
	checkGoroutines(t)
	port := filepath.Join(t.TempDir(), "ttyACM0")
	d := newDevice(t)
	d.link(t, port)
	st := newStates()
	c := open(t, &serial.Opener{OnLinkState: st.record}, port, transport.SerialParams{Reconnect: true})
	out := collect(t, c)
	waited := wait(t, c)
	if err := os.Remove(port); err != nil {
		t.Fatal(err)
	}
	d.unplug()
	st.expect(t, transport.LinkDisconnected)

	within(t, "Close", func() {
		if err := c.Close(); err != nil {
			t.Errorf("Close: %v", err)
		}
	})
	if err := out.waitErr(t); !errors.Is(err, os.ErrClosed) {
		t.Errorf("Read after Close: %v", err)
	}
	if err := waited.result(t); err != nil {
		t.Errorf("Wait: %v", err)
	}
	st.none(t)
}

// TestReplugWhileBusy: the device comes back but another program grabbed
// it first; the Conn keeps trying and takes it once it is free.
func TestReplugWhileBusy(t *testing.T) {
	checkGoroutines(t)
	port := filepath.Join(t.TempDir(), "ttyUSB0")
	d1 := newDevice(t)
	d1.link(t, port)
	st := newStates()
	logs := make(logEvents, 64)
	o := serial.Opener{OnLinkState: st.record, Logger: slog.New(logs)}
	c := open(t, &o, port, transport.SerialParams{Reconnect: true})
	out := collect(t, c)
	if err := os.Remove(port); err != nil {
		t.Fatal(err)
	}
	d1.unplug()
	st.expect(t, transport.LinkDisconnected)

	d2 := newDevice(t)
	other, err := (&serial.Opener{}).Open(t.Context(), transport.Target{Command: d2.Port})
	if err != nil {
		t.Fatal(err)
	}
	d2.link(t, port)
	logs.expect(t, "serial port back but not openable yet")
	st.none(t)
	if err := other.Close(); err != nil {
		t.Fatal(err)
	}
	st.expect(t, transport.LinkUp)
	write(t, d2.Master, "mine\r\n")
	out.waitFor(t, "mine\r\n")
}
