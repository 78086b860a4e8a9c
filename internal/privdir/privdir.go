// Package privdir makes and checks private directories: directories that
// belong to the current user and that no other user can enter or change, so
// that what ttymux writes there (sockets, shell start-up files, recordings,
// caches) cannot be replaced, read or redirected by someone else (issue #14).
//
// Ensure creates a missing directory with mode 0700 and then checks it;
// Check only checks. A directory that exists but is someone else's, a
// symbolic link, or open to group or others is refused with an
// *UnsafeDirError and left alone: fixing another user's directory is not
// ours to do (tmux: "directory ... has unsafe permissions").
//
// WriteFile writes a file into such a directory without following a
// symbolic link and without ever opening the path twice for one decision.
//
// It uses only the standard library and golang.org/x/sys, so the agent
// (cmd/ttymux-agent) may import it. Every function is safe for concurrent
// use.
package privdir

import (
	"bytes"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// UnsafeDirError reports a directory that someone other than the current
// user could write to (or that is not a plain directory of ours).
type UnsafeDirError struct {
	What    string // "agent socket directory", "state directory", …
	Dir     string
	Problem string // "is a symbolic link", "has unsafe permissions 0755", "is owned by uid 1001", …
	UID     int    // the uid it must belong to
	// Shared is set for a directory that may be readable by others
	// (CheckNoWrite): only writing is reserved to its owner.
	Shared bool
}

func (e *UnsafeDirError) Error() string {
	what := e.What
	if what == "" {
		what = "directory"
	}
	want := " with mode 0700)"
	if e.Shared {
		want = " that only it can write to)"
	}
	return what + " " + e.Dir + " " + e.Problem +
		" (it must be a directory owned by uid " + strconv.Itoa(e.UID) + want
}

// Owner returns fi's uid, or -1 when the system does not say.
func Owner(fi fs.FileInfo) int {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return int(st.Uid)
	}
	return -1
}

// Check verifies that dir is a real directory (not a symbolic link to one),
// owned by the current effective uid, with no permission bits for group or
// others. A missing dir is reported as the *fs.PathError of Lstat (it
// matches fs.ErrNotExist); anything else wrong is an *UnsafeDirError whose
// What is what.
func Check(dir, what string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return checkInfo(dir, what, fi, 0o077)
}

// CheckNoWrite is Check for a directory others may read but not change:
// owned by us, not a symbolic link, and writable by nobody else (no write
// bit for group or others). Nobody else can then create, rename or remove
// what is in it.
func CheckNoWrite(dir, what string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	return checkInfo(dir, what, fi, 0o022)
}

// EnsureNoWrite is Ensure with CheckNoWrite's rule for an existing
// directory (a missing one is still created 0700).
func EnsureNoWrite(dir, what string) error {
	err := CheckNoWrite(dir, what)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := Ensure(dir, what); err != nil {
		return err
	}
	return nil
}

func checkInfo(dir, what string, fi fs.FileInfo, closed fs.FileMode) error {
	uid := os.Geteuid()
	bad := func(problem string) error {
		return &UnsafeDirError{What: what, Dir: dir, Problem: problem, UID: uid, Shared: closed != 0o077}
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return bad("is a symbolic link")
	case !fi.IsDir():
		return bad("is not a directory")
	}
	if o := Owner(fi); o != uid {
		return bad("is owned by uid " + strconv.Itoa(o))
	}
	if perm := fi.Mode().Perm(); perm&closed != 0 {
		return bad(fmt.Sprintf("has unsafe permissions %#o", perm))
	}
	return nil
}

// Ensure creates dir with mode 0700 when it is missing (and its missing
// parents, also 0700), then checks it as Check does. A dir another user
// made first is refused, never adopted.
func Ensure(dir, what string) error {
	err := Check(dir, what)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o700); err != nil {
		return fmt.Errorf("create %s: %w", what, err)
	}
	// Mkdir, not MkdirAll: if someone made dir between our Lstat and
	// now, the check below sees theirs and refuses it.
	if err := os.Mkdir(dir, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("create %s: %w", what, err)
	}
	return Check(dir, what)
}

// maxCompare bounds how much of an existing file WriteFile reads to compare.
const maxCompare = 1 << 20

// WriteFile makes dir/name hold data with mode 0600. dir must already be
// private (Ensure). An existing file is opened once, without following a
// symbolic link and without blocking on a FIFO (O_NOFOLLOW|O_NONBLOCK),
// and kept only if that same open file is a regular file of ours whose
// content is data; otherwise a new file is created under a random name
// with O_EXCL|O_NOFOLLOW, written, and renamed over name. It reports
// whether it wrote.
func WriteFile(dir, name string, data []byte) (bool, error) {
	p := filepath.Join(dir, name)
	if same(p, data) {
		return false, nil
	}
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := filepath.Join(dir, "."+name+"."+hex.EncodeToString(rnd[:])+".tmp")
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return false, err
	}
	_, werr := f.Write(data)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, p)
	}
	if werr != nil {
		_ = os.Remove(tmp) // best effort; werr already set
		return false, werr
	}
	return true, nil
}

// same reports whether p is a regular file of ours holding exactly data,
// judged from one open of p.
func same(p string, data []byte) bool {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return false
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() || Owner(fi) != os.Geteuid() || fi.Size() != int64(len(data)) || fi.Size() > maxCompare {
		return false
	}
	b, err := io.ReadAll(io.LimitReader(f, maxCompare+1))
	return err == nil && bytes.Equal(b, data)
}

// Flock runs flock(2) on f through SyscallConn (keeping f's descriptor
// mode: shared/STYLE.md §5, avoid (*os.File).Fd), retrying when a signal
// interrupts it (EINTR). It is the one flock of the module: the agent's pid
// file, the clients' start lock (internal/agentsock) and the recorder's
// lock all use it.
func Flock(f *os.File, how int) error {
	raw, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := raw.Control(func(fd uintptr) {
		for {
			if ferr = unix.Flock(int(fd), how); ferr != unix.EINTR {
				return
			}
		}
	}); err != nil {
		return err
	}
	return ferr
}
