package local_test

import (
	"io"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/ptytest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// testTimeout bounds every wait; generous because -race on two cores is slow.
const testTimeout = 15 * time.Second

func bashPath(t testing.TB) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("these tests need bash: %v", err)
	}
	return p
}

// shellTarget is a deterministic interactive bash (upterm ftests
// getTestShell): no rc files, no readline, a fixed prompt and TERM.
func shellTarget(t testing.TB) transport.Target {
	return transport.Target{
		Args: []string{"--norc", "--noprofile", "--noediting"},
		Env:  []string{"PS1=$ ", "PS2=> ", "HOME=" + t.TempDir(), "HISTFILE=/dev/null", "LC_ALL=C"},
		Term: "xterm-256color",
	}
}

// open opens t with a bash Opener and closes the Conn when the test ends.
func open(t testing.TB, target transport.Target) *local.Conn {
	t.Helper()
	o := &local.Opener{Shell: bashPath(t)}
	c, err := o.Open(t.Context(), target)
	if err != nil {
		t.Fatalf("Open: %v", err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*local.Conn)
}

// script runs a bash -c script.
func script(s string) transport.Target {
	return transport.Target{Command: "bash", Args: []string{"--norc", "--noprofile", "-c", s}, Term: "xterm-256color"}
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

func waitErr(t *testing.T, c transport.Conn) error { return ptytest.Wait(t, c, testTimeout) }

func exitError(t *testing.T, err error) *transport.ExitError { return ptytest.ExitError(t, err) }

// crlf undoes the terminal's ONLCR output mapping.
func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

// output and pump are internal/ptytest's helpers, waitFor is
// internal/testwait's, bound to this package's testTimeout.
type output = ptytest.Output

func pump(t *testing.T, rc io.ReadCloser) *output { return ptytest.Pump(t, rc, testTimeout) }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, testTimeout, cond)
}
