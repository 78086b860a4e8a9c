package policy

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

const fleet = `
[defaults]
held = "ask"
no_elicitation = "deny"

[[rule]]
hosts = ["prod-*", "!prod-lab"]
read_only = true
deny  = ['^systemctl (stop|disable)\b']
ask   = ['^kubectl delete\b']
allow = ['^systemctl restart nginx$']

[[rule]]
hosts = ["dev*"]
deny = ['^halt$']
held = "confirm"
`

func TestCheck(t *testing.T) {
	p, err := Parse("fleet.toml", []byte(fleet))
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, host, line string
		want             Decision
		held             string
	}{
		{"read-only cat", "prod-web", "cat /etc/hostname", Run, ""},
		{"read-only systemctl status", "prod-web", "systemctl status ssh", Run, ""},
		{"touch held", "prod-web", "touch /tmp/x", Hold, Ask},
		{"sed -i held", "prod-web", "sed -i s/a/b/ f", Hold, Ask},
		{"redirect held", "prod-web", "echo x > f", Hold, Ask},
		{"sh -c held", "prod-web", "sh -c 'rm -f f'", Hold, Ask},
		{"deny", "prod-web", "systemctl stop nginx", Refuse, ""},
		{"deny behind sudo", "prod-web", "sudo systemctl stop nginx", Refuse, ""},
		{"deny after cd", "prod-web", "cd / && systemctl disable x", Refuse, ""},
		{"ask", "prod-db", "kubectl delete pod x", Hold, Ask},
		{"allow on read-only host", "prod-web", "systemctl restart nginx", Run, ""},
		{"allow does not pass the gate", "prod-web", "rm -rf /", Hold, Ask},
		{"excluded host", "prod-lab", "touch /tmp/x", Run, ""},
		{"second rule's deny is shadowed", "prod-web", "halt", Hold, Ask},
		{"other host: deny from the catch-all", "dev1", "halt", Refuse, ""},
		{"other host: held is confirm", "dev1", "rm -rf /", Hold, Confirm},
		{"local", "local", "touch x", Run, ""},
		{"case-insensitive host", "PROD-web", "touch x", Hold, Ask},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := p.Check(tt.host, tt.line, false)
			if v.Decision != tt.want || (tt.held != "" && v.Held != tt.held) {
				t.Fatalf("Check(%s, %q) = %+v, want %v held %q", tt.host, tt.line, v, tt.want, tt.held)
			}
			if v.Decision != Run && v.Reason == "" {
				t.Fatal("no reason")
			}
		})
	}
	if v := p.Check("prod-web", "touch x", false); v.NoElicitation != Deny {
		t.Fatalf("no_elicitation = %q", v.NoElicitation)
	}
}

// TestNoElicitationConsole: "console" is a no_elicitation value, in the
// defaults and per rule; it is not a value of held.
func TestNoElicitationConsole(t *testing.T) {
	p, err := Parse("p", []byte("[defaults]\nno_elicitation = \"console\"\n\n[[rule]]\nhosts = [\"prod-*\"]\nno_elicitation = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Check("local", "git clean -fdx", false); v.Decision != Hold || v.NoElicitation != Console {
		t.Fatalf("local: %+v", v)
	}
	if v := p.Check("prod-web", "git clean -fdx", false); v.NoElicitation != Deny {
		t.Fatalf("prod-web: %+v", v)
	}
	if _, err := Parse("p", []byte("[[rule]]\nhosts = [\"*\"]\nno_elicitation = \"console\"\n")); err != nil {
		t.Fatalf("per rule: %v", err)
	}
	if _, err := Parse("p", []byte("[defaults]\nheld = \"console\"\n")); err == nil {
		t.Fatal(`held = "console" was accepted`)
	}
}

func TestHeldDeny(t *testing.T) {
	p, err := Parse("p", []byte("[defaults]\nheld = \"deny\"\n"))
	if err != nil {
		t.Fatal(err)
	}
	if v := p.Check("local", "rm -rf /", false); v.Decision != Refuse {
		t.Fatalf("%+v", v)
	}
}

// TestSecretNotQuoted: a held secret's reason never quotes it.
func TestSecretNotQuoted(t *testing.T) {
	p, _ := Parse("p", []byte(`[[rule]]
hosts = ["*"]
read_only = true`))
	v := p.Check("h", "hunter2secret", true)
	if v.Decision != Hold || strings.Contains(v.Reason, "hunter2") {
		t.Fatalf("%+v", v)
	}
}

func TestBadFiles(t *testing.T) {
	tests := []struct {
		name, src string
		line      int
		key       string
	}{
		{"syntax", "[defaults]\nheld = \n", 2, ""},
		{"bad held", "[defaults]\n\nheld = \"maybe\"\n", 3, "defaults.held"},
		{"bad no_elicitation", "[defaults]\nno_elicitation = \"ask\"\n", 2, "defaults.no_elicitation"},
		{"unknown key", "[defaults]\nheld = \"ask\"\nhold = \"ask\"\n", 3, "defaults.hold"},
		{"unknown rule key", "[[rule]]\nhosts = [\"a\"]\n\n[[rule]]\nhosts = [\"b\"]\nreadonly = true\n", 6, "rule[2].readonly"},
		{"bad regexp", "[[rule]]\nhosts = [\"a\"]\ndeny = ['(']\n", 3, "rule[1].deny"},
		{"no hosts", "[[rule]]\nread_only = true\n", 1, "rule[1].hosts"},
		{"wrong type", "[[rule]]\nhosts = \"a\"\n", 2, "rule.hosts"},
		{"empty pattern", "[[rule]]\nhosts = [\"!\"]\n", 2, "rule[1].hosts"},
		{"relative port", "[serial]\n\nports = [\"ttyUSB*\"]\n", 3, "serial.ports"},
		{"unknown serial key", "[serial]\nport = [\"/dev/x\"]\n", 2, "serial.port"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Parse("/etc/p.toml", []byte(tt.src))
			var pe *ParseError
			if !errors.As(err, &pe) {
				t.Fatalf("err = %v", err)
			}
			if pe.Line != tt.line || (tt.key != "" && pe.Key != tt.key) || !strings.HasPrefix(err.Error(), "/etc/p.toml:") {
				t.Fatalf("err = %v (line %d key %q), want line %d key %q", err, pe.Line, pe.Key, tt.line, tt.key)
			}
		})
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	p, err := Load(filepath.Join(dir, "none.toml"), false)
	if err != nil || p.File != "" {
		t.Fatalf("missing default file: %v %+v", err, p)
	}
	if _, err := Load(filepath.Join(dir, "none.toml"), true); err == nil {
		t.Fatal("missing explicit file accepted")
	}
	f := filepath.Join(dir, "p.toml")
	os.WriteFile(f, []byte(fleet), 0o600)
	p, err = Load(f, true)
	if err != nil || len(p.Rules) != 2 || !strings.Contains(p.Describe(), "prod-*") {
		t.Fatalf("%v %+v", err, p)
	}
	t.Setenv("XDG_CONFIG_HOME", dir)
	if DefaultPath() != filepath.Join(dir, "ttymux", "policy.toml") {
		t.Fatal(DefaultPath())
	}
}

func TestMatchHost(t *testing.T) {
	for _, tt := range []struct {
		pats []string
		host string
		want bool
	}{
		{[]string{"prod-*"}, "prod-web", true},
		{[]string{"db?"}, "db1", true},
		{[]string{"db?"}, "db12", false},
		{[]string{"*", "!local"}, "local", false},
		{[]string{"serial:*"}, "serial:/dev/ttyUSB0", true},
		{[]string{"!prod-*"}, "dev", false},
		{[]string{"*.example.com"}, "a.b.example.com", true},
	} {
		if got := MatchHost(tt.pats, tt.host); got != tt.want {
			t.Errorf("MatchHost(%v, %s) = %v", tt.pats, tt.host, got)
		}
	}
}

// FuzzParse: any file either parses into a usable policy or gives a
// ParseError naming the file; never a panic.
func FuzzParse(f *testing.F) {
	f.Add(fleet)
	f.Add("[defaults]\nheld = 1\n")
	f.Add("[[rule]]\nhosts=['*']\nallow=['(?i)x']")
	f.Fuzz(func(t *testing.T, src string) {
		p, err := Parse("f.toml", []byte(src))
		if err != nil {
			if !strings.HasPrefix(err.Error(), "f.toml") {
				t.Fatalf("error without the file name: %v", err)
			}
			return
		}
		p.Check("prod-web", "touch x; cat y", false)
		p.Describe()
	})
}

// TestDocExamples: every policy in docs/security.md and the README parses.
func TestDocExamples(t *testing.T) {
	for _, doc := range []string{"../../docs/security.md", "../../README.md"} {
		b, err := os.ReadFile(doc)
		if err != nil {
			t.Fatal(err)
		}
		blocks := strings.Split(string(b), "```toml\n")[1:]
		if len(blocks) == 0 {
			t.Fatalf("%s has no toml examples", doc)
		}
		for i, blk := range blocks {
			src := blk[:strings.Index(blk, "```")]
			if _, err := Parse(fmt.Sprintf("%s example %d", doc, i+1), []byte(src)); err != nil {
				t.Errorf("%v", err)
			}
		}
	}
}

// TestCheckEnv (issue #31): on a read-only host an open's environment may
// only choose the terminal, language, time zone, home and a plain prompt;
// elsewhere it is not the read-only rule's business.
func TestCheckEnv(t *testing.T) {
	p, err := Parse("fleet.toml", []byte(fleet))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		host string
		env  []string
		want Decision
	}{
		{"prod-web", []string{"LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "HOME=/tmp", "PS1=$ "}, Run},
		{"prod-web", []string{"PS1=${x[$(touch F)]}"}, Hold},
		{"prod-web", []string{"PS2=`touch F`"}, Hold},
		{"prod-web", []string{"LANG=C.UTF-8", "LC_ALL=C", "TERM=xterm", "HOME=/tmp", "PS1=> "}, Run},
		{"prod-web", []string{"PROMPT_COMMAND=touch F"}, Hold},
		{"prod-web", []string{"BASH_ENV=/tmp/x"}, Hold},
		{"prod-web", []string{"PS1=\\[$(touch F)\\]"}, Hold},
		{"prod-web", []string{"GIT_PAGER=touch F"}, Hold},
		{"prod-web", []string{"LD_PRELOAD=/tmp/x.so"}, Hold},
		{"dev1", []string{"PROMPT_COMMAND=touch F"}, Run},
	} {
		v, kv := p.CheckEnv(tt.host, tt.env)
		if v.Decision != tt.want || (tt.want != Run && (kv == "" || v.Reason == "")) {
			t.Errorf("CheckEnv(%s, %q) = %+v %q, want %v", tt.host, tt.env, v, kv, tt.want)
		}
	}
}

// TestSelfProtection (issue #31): ttymux's own policy, audit log and
// processes are held on every host, with no policy file at all.
func TestSelfProtection(t *testing.T) {
	for _, l := range []string{"pkill ttymux", "rm ~/.config/ttymux/policy.toml", "truncate -s0 ~/.local/state/ttymux/audit.jsonl", "kill $(pgrep -f ttymux)"} {
		for _, host := range []string{"local", "web1", "serial:/dev/ttyUSB0"} {
			if v := Default().Check(host, l, false); v.Decision == Run {
				t.Errorf("%s on %s runs", l, host)
			}
		}
	}
	if v := Default().Check("local", "cat ~/.local/state/ttymux/audit.jsonl", false); v.Decision != Run {
		t.Errorf("reading the audit log is held: %+v", v)
	}
}
