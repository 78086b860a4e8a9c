// Package sshdtest runs a throwaway OpenSSH sshd for tests, so that tests
// across the module (transport/sshconn, the MCP end-to-end tests) talk to the
// real server. It depends only on the standard library and
// golang.org/x/crypto/ssh, and is imported only by tests.
//
//	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
//	// d.Host, d.Port, d.User, d.ClientKey (authorized), d.KnownHostsLine()
//	// d.ConfigBlock("alias", knownHosts) writes an ssh_config Host block.
//	// d.Count("Accepted publickey") counts lines of sshd's log.
//
// sshd runs as `sshd -D -e -f <dir>/sshd_config -p <port>` on 127.0.0.1
// with a fresh Ed25519 host key and a fresh client key, PermitRootLogin
// prohibit-password, StrictModes no and UsePAM no, so it needs no system
// configuration and works as root (CI) or as an ordinary user (who can then
// log in only as themselves). The shells it starts get HOME=<dir>/home, an
// empty directory, so the user's own startup files (~/.profile, ~/.bashrc:
// a `pyenv init` there costs seconds on a busy machine) stay out of every
// test; /etc/profile still runs for login shells. Tests skip when sshd is missing, unless the CI
// environment variable is set: then they fail, because CI installs
// openssh-server.
package sshdtest

import (
	"bufio"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"
)

// SSHDOptions adjust a test sshd.
type SSHDOptions struct {
	// Config lines for sshd_config ("MaxSessions 2"). They come first,
	// because sshd keeps the first value it reads for a keyword; a Match
	// block would capture the defaults that follow it, so don't pass one.
	// SetEnv lines are merged into the one SetEnv line sshd reads (it
	// ignores every later one), which also sets HOME unless a line does.
	Config []string
	// AuthorizedKeys are extra authorized_keys lines.
	AuthorizedKeys []string
	// StartTimeout bounds the wait for sshd to listen; 0 means 10s.
	StartTimeout time.Duration
}

// SSHD is a running test sshd. Stop it with Stop; t.Cleanup does too.
type SSHD struct {
	Host string // "127.0.0.1"
	Port int
	User string // the current user, whom sshd lets in with ClientKey
	Dir  string // holds sshd_config, keys and authorized_keys
	// Home is the HOME of the shells sshd starts: an empty directory of
	// the test's, so the user's startup files are not read. The login
	// directory is still the user's own (sshd changes to it).
	Home string
	// ClientKey is the path of an unencrypted Ed25519 private key (0600)
	// listed in authorized_keys; ClientKey+".pub" is its public key.
	ClientKey string
	// HostKey is the server's public host key.
	HostKey gossh.PublicKey

	cmd      *exec.Cmd
	logR     *os.File
	scanDone chan struct{}
	stopOnce sync.Once

	mu      sync.Mutex // protects the following
	lines   []string
	changed chan struct{} // closed and replaced when a line arrives
}

// sshdPath finds sshd, skipping the test (or failing under CI) when absent.
func sshdPath(t testing.TB) string {
	t.Helper()
	for _, p := range []string{os.Getenv("TTYMUX_SSHD"), "/usr/sbin/sshd", "/usr/local/sbin/sshd"} {
		if p == "" {
			continue
		}
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("sshd"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("sshd not found, but CI is set: install openssh-server (apt-get install -y openssh-server)")
	}
	t.Skip("sshd not found; install openssh-server to run the OpenSSH tests")
	return ""
}

// StartSSHD starts an sshd and waits until it listens.
func StartSSHD(t testing.TB, opts SSHDOptions) *SSHD {
	t.Helper()
	bin := sshdPath(t)
	if os.Geteuid() == 0 {
		// sshd refuses to start without its privilege separation directory,
		// which a container may lack (systemd usually creates it).
		if err := os.MkdirAll("/run/sshd", 0o755); err != nil {
			t.Fatalf("create /run/sshd for sshd: %v", err)
		}
	}
	u, err := user.Current()
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	d := &SSHD{Host: "127.0.0.1", User: u.Username, Dir: dir, changed: make(chan struct{})}

	hostPub, err := WriteTestKey(filepath.Join(dir, "ssh_host_ed25519_key"), "sshd host key")
	if err != nil {
		t.Fatal(err)
	}
	d.HostKey = hostPub
	d.ClientKey = filepath.Join(dir, "client_ed25519")
	clientPub, err := WriteTestKey(d.ClientKey, "ttymux test client")
	if err != nil {
		t.Fatal(err)
	}
	auth := string(gossh.MarshalAuthorizedKey(clientPub))
	for _, l := range opts.AuthorizedKeys {
		auth += strings.TrimSpace(l) + "\n"
	}
	if err := os.WriteFile(filepath.Join(dir, "authorized_keys"), []byte(auth), 0o600); err != nil {
		t.Fatal(err)
	}
	d.Home = filepath.Join(dir, "home")
	// 0755: a test that logs in as another user (a password-only one)
	// gets this HOME too; it can read it, not write it.
	if err := os.Mkdir(d.Home, 0o755); err != nil {
		t.Fatal(err)
	}
	// sshd keeps the first value it reads for a keyword, so the caller's
	// lines go first.
	// HISTFILE empty: a shell hung up after the test (its link was cut)
	// would write its history into HOME while the test removes it.
	conf := configWithEnv(opts.Config, "HOME="+d.Home, "HISTFILE=")
	conf = append(conf,
		"ListenAddress 127.0.0.1",
		"HostKey "+filepath.Join(dir, "ssh_host_ed25519_key"),
		"PidFile "+filepath.Join(dir, "sshd.pid"),
		"AuthorizedKeysFile "+filepath.Join(dir, "authorized_keys"),
		"PermitRootLogin prohibit-password",
		"StrictModes no",
		"UsePAM no",
		"PasswordAuthentication no",
		"KbdInteractiveAuthentication no",
		"AllowTcpForwarding yes",
		"LogLevel INFO",
	)
	cfgPath := filepath.Join(dir, "sshd_config")
	if err := os.WriteFile(cfgPath, []byte(strings.Join(conf, "\n")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	timeout := opts.StartTimeout
	if timeout == 0 {
		timeout = 10 * time.Second
	}
	// Pick a free port and hope nobody takes it before sshd binds; retry
	// if someone did.
	var lastErr error
	for range 3 {
		port, err := FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if lastErr = d.start(bin, cfgPath, port, timeout); lastErr == nil {
			t.Cleanup(d.Stop)
			return d
		}
	}
	t.Fatalf("start sshd: %v", lastErr)
	return nil
}

// configWithEnv returns lines with their SetEnv lines merged into one, the
// first, followed by each of env whose variable no line sets: sshd reads
// only the first SetEnv line, and the first value of a variable in it.
func configWithEnv(lines []string, env ...string) []string {
	var out, vars []string
	at := -1
	for _, l := range lines {
		f := strings.Fields(l)
		if len(f) == 0 || !strings.EqualFold(f[0], "SetEnv") {
			out = append(out, l)
			continue
		}
		if at < 0 {
			at = len(out)
			out = append(out, "")
		}
		vars = append(vars, f[1:]...)
	}
	for _, e := range env {
		name, _, _ := strings.Cut(e, "=")
		set := false
		for _, v := range vars {
			set = set || strings.HasPrefix(v, name+"=")
		}
		if !set {
			vars = append(vars, e)
		}
	}
	if at < 0 {
		at = len(out)
		out = append(out, "")
	}
	out[at] = "SetEnv " + strings.Join(vars, " ")
	return out
}

// start runs sshd on port and waits for "Server listening".
func (d *SSHD) start(bin, cfgPath string, port int, timeout time.Duration) error {
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd := exec.Command(bin, "-D", "-e", "-f", cfgPath, "-p", strconv.Itoa(port))
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close() // sshd and its children hold the write end
	d.mu.Lock()
	d.lines = nil
	d.mu.Unlock()
	d.cmd, d.logR, d.scanDone, d.Port = cmd, r, make(chan struct{}), port
	go func() { // ended by Stop, which closes r
		defer close(d.scanDone)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			d.mu.Lock()
			d.lines = append(d.lines, sc.Text())
			close(d.changed)
			d.changed = make(chan struct{})
			d.mu.Unlock()
		}
	}()
	want := fmt.Sprintf("Server listening on 127.0.0.1 port %d", port)
	if err := d.waitFor(func(l string) bool {
		return strings.Contains(l, want) || strings.Contains(l, "fatal") || strings.Contains(l, "failed")
	}, timeout); err != nil {
		d.stop()
		return fmt.Errorf("%w; sshd log:\n%s", err, d.Log())
	}
	if !strings.Contains(d.Log(), want) {
		d.stop()
		return fmt.Errorf("sshd did not start:\n%s", d.Log())
	}
	return nil
}

// waitFor waits until a log line satisfies match, or timeout.
func (d *SSHD) waitFor(match func(string) bool, timeout time.Duration) error {
	deadline := time.NewTimer(timeout)
	defer deadline.Stop()
	seen := 0
	for {
		d.mu.Lock()
		lines, changed := d.lines, d.changed
		d.mu.Unlock()
		for ; seen < len(lines); seen++ {
			if match(lines[seen]) {
				return nil
			}
		}
		select {
		case <-changed:
		case <-d.scanDone:
			return errors.New("sshd exited")
		case <-deadline.C:
			return fmt.Errorf("no matching sshd log line within %s", timeout)
		}
	}
}

// WaitLog waits until sshd logs a line containing s.
func (d *SSHD) WaitLog(t testing.TB, s string, timeout time.Duration) {
	t.Helper()
	if err := d.waitFor(func(l string) bool { return strings.Contains(l, s) }, timeout); err != nil {
		t.Fatalf("waiting for %q in the sshd log: %v\n%s", s, err, d.Log())
	}
}

// WaitCount waits until sshd has logged n lines containing s.
func (d *SSHD) WaitCount(t testing.TB, s string, n int, timeout time.Duration) {
	t.Helper()
	seen := 0
	if err := d.waitFor(func(l string) bool {
		if strings.Contains(l, s) {
			seen++
		}
		return seen >= n
	}, timeout); err != nil {
		t.Fatalf("waiting for %d lines with %q in the sshd log (saw %d): %v\n%s", n, s, seen, err, d.Log())
	}
}

// Log returns what sshd has logged so far.
func (d *SSHD) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// Count returns how many log lines contain s ("Accepted publickey" counts
// authentications).
func (d *SSHD) Count(s string) int {
	d.mu.Lock()
	defer d.mu.Unlock()
	n := 0
	for _, l := range d.lines {
		if strings.Contains(l, s) {
			n++
		}
	}
	return n
}

// Addr is "127.0.0.1:port".
func (d *SSHD) Addr() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// KnownHostsLine is the known_hosts line for this server, in OpenSSH's
// "[127.0.0.1]:port keytype base64" form.
func (d *SSHD) KnownHostsLine() string {
	return fmt.Sprintf("[%s]:%d %s", d.Host, d.Port, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(d.HostKey))))
}

// ConfigBlock returns an ssh_config Host block that reaches this server as
// alias with ClientKey and the given known_hosts file; extra lines are
// added to the block.
func (d *SSHD) ConfigBlock(alias, knownHosts string, extra ...string) string {
	return ConfigBlock(alias, d.Host, d.Port, d.User, d.ClientKey, knownHosts, extra...)
}

// ConfigBlock returns an ssh_config Host block for a test server (OpenSSH's
// here, Dropbear's in dropbeartest): alias reaches host:port as user with
// key only, trusting the keys in knownHosts; extra lines are added.
func ConfigBlock(alias, host string, port int, user, key, knownHosts string, extra ...string) string {
	lines := []string{
		"Host " + alias,
		"  HostName " + host,
		"  Port " + strconv.Itoa(port),
		"  User " + user,
		"  IdentityFile " + key,
		"  IdentitiesOnly yes",
		"  UserKnownHostsFile " + knownHosts,
		"  GlobalKnownHostsFile " + knownHosts + ".global",
	}
	for _, e := range extra {
		lines = append(lines, "  "+e)
	}
	return strings.Join(lines, "\n") + "\n"
}

// Stop ends sshd and the per-connection sshd processes it forked (they run
// in sessions of their own), then waits for its log to drain. Idempotent.
func (d *SSHD) Stop() { d.stopOnce.Do(d.stop) }

func (d *SSHD) stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	pid := d.cmd.Process.Pid
	for _, child := range ChildPids(pid) {
		_ = syscall.Kill(child, syscall.SIGTERM) // best effort: it may be gone
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	_ = d.cmd.Wait() // "signal: terminated" is expected
	_ = d.logR.Close()
	<-d.scanDone
}

// ChildPids lists the processes whose parent is pid (from /proc).
func ChildPids(pid int) []int {
	ents, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range ents {
		n, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid ...; comm may hold spaces, so cut at ')'.
		s := string(b)
		if i := strings.LastIndexByte(s, ')'); i >= 0 {
			f := strings.Fields(s[i+1:])
			if len(f) > 1 && f[1] == strconv.Itoa(pid) {
				out = append(out, n)
			}
		}
	}
	return out
}

// FreePort returns a TCP port on 127.0.0.1 that was free a moment ago.
func FreePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}

// WriteTestKey writes a fresh unencrypted Ed25519 private key in OpenSSH
// format to path (0600) and its public key to path.pub.
func WriteTestKey(path, comment string) (gossh.PublicKey, error) {
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		return nil, err
	}
	block, err := gossh.MarshalPrivateKey(priv, comment)
	if err != nil {
		return nil, err
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		return nil, err
	}
	signer, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		return nil, err
	}
	pub := signer.PublicKey()
	line := strings.TrimSpace(string(gossh.MarshalAuthorizedKey(pub))) + " " + comment + "\n"
	if err := os.WriteFile(path+".pub", []byte(line), 0o644); err != nil {
		return nil, err
	}
	return pub, nil
}

// ConnectionPids lists the per-connection sshd processes (children of the
// listener): killing one drops that client's connection, as a broken link
// would.
func (d *SSHD) ConnectionPids() []int {
	if d.cmd == nil || d.cmd.Process == nil {
		return nil
	}
	return ChildPids(d.cmd.Process.Pid)
}
