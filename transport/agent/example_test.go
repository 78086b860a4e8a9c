package agent_test

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
)

// Example starts a program in an agent, detaches while it runs, and
// reattaches from the offset reached, as a restarted ttymux server does.
// (In production the agent is the ttymux-agent daemon, which Create starts
// on demand; here one runs in-process on a private socket.)
func Example() {
	dir, err := os.MkdirTemp("", "ttymux-example-")
	if err != nil {
		log.Fatal(err)
	}
	defer os.RemoveAll(dir)
	l, err := agentd.Listen(agentd.SocketPath(dir))
	if err != nil {
		log.Fatal(err)
	}
	srv := agentd.NewServer(agentd.Options{})
	go srv.Serve(l)
	defer srv.Close()

	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &agent.Client{Socket: agentd.SocketPath(dir)}
	kc, ks, err := c.Create(ctx, transport.Target{Command: "sh", Args: []string{"-c", "echo one; read x; echo $x"}}, nil)
	if err != nil {
		log.Fatal(err)
	}
	buf := make([]byte, 5)
	if _, err := io.ReadFull(kc, buf); err != nil { // "one\r\n"
		log.Fatal(err)
	}
	fmt.Printf("%q\n", buf)
	off := kc.(*agent.Conn).Offset()
	kc.Close() // detach: sh keeps waiting for its line

	kc, _, res, err := c.Attach(ctx, ks.ID, off)
	if err != nil {
		log.Fatal(err)
	}
	defer kc.Close()
	fmt.Println("resumed at", res.From, "line", res.FromLine)
	fmt.Fprint(kc, "two\r")
	out, _ := io.ReadAll(kc) // the terminal's echo of "two", then sh's
	fmt.Printf("%q %v\n", out, kc.Wait())
	// Output:
	// "one\r\n"
	// resumed at 5 line 2
	// "two\r\ntwo\r\n" <nil>
}
