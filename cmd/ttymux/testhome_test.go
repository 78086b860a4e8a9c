package main

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/testhome"
)

// TestTestsArePrivate: this package's tests run with HOME and every XDG
// directory private (internal/testhome, from TestMain), and so do the
// servers and agents they start. Run with HOME and the XDG variables
// pointed at a sentinel directory, end-to-end tests that start servers
// (each opens the audit log, one starts an agent) leave nothing there.
// Before, they wrote the user's real $XDG_STATE_HOME/ttymux/audit.jsonl
// and read a real $XDG_CONFIG_HOME policy.
func TestTestsArePrivate(t *testing.T) {
	t.Parallel() // waits on builds and processes: overlaps the other parallel tests
	root := testhome.Root()
	if root == "" {
		t.Fatal("TestMain did not call testhome.Private")
	}
	for _, v := range testhome.Vars {
		if d := os.Getenv(v); !strings.HasPrefix(d, root+string(filepath.Separator)) {
			t.Errorf("%s=%q is not under the test's private directory %s", v, d, root)
		}
	}
	if os.Getenv("SSH_AUTH_SOCK") != "" {
		t.Error("SSH_AUTH_SOCK is set: tests could reach the user's ssh-agent")
	}
	if testing.Short() {
		t.Skip("-short: the sentinel run builds and runs this package's tests again")
	}
	sentinel := shortTempDir(t)
	env := []string{}
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if !strings.HasPrefix(k, "XDG_") && k != "HOME" {
			env = append(env, kv)
		}
	}
	for _, v := range testhome.Vars {
		env = append(env, v+"="+filepath.Join(sentinel, v))
	}
	cmd := exec.Command("go", "test", "-count=1", "-run", "^(TestStdioCancelledGetsNoResponse|TestKillNineResumes)$", ".")
	cmd.Env = env
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("go test in the sentinel environment: %v\n%s", err, out)
	}
	// The go command itself keeps its telemetry under the config
	// directory (XDG_CONFIG_HOME/go): not a test's doing.
	goOwn := filepath.Join(sentinel, "XDG_CONFIG_HOME", "go")
	var found []string
	_ = filepath.WalkDir(sentinel, func(p string, d fs.DirEntry, err error) error {
		switch {
		case p == goOwn:
			return filepath.SkipDir
		case p == sentinel || p == filepath.Dir(goOwn):
		default:
			found = append(found, p)
		}
		return nil
	})
	if len(found) > 0 {
		t.Fatalf("the tests wrote where HOME and XDG_* pointed when they started:\n%s", strings.Join(found, "\n"))
	}
}
