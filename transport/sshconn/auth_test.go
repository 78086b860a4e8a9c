package sshconn_test

import (
	"errors"
	"net"
	"path/filepath"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
	"golang.org/x/crypto/ssh/agent"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// secret is a password no message or log may contain.
const secret = "pw-Hunter2-do-not-leak"

func TestAuthMethods(t *testing.T) {
	tests := []struct {
		name     string
		server   serverOptions
		password string
		event    string // server event proving which method won
	}{
		{name: "password", server: serverOptions{Password: secret}, password: secret, event: "password true"},
		{name: "keyboard-interactive answers every prompt", server: serverOptions{KbdAnswer: secret}, password: secret, event: "keyboard-interactive true"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := newClientEnv(t)
			s := startServer(t, tt.server)
			e.addHost("srv", s.Addr)
			e.trustServer(s)
			c := e.mustOpen(transport.Target{Command: "echo in", Spec: transport.SSHParams{Host: "srv", Password: tt.password}})
			startReader(t, c).waitFor(t, "in", 5*time.Second)
			s.events.wait(t, tt.event)
			if strings.Contains(e.Log.String(), secret) {
				t.Errorf("the log contains the password:\n%s", e.Log)
			}
		})
	}
}

// TestEncryptedKey: an encrypted identity file is skipped with a note
// without a password, and unlocked with it.
func TestEncryptedKey(t *testing.T) {
	e := newClientEnv(t)
	path, pub := e.encryptedKey("id_ed25519", "encrypted_secret")
	s := startServer(t, serverOptions{Keys: []gossh.PublicKey{pub}})
	e.addHost("srv", s.Addr, path)
	e.trustServer(s)

	_, err := e.open(transport.SSHTarget("srv"))
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Open without password = %v, want *AuthError", err)
	}
	if want := "~/.ssh/id_ed25519 (encrypted; pass password to unlock)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error %q lacks %q", err, want)
	}
	_, err = e.open(transport.Target{Spec: transport.SSHParams{Host: "srv", Password: "wrong-" + secret}})
	if want := "encrypted; the password given does not unlock it"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open with a wrong password = %v, want %q", err, want)
	}
	c := e.mustOpen(transport.Target{Command: "echo unlocked", Spec: transport.SSHParams{Host: "srv", Password: secret}})
	startReader(t, c).waitFor(t, "unlocked", 5*time.Second)
	s.events.wait(t, "publickey "+gossh.FingerprintSHA256(pub)+" true")
}

// TestAuthFailureListsMethods: when everything fails, one error lists each
// method, what was tried and why it failed, and never the password.
func TestAuthFailureListsMethods(t *testing.T) {
	e := newClientEnv(t)
	rejected, _ := e.writeKey("id_ed25519")
	encrypted, _ := e.encryptedKey("id_rsa", "encrypted_other")
	s := startServer(t, serverOptions{Keys: []gossh.PublicKey{newSigner(t, "ed25519").PublicKey()}, Password: "the right one", KbdAnswer: "the right one"})
	e.addHost("srv", s.Addr, rejected, encrypted, filepath.Join(e.Home, ".ssh", "id_missing"))
	e.trustServer(s)

	_, err := e.open(transport.SSHTarget("srv"))
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Open = %v, want *AuthError", err)
	}
	for _, want := range []string{
		`authentication as "tester" on srv failed`,
		"publickey: tried agent (SSH_AUTH_SOCK not set), ~/.ssh/id_ed25519 (rejected), ~/.ssh/id_rsa (encrypted; pass password to unlock)",
		"password: no password given",
		"keyboard-interactive: no password given",
		"Pass password",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
	if strings.Contains(err.Error(), "id_missing") {
		t.Errorf("a missing identity file is mentioned: %s", err)
	}

	_, err = e.open(transport.Target{Spec: transport.SSHParams{Host: "srv", Password: secret}})
	if !errors.As(err, &ae) {
		t.Fatalf("Open = %v, want *AuthError", err)
	}
	for _, want := range []string{
		"~/.ssh/id_rsa (encrypted; the password given does not unlock it)",
		"password: rejected",
		"keyboard-interactive: rejected",
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
	s.events.wait(t, "password false")
	s.events.wait(t, "keyboard-interactive false")
	if strings.Contains(err.Error(), secret) || strings.Contains(e.Log.String(), secret) {
		t.Errorf("the password leaked into the error or the log:\n%s\n%s", err, e.Log)
	}
	t.Log(err)
}

// TestAuthMethodNotOffered: methods the server does not accept are
// reported as such.
func TestAuthMethodNotOffered(t *testing.T) {
	e := newClientEnv(t)
	s := startServer(t, serverOptions{Keys: []gossh.PublicKey{newSigner(t, "ed25519").PublicKey()}})
	e.addHost("srv", s.Addr)
	e.trustServer(s)
	_, err := e.open(transport.Target{Spec: transport.SSHParams{Host: "srv", Password: secret}})
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Open = %v, want *AuthError", err)
	}
	if want := "password: not offered by the server"; !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, err)
	}
	if len(ae.Allowed) != 1 || ae.Allowed[0] != "publickey" {
		t.Errorf("Allowed = %q, want [publickey]", ae.Allowed)
	}
}

// TestAgent: keys come from the agent at SSH_AUTH_SOCK first;
// IdentitiesOnly restricts them to the configured identity files.
func TestAgent(t *testing.T) {
	e := newClientEnv(t)
	agentKey := newSigner(t, "ed25519")
	fileKeyPath, fileKey := e.writeKey("id_ed25519")
	sock := startAgent(t, agentKey, fileKey)
	t.Setenv("SSH_AUTH_SOCK", sock)

	s := startServer(t, serverOptions{Keys: []gossh.PublicKey{agentKey.PublicKey()}})
	e.addHost("srv", s.Addr, fileKeyPath)
	e.trustServer(s)
	c := e.mustOpen(transport.Target{Command: "echo via-agent", Spec: transport.SSHParams{Host: "srv"}})
	startReader(t, c).waitFor(t, "via-agent", 5*time.Second)
	// The agent's copy of the configured key goes first, then other agent keys.
	evs := s.events.all()
	first, second := "publickey "+gossh.FingerprintSHA256(fileKey.PublicKey())+" false", "publickey "+gossh.FingerprintSHA256(agentKey.PublicKey())+" true"
	if i, j := indexOf(evs, first), indexOf(evs, second); i < 0 || j < 0 || i > j {
		t.Errorf("server saw %q, want %q before %q", evs, first, second)
	}
	_ = c.Close()

	e.setHost("srv", func(c *sshconf.Config) { c.IdentitiesOnly = true })
	_, err := e.open(transport.SSHTarget("srv"))
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Open with IdentitiesOnly = %v, want *AuthError", err)
	}
	if want := "publickey: tried ~/.ssh/id_ed25519 via agent (rejected)"; !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks %q:\n%s", want, err)
	}
	if strings.Contains(err.Error(), "agent key") {
		t.Errorf("IdentitiesOnly offered another agent key:\n%s", err)
	}

	t.Setenv("SSH_AUTH_SOCK", filepath.Join(t.TempDir(), "nothing-here"))
	_, err = e.open(transport.SSHTarget("srv"))
	if want := "agent (unreachable at"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("Open with a dead agent socket = %v, want %q", err, want)
	}
}

func indexOf(list []string, s string) int {
	for i, v := range list {
		if v == s {
			return i
		}
	}
	return -1
}

// startAgent serves an in-memory ssh-agent holding keys on a Unix socket.
func startAgent(t *testing.T, keys ...gossh.Signer) string {
	t.Helper()
	kr := agent.NewKeyring()
	for i, k := range keys {
		priv, ok := signerKeys.Load(k)
		if !ok {
			t.Fatal("no private key recorded for a signer")
		}
		if err := kr.Add(agent.AddedKey{PrivateKey: priv, Comment: "agent-test-" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	sock := filepath.Join(t.TempDir(), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { // ends when the listener closes
		defer close(done)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() { // ends when the client hangs up
				defer c.Close()
				_ = agent.ServeAgent(kr, c)
			}()
		}
	}()
	t.Cleanup(func() {
		_ = ln.Close()
		<-done
	})
	return sock
}
