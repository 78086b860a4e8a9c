package session

import (
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// TestOpenEnvOnReadOnlyHost (issue #31): open_local with an environment
// that runs commands (PROMPT_COMMAND, BASH_ENV, a prompt with $(…)) is held
// on a read-only local host, before anything starts; a harmless
// environment opens. On the old code PROMPT_COMMAND='touch F' opened and
// created F at the first prompt.
func TestOpenEnvOnReadOnlyHost(t *testing.T) {
	p, err := policy.Parse("p.toml", []byte("[[rule]]\nhosts = [\"local\"]\nread_only = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := NewManager(Options{Kinds: []Kind{LocalKind(&local.Opener{})}, StateDir: t.TempDir(), Policy: p, Shell: "/bin/bash", NoRC: true})
	t.Cleanup(m.CloseAll)
	dir := t.TempDir()
	f := filepath.Join(dir, "F")
	for _, env := range [][]string{
		{"PROMPT_COMMAND=touch " + f},
		{"BASH_ENV=" + f},
		{"PS1=$(touch " + f + ")"},
		{"LANG=C", "PS0=`touch " + f + "`"},
		{"LD_PRELOAD=/tmp/x.so"},
	} {
		_, err := m.Open(t.Context(), OpenRequest{Transport: "local", Target: transport.Target{
			Env: append(env, "HOME="+dir)}}) // the login shell: a line of "" to the policy
		var ge *GateError
		if !errors.As(err, &ge) || ge.Denied || ge.Rule != "read_only" {
			t.Errorf("open with %v: %v, want held by read_only", env, err)
		}
	}
	s, err := m.Open(t.Context(), OpenRequest{Transport: "local", Target: transport.Target{
		Env: []string{"LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "HOME=" + dir, "PS1=> "}}})
	if err != nil {
		t.Fatalf("open with a harmless environment: %v", err)
	}
	if _, err := m.Close(t.Context(), s.ID()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatal("F was created")
	}
}
