package agentlink

import (
	"io"
	"net"
	"syscall"

	"github.com/ttymux/ttymux/internal/rawio"
)

// rawReader reads a socket with raw read(2)s (internal/rawio): ones the Go
// scheduler does not see as system calls. The socket is non-blocking, so a
// read never waits; with nothing queued the goroutine waits in the poller
// through SyscallConn.Read, where Close and deadlines reach it. A read the
// scheduler sees wakes the runtime's monitor whenever the process was
// idle, and the monitor then looks again every 20 µs for a while: during
// a flood a server reading its agent's bursts (one every few
// milliseconds) woke it 1,100 times a second (issue #37).
type rawReader struct {
	nc net.Conn
	rc syscall.RawConn
}

// reader returns what reads nc: a rawReader when nc is a socket with a
// descriptor, else nc itself (an SSH channel, a pipe in tests). Elsewhere
// than Linux rawio makes ordinary system calls: the same as nc's Read.
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
	n, err := rawio.Read(r.rc, b)
	if err == nil || err == io.EOF {
		return n, err
	}
	return n, &net.OpError{Op: "read", Net: r.nc.LocalAddr().Network(), Source: r.nc.LocalAddr(), Addr: r.nc.RemoteAddr(), Err: err}
}
