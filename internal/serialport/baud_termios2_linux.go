//go:build linux && !ppc64 && !ppc64le

package serialport

import "golang.org/x/sys/unix"

// setOtherBaud sets a rate without a Bnnn constant through termios2.
func setOtherBaud(fd int, t *unix.Termios, baud uint32) error {
	t.Cflag |= unix.BOTHER
	t.Ispeed, t.Ospeed = baud, baud
	return unix.IoctlSetTermios(fd, unix.TCSETS2, t)
}
