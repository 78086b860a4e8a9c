package sshconn_test

import (
	"fmt"
	"os"
	"regexp"
	"runtime"
	"strings"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ttymux/ttymux/internal/testhome"
)

// TestMain fails the run if a goroutine started by the package outlives
// the tests: every Opener and Conn the tests make is closed, so every
// goroutine the package started must have been waited for (STYLE.md 5).
// It polls for a few seconds, as goleak does, because goroutines finish
// their last instructions after the Wait that released their owner.
func TestMain(m *testing.M) {
	testhome.Private() // HOME and the XDG directories private
	code := m.Run()
	if code == 0 {
		if leaked := packageGoroutines(5 * time.Second); leaked != "" {
			fmt.Fprintf(os.Stderr, "goroutines of transport/sshconn still running after the tests:\n%s\n", leaked)
			code = 1
		}
		// And no goroutine at all, ours or a dependency's, outlives them.
		if err := goleak.Find(); err != nil {
			fmt.Fprintf(os.Stderr, "goroutines still running after the tests: %v\n", err)
			code = 1
		}
	}
	testhome.Cleanup(code)
}

// ownFrame matches a stack frame in the package's non-test files.
var ownFrame = regexp.MustCompile(`/transport/sshconn/[a-z_]+\.go:\d+`)

func packageGoroutines(wait time.Duration) string {
	deadline := time.Now().Add(wait)
	for {
		buf := make([]byte, 1<<20)
		buf = buf[:runtime.Stack(buf, true)]
		var leaked []string
		for _, g := range strings.Split(string(buf), "\n\n") {
			for _, line := range strings.Split(g, "\n") {
				if ownFrame.MatchString(line) && !strings.Contains(line, "_test.go") {
					leaked = append(leaked, g)
					break
				}
			}
		}
		if len(leaked) == 0 || time.Now().After(deadline) {
			return strings.Join(leaked, "\n\n")
		}
		time.Sleep(50 * time.Millisecond)
	}
}
