package sshconn_test

// Tests against a real Dropbear sshd (internal/dropbeartest), the server
// of routers and boards.

import (
	"io"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/dropbeartest"
	"github.com/ttymux/ttymux/transport"
)

// TestDropbear logs in to Dropbear with a key and with a password, with
// each set of host keys a router may have. An unknown host is accepted
// (accept_new), so no known_hosts entry orders the host key algorithms:
// the order ttymux offers decides.
//
// Before hostKeyOrder, the ed25519-only server dropped the handshake:
// Dropbear 2022.83 advertises rsa-sha2-256 and ssh-rsa with no RSA key,
// x/crypto's default order picked rsa-sha2-256, and Dropbear failed an
// assertion (rsa.c:164) where OpenSSH's client connects.
func TestDropbear(t *testing.T) {
	for _, tt := range []struct {
		name     string
		keys     []string
		password bool
	}{
		{name: "key, ed25519 and rsa host keys", keys: []string{"ed25519", "rsa"}},
		{name: "key, only an ed25519 host key", keys: []string{"ed25519"}},
		{name: "key, only an rsa host key", keys: []string{"rsa"}},
		{name: "key, only an ecdsa host key", keys: []string{"ecdsa"}},
		{name: "password, only an ed25519 host key", keys: []string{"ed25519"}, password: true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			opts := dropbeartest.Options{HostKeys: tt.keys}
			if tt.password {
				opts.Password = "router-pass-1"
			}
			d := dropbeartest.Start(t, opts)
			block := d.ConfigBlock("router", "KNOWN_HOSTS")
			if tt.password {
				// No key to offer: the password must do.
				block = strings.Replace(block, d.ClientKey, d.ClientKey+".absent", 1)
			}
			e := newSSHDEnv(t, block)
			sp := transport.SSHParams{Host: "router", AcceptNewHostKey: true}
			if tt.password {
				sp.Password = d.Password
			}
			tg := transport.Target{Command: "echo logged-in-as-$(id -un)", Spec: sp}
			c, err := e.open(t, tg)
			if err != nil {
				t.Fatalf("Open: %v\ndropbear log:\n%s", err, d.Log())
			}
			startReader(t, c).waitFor(t, "logged-in-as-"+d.User, 10*time.Second)
			if err := waitErr(t, c, 10*time.Second); err != nil {
				t.Fatalf("Wait = %v", err)
			}
			kh, _ := os.ReadFile(e.KnownHosts)
			if want := strings.Fields(d.KnownHostsLines())[1]; !strings.Contains(string(kh), want) {
				t.Errorf("known_hosts holds %q, want a %s key recorded", kh, want)
			}
			auth := "Pubkey auth succeeded"
			if tt.password {
				auth = "Password auth succeeded"
			}
			if !strings.Contains(d.Log(), auth) {
				t.Errorf("dropbear did not log %q:\n%s", auth, d.Log())
			}
		})
	}
}

// TestDropbearLoginShell: an interactive shell through Dropbear's PTY.
func TestDropbearLoginShell(t *testing.T) {
	d := dropbeartest.Start(t, dropbeartest.Options{HostKeys: []string{"ed25519"}, Shell: dropbeartest.Ash(t)})
	e := newSSHDEnv(t, d.ConfigBlock("router", "KNOWN_HOSTS"))
	c, err := e.open(t, transport.Target{Size: transport.Size{Rows: 24, Cols: 80}, Spec: transport.SSHParams{Host: "router", AcceptNewHostKey: true}})
	if err != nil {
		t.Fatalf("Open: %v\ndropbear log:\n%s", err, d.Log())
	}
	out := startReader(t, c)
	if _, err := io.WriteString(c, "echo $((6*7))-$0; stty size\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "42--ash", 10*time.Second)
	out.waitFor(t, "24 80", 10*time.Second)
}
