package session_test

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/privdir"
	"github.com/ttymux/ttymux/internal/usertest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// TestDefaultStateDirWithoutHome: with HOME and XDG_CACHE_HOME unset the
// state directory used to fall back to /tmp/ttymux-<uid>, the agent's
// socket directory, in a directory every user can write to (issue #14
// finding 2). It now comes from the password database's home.
func TestDefaultStateDirWithoutHome(t *testing.T) {
	t.Setenv("HOME", "")
	t.Setenv("XDG_CACHE_HOME", "")
	d := session.DefaultStateDir()
	if d == "/tmp/ttymux-"+strconv.Itoa(os.Geteuid()) || strings.HasPrefix(d, os.TempDir()+"/ttymux-"+strconv.Itoa(os.Geteuid())) {
		t.Fatalf("DefaultStateDir = %s: shared with the socket directory", d)
	}
	if !filepath.IsAbs(d) || !strings.HasSuffix(d, filepath.Join(".cache", "ttymux")) && !strings.HasPrefix(d, "/tmp/ttymux-state-") {
		t.Fatalf("DefaultStateDir = %s", d)
	}
}

// TestShellInitPlantedByAnotherUser is issue #14 finding 2 as reproduced:
// another local user pre-created the state directory's shellinit/ (0777)
// with bashrc as a FIFO (serving the expected content to the comparison
// read and a payload to bash --rcfile) and bashrc.tmp as a symlink to a
// file of the victim's. Code ran as the victim and the file was
// overwritten. Now the directory is refused, naming it and its owner, before
// anything is read or written there: the shell starts without ttymux's hook
// (and the server's log says why), never with their file.
func TestShellInitPlantedByAnotherUser(t *testing.T) {
	atk := usertest.Create(t)
	shared, err := os.MkdirTemp("", "ttmx-shared-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(shared) })
	if err := os.Chmod(shared, 0o1777); err != nil { // like /tmp
		t.Fatal(err)
	}
	state := filepath.Join(shared, "ttymux-"+strconv.Itoa(os.Geteuid()))
	pwned := filepath.Join(shared, "pwned")
	precious := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(precious, []byte("keep"), 0o600); err != nil {
		t.Fatal(err)
	}
	script := `mkdir -m 777 "$1" "$1/shellinit" && chmod 777 "$1" "$1/shellinit" && mkfifo -m 666 "$1/shellinit/bashrc" && ln -s "$2" "$1/shellinit/bashrc.tmp"`
	if out, err := atk.Command("sh", "-c", script, "sh", state, precious).CombinedOutput(); err != nil {
		t.Fatalf("attacker setup: %v %s", err, out)
	}
	// The attacker serves a payload to whoever opens the FIFO.
	feeder := atk.Command("sh", "-c", `while :; do echo "touch '$2'" > "$1/shellinit/bashrc"; done`, "sh", state, pwned)
	if err := feeder.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = feeder.Process.Kill(); _ = feeder.Wait() })

	var log syncLog
	m := newManager(t, session.Options{StateDir: state, Shell: "/bin/bash", NoRC: false,
		Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: []string{"HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	r := send(t, s, session.SendRequest{Text: "echo alive-$((6*7))", Until: "alive-42"})
	if !strings.Contains(r.Output, "alive-42") || s.Info().Integrated {
		t.Fatalf("the shell: %+v integrated=%v", r, s.Info().Integrated)
	}
	want := "state directory " + state + " is owned by uid " + strconv.Itoa(atk.UID)
	if !strings.Contains(log.String(), want) {
		t.Fatalf("the log does not say %q:\n%s", want, log.String())
	}
	if err := privdir.CheckNoWrite(state, "state directory"); !errors.As(err, new(*privdir.UnsafeDirError)) {
		t.Fatalf("CheckNoWrite(%s) = %v", state, err)
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Fatal("the attacker's payload ran")
	}
	if b, _ := os.ReadFile(precious); string(b) != "keep" {
		t.Fatalf("written through the attacker's symlink: %q", b)
	}
	// bash itself must not have been started with their rc file.
	if out, _ := exec.Command("pgrep", "-f", "--rcfile "+state).Output(); len(out) > 0 {
		t.Fatalf("a shell runs with the planted rc file: %s", out)
	}
}

// syncLog is a log buffer safe for the Manager's goroutines and the test.
type syncLog struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *syncLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *syncLog) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}
