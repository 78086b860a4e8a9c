package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/remote-agent/agentproto"
)

// SocketDir returns the per-user directory that holds the agent's socket:
// $XDG_RUNTIME_DIR/ttymux when XDG_RUNTIME_DIR is set (a per-user tmpfs that
// systemd-logind creates with mode 0700 and removes at logout), otherwise
// /tmp/ttymux-<uid>, as tmux uses /tmp/tmux-<uid>.
func SocketDir() string {
	if d := os.Getenv("XDG_RUNTIME_DIR"); d != "" {
		return filepath.Join(d, "ttymux")
	}
	return "/tmp/ttymux-" + strconv.Itoa(os.Geteuid())
}

// SocketPath returns the socket of this protocol version in dir:
// dir/agent-v<agentproto.Version>.sock. Agents of different protocol
// versions therefore run side by side, and a newer client never has to end
// an older agent's sessions.
func SocketPath(dir string) string {
	return filepath.Join(dir, "agent-v"+strconv.Itoa(agentproto.Version)+".sock")
}

// UnsafeDirError reports a socket directory that PrepareDir refuses to use,
// because someone other than the current user could replace the socket in it
// (tmux: "directory ... has unsafe permissions").
type UnsafeDirError struct {
	Dir     string
	Problem string // "is a symbolic link", "has unsafe permissions 0755", …
}

func (e *UnsafeDirError) Error() string {
	return "agent socket directory " + e.Dir + " " + e.Problem +
		" (it must be a directory owned by uid " + strconv.Itoa(os.Geteuid()) + " with mode 0700)"
}

// PrepareDir creates dir with mode 0700 if it is missing, then checks it: it
// must be a directory (not a symbolic link to one), owned by the current
// effective uid, with no permission bits for group or others. Otherwise it
// returns an *UnsafeDirError and leaves dir alone: fixing someone else's
// directory is not ours to do.
func PrepareDir(dir string) error {
	fi, err := os.Lstat(dir)
	if errors.Is(err, fs.ErrNotExist) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return fmt.Errorf("create agent socket directory: %w", err)
		}
		fi, err = os.Lstat(dir)
	}
	if err != nil {
		return fmt.Errorf("agent socket directory: %w", err)
	}
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &UnsafeDirError{Dir: dir, Problem: "is a symbolic link"}
	case !fi.IsDir():
		return &UnsafeDirError{Dir: dir, Problem: "is not a directory"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return &UnsafeDirError{Dir: dir, Problem: "is owned by uid " + strconv.Itoa(int(st.Uid))}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &UnsafeDirError{Dir: dir, Problem: "has unsafe permissions " + fmt.Sprintf("%#o", perm)}
	}
	return nil
}

// probeTimeout bounds the dial that tells a live socket from a stale one.
const probeTimeout = time.Second

// Listen prepares the socket's directory (PrepareDir), then listens on path
// with mode 0600. An existing socket file is probed: if an agent answers,
// Listen fails with "an agent is already running on <path>"; if nothing
// does, the file is stale (a crashed agent) and is replaced.
//
// For as long as the listener is open, Listen holds an flock(2) on
// path + ".pid", which also holds the agent's pid: two agents starting at
// once cannot both decide that the socket is stale and remove each other's.
// (path + ".lock" belongs to clients, which serialise starting the agent on
// it.) Closing the listener removes the socket and releases the lock; the
// pid file is left behind empty, since removing a lock file races with the
// next agent taking it.
func Listen(path string) (net.Listener, error) {
	if err := PrepareDir(filepath.Dir(path)); err != nil {
		return nil, err
	}
	running := fmt.Errorf("an agent is already running on %s", path)
	if answers(path) {
		return nil, running
	}
	pidf, err := os.OpenFile(path+".pid", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("agent pid file: %w", err)
	}
	if err := flock(pidf, unix.LOCK_EX|unix.LOCK_NB); err != nil {
		_ = pidf.Close()
		if errors.Is(err, unix.EWOULDBLOCK) {
			return nil, fmt.Errorf("an agent is already running (or starting) on %s: %s is locked", path, pidf.Name())
		}
		return nil, fmt.Errorf("lock agent pid file: %w", err)
	}
	fail := func(err error) (net.Listener, error) {
		_ = pidf.Close() // releases the lock
		return nil, err
	}
	// With the lock held no other agent can be starting; check again in
	// case one finished starting just before we took it.
	if answers(path) {
		return fail(running)
	}
	if fi, err := os.Lstat(path); err == nil {
		if fi.Mode().Type() != fs.ModeSocket {
			return fail(fmt.Errorf("%s exists and is not a socket; remove it if it is not needed", path))
		}
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fail(fmt.Errorf("remove stale agent socket: %w", err))
		}
	}
	ul, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		return fail(fmt.Errorf("listen: %w", err))
	}
	// The directory is 0700 already, so the window before chmod exposes
	// nothing; the mode is belt and braces for a directory made looser later.
	if err := os.Chmod(path, 0o600); err != nil {
		_ = ul.Close()
		return fail(fmt.Errorf("set agent socket mode: %w", err))
	}
	if err := pidf.Truncate(0); err == nil {
		_, _ = pidf.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0) // informational only
	}
	return &listener{UnixListener: ul, pidf: pidf}, nil
}

// answers reports whether something accepts connections on the socket path.
func answers(path string) bool {
	c, err := net.DialTimeout("unix", path, probeTimeout)
	if err != nil {
		return false
	}
	_ = c.Close() // only probing
	return true
}

func flock(f *os.File, how int) error {
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

// listener is the socket plus the pid-file lock it holds.
type listener struct {
	*net.UnixListener
	pidf *os.File

	once sync.Once
	err  error
}

// Close removes the socket (net.UnixListener unlinks it), then empties the
// pid file and releases its lock, in that order, so the next agent never
// sees our socket once it holds the lock. It is idempotent.
func (l *listener) Close() error {
	l.once.Do(func() {
		l.err = l.UnixListener.Close()
		_ = l.pidf.Truncate(0) // best effort: the pid is informational
		if err := l.pidf.Close(); l.err == nil {
			l.err = err
		}
	})
	return l.err
}
