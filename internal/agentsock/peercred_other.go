//go:build !linux && !darwin && !freebsd

package agentsock

import "errors"

// peerUIDFd cannot learn the peer's uid on this system, so every peer is
// refused: an unchecked socket is worse than no agent.
func peerUIDFd(fd int) (int, error) {
	return -1, errors.New("peer credentials are not supported on this system")
}
