//go:build !linux

package agentlink

import (
	"io"
	"net"
)

// reader returns what reads nc: nc itself (rawread_linux.go says why Linux
// differs).
func reader(nc net.Conn) io.Reader { return nc }
