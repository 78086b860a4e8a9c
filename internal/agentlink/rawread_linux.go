package agentlink

import (
	"io"
	"net"
	"syscall"
	"unsafe"
)

// rawReader reads a socket with raw read(2)s: ones the Go scheduler does
// not see as system calls. The socket is non-blocking, so a read never
// waits; with nothing queued the goroutine waits in the poller through
// SyscallConn.Read, where Close and deadlines reach it. A read the
// scheduler sees wakes the runtime's monitor whenever the process was
// idle, and the monitor then looks again every 20 µs for a while: during
// a flood a server reading its agent's bursts (one every few
// milliseconds) woke it 1,100 times a second (issue #37).
type rawReader struct {
	nc net.Conn
	rc syscall.RawConn
}

// reader returns what reads nc: a rawReader when nc is a socket with a
// descriptor, else nc itself (an SSH channel, a pipe in tests).
func reader(nc net.Conn) io.Reader {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return nc
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nc
	}
	return &rawReader{nc: nc, rc: rc}
}

// Read reads as net.Conn's Read would, with its errors: io.EOF at the end
// of the stream, and a *net.OpError wrapping net.ErrClosed after Close or
// a timeout past a deadline.
func (r *rawReader) Read(b []byte) (int, error) {
	if len(b) == 0 {
		return 0, nil
	}
	var n int
	var errno syscall.Errno
	err := r.rc.Read(func(fd uintptr) bool {
		for {
			m, _, e := syscall.RawSyscall(syscall.SYS_READ, fd, uintptr(unsafe.Pointer(&b[0])), uintptr(len(b)))
			if e == syscall.EINTR {
				continue
			}
			n, errno = int(m), e
			if e != 0 {
				n = 0
			}
			return e != syscall.EAGAIN
		}
	})
	switch {
	case err == nil && errno != 0:
		err = errno
	case err == nil && n == 0:
		return 0, io.EOF
	}
	if err != nil {
		return n, &net.OpError{Op: "read", Net: r.nc.LocalAddr().Network(), Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: err}
	}
	return n, nil
}
