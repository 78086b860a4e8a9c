package main

import (
	"fmt"
	"io"
	"net"
)

// bridge connects standard input and output to the agent's socket. ttymux
// runs it over an SSH exec channel to reach a remote agent when the server
// forbids stream-local forwarding (AllowStreamLocalForwarding no): the
// bytes are the agent protocol either way. It returns when either side
// closes.
func bridge(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	fs, sockFlag := newFlags("bridge", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sock := socketOr(*sockFlag)
	nc, err := net.Dial("unix", sock)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux-agent bridge: no agent answers on %s: %v\n", sock, err)
		return 1
	}
	defer nc.Close()
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
