package agentsock

import "golang.org/x/sys/unix"

// peerUIDFd returns the uid of the process at the other end of the Unix
// socket fd, as recorded by the kernel when it connected (SO_PEERCRED,
// unix(7)). shpool's check_peer does the same.
func peerUIDFd(fd int) (int, error) {
	cred, err := unix.GetsockoptUcred(fd, unix.SOL_SOCKET, unix.SO_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
