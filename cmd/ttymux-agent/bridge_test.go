package main

import (
	"bytes"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/usertest"
)

// TestBridgeRefusesUnsafeSocket pins issue #14 finding 1 for the exec
// bridge: before it dials, the socket's directory must be the user's own
// with mode 0700 and the socket the user's; after, the process listening
// must run as the user. Otherwise it exits 3 (exitUnsafe) naming what is
// wrong, and nothing it reads from stdin goes anywhere.
func TestBridgeRefusesUnsafeSocket(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "a.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	rc := bridge([]string{"--socket", sock}, strings.NewReader("typed"), &out, &errb)
	if rc != exitUnsafe || !strings.Contains(errb.String(), dir+" has unsafe permissions 0755") || out.Len() != 0 {
		t.Fatalf("bridge on a 0755 directory: rc %d, stdout %q, stderr %q", rc, out.String(), errb.String())
	}

	t.Run("listener of another uid", func(t *testing.T) {
		atk := usertest.Create(t)
		dir := shortDir(t)
		if err := os.Chmod(dir, 0o777); err != nil {
			t.Fatal(err)
		}
		sock := filepath.Join(dir, "b.sock")
		cmd := atk.Command("socat", "UNIX-LISTEN:"+sock+",fork", "EXEC:cat")
		if _, err := exec.LookPath("socat"); err != nil {
			t.Skip("socat not found")
		}
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
		for i := 0; ; i++ {
			if _, err := os.Lstat(sock); err == nil {
				break
			}
			if i > 1000 {
				t.Fatal("socat did not listen")
			}
			if err := exec.Command("sleep", "0.01").Run(); err != nil { // bounded: 10 s at most
				t.Fatal(err)
			}
		}
		// Everything on the path now looks like ours; only the listener's
		// credentials tell.
		if err := os.Lchown(sock, os.Geteuid(), os.Getegid()); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		var out, errb bytes.Buffer
		rc := bridge([]string{"--socket", sock}, strings.NewReader("typed"), &out, &errb)
		if rc != exitUnsafe || !strings.Contains(errb.String(), "runs as uid "+strconv.Itoa(atk.UID)) || out.Len() != 0 {
			t.Fatalf("bridge to another user's listener: rc %d, stdout %q, stderr %q", rc, out.String(), errb.String())
		}
	})
}
