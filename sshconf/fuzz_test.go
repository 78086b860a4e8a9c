package sshconf

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// FuzzResolveParser feeds arbitrary config text through the parser path:
// it must never panic, and resolving twice must give the same answer.
// Inputs that could reach outside the scratch directory through Include
// ("/" or "~" in them: /dev/zero, another user's home) are skipped.
func FuzzResolveParser(f *testing.F) {
	seeds := []string{
		"Host web\n    HostName web.example\n    User u\n    Port 2222\n",
		"Host *.corp !b.corp\n  IdentityFile ~/.ssh/id_%h_%p_%r_%u_%%\n  IdentityFile x\n",
		"Include inc.conf\nMatch host web user u originalhost w* localuser *\n  ProxyJump a@b:1,[::1]:2\n",
		"Match final\n  CanonicalizeHostname yes\n  ServerAliveInterval 1m30s\n",
		"Match exec x\nHost=web\n\tPort=22 # c\n  UserKnownHostsFile \"a b\" c\n",
		"ProxyCommand nc %h %p\nProxyJump none\nStrictHostKeyChecking accept-new\n",
		"Host \"web\"\n  Match\n  Include\n  Port\n  HostName %z\n",
		"Match all\nHost web\n  ConnectTimeout 5\n  ServerAliveCountMax 9\n  HostKeyAlias K\n",
	}
	for _, s := range seeds {
		f.Add(s, "web")
	}
	f.Fuzz(func(t *testing.T, config, host string) {
		if strings.ContainsAny(config, "/~") {
			t.Skip("could include files outside the scratch directory")
		}
		tmp := t.TempDir()
		home := filepath.Join(tmp, "home")
		cf := filepath.Join(home, ".ssh", "config")
		if err := os.MkdirAll(filepath.Dir(cf), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(cf, []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		// A second file, so relative Includes and globs find something.
		if err := os.WriteFile(filepath.Join(home, ".ssh", "inc.conf"), []byte(config), 0o600); err != nil {
			t.Fatal(err)
		}
		opts := Options{ConfigFile: cf, SSHPath: "-", Home: home, LocalUser: testUser}
		for _, h := range []string{host, "web"} {
			c1, err1 := Resolve(t.Context(), h, Overrides{}, opts)
			c2, err2 := Resolve(t.Context(), h, Overrides{}, opts)
			if (err1 == nil) != (err2 == nil) || !reflect.DeepEqual(c1, c2) {
				t.Fatalf("Resolve(%q) is not deterministic: %+v, %v then %+v, %v", h, c1, err1, c2, err2)
			}
		}
	})
}
