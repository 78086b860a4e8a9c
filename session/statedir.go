package session

import (
	"os"
	"os/user"
	"path/filepath"
	"strconv"
)

// DefaultStateDir is where a Manager keeps its shell integration files and
// recordings when Options.StateDir is empty: $XDG_CACHE_HOME/ttymux, else
// $HOME/.cache/ttymux (os.UserCacheDir), else .cache/ttymux in the home
// directory the password database gives. Only when none of these is known
// is it /tmp/ttymux-state-<uid>: a directory of its own (never the agent's
// socket directory), which is used only once its owner and mode are
// verified (privdir.Ensure in writeShellInit and the recorder), so
// another user who made it first gets a clear refusal, not our files
// (issue #14).
func DefaultStateDir() string {
	if d, err := os.UserCacheDir(); err == nil {
		return filepath.Join(d, "ttymux")
	}
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) && u.HomeDir != "/" {
		return filepath.Join(u.HomeDir, ".cache", "ttymux")
	}
	return filepath.Join("/tmp", "ttymux-state-"+strconv.Itoa(os.Geteuid()))
}
