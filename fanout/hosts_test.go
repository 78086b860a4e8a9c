package fanout_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/fanout"
)

func TestSelect(t *testing.T) {
	aliases := []string{"web1", "web2", "web3", "db1", "db2", "node01", "node02"}
	groups := fanout.Groups{
		"web":   {"web*", "!web3"},
		"db":    {"db1", "db2"},
		"prod":  {"web", "db"},
		"cycA":  {"cycB"},
		"cycB":  {"web1", "cycC"},
		"cycC":  {"cycA"},
		"web1":  {"db1"}, // a group shadows an alias of the same name
		"empty": {"!web1"},
	}
	tests := []struct {
		name     string
		patterns []string
		want     string // hosts joined by spaces, or "error: <substring>"
	}{
		{"aliases in order, once", []string{"db2", "web2", "db2"}, "db2 web2"},
		{"glob", []string{"node*"}, "node01 node02"},
		{"question mark", []string{"db?"}, "db1 db2"},
		{"negation", []string{"web*", "!web3"}, "web1 web2"},
		{"negated glob", []string{"web*", "db*", "!db*"}, "web1 web2 web3"},
		{"group", []string{"web"}, "web1 web2"},
		{"nested groups", []string{"prod"}, "web1 web2 db1 db2"},
		{"negated group", []string{"prod", "!db"}, "web1 web2"},
		{"unknown name is a host name", []string{"box.example.com"}, "box.example.com"},
		{"group shadows alias", []string{"web1"}, "db1"},
		{"cycle", []string{"cycA"}, "error: cycA → cycB → cycC → cycA"},
		{"glob matching nothing", []string{"nod*x"}, "error: matches no Host alias in your ssh_config; its aliases: web1 web2 web3 db1 db2 node01 node02; groups (hosts.toml): cycA"},
		{"everything negated", []string{"db1", "!db1"}, "error: select no host"},
		{"negation matching nothing is fine", []string{"db1", "!zz*"}, "db1"},
		{"comma list", []string{"web1,web2"}, "error: its own list entry"},
		{"user@host", []string{"root@web1"}, "error: User in ssh_config"},
		{"metacharacters", []string{"web1;reboot"}, "error: shell metacharacters"},
		{"leading dash", []string{"-oProxyCommand=x"}, "error: may not start with '-'"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := fanout.Select(tt.patterns, aliases, groups)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("Select(%q) = %q, %v; want an error containing %q", tt.patterns, got, err, want)
				}
				return
			}
			if err != nil || strings.Join(got, " ") != tt.want {
				t.Fatalf("Select(%q) = %q, %v; want %s", tt.patterns, got, err, tt.want)
			}
		})
	}
}

func TestSelectNoAliases(t *testing.T) {
	_, err := fanout.Select([]string{"web*"}, nil, nil)
	if err == nil || !strings.Contains(err.Error(), "defines none") {
		t.Fatalf("err = %v", err)
	}
}

func TestLoadGroups(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name, toml, want string // want: "error: <substring>" or the web group joined
	}{
		{"groups", "[groups]\nweb = [\"web1\", \"web2\"]\nall = [\"web\", \"db*\"]\n", "web1 web2"},
		{"empty file", "", ""},
		{"syntax error names the line", "[groups]\nweb = [\"web1\"\n", "error: hosts.toml:"},
		{"unknown key", "[group]\nweb = [\"web1\"]\n", "error: unknown key group"},
		{"not a list", "[groups]\nweb = \"web1\"\n", "error: hosts.toml"},
		{"bad member", "[groups]\nweb = [\"web 1\"]\n", "error: group web"},
		{"bad name", "[groups]\n\"w*\" = [\"web1\"]\n", "error: group name"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(dir, strings.ReplaceAll(tt.name, " ", "-"), "hosts.toml")
			if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, []byte(tt.toml), 0o600); err != nil {
				t.Fatal(err)
			}
			g, err := fanout.LoadGroups(p)
			if want, ok := strings.CutPrefix(tt.want, "error: "); ok {
				if err == nil || !strings.Contains(err.Error(), want) {
					t.Fatalf("LoadGroups = %v, %v; want an error containing %q", g, err, want)
				}
				return
			}
			if err != nil || strings.Join(g["web"], " ") != tt.want {
				t.Fatalf("LoadGroups = %v, %v", g, err)
			}
		})
	}
	if g, err := fanout.LoadGroups(filepath.Join(dir, "missing.toml")); err != nil || g != nil {
		t.Fatalf("missing file: %v, %v", g, err)
	}
}

func TestGroupsFile(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", "/cfg")
	if got := fanout.GroupsFile(); got != "/cfg/ttymux/hosts.toml" {
		t.Fatalf("GroupsFile = %q", got)
	}
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("HOME", "/home/u")
	if got := fanout.GroupsFile(); got != "/home/u/.config/ttymux/hosts.toml" {
		t.Fatalf("GroupsFile = %q", got)
	}
}

func TestHostList(t *testing.T) {
	tests := []struct{ in, want string }{
		{"node01 node02 node03 node05", "node[01-03],node05"},
		{"web1 web2", "web1,web2"},
		{"web1 web2 web3 db1", "web[1-3],db1"},
		{"web9 web10 web11", "web9,web10,web11"},
		{"a b c", "a,b,c"},
		{"10.0.0.1 10.0.0.2 10.0.0.3", "10.0.0.[1-3]"},
		{"n3 n2 n1", "n3,n2,n1"},
	}
	for _, tt := range tests {
		if got := fanout.HostList(strings.Fields(tt.in)); got != tt.want {
			t.Errorf("HostList(%s) = %s, want %s", tt.in, got, tt.want)
		}
	}
}
