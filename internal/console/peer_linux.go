package console

import (
	"errors"
	"fmt"
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// PeerCred returns the pid and uid of the process at the other end of the
// Unix socket connection c, as the kernel recorded them (SO_PEERCRED,
// unix(7)): for an accepted connection the process that connected, for a
// dialled one the process that called listen.
func PeerCred(c net.Conn) (pid, uid int, err error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return 0, -1, fmt.Errorf("peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return 0, -1, fmt.Errorf("peer credentials: %w", err)
	}
	var cred *unix.Ucred
	ferr := errors.New("peer credentials: no descriptor")
	if err := raw.Control(func(fd uintptr) { cred, ferr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil {
		return 0, -1, fmt.Errorf("peer credentials: %w", err)
	}
	if ferr != nil {
		return 0, -1, fmt.Errorf("peer credentials: %w", ferr)
	}
	return int(cred.Pid), int(cred.Uid), nil
}
