package sshconn_test

import (
	"context"
	"errors"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// jumpSetup is a jump server and a target server, both accepting one
// client key, trusted, defined as "jump" and "target".
func jumpSetup(t *testing.T, forwarding bool) (jump, target *testServer, e *clientEnv) {
	t.Helper()
	e = newClientEnv(t)
	keyPath, signer := e.writeKey("id_ed25519")
	jump = startServer(t, serverOptions{Keys: []gossh.PublicKey{signer.PublicKey()}, Forwarding: forwarding})
	target = startServer(t, serverOptions{Keys: []gossh.PublicKey{signer.PublicKey()}, Password: secret})
	e.addHost("jump", jump.Addr, keyPath)
	e.addHost("target", target.Addr, keyPath)
	e.setHost("target", func(c *sshconf.Config) { c.ProxyJump = []sshconf.Jump{{Host: "jump"}} })
	e.trustServer(jump)
	e.trustServer(target)
	return jump, target, e
}

func TestProxyJump(t *testing.T) {
	jump, target, e := jumpSetup(t, true)
	c := e.mustOpen(transport.Target{Command: "echo through", Spec: transport.SSHParams{Host: "target"}})
	startReader(t, c).waitFor(t, "through", 5*time.Second)
	jump.events.wait(t, "forward 127.0.0.1:"+strconv.Itoa(target.Port)+" true")
	if n := e.Dials.Load(); n != 1 {
		t.Errorf("dialled %d TCP connections, want 1 (to the jump host)", n)
	}
	if n := target.conns.Load(); n != 1 {
		t.Errorf("target accepted %d connections, want 1", n)
	}
	if !strings.Contains(c.Client(), " via tester@"+jump.Addr) {
		t.Errorf("Client() = %q, want it to name the jump host", c.Client())
	}
	// Target.Jump "none" overrides the configured jump: a direct connection.
	c2 := e.mustOpen(transport.Target{Command: "echo direct", Spec: transport.SSHParams{Host: "target", Jump: "none"}})
	startReader(t, c2).waitFor(t, "direct", 5*time.Second)
	if strings.Contains(c2.Client(), "via") || c2.Client() == c.Client() {
		t.Errorf("Jump none: Client() = %q", c2.Client())
	}
}

// TestProxyJumpPasswordStaysWithTarget: the password authenticates the
// target, and is not offered to a jump host.
func TestProxyJumpPasswordStaysWithTarget(t *testing.T) {
	jump, target, e := jumpSetup(t, true)
	e.setHost("target", func(c *sshconf.Config) { c.IdentityFiles = nil })
	c := e.mustOpen(transport.Target{Command: "echo pw", Spec: transport.SSHParams{Host: "target", Password: secret}})
	startReader(t, c).waitFor(t, "pw", 5*time.Second)
	target.events.wait(t, "password true")
	for _, ev := range jump.events.all() {
		if strings.HasPrefix(ev, "password") {
			t.Errorf("the jump host got a password attempt")
		}
	}
}

func TestProxyJumpErrors(t *testing.T) {
	t.Run("forwarding refused", func(t *testing.T) {
		_, target, e := jumpSetup(t, false)
		_, err := e.open(transport.SSHTarget("target"))
		var je *sshconn.JumpError
		if !errors.As(err, &je) || je.Hop != 1 || je.Hops != 1 || je.Host != "jump" || je.Next != target.Addr {
			t.Fatalf("Open = %#v, want a *JumpError for hop 1 (jump) reaching %s", err, target.Addr)
		}
		var oce *gossh.OpenChannelError
		if !errors.As(err, &oce) {
			t.Errorf("cause %v is not an *ssh.OpenChannelError", je.Err)
		}
		if !strings.Contains(err.Error(), "could not open a tunnel to "+target.Addr) {
			t.Errorf("message: %s", err)
		}
	})
	t.Run("jump host auth", func(t *testing.T) {
		_, _, e := jumpSetup(t, true)
		e.setHost("jump", func(c *sshconf.Config) { c.IdentityFiles = nil })
		_, err := e.open(transport.Target{Spec: transport.SSHParams{Host: "target", Password: secret}})
		var je *sshconn.JumpError
		var ae *sshconn.AuthError
		if !errors.As(err, &je) || je.Hop != 1 || !errors.As(err, &ae) {
			t.Fatalf("Open = %v, want a *JumpError around an *AuthError", err)
		}
		if want := "password: the password is not sent to jump hosts"; !strings.Contains(err.Error(), want) && !strings.Contains(err.Error(), "password: not offered") {
			t.Errorf("error lacks %q: %s", want, err)
		}
		if !strings.HasPrefix(err.Error(), "ssh: jump host 1 of 1 (jump): authentication") {
			t.Errorf("message: %s", err)
		}
	})
	t.Run("jump host unknown", func(t *testing.T) {
		jump, _, e := jumpSetup(t, true)
		e.setHost("jump", func(c *sshconf.Config) { c.UserKnownHostsFiles = []string{c.UserKnownHostsFiles[0] + ".empty"} })
		_, err := e.open(transport.SSHTarget("target"))
		var je *sshconn.JumpError
		var ue *sshconn.UnknownHostKeyError
		if !errors.As(err, &je) || !errors.As(err, &ue) || ue.Fingerprint != gossh.FingerprintSHA256(jump.HostKeys[0].PublicKey()) {
			t.Fatalf("Open = %v, want a *JumpError around the jump host's *UnknownHostKeyError", err)
		}
	})
}

// TestHandshakeTimeout: a server that accepts TCP and never speaks must not
// hang Open (x/crypto's ClientConfig.Timeout covers only the connect).
func TestHandshakeTimeout(t *testing.T) {
	e := newClientEnv(t)
	e.addHost("silent", silentServer(t))
	e.Opener.HandshakeTimeout = 300 * time.Millisecond
	start := time.Now()
	_, err := e.open(transport.SSHTarget("silent"))
	took := time.Since(start)
	var te *sshconn.TimeoutError
	if !errors.As(err, &te) || te.Phase != "handshake" {
		t.Fatalf("Open = %v, want a handshake *TimeoutError", err)
	}
	if took < 300*time.Millisecond || took > 2*time.Second {
		t.Errorf("gave up after %s, want about 300ms", took)
	}
	if !strings.Contains(err.Error(), "did not complete the SSH handshake within 300ms") {
		t.Errorf("message: %s", err)
	}
}

// TestHandshakeCancel: cancelling ctx interrupts a hanging handshake.
func TestHandshakeCancel(t *testing.T) {
	e := newClientEnv(t)
	e.addHost("silent", silentServer(t))
	ctx, cancel := context.WithCancel(t.Context())
	time.AfterFunc(100*time.Millisecond, cancel)
	_, err := e.Opener.Open(ctx, transport.SSHTarget("silent"))
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("Open = %v, want context.Canceled", err)
	}
}

// TestProxyCommandRefused: ttymux does not run ProxyCommand, and says so
// rather than dialling the host directly; a jump override replaces it.
func TestProxyCommandRefused(t *testing.T) {
	_, e := keyServer(t, serverOptions{})
	e.setHost("srv", func(c *sshconf.Config) { c.ProxyCommand = "nc -X connect -x proxy:3128 %h %p" })
	_, err := e.open(transport.SSHTarget("srv"))
	if err == nil || !strings.Contains(err.Error(), "ProxyCommand") || !strings.Contains(err.Error(), "ProxyJump") {
		t.Fatalf("Open = %v, want a ProxyCommand error suggesting ProxyJump", err)
	}
	if n := e.Dials.Load(); n != 0 {
		t.Errorf("dialled %d times despite the ProxyCommand", n)
	}
}

func TestDialErrors(t *testing.T) {
	t.Run("refused", func(t *testing.T) {
		e := newClientEnv(t)
		ln, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := ln.Addr().String()
		ln.Close()
		e.addHost("closed", addr)
		_, err = e.open(transport.SSHTarget("closed"))
		var re *sshconn.RefusedError
		if !errors.As(err, &re) || re.Addr != addr {
			t.Fatalf("Open = %v, want *RefusedError for %s", err, addr)
		}
	})
	t.Run("name not resolved", func(t *testing.T) {
		e := newClientEnv(t)
		e.addHost("web", "127.0.0.1:22")
		e.setHost("web", func(c *sshconf.Config) { c.HostName = "no-such-host.invalid" })
		e.Opener.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			// What net.Dialer returns for NXDOMAIN, without needing DNS.
			return nil, &net.OpError{Op: "dial", Net: network, Err: &net.DNSError{Err: "no such host", Name: "no-such-host.invalid", IsNotFound: true}}
		}
		_, err := e.open(transport.SSHTarget("web"))
		var ne *sshconn.NameError
		if !errors.As(err, &ne) || ne.Name != "no-such-host.invalid" || ne.Host != "web" {
			t.Fatalf("Open = %v, want *NameError", err)
		}
		if !strings.Contains(err.Error(), `"no-such-host.invalid" (HostName of "web") could not be resolved`) {
			t.Errorf("message: %s", err)
		}
	})
	t.Run("connect timeout", func(t *testing.T) {
		e := newClientEnv(t)
		e.addHost("slow", "192.0.2.1:22")
		e.setHost("slow", func(c *sshconf.Config) { c.ConnectTimeout = 200 * time.Millisecond })
		e.Opener.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
			<-ctx.Done() // a SYN into the void
			return nil, &net.OpError{Op: "dial", Net: network, Err: ctx.Err()}
		}
		_, err := e.open(transport.SSHTarget("slow"))
		var te *sshconn.TimeoutError
		if !errors.As(err, &te) || te.Phase != "connect" {
			t.Fatalf("Open = %v, want a connect *TimeoutError", err)
		}
	})
}
