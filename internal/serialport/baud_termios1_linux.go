//go:build linux && (ppc64 || ppc64le)

package serialport

import (
	"fmt"

	"golang.org/x/sys/unix"
)

// setOtherBaud: golang.org/x/sys has no termios2 for powerpc, so only the
// standard rates are available there.
func setOtherBaud(fd int, t *unix.Termios, baud uint32) error {
	return fmt.Errorf("baud %d is not a standard rate, and only standard rates (9600, 57600, 115200, 921600, …) are available on this platform: %w", baud, unix.EINVAL)
}
