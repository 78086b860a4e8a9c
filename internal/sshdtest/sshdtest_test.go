package sshdtest

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

func TestConfigWithEnv(t *testing.T) {
	for _, tt := range []struct {
		lines, want []string
	}{
		{lines: nil, want: []string{"SetEnv HOME=/h"}},
		{lines: []string{"MaxSessions 2"}, want: []string{"MaxSessions 2", "SetEnv HOME=/h"}},
		// sshd reads only the first SetEnv line: the others are merged
		// into it, and a caller's HOME wins.
		{
			lines: []string{"A 1", "SetEnv X=1", "B 2", "setenv Y=2 HOME=/mine"},
			want:  []string{"A 1", "SetEnv X=1 Y=2 HOME=/mine", "B 2"},
		},
	} {
		if got := configWithEnv(tt.lines, "HOME=/h"); !slices.Equal(got, tt.want) {
			t.Errorf("configWithEnv(%q) = %q, want %q", tt.lines, got, tt.want)
		}
	}
}

// TestShellsGetTheTestHome: commands sshd starts see the test's empty
// HOME, so the user's startup files stay out, and a caller's SetEnv still
// arrives.
func TestShellsGetTheTestHome(t *testing.T) {
	d := StartSSHD(t, SSHDOptions{Config: []string{"SetEnv TTYMUX_PROBE=1"}})
	if ents, err := os.ReadDir(d.Home); err != nil || len(ents) != 0 {
		t.Fatalf("home %s: %v, %d entries; want an empty directory", d.Home, err, len(ents))
	}
	b, err := os.ReadFile(d.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := gossh.ParsePrivateKey(b)
	if err != nil {
		t.Fatal(err)
	}
	c, err := gossh.Dial("tcp", d.Addr(), &gossh.ClientConfig{
		User:            d.User,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.FixedHostKey(d.HostKey),
		Timeout:         30 * time.Second,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	s, err := c.NewSession()
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	out, err := s.CombinedOutput(`echo "$HOME $TTYMUX_PROBE"`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if got, want := strings.TrimSpace(string(out)), filepath.Clean(d.Home)+" 1"; got != want {
		t.Fatalf("the remote shell says %q, want %q", got, want)
	}
}
