package session_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/local"
)

// A Manager opens a local bash with ttymux's shell integration; Send types
// a command and waits for its verdict.
func Example() {
	dir, err := os.MkdirTemp("", "ttymux-example")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer os.RemoveAll(dir)
	m := session.NewManager(session.Options{
		Kinds:    []session.Kind{session.LocalKind(&local.Opener{})},
		StateDir: dir,
		Shell:    "/bin/bash",
		NoRC:     true, // no user startup files: a predictable shell
	})
	defer m.CloseAll()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	s, err := m.Open(ctx, session.OpenRequest{Transport: "local"})
	if err != nil {
		fmt.Println(err)
		return
	}
	r, err := s.Send(ctx, session.SendRequest{Text: "echo hello; false", Enter: true, Wait: true})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("output %q, exit code %d, decided by %s\n", r.Output, *r.ExitCode, r.Via)
	// Output: output "hello", exit code 1, decided by exit-code
}
