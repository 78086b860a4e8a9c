package agent

import (
	"errors"
	"fmt"
	"net"
	"syscall"
)

// peerUID returns the uid of the process that connected c, which must be a
// Unix socket connection. The kernel records it at connect time, so the peer
// cannot change it afterwards.
func peerUID(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	uid, ferr := -1, errors.New("peer credentials: no descriptor")
	if err := raw.Control(func(fd uintptr) { uid, ferr = peerUIDFd(int(fd)) }); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if ferr != nil {
		return -1, fmt.Errorf("peer credentials: %w", ferr)
	}
	return uid, nil
}
