// Package rawio reads and writes non-blocking descriptors with raw
// system calls: ones the Go scheduler does not see as system calls.
//
// A read or write made through the os or net packages tells the scheduler
// it enters a system call. The first after a quiet spell wakes the
// runtime's monitor thread (sysmon), which then looks again every 20 µs
// until the process is idle again; and a read that sleeps in the kernel
// (a PTY's, until the terminal's worker has moved the output along) has
// its processor taken away and handed to another thread. On the
// project's 2-core VM that was a third of a flooding server's context
// switches, and most of what a call after a quiet spell cost beyond its
// work (issue #37, docs/performance.md). A descriptor in non-blocking
// mode never waits in read(2) or write(2): with nothing to read or no
// room, the goroutine waits in the runtime's poller through
// syscall.RawConn, where Close and deadlines still reach it. Elsewhere than
// Linux the same loops make ordinary system calls (rawio_other.go).
package rawio

import (
	"io"
	"syscall"
)

// Read reads into b from rc's descriptor, which must be non-blocking. It
// returns n > 0 bytes read; 0 and io.EOF at the end of the stream; read(2)'s
// error as a syscall.Errno; or rc.Read's own error (the file closed, a
// deadline passed) as it is, for the caller to wrap as its file type's
// Read would.
func Read(rc syscall.RawConn, b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := rc.Read(func(fd uintptr) bool {
		for {
			r, e := sysRead(fd, b)
			switch e {
			case syscall.EINTR:
				continue
			case syscall.EAGAIN:
				return false // the poller waits for input
			}
			n, errno = int(r), e
			if e != 0 {
				n = 0
			}
			return true
		}
	})
	switch {
	case err != nil:
		return 0, err
	case errno != 0:
		return 0, errno
	case n == 0:
		return 0, io.EOF
	}
	return n, nil
}

// Write writes all of b to rc's descriptor, which must be non-blocking,
// waiting in the poller while there is no room. It returns how much was
// written and, short of all of it, write(2)'s error as a syscall.Errno or
// rc.Write's own error as it is.
func Write(rc syscall.RawConn, b []byte) (int, error) {
	done := 0
	var errno syscall.Errno
	err := rc.Write(func(fd uintptr) bool {
		for done < len(b) {
			r, e := sysWrite(fd, b[done:])
			switch e {
			case 0:
				done += int(r)
			case syscall.EINTR:
			case syscall.EAGAIN:
				return false // the poller waits for room
			default:
				errno = e
				return true
			}
		}
		return true
	})
	if err == nil && errno != 0 {
		err = errno
	}
	return done, err
}
