package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/ttymux/ttymux/remote-agent/agentproto"
)

// DefaultSocket returns the per-user socket the local agent listens on:
// $XDG_RUNTIME_DIR/ttymux/agent-v<N>.sock, or /tmp/ttymux-<euid>/agent-v<N>.sock
// when XDG_RUNTIME_DIR is unset, where N is agentproto.Version. Agents of
// different protocol versions therefore run side by side.
//
// It mirrors SocketDir and SocketPath of the agent's library
// (remote-agent), which this package must not import (shared/STYLE.md §2).
func DefaultSocket() string {
	dir := os.Getenv("XDG_RUNTIME_DIR")
	if dir != "" {
		dir = filepath.Join(dir, "ttymux")
	} else {
		dir = "/tmp/ttymux-" + strconv.Itoa(os.Geteuid()) // not $TMPDIR: every client must agree
	}
	return filepath.Join(dir, "agent-v"+strconv.Itoa(agentproto.Version)+".sock")
}

// UnsafeDirError reports a socket directory that is not ours or that
// another user could write to. The Client refuses to use it, as tmux does
// ("has unsafe permissions"): a socket there could be someone else's.
type UnsafeDirError struct {
	Dir     string
	Problem string // "is a symbolic link", "has unsafe permissions 0755", …
}

func (e *UnsafeDirError) Error() string {
	return fmt.Sprintf("agent socket directory %s %s (it must be a directory owned by uid %d with mode 0700)",
		e.Dir, e.Problem, os.Geteuid())
}

// checkDir verifies that dir is a real directory (not a symlink), owned by
// us, with no permission bits for group or others. A missing directory is
// reported as an error matching fs.ErrNotExist.
func checkDir(dir string) error {
	fi, err := os.Lstat(dir)
	if err != nil {
		return err
	}
	if fi.Mode()&fs.ModeSymlink != 0 {
		return &UnsafeDirError{Dir: dir, Problem: "is a symbolic link"}
	}
	if !fi.IsDir() {
		return &UnsafeDirError{Dir: dir, Problem: "is not a directory"}
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && int(st.Uid) != os.Geteuid() {
		return &UnsafeDirError{Dir: dir, Problem: fmt.Sprintf("is owned by uid %d", st.Uid)}
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return &UnsafeDirError{Dir: dir, Problem: fmt.Sprintf("has unsafe permissions %#o", perm)}
	}
	return nil
}

// prepareDir creates dir with mode 0700 when it is missing, then checks it.
func prepareDir(dir string) error {
	err := checkDir(dir)
	if !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("create agent socket directory: %w", err)
	}
	return checkDir(dir)
}
