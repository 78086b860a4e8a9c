package agentd

import (
	"errors"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentsock"
)

func TestSocketPaths(t *testing.T) {
	t.Setenv("XDG_RUNTIME_DIR", "/run/user/1000")
	if got := SocketDir(); got != "/run/user/1000/ttymux" {
		t.Errorf("SocketDir with XDG_RUNTIME_DIR = %q", got)
	}
	t.Setenv("XDG_RUNTIME_DIR", "")
	// Without it: /run/user/<uid> or /tmp/ttymux-<uid> (agentsock.Dir's
	// rules, tested in internal/agentsock).
	if got, want := SocketDir(), agentsock.Dir(); got != want {
		t.Errorf("SocketDir = %q, want %q", got, want)
	}
	if got, want := SocketPath("/d"), "/d/agent-v"+strconv.Itoa(agentproto.Version)+".sock"; got != want {
		t.Errorf("SocketPath = %q, want %q", got, want)
	}
}

// TestPrepareDir: the socket directory is created private, and refused
// (tmux's "has unsafe permissions") when someone else could replace the
// socket in it.
func TestPrepareDir(t *testing.T) {
	root := t.TempDir()
	mk := func(name string, mode fs.FileMode) string {
		p := filepath.Join(root, name)
		if err := os.Mkdir(p, mode); err != nil {
			t.Fatal(err)
		}
		if err := os.Chmod(p, mode); err != nil { // past the umask
			t.Fatal(err)
		}
		return p
	}
	file := filepath.Join(root, "file")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(root, "link")
	if err := os.Symlink(mk("target", 0o700), link); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		dir     string
		problem string // "" means accepted
	}{
		{"missing is created", filepath.Join(root, "new", "ttymux"), ""},
		{"private", mk("private", 0o700), ""},
		{"group and others", mk("open", 0o755), "has unsafe permissions 0755"},
		{"group only", mk("group", 0o770), "has unsafe permissions 0770"},
		{"world writable sticky", mk("sticky", 0o1777), "has unsafe permissions 0777"},
		{"not a directory", file, "is not a directory"},
		{"symbolic link", link, "is a symbolic link"},
	}
	if os.Geteuid() == 0 {
		other := mk("other", 0o700)
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		tests = append(tests, struct{ name, dir, problem string }{"owned by another uid", other, "is owned by uid 65534"})
	} else {
		t.Log("not root: the other-owner case is skipped")
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := PrepareDir(tc.dir)
			if tc.problem == "" {
				if err != nil {
					t.Fatalf("PrepareDir = %v", err)
				}
				fi, err := os.Stat(tc.dir)
				if err != nil || fi.Mode().Perm() != 0o700 {
					t.Errorf("dir mode %v, %v; want 0700", fi.Mode(), err)
				}
				return
			}
			var ue *UnsafeDirError
			if !errors.As(err, &ue) || ue.Dir != tc.dir || ue.Problem != tc.problem {
				t.Fatalf("PrepareDir = %v, want an UnsafeDirError %q", err, tc.problem)
			}
			if !strings.Contains(err.Error(), tc.dir) {
				t.Errorf("%q does not name the directory", err)
			}
		})
	}
}

// TestListen: a live socket is refused, a stale one replaced, the socket is
// 0600, and closing removes it.
func TestListen(t *testing.T) {
	dir := shortTempDir(t)
	sock := SocketPath(dir)

	// A stale socket: the file of a listener that died without unlinking.
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: sock, Net: "unix"})
	if err != nil {
		t.Fatal(err)
	}
	ul.SetUnlinkOnClose(false)
	ul.Close()
	if _, err := os.Lstat(sock); err != nil {
		t.Fatalf("no stale socket to test with: %v", err)
	}

	l, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen over a stale socket: %v", err)
	}
	fi, err := os.Lstat(sock)
	if err != nil || fi.Mode().Perm() != 0o600 || fi.Mode().Type() != fs.ModeSocket {
		t.Errorf("socket %v, %v; want a 0600 socket", fi.Mode(), err)
	}
	if b, err := os.ReadFile(sock + ".pid"); err != nil || strings.TrimSpace(string(b)) != strconv.Itoa(os.Getpid()) {
		t.Errorf("pid file %q, %v", b, err)
	}

	// A live agent: accept in the background so the probe is answered.
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	if _, err := Listen(sock); err == nil || !strings.Contains(err.Error(), "an agent is already running on "+sock) {
		t.Errorf("Listen over a live socket = %v", err)
	}
	// The live socket must have survived the attempt.
	if c, err := net.Dial("unix", sock); err != nil {
		t.Errorf("live socket broken by the refused Listen: %v", err)
	} else {
		c.Close()
	}

	if err := l.Close(); err != nil {
		t.Fatal(err)
	}
	if err := l.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	if _, err := os.Lstat(sock); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket left after Close: %v", err)
	}
	l2, err := Listen(sock)
	if err != nil {
		t.Fatalf("Listen after Close: %v", err)
	}
	l2.Close()

	// Something that is not a socket is left alone.
	if err := os.WriteFile(sock, []byte("precious"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := Listen(sock); err == nil || !strings.Contains(err.Error(), "not a socket") {
		t.Errorf("Listen over a regular file = %v", err)
	}

	// An unsafe directory is refused before anything is created in it.
	open := filepath.Join(shortTempDir(t), "open")
	if err := os.Mkdir(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o755)
	var ue *UnsafeDirError
	if _, err := Listen(SocketPath(open)); !errors.As(err, &ue) {
		t.Errorf("Listen in a 0755 directory = %v", err)
	}
}

// TestListenLockedByStartingAgent: while another agent holds the pid-file
// lock (it is starting), Listen refuses rather than removing its socket.
func TestListenLockedByStartingAgent(t *testing.T) {
	sock := SocketPath(shortTempDir(t))
	l, err := Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	// Nobody accepts on l, so the probe sees no answer… but the lock is
	// held. (A listening socket with an empty accept queue still
	// completes connect(2); make the probe fail by removing the file.)
	os.Remove(sock)
	if _, err := Listen(sock); err == nil || !strings.Contains(err.Error(), "locked") {
		t.Errorf("Listen while the lock is held = %v", err)
	}
}
