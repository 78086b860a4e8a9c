//go:build !linux

package rawio

import (
	"errors"
	"syscall"
)

// sysRead is an ordinary read(2): raw system calls are Linux's here
// (elsewhere the C library makes them).
func sysRead(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := syscall.Read(int(fd), b)
	return max(n, 0), errnoOf(err)
}

// sysWrite is an ordinary write(2).
func sysWrite(fd uintptr, b []byte) (int, syscall.Errno) {
	n, err := syscall.Write(int(fd), b)
	return max(n, 0), errnoOf(err)
}

func errnoOf(err error) syscall.Errno {
	var e syscall.Errno
	if errors.As(err, &e) {
		return e
	}
	return 0
}
