//go:build unix

package fanout

import (
	"os"
	"runtime"
	"syscall"
)

// processFDs returns the soft RLIMIT_NOFILE (the Go runtime raises it to
// the hard limit at start-up on Linux and macOS) and how many descriptors
// the process has open.
func processFDs() (limit, open int, err error) {
	var rl syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &rl); err != nil {
		return 0, 0, err
	}
	dir := "/proc/self/fd"
	if runtime.GOOS != "linux" {
		dir = "/dev/fd"
	}
	ents, err := os.ReadDir(dir)
	if err != nil {
		return 0, 0, err
	}
	if rl.Cur > 1<<30 {
		rl.Cur = 1 << 30
	}
	return int(rl.Cur), len(ents), nil
}
