package sshconf

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestHostAliasesGolden runs testdata/hosts: each case is a set of files
// (the config being home/.ssh/config, $TMP the scratch directory) and
// either want (the aliases, one a line) or error (a substring of the
// error).
func TestHostAliasesGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/hosts/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no cases: %v", err)
	}
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txt"), func(t *testing.T) {
			files, want, wantErr := readHostsCase(t, path)
			tmp := t.TempDir()
			home := filepath.Join(tmp, "home")
			for name, data := range files {
				p := filepath.Join(tmp, filepath.FromSlash(name))
				if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
					t.Fatal(err)
				}
				if err := os.WriteFile(p, []byte(strings.ReplaceAll(data, "$TMP", tmp)), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			got, err := HostAliases(Options{ConfigFile: filepath.Join(home, ".ssh", "config"), Home: home})
			if wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), wantErr) {
					t.Fatalf("err = %v, want one containing %q", err, wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if g := strings.Join(got, "\n"); g != want {
				t.Fatalf("aliases:\n%s\nwant:\n%s", g, want)
			}
		})
	}
}

func readHostsCase(t *testing.T, path string) (files map[string]string, want, wantErr string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	files = map[string]string{}
	cur := ""
	for l := range strings.SplitSeq(string(b), "\n") {
		if name, ok := sectionName(l); ok {
			cur = name
			files[cur] = ""
			continue
		}
		if cur != "" {
			files[cur] += l + "\n"
		}
	}
	want = strings.TrimSpace(files["want"])
	wantErr = strings.TrimSpace(files["error"])
	delete(files, "want")
	delete(files, "error")
	return files, want, wantErr
}

func TestHostAliasesNoConfig(t *testing.T) {
	home := t.TempDir()
	// A scratch HOME without ~/.ssh/config: nothing, and no error.
	got, err := HostAliases(Options{Home: home})
	if err != nil || len(got) != 0 {
		t.Fatalf("got %q, %v; want nothing", got, err)
	}
	// An explicit config file must exist, as with ssh -F.
	if _, err := HostAliases(Options{ConfigFile: filepath.Join(home, "nope"), Home: home}); err == nil {
		t.Fatal("a missing ConfigFile was not an error")
	}
}

func TestMatchPatternExported(t *testing.T) {
	tests := []struct {
		name, s, pattern string
		want             bool
	}{
		{"star", "web12", "web*", true},
		{"question", "db1", "db?", true},
		{"question needs one", "db", "db?", false},
		{"case sensitive", "Web1", "web*", false},
		{"literal", "node01", "node01", true},
		{"middle", "a-prod-b", "*prod*", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := MatchPattern(tt.s, tt.pattern); got != tt.want {
				t.Fatalf("MatchPattern(%q, %q) = %v", tt.s, tt.pattern, got)
			}
		})
	}
}
