package sshconn_test

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/knownhosts"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// hostKeyServer starts a server that accepts a fresh client key, known to
// a fresh client environment as "srv", without trusting its host key.
func hostKeyServer(t *testing.T, opts serverOptions) (*testServer, *clientEnv) {
	t.Helper()
	e := newClientEnv(t)
	keyPath, signer := e.writeKey("id_ed25519")
	opts.Keys = append(opts.Keys, signer.PublicKey())
	s := startServer(t, opts)
	e.addHost("srv", s.Addr, keyPath)
	return s, e
}

func TestUnknownHostKey(t *testing.T) {
	for _, hashed := range []bool{false, true} {
		t.Run(fmt.Sprintf("hashed=%v", hashed), func(t *testing.T) {
			s, e := hostKeyServer(t, serverOptions{})
			// The known_hosts directory does not exist yet: accepting creates it.
			kh := filepath.Join(e.Home, "new-dir", "known_hosts")
			e.setHost("srv", func(c *sshconf.Config) {
				c.UserKnownHostsFiles = []string{kh}
				c.HashKnownHosts = hashed
			})
			hostKey := s.HostKeys[0].PublicKey()

			_, err := e.open(transport.SSHTarget("srv"))
			var ue *sshconn.UnknownHostKeyError
			if !errors.As(err, &ue) {
				t.Fatalf("Open = %v, want *UnknownHostKeyError", err)
			}
			for _, want := range []string{gossh.FingerprintSHA256(hostKey), "ssh-ed25519", "accept_new_host_key: true", kh} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %s", want, err)
				}
			}
			if _, err := os.Stat(kh); !errors.Is(err, os.ErrNotExist) {
				t.Errorf("refusing the key still wrote %s (%v)", kh, err)
			}

			c := e.mustOpen(transport.Target{Command: "echo accepted", Spec: transport.SSHParams{Host: "srv", AcceptNewHostKey: true}})
			startReader(t, c).waitFor(t, "accepted", 5*time.Second)
			_ = c.Close()

			// Known now, without accept_new_host_key.
			c = e.mustOpen(transport.Target{Command: "echo known", Spec: transport.SSHParams{Host: "srv"}})
			startReader(t, c).waitFor(t, "known", 5*time.Second)

			data, err := os.ReadFile(kh)
			if err != nil {
				t.Fatal(err)
			}
			line := strings.TrimSpace(string(data))
			if strings.Count(line, "\n") != 0 {
				t.Errorf("known_hosts has several lines:\n%s", data)
			}
			if got := strings.HasPrefix(line, "|1|"); got != hashed {
				t.Errorf("line %q: hashed = %v, want %v", line, got, hashed)
			}
			if !hashed && !strings.HasPrefix(line, "[127.0.0.1]:"+fmt.Sprint(s.Port)+" ssh-ed25519 ") {
				t.Errorf("line %q: want the [host]:port form", line)
			}
			for path, mode := range map[string]os.FileMode{kh: 0o600, filepath.Dir(kh): 0o700 | os.ModeDir} {
				if fi, err := os.Stat(path); err != nil || fi.Mode() != mode {
					t.Errorf("%s: mode %v (%v), want %v", path, fi.Mode(), err, mode)
				}
			}
		})
	}
}

// TestStrictHostKeyCheckingAcceptNew: the config's accept-new records an
// unknown key like accept_new_host_key does.
func TestStrictHostKeyCheckingAcceptNew(t *testing.T) {
	_, e := hostKeyServer(t, serverOptions{})
	e.setHost("srv", func(c *sshconf.Config) { c.StrictHostKeyChecking = "accept-new" })
	c := e.mustOpen(transport.Target{Command: "echo ok", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, c).waitFor(t, "ok", 5*time.Second)
	if !strings.Contains(e.Log.String(), "recorded new host key") {
		t.Errorf("recording was not logged:\n%s", e.Log)
	}
}

// TestChangedHostKey: a key that differs from known_hosts is refused with
// the file and line, even with accept_new_host_key or
// StrictHostKeyChecking=no.
func TestChangedHostKey(t *testing.T) {
	s, e := hostKeyServer(t, serverOptions{})
	if err := os.WriteFile(e.KnownHosts, []byte("# first line\nother.example ssh-ed25519 "+authorizedKeyBody(t, newSigner(t, "ed25519").PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := newSigner(t, "ed25519").PublicKey()
	e.trust(s.Addr, old) // line 3
	before, _ := os.ReadFile(e.KnownHosts)

	for _, tt := range []struct {
		name   string
		target transport.Target
		strict string
	}{
		{name: "strict", target: transport.SSHTarget("srv"), strict: "yes"},
		{name: "accept_new_host_key", target: transport.Target{Spec: transport.SSHParams{Host: "srv", AcceptNewHostKey: true}}, strict: "yes"},
		{name: "StrictHostKeyChecking=no", target: transport.SSHTarget("srv"), strict: "no"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			e.setHost("srv", func(c *sshconf.Config) { c.StrictHostKeyChecking = tt.strict })
			_, err := e.open(tt.target)
			var ce *sshconn.HostKeyChangedError
			if !errors.As(err, &ce) {
				t.Fatalf("Open = %v, want *HostKeyChangedError", err)
			}
			if len(ce.Known) != 1 || ce.Known[0].File != e.KnownHosts || ce.Known[0].Line != 3 {
				t.Errorf("Known = %+v, want %s line 3", ce.Known, e.KnownHosts)
			}
			for _, want := range []string{e.KnownHosts + ":3", gossh.FingerprintSHA256(s.HostKeys[0].PublicKey()), gossh.FingerprintSHA256(old), "HOST KEY CHANGED", "ssh-keygen -R"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q: %s", want, err)
				}
			}
		})
	}
	if after, _ := os.ReadFile(e.KnownHosts); string(after) != string(before) {
		t.Errorf("known_hosts changed:\n%s", after)
	}
}

// TestHostKeyAlgorithmsFromKnownHosts pins the x/crypto gotcha: it prefers
// RSA and ECDSA host keys over Ed25519, so without ordering the algorithms
// from known_hosts a server whose Ed25519 key is known would present its
// ECDSA key and look changed.
func TestHostKeyAlgorithmsFromKnownHosts(t *testing.T) {
	ed, ec := newSigner(t, "ed25519"), newSigner(t, "ecdsa")
	s, e := hostKeyServer(t, serverOptions{HostKeys: []gossh.Signer{ec, ed}})
	e.trust(s.Addr, ed.PublicKey())
	c := e.mustOpen(transport.Target{Command: "echo ok", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, c).waitFor(t, "ok", 5*time.Second)
}

// TestKnownHostsGlobalAndMissing: global files are read (not written) and
// missing files are skipped.
func TestKnownHostsGlobalAndMissing(t *testing.T) {
	s, e := hostKeyServer(t, serverOptions{})
	global := filepath.Join(e.Home, "global_known_hosts")
	line := knownhosts.Line([]string{s.Addr}, s.HostKeys[0].PublicKey())
	if err := os.WriteFile(global, []byte(line+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	e.setHost("srv", func(c *sshconf.Config) {
		c.UserKnownHostsFiles = []string{filepath.Join(e.Home, "absent"), e.KnownHosts}
		c.GlobalKnownHostsFiles = []string{global, filepath.Join(e.Home, "absent-too")}
	})
	c := e.mustOpen(transport.Target{Command: "echo ok", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, c).waitFor(t, "ok", 5*time.Second)
	if _, err := os.Stat(filepath.Join(e.Home, "absent")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a known host was recorded anyway")
	}
}

// TestMalformedKnownHosts: a line that doesn't parse is an error, rather
// than silently turning a changed key into an unknown one.
func TestMalformedKnownHosts(t *testing.T) {
	_, e := hostKeyServer(t, serverOptions{})
	if err := os.WriteFile(e.KnownHosts, []byte("host ssh-ed25519 not-base64!\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := e.open(transport.Target{Spec: transport.SSHParams{Host: "srv", AcceptNewHostKey: true}})
	if err == nil || !strings.Contains(err.Error(), "known_hosts") {
		t.Fatalf("Open = %v, want a known_hosts error", err)
	}
}

func authorizedKeyBody(t *testing.T, k gossh.PublicKey) string {
	t.Helper()
	f := strings.Fields(string(gossh.MarshalAuthorizedKey(k)))
	return f[1]
}

// TestHostKeyAlias: known_hosts is searched, and written, under the alias
// alone, as ssh(1) does.
func TestHostKeyAlias(t *testing.T) {
	s, e := hostKeyServer(t, serverOptions{})
	e.setHost("srv", func(c *sshconf.Config) { c.HostKeyAlias = "build-box" })
	c := e.mustOpen(transport.Target{Command: "echo ok", Spec: transport.SSHParams{Host: "srv", AcceptNewHostKey: true}})
	startReader(t, c).waitFor(t, "ok", 5*time.Second)
	data, err := os.ReadFile(e.KnownHosts)
	if err != nil {
		t.Fatal(err)
	}
	if want := "build-box ssh-ed25519 "; !strings.HasPrefix(string(data), want) {
		t.Errorf("known_hosts = %q, want a line for %q", data, want)
	}
	// A key known for the address but not the alias does not count.
	if err := os.WriteFile(e.KnownHosts, []byte(knownhosts.Line([]string{s.Addr}, s.HostKeys[0].PublicKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	_ = c.Close()
	_, err = e.open(transport.SSHTarget("srv"))
	var ue *sshconn.UnknownHostKeyError
	if !errors.As(err, &ue) || ue.KnownAs != "build-box" {
		t.Fatalf("Open = %v, want *UnknownHostKeyError for build-box", err)
	}
}
