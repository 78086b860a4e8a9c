package sshconn_test

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// Open a command on a host from ~/.ssh/config, read its output and its
// exit status. (Not run: it needs a reachable host.)
func ExampleOpener() {
	o := &sshconn.Opener{Logger: slog.New(slog.NewTextHandler(os.Stderr, nil))}
	defer o.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := o.Open(ctx, transport.Target{Command: "uname -sm", Spec: transport.SSHParams{Host: "build-box"}})
	if err != nil {
		fmt.Println(err) // says what to do next: accept the host key, pass a password, ...
		return
	}
	defer c.Close()
	out, err := io.ReadAll(c) // keep reading: Wait returns after the output
	if err != nil {
		fmt.Println(err) // a *sshconn.LinkError if the link died
	}
	fmt.Printf("%s(exit: %v)\n", out, c.Wait())
}
