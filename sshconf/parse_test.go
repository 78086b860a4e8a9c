package sshconf

import (
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// resolveText resolves host through the parser with config as the user
// file (files are written under a scratch directory first).
func resolveText(t *testing.T, host, config string, files map[string]string) (Config, error) {
	t.Helper()
	all := map[string]string{"home/.ssh/config": config}
	for k, v := range files {
		all[k] = v
	}
	tmp := writeFiles(t, t.TempDir(), all)
	home := filepath.Join(tmp, "home")
	return Resolve(t.Context(), host, Overrides{}, Options{ConfigFile: filepath.Join(home, ".ssh/config"), SSHPath: "-", Home: home, LocalUser: testUser})
}

// TestParserLimits pins the parser's size limits (docs/ssh.md).
func TestParserLimits(t *testing.T) {
	tests := []struct {
		name   string
		config string
	}{
		{"long line", "Host x\n    ProxyCommand " + strings.Repeat("a", maxLineLen) + "\n"},
		{"large file", strings.Repeat("# comment line of filler text\n", maxConfigSize/29+1)},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := resolveText(t, "x", tt.config, nil)
			var ce *ConfigError
			if !errors.As(err, &ce) {
				t.Fatalf("got %v, want a *ConfigError", err)
			}
		})
	}
}

// TestTokensJump pins %j and %C: %j is the last hop's host (newer
// OpenSSH; 9.2 rejects it) and %C hashes %l%h%p%r%j.
func TestTokensJump(t *testing.T) {
	e := &env{home: "/h", localUser: "me", uid: "1000", hostname: "box.lan"}
	tok := e.tokens(connInfo{alias: "web", hostname: "web.example", user: "deploy", port: 2222, jumpHost: "gw"})
	sum := sha1.Sum([]byte("box.lan" + "web.example" + "2222" + "deploy" + "gw"))
	want := map[byte]string{
		'C': hex.EncodeToString(sum[:]), 'L': "box", 'i': "1000", 'k': "web", 'l': "box.lan", 'n': "web",
		'p': "2222", 'd': "/h", 'h': "web.example", 'r': "deploy", 'u': "me", 'j': "gw",
	}
	for k, v := range want {
		if tok[k] != v {
			t.Errorf("%%%c = %q, want %q", k, tok[k], v)
		}
	}
	c, err := resolveText(t, "web", "Host web\n    ProxyJump a,u@b:2\n    IdentityFile ~/.ssh/via_%j\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasSuffix(c.IdentityFiles[0], "/.ssh/via_b") {
		t.Errorf("IdentityFile with %%j = %q, want .../via_b", c.IdentityFiles[0])
	}
}

// TestCanonicalizeWithoutDNS pins that the parser re-reads the config for
// CanonicalizeHostname but does not qualify names through DNS.
func TestCanonicalizeWithoutDNS(t *testing.T) {
	c, err := resolveText(t, "short", "CanonicalizeHostname yes\nCanonicalDomains example.invalid\nHost short.example.invalid\n    Port 1\n", nil)
	if err != nil {
		t.Fatal(err)
	}
	if c.HostName != "short" || c.Port != 22 {
		t.Errorf("got %s:%d, want short:22 (no DNS canonicalization)", c.HostName, c.Port)
	}
}

func TestGlobFiles(t *testing.T) {
	dir := writeFiles(t, t.TempDir(), map[string]string{
		"d/b.conf": "", "d/a.conf": "", "d/.hidden.conf": "", "d/c.txt": "", "d/sub/x.conf": "", "d/1.conf": "",
	})
	d := filepath.Join(dir, "d")
	tests := []struct {
		name    string
		pattern string
		want    []string
		wantErr bool
	}{
		{name: "sorted, no dot files", pattern: d + "/*.conf", want: []string{d + "/1.conf", d + "/a.conf", d + "/b.conf"}},
		{name: "dot files when asked", pattern: d + "/.*.conf", want: []string{d + "/.hidden.conf"}},
		{name: "fnmatch negation", pattern: d + "/[!ab1]*", want: []string{d + "/c.txt", d + "/sub"}},
		{name: "range", pattern: d + "/[a-b].conf", want: []string{d + "/a.conf", d + "/b.conf"}},
		{name: "directories in the middle", pattern: dir + "/*/sub/*.conf", want: []string{d + "/sub/x.conf"}},
		{name: "no match", pattern: d + "/*.none", want: nil},
		{name: "plain file", pattern: d + "/a.conf", want: []string{d + "/a.conf"}},
		{name: "plain missing file", pattern: d + "/zz.conf", want: nil},
		{name: "bad pattern", pattern: d + "/[", wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := globFiles(tt.pattern)
			if tt.wantErr {
				if err == nil {
					t.Fatalf("globFiles(%q) = %q, want an error", tt.pattern, got)
				}
				return
			}
			if err != nil || !slices.Equal(got, tt.want) {
				t.Errorf("globFiles(%q) = %q, %v; want %q", tt.pattern, got, err, tt.want)
			}
		})
	}
}

// TestParseConfigLines: the per-line view the evaluator uses agrees with
// the library's blocks, whatever the spacing, case and line endings.
func TestParseConfigLines(t *testing.T) {
	text := "# c\r\n\r\n  host a \"b c\"\r\n\tPORT=22\r\nMatch host x\n  Include x.conf y.conf\nInclude z"
	f, err := parseConfig("cfg", []byte(text), true)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.blocks) != 2 || !slices.Equal(f.blocks[0].patterns, []string{"a", "b c"}) || f.blocks[1].match == nil {
		t.Errorf("blocks = %+v", f.blocks)
	}
	if la := f.args[4]; !slices.Equal(la.args, []string{"22"}) {
		t.Errorf("line 4 args = %q, want [22]", la.args)
	}
	if !slices.Equal(f.includes[6], []string{"x.conf", "y.conf"}) || !slices.Equal(f.includes[7], []string{"z"}) {
		t.Errorf("includes = %v", f.includes)
	}
	// The last Include has no newline; the library must still report it.
	seen := 0
	for _, h := range f.cfg.Hosts {
		for _, n := range h.Nodes {
			if _, ok := f.includes[n.Pos().Line]; ok {
				seen++
			}
		}
	}
	if seen != 2 {
		t.Errorf("the library reported %d of the 2 Include lines", seen)
	}
}

func TestParseMatchErrors(t *testing.T) {
	for _, args := range [][]string{
		nil, {"host"}, {"all", "host", "x"}, {"host", "x", "user"}, {"!"}, {"user", ""},
	} {
		if _, err := parseMatch(args); err == nil {
			t.Errorf("parseMatch(%q): no error", args)
		}
	}
	for _, args := range [][]string{{"all"}, {"canonical", "all"}, {"!all"}, {"final"}, {"exec", "x", "host", "y"}} {
		if _, err := parseMatch(args); err != nil {
			t.Errorf("parseMatch(%q): %v", args, err)
		}
	}
}

// TestDefaultUserConfigPermissions: without -F, ssh checks ~/.ssh/config's
// owner and mode, and so does the parser.
func TestDefaultUserConfigPermissions(t *testing.T) {
	home := writeFiles(t, t.TempDir(), map[string]string{".ssh/config": "Host x\n    Port 2\n"})
	cf := filepath.Join(home, ".ssh/config")
	if err := os.Chmod(cf, 0o666); err != nil {
		t.Fatal(err)
	}
	r, err := newResolver(Options{SSHPath: "-", Home: home, LocalUser: testUser})
	if err != nil {
		t.Fatal(err)
	}
	r.plan = plan{home: home, userFile: cf, checkPerm: true}
	var ce *ConfigError
	if _, err := r.resolve(t.Context(), "x", Overrides{}); !errors.As(err, &ce) {
		t.Errorf("got %v, want a *ConfigError for a world-writable ~/.ssh/config", err)
	}
}
