package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"

	"github.com/ttymux/ttymux/internal/agentsock"
)

// bridge connects standard input and output to the agent's socket. ttymux
// runs it over an SSH exec channel to reach a remote agent when the server
// forbids stream-local forwarding (AllowStreamLocalForwarding no): the
// bytes are the agent protocol either way. It returns when either side
// closes.
// exitUnsafe is bridge's exit status when the socket, its directory or the
// process listening is not the user's own: ttymux reports that instead of
// starting an agent.
const exitUnsafe = 3

func bridge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, sockFlag := newFlags("bridge", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sock := socketOr(*sockFlag)
	// Whoever runs the bridge (ttymux, over SSH) is about to send its
	// requests and keystrokes to whatever answers here: make sure it is
	// our own agent first (issue #14). The directory and the socket must
	// be ours, and so must the process listening.
	if err := agentsock.CheckSocket(sock); err != nil && !errors.Is(err, os.ErrNotExist) {
		fmt.Fprintf(stderr, "ttymux-agent bridge: %v\n", err)
		return exitUnsafe
	}
	nc, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux-agent bridge: no agent answers on %s: %v\n", sock, err)
		return 1
	}
	defer nc.Close()
	if uid, err := agentsock.PeerUID(nc); err != nil || uid != os.Geteuid() {
		if err == nil {
			err = fmt.Errorf("the process listening on %s runs as uid %d, not %d", sock, uid, os.Geteuid())
		}
		fmt.Fprintf(stderr, "ttymux-agent bridge: %v\n", err)
		return exitUnsafe
	}
	done := make(chan struct{}, 2)
	go func() {
		_, _ = io.Copy(nc, stdin) // ends when ttymux closes the channel
		if uc, ok := nc.(*net.UnixConn); ok {
			_ = uc.CloseWrite() // the agent sees the client leave
		}
		done <- struct{}{}
	}()
	go func() {
		_, _ = io.Copy(stdout, nc) // ends when the agent closes
		done <- struct{}{}
	}()
	<-done
	return 0
}
