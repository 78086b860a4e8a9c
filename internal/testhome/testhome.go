// Package testhome gives a test binary a home of its own: HOME, every XDG
// base directory and XDG_RUNTIME_DIR point into one new temporary
// directory, so no test reads the user's policy (XDG_CONFIG_HOME), writes
// the user's audit log (XDG_STATE_HOME), reaches the user's agent
// (XDG_RUNTIME_DIR) or ssh-agent (SSH_AUTH_SOCK). Servers and agents that
// tests start inherit it.
//
// Call it first in TestMain:
//
//	func TestMain(m *testing.M) { os.Exit(testhome.Run(m)) }
//
// or, with goleak, pass Cleanup to goleak.Cleanup. Go's own build and
// module caches and its settings file stay where they were (GOCACHE,
// GOMODCACHE, GOPATH and GOENV are fixed before HOME moves), so a test that
// runs go build still finds them.
package testhome

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Vars are the variables Private points into its directory.
var Vars = []string{"HOME", "XDG_CONFIG_HOME", "XDG_STATE_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME", "XDG_RUNTIME_DIR"}

// unset are variables that would lead a test to the user's own things.
var unset = []string{"SSH_AUTH_SOCK", "TTYMUX_POLICY", "TTYMUX_AGENT", "XDG_CONFIG_DIRS", "XDG_DATA_DIRS"}

var root string

// Root is the directory Private made, or "" before it ran.
func Root() string { return root }

// Private makes the directories and sets the environment. It panics when
// it cannot: no test may run against the user's own directories.
func Private() {
	keepGo()
	// Short: XDG_RUNTIME_DIR holds Unix sockets (108 bytes at most).
	d, err := os.MkdirTemp("", "tth")
	if err != nil {
		panic(fmt.Sprintf("testhome: %v", err))
	}
	root = d
	dirs := map[string]string{
		"HOME":            filepath.Join(d, "home"),
		"XDG_CONFIG_HOME": filepath.Join(d, "home", ".config"),
		"XDG_STATE_HOME":  filepath.Join(d, "home", ".local", "state"),
		"XDG_DATA_HOME":   filepath.Join(d, "home", ".local", "share"),
		"XDG_CACHE_HOME":  filepath.Join(d, "home", ".cache"),
		"XDG_RUNTIME_DIR": filepath.Join(d, "run"),
	}
	for _, v := range Vars {
		if err := os.MkdirAll(dirs[v], 0o700); err != nil {
			panic(fmt.Sprintf("testhome: %v", err))
		}
		if err := os.Setenv(v, dirs[v]); err != nil {
			panic(fmt.Sprintf("testhome: %v", err))
		}
	}
	for _, v := range unset {
		os.Unsetenv(v)
	}
}

// keepGo fixes Go's caches and settings to where they are now, before HOME
// and XDG_CACHE_HOME (from which Go derives them) move.
func keepGo() {
	out, err := exec.Command("go", "env", "GOCACHE", "GOMODCACHE", "GOPATH", "GOENV").Output()
	if err != nil {
		return // no go on PATH: nothing to keep
	}
	vals := strings.Split(strings.TrimRight(string(out), "\n"), "\n")
	for i, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOENV"} {
		if i < len(vals) && vals[i] != "" && os.Getenv(v) == "" {
			os.Setenv(v, vals[i])
		}
	}
}

// Cleanup removes the directory Private made. It takes the exit code so
// that it fits goleak.Cleanup, and exits with it.
func Cleanup(code int) {
	if root != "" {
		_ = os.RemoveAll(root) // best effort: a test's agent may hold a socket
	}
	os.Exit(code)
}

// Run is a TestMain body: Private, the tests, then the directory removed.
func Run(m *testing.M) int {
	Private()
	code := m.Run()
	if root != "" {
		_ = os.RemoveAll(root) // best effort
	}
	return code
}
