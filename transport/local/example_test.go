package local_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

func ExampleOpener_Open() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	var o local.Opener // the zero value runs $SHELL when Command is empty
	conn, err := o.Open(ctx, transport.Target{Command: "/bin/echo", Args: []string{"hi"}})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()

	// Read until the program has exited and its output is drained. The
	// terminal turns "\n" into "\r\n" (ONLCR).
	out, err := io.ReadAll(conn)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Printf("%q\n", out)
	fmt.Println("wait:", conn.Wait())
	// Output:
	// "hi\r\n"
	// wait: <nil>
}

func ExampleConn_Wait() {
	var o local.Opener
	conn, err := o.Open(context.Background(), transport.Target{Command: "sh", Args: []string{"-c", "exit 3"}})
	if err != nil {
		log.Fatal(err)
	}
	defer conn.Close()
	_, _ = io.Copy(io.Discard, conn)

	var ee *transport.ExitError
	if errors.As(conn.Wait(), &ee) {
		fmt.Println("status", ee.ExitStatus())
	}
	// Output:
	// status 3
}
