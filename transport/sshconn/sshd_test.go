package sshconn_test

// Tests against a real OpenSSH sshd (see sshdtest_test.go). Hosts are
// resolved from an ssh_config file through sshconf.Resolve, as in
// production.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// sshdEnv is a client side for real sshd tests: a scratch HOME, an
// ssh_config file, a known_hosts file and an Opener that counts its TCP
// connections.
type sshdEnv struct {
	Home       string
	Config     string // ssh_config path
	KnownHosts string
	Opener     *sshconn.Opener
	Dials      atomic.Int32
	Log        *lockedBuffer
}

func newSSHDEnv(t *testing.T, config string) *sshdEnv {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	home := t.TempDir()
	e := &sshdEnv{Home: home, Config: filepath.Join(home, "ssh_config"), KnownHosts: filepath.Join(home, "known_hosts"), Log: &lockedBuffer{}}
	if err := os.WriteFile(e.Config, []byte(strings.ReplaceAll(config, "KNOWN_HOSTS", e.KnownHosts)), 0o600); err != nil {
		t.Fatal(err)
	}
	e.Opener = &sshconn.Opener{
		Config: sshconf.Options{ConfigFile: e.Config, Home: home},
		Logger: slogTo(e.Log),
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			e.Dials.Add(1)
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}
	t.Cleanup(func() { _ = e.Opener.Close() })
	return e
}

func (e *sshdEnv) trust(t *testing.T, d *sshdtest.SSHD) {
	t.Helper()
	f, err := os.OpenFile(e.KnownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	fmt.Fprintln(f, d.KnownHostsLine())
}

func (e *sshdEnv) open(t *testing.T, tg transport.Target) (*sshconn.Conn, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	c, err := e.Opener.Open(ctx, tg)
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*sshconn.Conn), nil
}

func (e *sshdEnv) mustOpen(t *testing.T, tg transport.Target) *sshconn.Conn {
	t.Helper()
	c, err := e.open(t, tg)
	if err != nil {
		t.Fatalf("Open(%s): %v", tg.SSH().Host, err)
	}
	return c
}

// TestSSHDOneConnection runs 20 commands while a shell holds the
// connection: one TCP connection, one authentication.
func TestSSHDOneConnection(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)

	shell := e.mustOpen(t, transport.Target{Command: "exec env PS1='$ ' bash --norc --noprofile", Spec: transport.SSHParams{Host: "box"}})
	out := startReader(t, shell)
	if _, err := io.WriteString(shell, "echo shell-$((6*7))\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "shell-42", 10*time.Second)
	for i := range 20 {
		c := e.mustOpen(t, transport.Target{Command: fmt.Sprintf("echo command-%d", i), Spec: transport.SSHParams{Host: "box"}})
		rd := startReader(t, c)
		rd.waitFor(t, fmt.Sprintf("command-%d", i), 10*time.Second)
		if err := waitErr(t, c, 10*time.Second); err != nil {
			t.Fatalf("command %d: Wait = %v", i, err)
		}
		if c.Client() != shell.Client() {
			t.Fatalf("command %d ran on %s, the shell on %s", i, c.Client(), shell.Client())
		}
		_ = c.Close()
	}
	if n := e.Dials.Load(); n != 1 {
		t.Errorf("%d TCP connections, want 1", n)
	}
	if n := d.Count("Accepted publickey"); n != 1 {
		t.Errorf("sshd logged %d authentications, want 1:\n%s", n, d.Log())
	}
}

// TestSSHDMaxSessions: when sshd refuses another session on a connection
// (MaxSessions), the session gets a connection of its own.
func TestSSHDMaxSessions(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{"MaxSessions 2"}})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)
	var clients []string
	for i := range 3 {
		c := e.mustOpen(t, transport.Target{Command: fmt.Sprintf("echo s%d; exec sleep 60", i), Spec: transport.SSHParams{Host: "box"}})
		startReader(t, c).waitFor(t, fmt.Sprintf("s%d", i), 10*time.Second)
		clients = append(clients, c.Client())
	}
	if clients[0] != clients[1] || clients[2] == clients[0] {
		t.Errorf("connections %q, want the first two shared and the third new", clients)
	}
	if n := e.Dials.Load(); n != 2 {
		t.Errorf("%d TCP connections, want 2", n)
	}
}

func TestSSHDShellResizeSignal(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)
	c := e.mustOpen(t, transport.Target{Size: transport.Size{Rows: 24, Cols: 80}, Command: "exec env PS1='$ ' bash --norc --noprofile", Spec: transport.SSHParams{Host: "box"}})
	out := startReader(t, c)
	if _, err := io.WriteString(c, "stty size; echo $TERM\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "24 80\r\nxterm-256color", 10*time.Second)
	if err := c.Resize(t.Context(), transport.Size{Rows: 33, Cols: 101}); err != nil {
		t.Fatal(err)
	}
	if _, err := io.WriteString(c, "stty size\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "33 101", 10*time.Second)

	s := e.mustOpen(t, transport.Target{Command: "echo sleeping; exec sleep 60", Spec: transport.SSHParams{Host: "box"}})
	startReader(t, s).waitFor(t, "sleeping", 10*time.Second)
	if err := s.Signal(t.Context(), "TERM"); err != nil {
		t.Fatal(err)
	}
	if os.Geteuid() == 0 {
		// sshd runs a root login's session without privilege separation,
		// and then refuses signal requests (session.c session_signal_req).
		d.WaitLog(t, "session signalling requires privilege separation", 10*time.Second)
	} else {
		var ee *transport.ExitError
		if err := waitErr(t, s, 10*time.Second); !errors.As(err, &ee) || ee.Signal != "TERM" || ee.Status != 143 {
			t.Fatalf("Wait = %v, want killed by TERM; sshd log:\n%s", err, d.Log())
		}
	}
	var ee *transport.ExitError
	x := e.mustOpen(t, transport.Target{Command: "exit 5", Spec: transport.SSHParams{Host: "box"}})
	startReader(t, x)
	if err := waitErr(t, x, 10*time.Second); !errors.As(err, &ee) || ee.Status != 5 {
		t.Fatalf("Wait = %v, want exit status 5", err)
	}
}

// TestSSHDChangedHostKey: the message names the known_hosts file and line.
func TestSSHDChangedHostKey(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	other := newSigner(t, "ed25519").PublicKey()
	lines := "# managed by hand\n" + fmt.Sprintf("[%s]:%d %s", d.Host, d.Port, gossh.MarshalAuthorizedKey(other))
	if err := os.WriteFile(e.KnownHosts, []byte(lines), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := e.open(t, transport.Target{Spec: transport.SSHParams{Host: "box", AcceptNewHostKey: true}})
	var ce *sshconn.HostKeyChangedError
	if !errors.As(err, &ce) {
		t.Fatalf("Open = %v, want *HostKeyChangedError", err)
	}
	if want := e.KnownHosts + ":2"; !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks %q: %s", want, err)
	}
	if want := gossh.FingerprintSHA256(d.HostKey); !strings.Contains(err.Error(), want) {
		t.Errorf("error lacks the offered key's fingerprint %s: %s", want, err)
	}
	if n := d.Count("Accepted"); n != 0 {
		t.Errorf("authenticated despite the changed key:\n%s", d.Log())
	}
}

// TestSSHDUnknownHost: refused with the fingerprint, recorded with
// accept_new_host_key, known afterwards; ssh-keygen finds the line.
func TestSSHDUnknownHost(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS", "HashKnownHosts yes"))
	_, err := e.open(t, transport.SSHTarget("box"))
	var ue *sshconn.UnknownHostKeyError
	if !errors.As(err, &ue) || ue.Fingerprint != gossh.FingerprintSHA256(d.HostKey) {
		t.Fatalf("Open = %v, want *UnknownHostKeyError with %s", err, gossh.FingerprintSHA256(d.HostKey))
	}
	c := e.mustOpen(t, transport.Target{Command: "echo first", Spec: transport.SSHParams{Host: "box", AcceptNewHostKey: true}})
	startReader(t, c).waitFor(t, "first", 10*time.Second)
	_ = c.Close()

	// A new Opener (no pooled connection) without accept_new_host_key.
	e2 := newSSHDEnv(t, d.ConfigBlock("box", e.KnownHosts))
	c = e2.mustOpen(t, transport.Target{Command: "echo second", Spec: transport.SSHParams{Host: "box"}})
	startReader(t, c).waitFor(t, "second", 10*time.Second)

	data, _ := os.ReadFile(e.KnownHosts)
	if !strings.HasPrefix(string(data), "|1|") {
		t.Errorf("HashKnownHosts yes, but the line is not hashed: %q", data)
	}
	if keygen, err := exec.LookPath("ssh-keygen"); err == nil {
		out, err := exec.Command(keygen, "-F", fmt.Sprintf("[%s]:%d", d.Host, d.Port), "-f", e.KnownHosts).CombinedOutput()
		if err != nil || !strings.Contains(string(out), "ssh-ed25519") {
			t.Errorf("ssh-keygen -F does not find the recorded key (%v):\n%s", err, out)
		}
	}
}

// TestSSHDProxyJump goes through one sshd to another, configured as
// aliases in one ssh_config file.
func TestSSHDProxyJump(t *testing.T) {
	bastion := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	inner := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{AuthorizedKeys: []string{publicKeyLine(t, bastion.ClientKey)}})
	config := bastion.ConfigBlock("bastion", "KNOWN_HOSTS") +
		strings.Replace(inner.ConfigBlock("inner", "KNOWN_HOSTS", "ProxyJump bastion"),
			"IdentityFile "+inner.ClientKey, "IdentityFile "+bastion.ClientKey, 1)
	e := newSSHDEnv(t, config)
	e.trust(t, bastion)
	e.trust(t, inner)
	c := e.mustOpen(t, transport.Target{Command: "echo inside", Spec: transport.SSHParams{Host: "inner"}})
	startReader(t, c).waitFor(t, "inside", 10*time.Second)
	if err := waitErr(t, c, 10*time.Second); err != nil {
		t.Fatal(err)
	}
	if n := e.Dials.Load(); n != 1 {
		t.Errorf("%d TCP connections dialled, want 1 (to the bastion)", n)
	}
	if bastion.Count("Accepted publickey") != 1 || inner.Count("Accepted publickey") != 1 {
		t.Errorf("want one authentication on each:\nbastion:\n%s\ninner:\n%s", bastion.Log(), inner.Log())
	}
	if !strings.Contains(c.Client(), " via ") {
		t.Errorf("Client() = %q, want the jump chain", c.Client())
	}
}

// TestSSHDKeepaliveBlackHole: a proxy between client and sshd stops
// forwarding without closing; with ServerAliveInterval 200ms and
// ServerAliveCountMax 2, Read and Wait report the dead link within ~1s.
func TestSSHDKeepaliveBlackHole(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	p := startProxy(t, d.Addr())
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)
	// ssh_config counts ServerAliveInterval in whole seconds.
	e.Opener.SetResolve(func(ctx context.Context, host string, ov sshconf.Overrides, opts sshconf.Options) (sshconf.Config, error) {
		c, err := sshconf.Resolve(ctx, host, ov, opts)
		c.ServerAliveInterval, c.ServerAliveCountMax = 200*time.Millisecond, 2
		return c, err
	})
	dial := e.Opener.Dial
	e.Opener.Dial = func(ctx context.Context, network, addr string) (net.Conn, error) {
		return dial(ctx, network, p.Addr)
	}
	c := e.mustOpen(t, transport.Target{Command: "exec env PS1='$ ' bash --norc --noprofile", Spec: transport.SSHParams{Host: "box"}})
	out := startReader(t, c)
	if _, err := io.WriteString(c, "echo up-$((1+1))\n"); err != nil {
		t.Fatal(err)
	}
	out.waitFor(t, "up-2", 10*time.Second)

	start := time.Now()
	p.BlackHole()
	err := out.end(t, 5*time.Second)
	took := time.Since(start)
	var le *sshconn.LinkError
	if !errors.As(err, &le) || !le.BlackHoled {
		t.Fatalf("Read = %v, want a black-holed *LinkError", err)
	}
	if took > 1500*time.Millisecond {
		t.Errorf("noticed after %s, want within about 1s", took)
	}
	if werr := waitErr(t, c, time.Second); !errors.As(werr, &le) {
		t.Errorf("Wait = %v, want *LinkError", werr)
	}
	t.Logf("dead link noticed after %s", took)
}

// TestSSHDAuthFailure lists every method and never the password.
func TestSSHDAuthFailure(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{"PasswordAuthentication yes"}})
	stranger := filepath.Join(t.TempDir(), "id_ed25519")
	if _, err := sshdtest.WriteTestKey(stranger, "stranger"); err != nil {
		t.Fatal(err)
	}
	e := newSSHDEnv(t, strings.Replace(d.ConfigBlock("box", "KNOWN_HOSTS"), d.ClientKey, stranger, 1))
	e.trust(t, d)
	_, err := e.open(t, transport.Target{Spec: transport.SSHParams{Host: "box", Password: secret}})
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		t.Fatalf("Open = %v, want *AuthError", err)
	}
	for _, want := range []string{"publickey: tried agent (SSH_AUTH_SOCK not set), " + stranger + " (rejected)", "password: rejected", "keyboard-interactive: not offered by the server"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %q:\n%s", want, err)
		}
	}
	if strings.Contains(err.Error(), secret) || strings.Contains(e.Log.String(), secret) {
		t.Error("the password leaked into the error or the log")
	}
	t.Log(err)
}

func publicKeyLine(t *testing.T, privPath string) string {
	t.Helper()
	b, err := os.ReadFile(privPath + ".pub")
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(b))
}

// TestSSHDPoolKeepsEachAliasTrust: a second alias for an address whose
// connection is pooled does not ride that connection past its own
// known_hosts check, which here holds a different key.
func TestSSHDPoolKeepsEachAliasTrust(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	home := t.TempDir()
	wrong := filepath.Join(home, "wrong_known_hosts")
	other := newSigner(t, "ed25519").PublicKey()
	if err := os.WriteFile(wrong, fmt.Appendf(nil, "[%s]:%d %s", d.Host, d.Port, gossh.MarshalAuthorizedKey(other)), 0o600); err != nil {
		t.Fatal(err)
	}
	e := newSSHDEnv(t, d.ConfigBlock("good", "KNOWN_HOSTS")+d.ConfigBlock("doubtful", wrong))
	e.trust(t, d)
	c := e.mustOpen(t, transport.Target{Command: "echo ready; exec sleep 30", Spec: transport.SSHParams{Host: "good"}})
	startReader(t, c).waitFor(t, "ready", 10*time.Second)

	_, err := e.open(t, transport.Target{Command: "true", Spec: transport.SSHParams{Host: "doubtful"}})
	var ce *sshconn.HostKeyChangedError
	if !errors.As(err, &ce) {
		t.Fatalf("Open(doubtful) while good's connection is pooled = %v, want *HostKeyChangedError", err)
	}
	if n := e.Dials.Load(); n != 2 {
		t.Errorf("opener dialled %d times, want 2 (one per trust setting)", n)
	}
	// A second session of the same alias still shares the connection.
	c2 := e.mustOpen(t, transport.Target{Command: "echo again", Spec: transport.SSHParams{Host: "good"}})
	startReader(t, c2).waitFor(t, "again", 10*time.Second)
	if c2.Client() != c.Client() {
		t.Errorf("a second session of one alias got connection %s, want the pooled %s", c2.Client(), c.Client())
	}
}
