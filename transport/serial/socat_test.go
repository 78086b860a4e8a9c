//go:build linux

package serial_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// TestSocatReplug unplugs a socat-made device (socat is killed, which
// hangs up the port and removes its link) and plugs it back (a new socat
// at the same paths). With Reconnect, the same Conn carries on.
func TestSocatReplug(t *testing.T) {
	checkGoroutines(t)
	sd := newSocatDevice(t)
	st := newStates()
	c := open(t, &serial.Opener{OnLinkState: st.record}, sd.Port, transport.SerialParams{Baud: 57600, Reconnect: true})
	out := collect(t, c)
	host := collect(t, sd.host)

	write(t, sd.host, "U-Boot 2023.04\r\n=> ")
	out.waitFor(t, "=> ")
	write(t, c, "printenv bootcmd\r")
	host.waitFor(t, "printenv bootcmd\r")

	sd.stop()
	st.expect(t, transport.LinkDisconnected)
	if _, err := c.Write([]byte("x")); !errors.Is(err, serial.ErrDisconnected) {
		t.Errorf("Write while unplugged: %v", err)
	}

	sd.start(t)
	st.expect(t, transport.LinkUp)
	host2 := collect(t, sd.host)
	write(t, sd.host, "\r\n=> ")
	if got, want := out.waitFor(t, "=> \r\n=> "), "U-Boot 2023.04\r\n=> \r\n=> "; got != want {
		t.Errorf("Conn read %q, want %q", got, want)
	}
	write(t, c, "boot\r")
	host2.waitFor(t, "boot\r")
	st.none(t)
}

// TestSocatUnplugWithoutReconnect: without Reconnect, killing the device
// ends the Conn with an error that names the port.
func TestSocatUnplugWithoutReconnect(t *testing.T) {
	checkGoroutines(t)
	sd := newSocatDevice(t)
	st := newStates()
	c := open(t, &serial.Opener{OnLinkState: st.record}, sd.Port, transport.SerialParams{})
	out := collect(t, c)
	write(t, sd.host, "login: ")
	out.waitFor(t, "login: ")

	sd.stop()
	st.expect(t, transport.LinkDisconnected)
	err := out.waitErr(t)
	if !errors.Is(err, serial.ErrDisconnected) || !strings.Contains(err.Error(), sd.Port) {
		t.Fatalf("Read after unplug: %v", err)
	}
	within(t, "Wait", func() {
		if werr := c.Wait(); !errors.Is(werr, serial.ErrDisconnected) {
			t.Errorf("Wait: %v", werr)
		}
	})
}
