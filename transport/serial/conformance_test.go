package serial_test

import (
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
	"github.com/ttymux/ttymux/transport/transporttest"
)

// TestConformance runs the transport.Conn suite on a port whose device
// loops back what it receives (a PTY pair, the device's end echoing). A
// closed port's Wait returns nil, and no goroutine outlives its Conn.
func TestConformance(t *testing.T) {
	checkGoroutines(t)
	transporttest.TestConn(t, func(t *testing.T) transport.Conn {
		d := newDevice(t)
		go func() {
			b := make([]byte, 4096)
			for {
				n, err := d.Master.Read(b)
				if n > 0 {
					if _, werr := d.Master.Write(b[:n]); werr != nil {
						return
					}
				}
				if err != nil {
					return
				}
			}
		}()
		return open(t, &serial.Opener{}, d.Port, transport.SerialParams{})
	}, transporttest.Options{Waited: func(err error) bool { return err == nil }})
}
