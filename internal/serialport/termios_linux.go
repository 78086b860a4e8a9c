package serialport

import "golang.org/x/sys/unix"

// extraIflag holds input flags only Linux has: IUCLC maps upper case to
// lower case on input.
const extraIflag = unix.IUCLC

// haveStickParity: Linux has CMSPAR ("stick" parity, termios(3)).
const haveStickParity = true

// setStickParity sets mark (parity bit always 1) or space (always 0)
// parity.
func setStickParity(t *unix.Termios, mark bool) {
	t.Cflag |= unix.PARENB | unix.CMSPAR
	if mark {
		t.Cflag |= unix.PARODD
	}
}

// standardBauds maps the rates termios names with a Bnnn constant.
var standardBauds = map[int]uint32{
	50: unix.B50, 75: unix.B75, 110: unix.B110, 134: unix.B134, 150: unix.B150,
	200: unix.B200, 300: unix.B300, 600: unix.B600, 1200: unix.B1200,
	1800: unix.B1800, 2400: unix.B2400, 4800: unix.B4800, 9600: unix.B9600,
	19200: unix.B19200, 38400: unix.B38400, 57600: unix.B57600,
	115200: unix.B115200, 230400: unix.B230400, 460800: unix.B460800,
	500000: unix.B500000, 576000: unix.B576000, 921600: unix.B921600,
	1000000: unix.B1000000, 1152000: unix.B1152000, 1500000: unix.B1500000,
	2000000: unix.B2000000, 2500000: unix.B2500000, 3000000: unix.B3000000,
	3500000: unix.B3500000, 4000000: unix.B4000000,
}

// configure puts the terminal fd into raw mode with the line settings ls.
// A standard rate goes through TCSETS like any terminal program; any other
// rate (74880 for an ESP8266's boot ROM, 250000 for DMX) through termios2
// with BOTHER, which every Linux serial driver that can do it honours
// (ioctl_tty(2), "TCSETS2").
func configure(fd int, ls Settings) error {
	t, err := unix.IoctlGetTermios(fd, unix.TCGETS)
	if err != nil {
		return err
	}
	makeRaw(t, ls)
	// Input speed follows output speed when CIBAUD is zero.
	t.Cflag &^= unix.CBAUD | unix.CIBAUD
	if code, ok := standardBauds[ls.baud]; ok {
		t.Cflag |= code
		t.Ispeed, t.Ospeed = code, code // ignored by TCSETS
		return unix.IoctlSetTermios(fd, unix.TCSETS, t)
	}
	return setOtherBaud(fd, t, uint32(ls.baud))
}

// vanished reports whether errno means the device has gone away: a hung-up
// tty, or a USB adapter unplugged mid-call.
func vanishedErrno(errno unix.Errno) bool {
	return errno == unix.EIO || errno == unix.ENXIO || errno == unix.ENODEV
}

// flushOutput discards output the device has not taken (tcflush(3),
// TCOFLUSH).
func flushOutput(fd int) error { return unix.IoctlSetInt(fd, unix.TCFLSH, unix.TCOFLUSH) }
