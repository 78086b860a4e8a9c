package serial

import (
	"syscall"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/serialport"
	"github.com/ttymux/ttymux/transport"
)

// SyscallConnForTest exposes the port's current descriptor (tests check
// its number).
func (c *Conn) SyscallConnForTest() (syscall.RawConn, error) { return c.p.SyscallConn() }

// TermiosFor returns the termios Open would set on a port whose current
// termios is t (the rate aside, which configure sets).
func TermiosFor(p transport.SerialParams, t unix.Termios) (unix.Termios, error) {
	ls, err := serialport.Validate(params(p))
	if err != nil {
		return t, err
	}
	ls.MakeRaw(&t)
	return t, nil
}
