//go:build linux

package serial_test

import (
	"io"
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// BenchmarkThroughput measures how fast a Conn delivers a device's output:
// a PTY-pair device streams 10 MiB into it per op. A real port is bounded
// by its baud rate (115200 baud is 11.5 KB/s, 4 Mbaud 400 KB/s); this is the
// ceiling of ttymux's own path: the kernel's tty layer, the runtime poller
// and the Conn.
func BenchmarkThroughput(b *testing.B) {
	const size = 10 << 20
	d := newDevice(b)
	c := open(b, &serial.Opener{}, d.Port, transport.SerialParams{Baud: 4000000})
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = byte(i)
	}
	buf := make([]byte, 32<<10) // what session.pump reads with
	b.SetBytes(size)
	for b.Loop() {
		errc := make(chan error, 1)
		go func() {
			for sent := 0; sent < size; sent += len(chunk) {
				if _, err := d.Master.Write(chunk); err != nil {
					errc <- err
					return
				}
			}
			errc <- nil
		}()
		if _, err := io.CopyBuffer(io.Discard, io.LimitReader(c, size), buf); err != nil {
			b.Fatal(err)
		}
		if err := <-errc; err != nil {
			b.Fatal(err)
		}
	}
}
