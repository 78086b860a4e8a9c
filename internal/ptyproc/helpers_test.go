package ptyproc_test

import (
	"io"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/internal/ptytest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
)

// testTimeout bounds every wait; generous because -race on two cores is slow.
const testTimeout = 15 * time.Second

func bashPath(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("bash")
	if err != nil {
		t.Fatalf("these tests need bash: %v", err)
	}
	return p
}

// testEnv is a minimal, deterministic environment for a test shell
// (upterm ftests getTestShell).
func testEnv(t *testing.T) []string {
	return []string{
		"PATH=" + os.Getenv("PATH"),
		"HOME=" + t.TempDir(),
		"TERM=xterm-256color",
		"LC_ALL=C",
		"PS1=$ ",
		"PS2=> ",
		"HISTFILE=/dev/null",
	}
}

// shellSpec runs an interactive bash without rc files or readline, so the
// terminal stays in plain canonical mode with echo on.
func shellSpec(t *testing.T) ptyproc.Spec {
	return ptyproc.Spec{
		Path: bashPath(t),
		Args: []string{"--norc", "--noprofile", "--noediting"},
		Env:  testEnv(t),
		Rows: 24, Cols: 80,
	}
}

// scriptSpec runs script with bash -c.
func scriptSpec(t *testing.T, script string) ptyproc.Spec {
	s := shellSpec(t)
	s.Args = []string{"--norc", "--noprofile", "-c", script}
	return s
}

func start(t *testing.T, spec ptyproc.Spec) *ptyproc.Proc {
	t.Helper()
	p, err := ptyproc.Start(spec)
	if err != nil {
		t.Fatalf("Start: %v", err)
	}
	t.Cleanup(func() { _ = p.Close() })
	return p
}

func write(t *testing.T, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// output and pump are internal/ptytest's helpers, waitFor is
// internal/testwait's, bound to this package's testTimeout.
type output = ptytest.Output

func pump(t *testing.T, rc io.ReadCloser) *output { return ptytest.Pump(t, rc, testTimeout) }

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, testTimeout, cond)
}

// crlf undoes the terminal's ONLCR output mapping.
func crlf(s string) string { return strings.ReplaceAll(s, "\r\n", "\n") }

func waitErr(t *testing.T, p *ptyproc.Proc) error { return ptytest.Wait(t, p, testTimeout) }

func exitError(t *testing.T, err error) *transport.ExitError { return ptytest.ExitError(t, err) }
