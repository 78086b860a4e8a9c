//go:build darwin || freebsd

package agentsock

import "golang.org/x/sys/unix"

// peerUIDFd returns the uid of the process at the other end of the Unix
// socket fd (LOCAL_PEERCRED, unix(4)), what getpeereid(3) reads.
func peerUIDFd(fd int) (int, error) {
	cred, err := unix.GetsockoptXucred(fd, unix.SOL_LOCAL, unix.LOCAL_PEERCRED)
	if err != nil {
		return -1, err
	}
	return int(cred.Uid), nil
}
