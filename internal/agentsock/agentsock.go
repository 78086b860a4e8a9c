// Package agentsock owns the rules for reaching a ttymux agent's Unix
// socket, written once for the agent (agentd, cmd/ttymux-agent), its
// clients (transport/agent, the agent's bridge) and ttymux doctor:
//
//   - where the socket lives: Dir, Path, Default;
//   - that its directory is the user's own and private: CheckDir,
//     PrepareDir, *UnsafeDirError (see internal/privdir);
//   - that the socket file is the user's: CheckSocket;
//   - who is at the other end of a connection: PeerUID (SO_PEERCRED);
//   - flock(2), retried on EINTR: Flock, Lock;
//   - the per-install token an agent proves it can read: ReadToken.
//
// It imports only the standard library, golang.org/x/sys and
// internal/privdir, so the agent binary stays small and free of MCP and
// SSH-client code (shared/STYLE.md §2). Every function is safe for
// concurrent use.
package agentsock

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/privdir"
)

// What names the socket directory in an *UnsafeDirError.
const What = "agent socket directory"

// UnsafeDirError reports a socket directory that is not ours or that
// another user could write to: a socket there could be someone else's.
type UnsafeDirError = privdir.UnsafeDirError

// runUserBase is where systemd-logind makes each user's runtime directory,
// /run/user/<uid> (pam_systemd(8)), the directory a login's
// XDG_RUNTIME_DIR names. A variable only so that a test can build a binary
// that looks elsewhere (go build -ldflags -X).
var runUserBase = "/run/user"

// Dir returns the per-user directory that holds the agent's socket:
//
//  1. $XDG_RUNTIME_DIR/ttymux when XDG_RUNTIME_DIR is set (a per-user tmpfs
//     that systemd-logind creates with mode 0700 and removes at logout);
//  2. otherwise /run/user/<euid>/ttymux when /run/user/<euid> is a
//     directory of this user with no access for others: the same directory
//     a login session's XDG_RUNTIME_DIR names, so a server that an MCP client
//     started with a stripped environment (the TypeScript SDK passes only
//     HOME, LOGNAME, PATH, SHELL, TERM and USER) finds the user's agent
//     instead of starting a second, hidden one;
//  3. otherwise /tmp/ttymux-<euid>, as tmux uses /tmp/tmux-<uid> (not
//     $TMPDIR: every client must agree).
func Dir() string {
	d, _ := DirWhy()
	return d
}

// DirWhy returns Dir and, for ttymux doctor, why that directory.
func DirWhy() (dir, why string) {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "ttymux"), "XDG_RUNTIME_DIR is set"
	}
	uid := strconv.Itoa(os.Geteuid())
	run := filepath.Join(runUserBase, uid)
	if privdir.Check(run, "runtime directory") == nil {
		return filepath.Join(run, "ttymux"), "XDG_RUNTIME_DIR is not set; " + run + " is this user's private runtime directory, the one a login's XDG_RUNTIME_DIR names"
	}
	return "/tmp/ttymux-" + uid, "XDG_RUNTIME_DIR is not set and " + run + " is not a private directory of this user"
}

// Path returns the socket of this protocol version in dir:
// dir/agent-v<agentproto.Version>.sock. Agents of different protocol
// versions therefore run side by side, and a newer client never has to end
// an older agent's sessions.
func Path(dir string) string {
	return filepath.Join(dir, "agent-v"+strconv.Itoa(agentproto.Version)+".sock")
}

// Default returns Path(Dir()).
func Default() string { return Path(Dir()) }

// CheckDir verifies that dir is a real directory owned by us with mode
// 0700 (no bits for group or others). A missing dir is an error matching
// fs.ErrNotExist; a wrong one an *UnsafeDirError.
func CheckDir(dir string) error { return privdir.Check(dir, What) }

// PrepareDir creates dir with mode 0700 when it is missing, then checks it
// as CheckDir does.
func PrepareDir(dir string) error { return privdir.Ensure(dir, What) }

// UnsafeSocketError reports an agent socket, or its directory, that is not
// ours, so whatever listens there could be another user's (issue #14);
// nothing was sent to it. On this machine Path names the socket and
// Problem what is wrong with it. For an agent on a remote host, Host names
// the host and Problem is what the host's ttymux-agent said of its own
// socket or directory (transport/agent's Remote).
type UnsafeSocketError struct {
	Host    string // the remote host; empty for this machine
	Path    string // the socket on this machine
	Problem string // "is owned by uid 1001", "is not a socket"
}

func (e *UnsafeSocketError) Error() string {
	if e.Host != "" {
		return "agent socket on " + e.Host + " is not safe to use: " + e.Problem +
			" (the directory must be owned by the SSH user with mode 0700, the socket owned by the SSH user); another user may have made it, so nothing was sent there; remove it as its owner or root"
	}
	return "agent socket " + e.Path + " " + e.Problem + " (it must be a socket owned by uid " + strconv.Itoa(os.Geteuid()) + ")"
}

// CheckSocket verifies the socket's directory (CheckDir) and, when the
// socket file exists, that it is a socket owned by us. A missing directory
// or socket is an error matching fs.ErrNotExist.
func CheckSocket(path string) error {
	if err := CheckDir(filepath.Dir(path)); err != nil {
		return err
	}
	fi, err := os.Lstat(path)
	if err != nil {
		return err
	}
	if fi.Mode().Type() != fs.ModeSocket {
		return &UnsafeSocketError{Path: path, Problem: "is not a socket"}
	}
	if o := privdir.Owner(fi); o != os.Geteuid() {
		return &UnsafeSocketError{Path: path, Problem: "is owned by uid " + strconv.Itoa(o)}
	}
	return nil
}

// PeerUID returns the uid of the process at the other end of c, which must
// be a Unix socket connection: for an accepted connection the client that
// connected, for a dialled one the process that listens. The kernel records
// it at connect (or listen) time, so the peer cannot change it afterwards.
func PeerUID(c net.Conn) (int, error) {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return -1, fmt.Errorf("peer credentials: %T is not a socket", c)
	}
	raw, err := sc.SyscallConn()
	if err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	uid, ferr := -1, errors.New("peer credentials: no descriptor")
	if err := raw.Control(func(fd uintptr) { uid, ferr = peerUIDFd(int(fd)) }); err != nil {
		return -1, fmt.Errorf("peer credentials: %w", err)
	}
	if ferr != nil {
		return -1, fmt.Errorf("peer credentials: %w", ferr)
	}
	return uid, nil
}

// Flock runs flock(2) on f, retrying on EINTR (privdir.Flock: the one
// copy, shared with the session recorder).
func Flock(f *os.File, how int) error { return privdir.Flock(f, how) }

// Lock opens (creating, mode 0600) path and takes an exclusive flock on
// it, polling so that ctx or timeout (whichever ends first) bounds the
// wait. The returned func releases the lock and closes the file.
func Lock(ctx context.Context, path string, timeout time.Duration) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE|syscall.O_NOFOLLOW, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open lock %s: %w", path, err)
	}
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(2*delay, 20*time.Millisecond) {
		err := Flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = Flock(f, unix.LOCK_UN) // closing releases it too
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("wait for lock %s: %w", path, ctx.Err())
		}
	}
}

// MaxToken bounds a token file.
const MaxToken = 4096

// ReadToken reads a per-install token: a regular file (not a symbolic
// link), owned by us, readable by nobody else, at most MaxToken bytes. Only
// the user (or root) can read such a file, so an agent that proves it read
// it runs as the user: another user's agent cannot (issue #14).
func ReadToken(path string) ([]byte, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, fmt.Errorf("read agent token: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return nil, fmt.Errorf("read agent token: %w", err)
	case !fi.Mode().IsRegular():
		return nil, fmt.Errorf("agent token %s is not a regular file", path)
	case privdir.Owner(fi) != os.Geteuid():
		return nil, fmt.Errorf("agent token %s is owned by uid %d, not %d", path, privdir.Owner(fi), os.Geteuid())
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("agent token %s has unsafe permissions %#o (want 0600)", path, fi.Mode().Perm())
	case fi.Size() == 0 || fi.Size() > MaxToken:
		return nil, fmt.Errorf("agent token %s has %d bytes (want 1 to %d)", path, fi.Size(), MaxToken)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxToken+1))
	if err != nil {
		return nil, fmt.Errorf("read agent token: %w", err)
	}
	return b, nil
}
