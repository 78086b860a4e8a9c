// Package usertest creates a second local user for tests that play another
// user of the machine (an attacker in issue #14's repros). It needs root:
// tests skip with a clear message otherwise (CI runs as root). Users are
// removed, with their home and processes, when the test ends. Imported only
// by tests.
package usertest

import (
	"crypto/rand"
	"encoding/hex"
	"os"
	"os/exec"
	"os/user"
	"strconv"
	"syscall"
	"testing"
)

// User is a throwaway local account.
type User struct {
	Name     string
	UID, GID int
	Home     string
}

// Create adds a user with a home directory (useradd -m) and a usable but
// passwordless account (usermod -p '*': sshd refuses locked accounts even
// for keys), and removes it in t.Cleanup. It skips the test when not root.
func Create(t testing.TB) *User {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to create a second local user (useradd); CI runs as root")
	}
	if _, err := exec.LookPath("useradd"); err != nil {
		t.Skip("useradd not found: cannot create a second local user")
	}
	var b [4]byte
	_, _ = rand.Read(b[:])
	name := "ttmx" + hex.EncodeToString(b[:])
	if out, err := exec.Command("useradd", "-m", "-s", "/bin/sh", name).CombinedOutput(); err != nil {
		t.Fatalf("useradd %s: %v\n%s", name, err, out)
	}
	t.Cleanup(func() {
		_ = exec.Command("pkill", "-KILL", "-u", name).Run() // its daemons; none is fine
		if out, err := exec.Command("userdel", "-r", "-f", name).CombinedOutput(); err != nil {
			t.Logf("userdel %s: %v\n%s", name, err, out)
		}
	})
	if out, err := exec.Command("usermod", "-p", "*", name).CombinedOutput(); err != nil {
		t.Fatalf("usermod -p '*' %s: %v\n%s", name, err, out)
	}
	u, err := user.Lookup(name)
	if err != nil {
		t.Fatal(err)
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	return &User{Name: name, UID: uid, GID: gid, Home: u.HomeDir}
}

// Command returns a command that runs as the user (with HOME and USER set
// to theirs).
func (u *User) Command(name string, args ...string) *exec.Cmd {
	cmd := exec.Command(name, args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(u.UID), Gid: uint32(u.GID)}}
	cmd.Env = append(os.Environ(), "HOME="+u.Home, "USER="+u.Name, "LOGNAME="+u.Name, "XDG_RUNTIME_DIR=")
	cmd.Dir = "/"
	return cmd
}

// Chown gives path to the user.
func (u *User) Chown(t testing.TB, path string) {
	t.Helper()
	if err := os.Lchown(path, u.UID, u.GID); err != nil {
		t.Fatal(err)
	}
}
