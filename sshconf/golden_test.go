package sshconf

import (
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the want sections of testdata/resolve/*.txt from ssh -G (the keywords they list; cases using $LHOST, $SHOST or $UID are left alone); review the diff")

// A goldenCase is one file of testdata/resolve: header lines ("key:
// value"), then sections "-- name --" as in txtar. Sections other than
// want and want-parser are files written under a scratch directory ($TMP),
// the config being home/.ssh/config. Header keys:
//
//	host:              the host to resolve
//	user, port, identity, jump: Overrides
//	parser:            ok (default), needs-ssh (the parser must fail with
//	                   ErrNeedsSSH), differs (a known difference: the parser
//	                   must match want-parser and must differ from ssh -G),
//	                   lenient (a known difference: ssh rejects the config,
//	                   the parser accepts it and must match want-parser),
//	                   or error (both paths reject the config)
//
// want lists "keyword value" lines as render prints them; only keywords
// present are compared. $TMP is the scratch directory, $HOME the home
// directory ~ and %d expand to ($TMP/home when parsing, the account's home
// under ssh -G, which ignores $HOME there), $USER the local user (ttyuser
// when parsing), $LHOST and $SHOST the local host name in full and up to
// the first dot, $UID the user id.
type goldenCase struct {
	name       string
	path       string
	header     map[string]string
	files      []section
	want       string
	wantParser string
	hasWant    bool
}

type section struct{ name, data string }

func readGolden(t *testing.T, path string) goldenCase {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	c := goldenCase{name: strings.TrimSuffix(filepath.Base(path), ".txt"), path: path, header: map[string]string{}}
	var cur *section
	var secs []section
	for l := range strings.SplitSeq(string(b), "\n") {
		if name, ok := sectionName(l); ok {
			secs = append(secs, section{name: name})
			cur = &secs[len(secs)-1]
			continue
		}
		if cur != nil {
			cur.data += l + "\n"
			continue
		}
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, ok := strings.Cut(l, ":")
		if !ok {
			t.Fatalf("%s: bad header line %q", path, l)
		}
		c.header[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	for _, s := range secs {
		s.data = strings.TrimSuffix(s.data, "\n") + "\n"
		switch s.name {
		case "want":
			c.want, c.hasWant = s.data, true
		case "want-parser":
			c.wantParser = s.data
		default:
			c.files = append(c.files, s)
		}
	}
	if c.header["host"] == "" {
		t.Fatalf("%s: no host", path)
	}
	return c
}

func sectionName(l string) (string, bool) {
	if strings.HasPrefix(l, "-- ") && strings.HasSuffix(l, " --") && len(l) > 6 {
		return strings.TrimSpace(l[3 : len(l)-3]), true
	}
	return "", false
}

// setup writes the case's files under a fresh scratch directory and
// returns it with the config's path.
func (c goldenCase) setup(t *testing.T) (tmp, home, configFile string) {
	t.Helper()
	tmp = t.TempDir()
	home = filepath.Join(tmp, "home")
	configFile = filepath.Join(home, ".ssh", "config")
	if err := os.MkdirAll(filepath.Dir(configFile), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, f := range c.files {
		p := filepath.Join(tmp, filepath.FromSlash(f.name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		// 0600: ssh refuses included files that group or others may write.
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(f.data, "$TMP", tmp)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return tmp, home, configFile
}

func (c goldenCase) overrides(t *testing.T, tmp string) Overrides {
	t.Helper()
	o := Overrides{User: c.header["user"], IdentityFile: strings.ReplaceAll(c.header["identity"], "$TMP", tmp), Jump: c.header["jump"]}
	if p := c.header["port"]; p != "" {
		n, err := strconv.Atoi(p)
		if err != nil {
			t.Fatalf("%s: port: %v", c.path, err)
		}
		o.Port = n
	}
	return o
}

// render prints c as "keyword value" lines in a fixed order, using ssh -G's
// keywords.
func render(c Config) string {
	var b strings.Builder
	line := func(k, v string) { fmt.Fprintf(&b, "%s %s\n", k, v) }
	yn := func(v bool) string {
		if v {
			return "yes"
		}
		return "no"
	}
	list := func(l []string) string {
		if len(l) == 0 {
			return "none"
		}
		return strings.Join(l, " ")
	}
	orNone := func(s string) string {
		if s == "" {
			return "none"
		}
		return s
	}
	line("hostname", c.HostName)
	line("port", strconv.Itoa(c.Port))
	line("user", c.User)
	for _, f := range c.IdentityFiles {
		line("identityfile", f)
	}
	line("identitiesonly", yn(c.IdentitiesOnly))
	line("proxyjump", formatJump(c.ProxyJump))
	line("proxycommand", orNone(c.ProxyCommand))
	line("hostkeyalias", orNone(c.HostKeyAlias))
	line("userknownhostsfile", list(c.UserKnownHostsFiles))
	line("globalknownhostsfile", list(c.GlobalKnownHostsFiles))
	line("stricthostkeychecking", c.StrictHostKeyChecking)
	line("hashknownhosts", yn(c.HashKnownHosts))
	line("serveraliveinterval", strconv.Itoa(int(c.ServerAliveInterval/time.Second)))
	line("serveralivecountmax", strconv.Itoa(c.ServerAliveCountMax))
	line("connecttimeout", strconv.Itoa(int(c.ConnectTimeout/time.Second)))
	return b.String()
}

// byKey groups rendered lines by keyword, keeping order within one.
func byKey(s string) map[string][]string {
	m := map[string][]string{}
	for l := range strings.SplitSeq(strings.TrimSpace(s), "\n") {
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		k, v, _ := strings.Cut(l, " ")
		m[k] = append(m[k], v)
	}
	return m
}

// compareWant checks the keywords want lists against got.
func compareWant(t *testing.T, label, want, got string) {
	t.Helper()
	w, g := byKey(want), byKey(got)
	keys := make([]string, 0, len(w))
	for k := range w {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		if !slices.Equal(w[k], g[k]) {
			t.Errorf("%s: %s\n got: %q\nwant: %q\n(full result:\n%s)", label, k, g[k], w[k], got)
		}
	}
}

// subst replaces the placeholders of a want section.
type subst struct{ tmp, home, user string }

func (s subst) apply(want string) string {
	lhost, _ := os.Hostname()
	short, _, _ := strings.Cut(lhost, ".")
	return strings.NewReplacer(
		"$TMP", s.tmp, "$HOME", s.home, "$USER", s.user,
		"$LHOST", lhost, "$SHOST", short, "$UID", strconv.Itoa(os.Getuid()),
	).Replace(want)
}

// parseAsSSH resolves through the parser with ~, %d and %u taken from the
// account, as ssh -G takes them, while Options.Home still places relative
// Includes and ${HOME} (ssh -G runs with HOME set to it).
func parseAsSSH(t *testing.T, host string, o Overrides, opts Options, acct *user.User) (Config, error) {
	t.Helper()
	r, err := newResolver(opts)
	if err != nil {
		return Config{}, err
	}
	if r.sshPath != "" {
		t.Fatal("parseAsSSH: resolver would run ssh")
	}
	r.parse.home, r.parse.localUser = acct.HomeDir, acct.Username
	return r.resolve(t.Context(), host, o)
}

// sshForTest returns the ssh client, skipping when there is none (and
// failing under CI, which installs it).
func sshForTest(t *testing.T) string {
	t.Helper()
	p, err := exec.LookPath("ssh")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("the ssh client is not installed; CI must install openssh-client for the ssh -G cross-checks")
		}
		t.Skip("ssh client not installed (apt-get install openssh-client)")
	}
	return p
}

func account(t *testing.T) *user.User {
	t.Helper()
	u, err := user.Current()
	if err != nil {
		t.Fatalf("current user: %v", err)
	}
	if u.HomeDir == "" || u.HomeDir == "/" {
		t.Fatalf("account home %q cannot be told apart in results; run the tests as a user with a home directory", u.HomeDir)
	}
	return u
}

const testUser = "ttyuser"

// TestGolden resolves every case in testdata/resolve through the parser
// and through ssh -G, compares each with the golden expectation, and
// compares the two with each other: that is the fidelity check whose
// known differences docs/ssh.md lists.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob("testdata/resolve/*.txt")
	if err != nil || len(paths) == 0 {
		t.Fatalf("no golden cases: %v", err)
	}
	for _, path := range paths {
		c := readGolden(t, path)
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			mode := c.header["parser"]
			if mode == "" {
				mode = "ok"
			}

			t.Run("parser", func(t *testing.T) {
				tmp, home, cf := c.setup(t)
				o := c.overrides(t, tmp)
				got, err := Resolve(t.Context(), c.header["host"], o, Options{ConfigFile: cf, SSHPath: "-", Home: home, LocalUser: testUser})
				switch mode {
				case "needs-ssh":
					if !errors.Is(err, ErrNeedsSSH) {
						t.Fatalf("got %v, want an error wrapping ErrNeedsSSH", err)
					}
					return
				case "error":
					var ce *ConfigError
					if !errors.As(err, &ce) {
						t.Fatalf("got %v (%+v), want a *ConfigError", err, got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got.Source != SourceParser {
					t.Errorf("Source = %q, want %q", got.Source, SourceParser)
				}
				want := c.want
				if mode == "differs" || mode == "lenient" {
					want = c.wantParser
				}
				compareWant(t, "parser", subst{tmp: tmp, home: home, user: testUser}.apply(want), render(got))
			})

			t.Run("ssh", func(t *testing.T) {
				sshPath := sshForTest(t)
				acct := account(t)
				tmp, home, cf := c.setup(t)
				o := c.overrides(t, tmp)
				got, err := Resolve(t.Context(), c.header["host"], o, Options{ConfigFile: cf, SSHPath: sshPath, Home: home, LocalUser: testUser})
				if mode == "error" || mode == "lenient" {
					var ce *ConfigError
					if !errors.As(err, &ce) {
						t.Fatalf("got %v (%+v), want a *ConfigError", err, got)
					}
					return
				}
				if err != nil {
					t.Fatal(err)
				}
				if got.Source != SourceSSH {
					t.Errorf("Source = %q, want %q", got.Source, SourceSSH)
				}
				s := subst{tmp: tmp, home: acct.HomeDir, user: acct.Username}
				if *update && (mode == "ok" || mode == "needs-ssh") && !strings.Contains(c.want, "$LHOST") && !strings.Contains(c.want, "$SHOST") && !strings.Contains(c.want, "$UID") {
					rewriteWant(t, c, updatedWant(c.want, normalizeUpdate(render(got), s)))
				} else if c.hasWant {
					compareWant(t, "ssh -G", s.apply(c.want), render(got))
				}

				// Fidelity: the parser, expanding ~, %d and %u from the
				// account as ssh does, must agree with ssh -G on every field.
				if mode == "needs-ssh" {
					return
				}
				pgot, err := parseAsSSH(t, c.header["host"], o, Options{ConfigFile: cf, SSHPath: "-", Home: home}, acct)
				if err != nil {
					t.Fatalf("parser: %v", err)
				}
				pr, sr := render(pgot), render(got)
				switch {
				case mode == "differs" && pr == sr:
					t.Errorf("the parser now agrees with ssh -G on this case: make it parser: ok and update the differences in docs/ssh.md")
				case mode != "differs" && pr != sr:
					t.Errorf("parser and ssh -G differ:\nparser:\n%s\nssh -G:\n%s", pr, sr)
				}
			})
		})
	}
}

// updatedWant keeps the keywords want lists (all of them when want is
// empty) and takes their values from got.
func updatedWant(want, got string) string {
	g := byKey(got)
	var keys []string
	for l := range strings.SplitSeq(strings.TrimSpace(want), "\n") {
		if k, _, _ := strings.Cut(l, " "); k != "" && !slices.Contains(keys, k) {
			keys = append(keys, k)
		}
	}
	if len(keys) == 0 {
		return got
	}
	var b strings.Builder
	for _, k := range keys {
		for _, v := range g[k] {
			b.WriteString(k + " " + v + "\n")
		}
	}
	return b.String()
}

// normalizeUpdate turns an ssh -G result back into placeholders (the
// account's home first, so "/root" does not become "/$USER").
func normalizeUpdate(got string, s subst) string {
	return strings.NewReplacer(s.home, "$HOME", s.tmp, "$TMP", s.user, "$USER").Replace(got)
}

// rewriteWant replaces c's want section (go test -update).
func rewriteWant(t *testing.T, c goldenCase, want string) {
	t.Helper()
	b, err := os.ReadFile(c.path)
	if err != nil {
		t.Fatal(err)
	}
	s := string(b)
	if i := strings.Index(s, "\n-- want --\n"); i >= 0 {
		rest := s[i+len("\n-- want --\n"):]
		end := strings.Index(rest, "\n-- ")
		if end < 0 {
			end = len(rest)
		} else {
			end++
		}
		s = s[:i] + "\n-- want --\n" + want + rest[end:]
	} else {
		s = strings.TrimSuffix(s, "\n") + "\n-- want --\n" + want
	}
	if err := os.WriteFile(c.path, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
