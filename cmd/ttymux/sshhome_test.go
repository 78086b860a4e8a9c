package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// sshClientHome writes a scratch home for an SSH client: ~/.ssh/known_hosts
// with the host keys of servers, and ~/.ssh/config with what config makes
// of that known_hosts path (ConfigBlock lines). It returns the config's
// path and the home.
func sshClientHome(t testing.TB, servers []*sshdtest.SSHD, config func(known string) string) (cfg, home string) {
	t.Helper()
	home = t.TempDir()
	known := filepath.Join(home, ".ssh", "known_hosts")
	if err := os.MkdirAll(filepath.Dir(known), 0o700); err != nil {
		t.Fatal(err)
	}
	var keys strings.Builder
	for _, d := range servers {
		keys.WriteString(d.KnownHostsLine() + "\n")
	}
	if err := os.WriteFile(known, []byte(keys.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg = filepath.Join(home, ".ssh", "config")
	if err := os.WriteFile(cfg, []byte(config(known)), 0o600); err != nil {
		t.Fatal(err)
	}
	return cfg, home
}

// sshKinds are a Manager's local and SSH kinds, the SSH client reading
// cfg in home (sshClientHome).
func sshKinds(cfg, home string) []session.Kind {
	return testKinds(map[string]transport.Opener{
		"local": &local.Opener{},
		"ssh":   &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}},
	})
}
