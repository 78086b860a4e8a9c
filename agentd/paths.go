package agentd

import (
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/agentsock"
)

// SocketDir returns the per-user socket directory (agentsock.Dir).
func SocketDir() string { return agentsock.Dir() }

// SocketPath returns the socket of this protocol version in dir
// (agentsock.Path).
func SocketPath(dir string) string { return agentsock.Path(dir) }

// UnsafeDirError reports a socket directory that PrepareDir refuses to use
// (agentsock.UnsafeDirError).
type UnsafeDirError = agentsock.UnsafeDirError

// PrepareDir creates the socket directory with mode 0700 if it is missing,
// then checks it (agentsock.PrepareDir): it must be a directory (not a
// symbolic link to one), owned by the current effective uid, with no
// permission bits for group or others. Otherwise it returns an
// *UnsafeDirError and leaves dir alone.
func PrepareDir(dir string) error { return agentsock.PrepareDir(dir) }

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
	if err := agentsock.Flock(pidf, unix.LOCK_EX|unix.LOCK_NB); err != nil {
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
