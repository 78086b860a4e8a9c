package agentsock

import (
	"context"
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

func shortDir(t *testing.T) string {
	t.Helper()
	d, err := os.MkdirTemp("/tmp", "as")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

func TestPaths(t *testing.T) {
	base := t.TempDir()
	defer func(old string) { runUserBase = old }(runUserBase)
	runUserBase = base
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got := Dir(); got != "/run/user/1000/ttymux" {
		t.Errorf("Dir = %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	if got, want := Default(), "/tmp/ttymux-"+strconv.Itoa(os.Geteuid())+"/agent-v1.sock"; got != want {
		t.Errorf("Default = %q, want %q", got, want)
	}
}

// TestDirRunUser: without XDG_RUNTIME_DIR the socket goes where a login's
// XDG_RUNTIME_DIR would have put it, /run/user/<uid>, when that is a
// private directory of this user; otherwise /tmp/ttymux-<uid>. A server
// started with a stripped environment got a second, hidden agent under
// /tmp/ttymux-<uid>.
func TestDirRunUser(t *testing.T) {
	base := t.TempDir()
	defer func(old string) { runUserBase = old }(runUserBase)
	runUserBase = base
	t.Setenv("XDG_RUNTIME_DIR", "")
	uid := strconv.Itoa(os.Geteuid())
	run := filepath.Join(base, uid)
	tmp := "/tmp/ttymux-" + uid
	if got, why := DirWhy(); got != tmp || !strings.Contains(why, "not a private directory") {
		t.Errorf("no %s: Dir = %q (%s), want %s", run, got, why, tmp)
	}
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	if got, why := DirWhy(); got != filepath.Join(run, "ttymux") || !strings.Contains(why, "XDG_RUNTIME_DIR is not set") {
		t.Errorf("with %s (0700): Dir = %q (%s)", run, got, why)
	}
	if err := os.Chmod(run, 0o755); err != nil {
		t.Fatal(err)
	}
	if got := Dir(); got != tmp {
		t.Errorf("with %s (0755): Dir = %q, want %s", run, got, tmp)
	}
}

// TestCheckSocket: the socket's directory and the socket itself must be
// ours; a missing one matches fs.ErrNotExist.
func TestCheckSocket(t *testing.T) {
	dir := shortDir(t)
	sock := filepath.Join(dir, "a.sock")
	if err := CheckSocket(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Fatalf("missing socket: %v", err)
	}
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	if err := CheckSocket(sock); err != nil {
		t.Fatalf("our socket: %v", err)
	}
	go func() {
		if c, err := l.Accept(); err == nil {
			defer c.Close()
			if uid, err := PeerUID(c); err != nil || uid != os.Geteuid() {
				t.Errorf("PeerUID of client = %d, %v", uid, err)
			}
		}
	}()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if uid, err := PeerUID(c); err != nil || uid != os.Geteuid() {
		t.Errorf("PeerUID of the listener = %d, %v", uid, err)
	}
	c.Close()
	if err := os.WriteFile(filepath.Join(dir, "f"), nil, 0o600); err != nil {
		t.Fatal(err)
	}
	var se *UnsafeSocketError
	if err := CheckSocket(filepath.Join(dir, "f")); !errors.As(err, &se) || se.Problem != "is not a socket" {
		t.Fatalf("a file: %v", err)
	}
	if os.Geteuid() == 0 {
		if err := os.Lchown(sock, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		if err := CheckSocket(sock); !errors.As(err, &se) || !strings.Contains(err.Error(), "is owned by uid 65534") {
			t.Fatalf("someone else's socket: %v", err)
		}
	}
	os.Chmod(dir, 0o755)
	var ue *UnsafeDirError
	if err := CheckSocket(sock); !errors.As(err, &ue) || !strings.Contains(err.Error(), "agent socket directory "+dir+" has unsafe permissions 0755") {
		t.Fatalf("open directory: %v", err)
	}
}

func TestLock(t *testing.T) {
	p := filepath.Join(shortDir(t), "x.lock")
	unlock, err := Lock(t.Context(), p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if _, err := Lock(ctx, p, time.Second); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("second Lock = %v, want a deadline error", err)
	}
	unlock()
	u2, err := Lock(t.Context(), p, time.Second)
	if err != nil {
		t.Fatal(err)
	}
	u2()
}

func TestReadToken(t *testing.T) {
	dir := shortDir(t)
	p := filepath.Join(dir, "agent.token")
	if err := os.WriteFile(p, []byte("abc"), 0o600); err != nil {
		t.Fatal(err)
	}
	if b, err := ReadToken(p); err != nil || string(b) != "abc" {
		t.Fatalf("ReadToken = %q, %v", b, err)
	}
	os.Chmod(p, 0o644)
	if _, err := ReadToken(p); err == nil || !strings.Contains(err.Error(), "unsafe permissions") {
		t.Fatalf("a readable token: %v", err)
	}
	os.Chmod(p, 0o600)
	l := filepath.Join(dir, "link")
	os.Symlink(p, l)
	if _, err := ReadToken(l); err == nil {
		t.Fatal("a token read through a symlink")
	}
}
