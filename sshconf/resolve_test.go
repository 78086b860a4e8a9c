package sshconf

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// writeFiles writes name → content under dir (mode 0600, as ssh wants
// included files) and returns dir.
func writeFiles(t *testing.T, dir string, files map[string]string) string {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(strings.ReplaceAll(data, "$TMP", dir)), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// bothPaths runs f for the parser and, when ssh is installed, ssh -G.
func bothPaths(t *testing.T, f func(t *testing.T, sshPath string)) {
	t.Run("parser", func(t *testing.T) { f(t, "-") })
	t.Run("ssh", func(t *testing.T) { f(t, sshForTest(t)) })
}

func TestResolveRejectsArguments(t *testing.T) {
	tmp := t.TempDir()
	opts := Options{ConfigFile: "none", SSHPath: "-", Home: tmp, LocalUser: testUser}
	tests := []struct {
		name string
		host string
		o    Overrides
	}{
		{"empty host", "", Overrides{}},
		{"option injection", "-oProxyCommand=touch /tmp/x", Overrides{}},
		{"user@host", "bob@web", Overrides{}},
		{"URI", "ssh://web", Overrides{}},
		{"space", "we b", Overrides{}},
		{"shell metacharacter", "web;id", Overrides{}},
		{"comma", "a,b", Overrides{}},
		{"port too large", "web", Overrides{Port: 65536}},
		{"negative port", "web", Overrides{Port: -1}},
		{"user option injection", "web", Overrides{User: "-oProxyCommand=x"}},
		{"user metacharacter", "web", Overrides{User: "a;b"}},
		{"bad jump", "web", Overrides{Jump: "a@@b"}},
		{"missing identity", "web", Overrides{IdentityFile: filepath.Join(tmp, "no-such-key")}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Resolve(t.Context(), tt.host, tt.o, opts)
			if err == nil {
				t.Fatalf("Resolve(%q, %+v) = %+v, want an error", tt.host, tt.o, got)
			}
		})
	}
}

func TestMakePlan(t *testing.T) {
	scratch := t.TempDir()
	withConfig := writeFiles(t, t.TempDir(), map[string]string{".ssh/config": "Host x\n"})
	tests := []struct {
		name               string
		configFile, home   string
		acctHome           string
		want               plan
		wantArgsBeforeHost []string
	}{
		{
			name: "explicit file is ssh -F", configFile: "/etc/custom", home: scratch, acctHome: scratch,
			want:               plan{home: scratch, userFile: "/etc/custom", useF: true, explicit: true},
			wantArgsBeforeHost: []string{"-G", "-T", "-F", "/etc/custom"},
		},
		{
			name: "explicit none", configFile: "none", home: scratch, acctHome: scratch,
			want:               plan{home: scratch, useF: true, explicit: true},
			wantArgsBeforeHost: []string{"-G", "-T", "-F", "none"},
		},
		{
			name: "explicit with tilde", configFile: "~/c", home: "/h", acctHome: "/a",
			want:               plan{home: "/h", userFile: "/h/c", useF: true, explicit: true},
			wantArgsBeforeHost: []string{"-G", "-T", "-F", "/h/c"},
		},
		{
			name: "account home: what plain ssh reads", home: scratch, acctHome: scratch + "/",
			want:               plan{home: scratch, userFile: filepath.Join(scratch, ".ssh/config"), readSystem: true, checkPerm: true},
			wantArgsBeforeHost: []string{"-G", "-T"},
		},
		{
			name: "other home with a config", home: withConfig, acctHome: "/root",
			want:               plan{home: withConfig, userFile: filepath.Join(withConfig, ".ssh/config"), useF: true},
			wantArgsBeforeHost: []string{"-G", "-T", "-F", filepath.Join(withConfig, ".ssh/config")},
		},
		{
			name: "other home without a config", home: scratch, acctHome: "/root",
			want:               plan{home: scratch, useF: true},
			wantArgsBeforeHost: []string{"-G", "-T", "-F", "none"},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := makePlan(tt.configFile, tt.home, tt.acctHome)
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Errorf("makePlan = %+v, want %+v", got, tt.want)
			}
			r := &resolver{plan: got}
			args := r.sshArgs("web", Overrides{}, "")
			if want := append(tt.wantArgsBeforeHost, "--", "web"); !slices.Equal(args, want) {
				t.Errorf("sshArgs = %q, want %q", args, want)
			}
		})
	}
}

func TestSSHArgsOverrides(t *testing.T) {
	r := &resolver{plan: plan{useF: true, userFile: "/c"}}
	got := r.sshArgs("-web", Overrides{User: "bob", Port: 2222, Jump: "a,b:2"}, "/k/id")
	want := []string{"-G", "-T", "-F", "/c", "-l", "bob", "-p", "2222", "-i", "/k/id", "-J", "a,b:2", "--", "-web"}
	if !slices.Equal(got, want) {
		t.Errorf("sshArgs = %q, want %q", got, want)
	}
}

// TestSystemConfig reads a user file and a system file, as plain ssh does
// without -F: the user file's values come first, the system file's
// relative Includes are under its own directory, and a ~ Include there is
// an error.
func TestSystemConfig(t *testing.T) {
	tmp := writeFiles(t, t.TempDir(), map[string]string{
		"home/.ssh/config":        "Host web\n    Port 2022\n",
		"etc/ssh_config":          "Include conf.d/*.conf\nHost *\n    Port 22\n    HashKnownHosts yes\n",
		"etc/conf.d/10-site.conf": "Host web\n    User site-user\n",
	})
	home := filepath.Join(tmp, "home")
	r, err := newResolver(Options{SSHPath: "-", Home: home, LocalUser: testUser})
	if err != nil {
		t.Fatal(err)
	}
	r.plan = plan{home: home, userFile: filepath.Join(home, ".ssh/config"), readSystem: true, checkPerm: true}
	r.system = filepath.Join(tmp, "etc/ssh_config")
	got, err := r.resolve(t.Context(), "web", Overrides{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Port != 2022 || got.User != "site-user" || !got.HashKnownHosts {
		t.Errorf("got port %d, user %q, HashKnownHosts %v; want 2022, site-user, true", got.Port, got.User, got.HashKnownHosts)
	}

	writeFiles(t, tmp, map[string]string{"etc/ssh_config": "Include ~/x.conf\n"})
	_, err = r.resolve(t.Context(), "web", Overrides{})
	var ce *ConfigError
	if !errors.As(err, &ce) || !strings.Contains(ce.Msg, "bad include path") {
		t.Errorf("~ Include in the system file: got %v, want a *ConfigError about the include path", err)
	}
}

// TestBadPermissions: ssh refuses included files that others may write
// (readconf.c SSHCONF_CHECKPERM), and so does the parser.
func TestBadPermissions(t *testing.T) {
	bothPaths(t, func(t *testing.T, sshPath string) {
		tmp := writeFiles(t, t.TempDir(), map[string]string{
			"home/.ssh/config":     "Include other.conf\n",
			"home/.ssh/other.conf": "Port 1\n",
		})
		if err := os.Chmod(filepath.Join(tmp, "home/.ssh/other.conf"), 0o666); err != nil {
			t.Fatal(err)
		}
		_, err := Resolve(t.Context(), "web", Overrides{}, Options{
			ConfigFile: filepath.Join(tmp, "home/.ssh/config"), SSHPath: sshPath, Home: filepath.Join(tmp, "home"), LocalUser: testUser,
		})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("got %v, want a *ConfigError", err)
		}
	})
}

// TestMissingConfigFile: an explicit config file must exist, like ssh -F.
func TestMissingConfigFile(t *testing.T) {
	bothPaths(t, func(t *testing.T, sshPath string) {
		tmp := t.TempDir()
		_, err := Resolve(t.Context(), "web", Overrides{}, Options{
			ConfigFile: filepath.Join(tmp, "nope"), SSHPath: sshPath, Home: tmp, LocalUser: testUser,
		})
		var ce *ConfigError
		if !errors.As(err, &ce) {
			t.Fatalf("got %v, want a *ConfigError", err)
		}
		if sshPath == "-" && !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("parser: %v does not wrap fs.ErrNotExist", err)
		}
	})
}

// TestSSHErrorHasStderr: when ssh -G rejects the config, the error carries
// what ssh said (file, line and reason), so the reader can fix it.
func TestSSHErrorHasStderr(t *testing.T) {
	sshPath := sshForTest(t)
	tmp := writeFiles(t, t.TempDir(), map[string]string{"home/.ssh/config": "Host web\n    Port nonsense-port\n"})
	cf := filepath.Join(tmp, "home/.ssh/config")
	_, err := Resolve(t.Context(), "web", Overrides{}, Options{ConfigFile: cf, SSHPath: sshPath, Home: tmp})
	var ce *ConfigError
	if !errors.As(err, &ce) {
		t.Fatalf("got %v, want a *ConfigError", err)
	}
	if !strings.Contains(ce.Msg, cf) || !strings.Contains(ce.Msg, "line 2") {
		t.Errorf("error %q does not quote ssh's message naming %s line 2", ce.Msg, cf)
	}
}

// TestMatchExecNeedsSSH: the parser's error says what to do.
func TestMatchExecNeedsSSH(t *testing.T) {
	tmp := writeFiles(t, t.TempDir(), map[string]string{"home/.ssh/config": "Host *\nMatch exec \"test -e /\"\n    Port 2\n"})
	_, err := Resolve(t.Context(), "web", Overrides{}, Options{
		ConfigFile: filepath.Join(tmp, "home/.ssh/config"), SSHPath: "-", Home: tmp, LocalUser: testUser,
	})
	var ce *ConfigError
	if !errors.Is(err, ErrNeedsSSH) || !errors.As(err, &ce) || ce.Line != 2 {
		t.Fatalf("got %v, want a *ConfigError for line 2 wrapping ErrNeedsSSH", err)
	}
	for _, want := range []string{"Match exec", "install", "openssh-client"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not mention %q", err, want)
		}
	}
}

// TestSSHTimeout: a Match exec command that hangs is killed with ssh when
// ctx ends, and Resolve returns promptly.
func TestSSHTimeout(t *testing.T) {
	sshPath := sshForTest(t)
	tmp := writeFiles(t, t.TempDir(), map[string]string{"home/.ssh/config": "Match exec \"sleep 60\"\n    Port 2\n"})
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := Resolve(ctx, "web", Overrides{}, Options{ConfigFile: filepath.Join(tmp, "home/.ssh/config"), SSHPath: sshPath, Home: tmp})
	if !errors.Is(err, context.DeadlineExceeded) {
		t.Errorf("got %v, want context.DeadlineExceeded", err)
	}
	// Without killing the process group, the orphaned sleep would hold
	// the output pipe until WaitDelay (1 s) expired.
	if took := time.Since(start); took > 900*time.Millisecond {
		t.Errorf("Resolve took %v after a 300ms deadline", took)
	}
}

func TestCanceledContext(t *testing.T) {
	bothPaths(t, func(t *testing.T, sshPath string) {
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		_, err := Resolve(ctx, "web", Overrides{}, Options{ConfigFile: "none", SSHPath: sshPath, Home: t.TempDir(), LocalUser: testUser})
		if !errors.Is(err, context.Canceled) {
			t.Errorf("got %v, want context.Canceled", err)
		}
	})
}

// TestFallbackWithoutSSH: with no ssh on $PATH, Resolve parses the files.
func TestFallbackWithoutSSH(t *testing.T) {
	t.Setenv("PATH", t.TempDir())
	got, err := Resolve(t.Context(), "web", Overrides{}, Options{ConfigFile: "none", Home: t.TempDir(), LocalUser: testUser})
	if err != nil {
		t.Fatal(err)
	}
	if got.Source != SourceParser {
		t.Errorf("Source = %q, want %q", got.Source, SourceParser)
	}
	if _, err := Resolve(t.Context(), "web", Overrides{}, Options{ConfigFile: "none", SSHPath: "ssh", Home: t.TempDir()}); err == nil {
		t.Error("an explicit SSHPath that does not exist: no error")
	}
}

// TestResolveConcurrent runs Resolve from many goroutines (for -race).
func TestResolveConcurrent(t *testing.T) {
	tmp := writeFiles(t, t.TempDir(), map[string]string{
		"home/.ssh/config":   "Include inc.conf\nHost web\n    Port 2022\n",
		"home/.ssh/inc.conf": "Host *\n    User shared\n",
	})
	opts := Options{ConfigFile: filepath.Join(tmp, "home/.ssh/config"), SSHPath: "-", Home: filepath.Join(tmp, "home"), LocalUser: testUser}
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for range 16 {
		wg.Go(func() {
			c, err := Resolve(t.Context(), "web", Overrides{}, opts)
			if err == nil && (c.Port != 2022 || c.User != "shared") {
				err = errors.New("wrong result")
			}
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Error(err)
		}
	}
}

// TestRealSystemConfig compares the two paths on this machine's own
// /etc/ssh/ssh_config (Debian's includes ssh_config.d/*.conf), read as
// plain ssh reads it. It needs the account's home without a
// ~/.ssh/config, as on CI, so the result does not depend on a person's
// config.
func TestRealSystemConfig(t *testing.T) {
	sshPath := sshForTest(t)
	acct := account(t)
	if _, err := os.Stat(filepath.Join(acct.HomeDir, ".ssh/config")); err == nil {
		t.Skipf("%s/.ssh/config exists; this test compares the system file alone", acct.HomeDir)
	}
	for _, host := range []string{"localhost", "ttymux-fidelity.invalid", "10.0.0.1"} {
		s, err := Resolve(t.Context(), host, Overrides{}, Options{Home: acct.HomeDir, SSHPath: sshPath})
		if err != nil {
			t.Fatalf("ssh -G: %v", err)
		}
		if s.Source != SourceSSH {
			t.Fatalf("Source = %q, want %q", s.Source, SourceSSH)
		}
		p, err := parseAsSSH(t, host, Overrides{}, Options{Home: acct.HomeDir, SSHPath: "-"}, acct)
		if errors.Is(err, ErrNeedsSSH) {
			t.Skipf("the system config needs ssh: %v", err)
		}
		if err != nil {
			t.Fatalf("parser: %v", err)
		}
		if render(p) != render(s) {
			t.Errorf("%s: parser and ssh -G differ on the system config:\nparser:\n%s\nssh -G:\n%s", host, render(p), render(s))
		}
	}
}

// TestParseSSHOutput reads ssh -G output as OpenSSH 9.2 prints it: flags
// as true/false, "none" for unset values, IdentityFile unexpanded.
func TestParseSSHOutput(t *testing.T) {
	r := &resolver{ssh: &env{home: "/home/acct", localUser: "acct", uid: "1000", hostname: "box.lan", lookupEnv: func(string) (string, bool) { return "", false }}}
	out := strings.Join([]string{
		"host web",
		"user deploy",
		"hostname web.example",
		"port 2222",
		"identitiesonly yes",
		"stricthostkeychecking false",
		"hashknownhosts yes",
		"serveraliveinterval 30",
		"serveralivecountmax 2",
		"connecttimeout none",
		"identityfile ~/.ssh/id_%h_%r",
		"identityfile %d/k_%u_%L",
		"identityfile ~/.ssh/id_%h_%r",
		"globalknownhostsfile ~/g /etc/ssh/ssh_known_hosts",
		"userknownhostsfile /home/acct/.ssh/known_hosts /home/acct/my hosts",
		"proxyjump a@b:1,[::1]:2",
		"proxycommand none",
		"",
	}, "\n")
	got, err := r.parseSSHOutput("web", []byte(out))
	if err != nil {
		t.Fatal(err)
	}
	want := Config{
		Alias: "web", HostName: "web.example", Port: 2222, User: "deploy",
		IdentityFiles:  []string{"/home/acct/.ssh/id_web.example_deploy", "/home/acct/k_acct_box"},
		IdentitiesOnly: true,
		ProxyJump:      []Jump{{User: "a", Host: "b", Port: 1}, {Host: "::1", Port: 2}},
		// ssh -G joins the list with spaces: "my hosts" cannot be told
		// from two files (a documented limitation of this path).
		UserKnownHostsFiles:   []string{"/home/acct/.ssh/known_hosts", "/home/acct/my", "hosts"},
		GlobalKnownHostsFiles: []string{"/home/acct/g", "/etc/ssh/ssh_known_hosts"},
		StrictHostKeyChecking: "no",
		HashKnownHosts:        true,
		ServerAliveInterval:   30 * time.Second,
		ServerAliveCountMax:   2,
		Source:                SourceSSH,
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("parseSSHOutput:\n got %+v\nwant %+v", got, want)
	}

	for _, bad := range []string{
		"user u\n",                     // no hostname
		"hostname h\nuser u\nport x\n", // bad port
		"hostname h\nuser u\nport 22\nproxyjump a@@b\n",
		"hostname h\nuser u\nport 22\nidentityfile %z\n",
	} {
		if c, err := r.parseSSHOutput("h", []byte(bad)); err == nil {
			t.Errorf("parseSSHOutput(%q) = %+v, want an error", bad, c)
		}
	}
}

// TestParserQuotedLists: the parser splits list values as OpenSSH does,
// so a quoted path with a space stays one file (unlike ssh -G's output).
func TestParserQuotedLists(t *testing.T) {
	tmp := writeFiles(t, t.TempDir(), map[string]string{
		"home/.ssh/config": "Host q\n    UserKnownHostsFile \"~/my hosts\" ~/.ssh/kh\n    GlobalKnownHostsFile '/etc/ssh/a b'\n",
	})
	home := filepath.Join(tmp, "home")
	got, err := Resolve(t.Context(), "q", Overrides{}, Options{ConfigFile: filepath.Join(home, ".ssh/config"), SSHPath: "-", Home: home, LocalUser: testUser})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{home + "/my hosts", home + "/.ssh/kh"}; !slices.Equal(got.UserKnownHostsFiles, want) {
		t.Errorf("UserKnownHostsFiles = %q, want %q", got.UserKnownHostsFiles, want)
	}
	if want := []string{"/etc/ssh/a b"}; !slices.Equal(got.GlobalKnownHostsFiles, want) {
		t.Errorf("GlobalKnownHostsFiles = %q, want %q", got.GlobalKnownHostsFiles, want)
	}
}
