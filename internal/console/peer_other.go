//go:build !linux

package console

import (
	"errors"
	"net"
)

// errNoPeerCred: only Linux gives a peer's pid here; the servers refuse a
// console they cannot identify.
var errNoPeerCred = errors.New("peer credentials: a console's process can be identified only on Linux")

// PeerCred is not available on this system.
func PeerCred(c net.Conn) (pid, uid int, err error) { return 0, -1, errNoPeerCred }
