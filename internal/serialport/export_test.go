package serialport

// SetModemIoctl replaces the TIOCMBIS/TIOCMBIC call for a test and returns
// a function that puts the real one back.
func SetModemIoctl(f func(fd int, req uint, bits int) error) (restore func()) {
	old := modemIoctl
	modemIoctl = f
	return func() { modemIoctl = old }
}

// RealModemIoctl is the real call, for a recorder to pass through to.
var RealModemIoctl = modemIoctl
