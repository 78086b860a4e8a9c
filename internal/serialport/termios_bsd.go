//go:build darwin || freebsd || netbsd || openbsd || dragonfly

package serialport

import (
	"fmt"
	"runtime"

	"golang.org/x/sys/unix"
)

// extraIflag: the BSDs have no IUCLC.
const extraIflag = 0

// haveStickParity: the BSDs have no CMSPAR.
const haveStickParity = false

func setStickParity(t *unix.Termios, mark bool) {}

// darwinBauds are the rates macOS's termios takes; others need the
// IOSSIOSPEED ioctl (IOKit IOSerialKeys.h), which this package does not
// issue.
var darwinBauds = map[int]bool{
	50: true, 75: true, 110: true, 134: true, 150: true, 200: true, 300: true,
	600: true, 1200: true, 1800: true, 2400: true, 4800: true, 9600: true,
	19200: true, 38400: true, 57600: true, 115200: true, 230400: true,
}

// configure puts the terminal fd into raw mode with the line settings ls.
// BSD termios carries the rate as a number (B115200 == 115200).
func configure(fd int, ls Settings) error {
	if runtime.GOOS == "darwin" && !darwinBauds[ls.baud] {
		return fmt.Errorf("baud %d is not available on macOS through termios (up to 230400): %w", ls.baud, unix.EINVAL)
	}
	t, err := unix.IoctlGetTermios(fd, unix.TIOCGETA)
	if err != nil {
		return err
	}
	makeRaw(t, ls)
	setSpeeds(&t.Ispeed, &t.Ospeed, ls.baud)
	return unix.IoctlSetTermios(fd, unix.TIOCSETA, t)
}

// setSpeeds fills termios speed fields, whose type differs between the
// BSDs.
func setSpeeds[T ~int32 | ~uint32 | ~uint64](i, o *T, baud int) { *i, *o = T(baud), T(baud) }

func vanishedErrno(errno unix.Errno) bool {
	return errno == unix.EIO || errno == unix.ENXIO || errno == unix.ENODEV
}

// flushOutput discards output the device has not taken (tcflush(3),
// TCOFLUSH).
func flushOutput(fd int) error {
	const fwrite = 0x2 // FWRITE, sys/fcntl.h
	return unix.IoctlSetPointerInt(fd, unix.TIOCFLUSH, fwrite)
}
