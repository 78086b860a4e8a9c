// Package dropbeartest runs a throwaway Dropbear sshd for tests: the SSH
// server of routers and boards (OpenWrt), beside internal/sshdtest's
// OpenSSH. It is imported only by tests.
//
//	d := dropbeartest.Start(t, dropbeartest.Options{Shell: dropbeartest.Ash(t)})
//	// d.Host, d.Port, d.User, d.Home, d.ClientKey (authorized), d.Password
//	// d.KnownHostsLine(), d.ConfigBlock("alias", knownHosts)
//
// Dropbear has no configuration file: it reads authorized_keys from the
// user's passwd home and sets HOME from it. So every server logs in a test
// user of its own (internal/usertest: useradd, removed with its home when
// the test ends), whose home is private to the test, never the real
// user's. That needs root, as CI runs; the tests skip otherwise, and when
// dropbear is missing unless CI is set (CI installs dropbear-bin).
//
// dropbear runs as `dropbear -F -E -p 127.0.0.1:PORT -r KEY… -P PIDFILE`
// with fresh host keys of the types asked for. With NoSFTP it runs in a
// mount namespace of its own where the sftp-server it would start is an
// empty file, as on a router without one.
package dropbeartest

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/internal/usertest"
)

// Options adjust a test Dropbear.
type Options struct {
	// HostKeys are the host key types to make ("ed25519", "rsa",
	// "ecdsa"); nil means ed25519 and rsa, a Dropbear's usual pair.
	HostKeys []string
	// Shell is the test user's login shell; "" means /bin/sh. It must be
	// listed in /etc/shells: Dropbear refuses other shells.
	Shell string
	// Password, when set, is the test user's password (else the account
	// has none and only ClientKey logs in).
	Password string
	// NoSFTP hides the sftp-server binary from Dropbear.
	NoSFTP bool
	// Files are written into the test user's home (name → content),
	// owned by them: .profile, say.
	Files map[string]string
}

// Dropbear is a running test server; t.Cleanup stops it.
type Dropbear struct {
	Host      string // "127.0.0.1"
	Port      int
	User      string // the test user Dropbear logs in
	Home      string // their home, private to the test
	Password  string // Options.Password
	ClientKey string // an unencrypted Ed25519 key in Home's authorized_keys
	// HostKeys are the server's public host keys, in Options.HostKeys
	// order.
	HostKeys []gossh.PublicKey
	Dir      string // holds the host keys and the pid file

	cmd      *exec.Cmd
	logR     *os.File
	scanDone chan struct{}
	stopOnce sync.Once

	mu    sync.Mutex // protects lines
	lines []string
}

// Path finds dropbear, skipping the test (or failing under CI) when absent.
func Path(t testing.TB) string {
	t.Helper()
	for _, p := range []string{"/usr/sbin/dropbear", "/usr/local/sbin/dropbear"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	if p, err := exec.LookPath("dropbear"); err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatal("dropbear not found, but CI is set: install dropbear-bin")
	}
	t.Skip("dropbear not found; install dropbear-bin to run the Dropbear tests")
	return ""
}

// ashPath is where Ash puts BusyBox's ash, as a router has it.
const ashPath = "/usr/local/bin/ash"

// Ash returns the path of a BusyBox ash usable as a login shell: a link
// named ash to busybox (busybox picks its applet from the name), listed in
// /etc/shells. It makes both when missing (root only) and leaves them:
// they change nothing for anyone else.
func Ash(t testing.TB) string {
	t.Helper()
	bb, err := exec.LookPath("busybox")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("busybox not found, but CI is set: install busybox")
		}
		t.Skip("busybox not found; install busybox to run the BusyBox ash tests")
	}
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a BusyBox ash login shell; CI runs as root")
	}
	if _, err := os.Lstat(ashPath); errors.Is(err, os.ErrNotExist) {
		if err := os.Symlink(bb, ashPath); err != nil && !errors.Is(err, os.ErrExist) {
			t.Fatalf("link %s to busybox: %v", ashPath, err)
		}
	}
	AllowShell(t, ashPath)
	return ashPath
}

var shellsMu sync.Mutex

// AllowShell adds shell to /etc/shells when it is not there.
func AllowShell(t testing.TB, shell string) {
	t.Helper()
	shellsMu.Lock()
	defer shellsMu.Unlock()
	b, err := os.ReadFile("/etc/shells")
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		t.Fatal(err)
	}
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) == shell {
			return
		}
	}
	f, err := os.OpenFile("/etc/shells", os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatalf("add %s to /etc/shells: %v", shell, err)
	}
	defer f.Close()
	line := shell + "\n"
	if len(b) > 0 && b[len(b)-1] != '\n' {
		line = "\n" + line
	}
	if _, err := f.WriteString(line); err != nil {
		t.Fatalf("add %s to /etc/shells: %v", shell, err)
	}
}

// Start makes a test user and host keys, starts Dropbear on a free
// loopback port and waits until it listens.
func Start(t testing.TB, opts Options) *Dropbear {
	t.Helper()
	bin := Path(t)
	u := usertest.Create(t)
	shell := opts.Shell
	if shell == "" {
		shell = "/bin/sh"
	}
	if out, err := exec.Command("usermod", "-s", shell, u.Name).CombinedOutput(); err != nil {
		t.Fatalf("usermod -s %s: %v\n%s", shell, err, out)
	}
	if opts.Password != "" {
		cmd := exec.Command("chpasswd")
		cmd.Stdin = strings.NewReader(u.Name + ":" + opts.Password + "\n")
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("chpasswd: %v\n%s", err, out)
		}
	}
	dir := t.TempDir()
	d := &Dropbear{Host: "127.0.0.1", User: u.Name, Home: u.Home, Password: opts.Password, Dir: dir}

	// The client key lives in the test's directory; its public half in
	// the user's authorized_keys, which Dropbear checks is theirs and
	// not writable by others.
	d.ClientKey = filepath.Join(dir, "client_ed25519")
	pub, err := sshdtest.WriteTestKey(d.ClientKey, "ttymux dropbear client")
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]string{".ssh/authorized_keys": string(gossh.MarshalAuthorizedKey(pub))}
	for k, v := range opts.Files {
		files[k] = v
	}
	for name, content := range files {
		d.WriteFile(t, name, content)
	}

	types := opts.HostKeys
	if types == nil {
		types = []string{"ed25519", "rsa"}
	}
	var args []string
	for _, typ := range types {
		kf := filepath.Join(dir, "host_"+typ)
		if out, err := exec.Command("dropbearkey", "-t", typ, "-f", kf).CombinedOutput(); err != nil {
			t.Fatalf("dropbearkey -t %s: %v\n%s", typ, err, out)
		}
		out, err := exec.Command("dropbearkey", "-y", "-f", kf).Output()
		if err != nil {
			t.Fatalf("dropbearkey -y: %v", err)
		}
		var key gossh.PublicKey
		for _, l := range strings.Split(string(out), "\n") {
			if k, _, _, _, err := gossh.ParseAuthorizedKey([]byte(l)); err == nil {
				key = k
				break
			}
		}
		if key == nil {
			t.Fatalf("no public key in dropbearkey -y output:\n%s", out)
		}
		d.HostKeys = append(d.HostKeys, key)
		args = append(args, "-r", kf)
	}
	var lastErr error
	for range 3 {
		port, err := sshdtest.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		if lastErr = d.start(bin, args, port, opts.NoSFTP); lastErr == nil {
			t.Cleanup(d.Stop)
			return d
		}
	}
	t.Fatalf("start dropbear: %v", lastErr)
	return nil
}

// WriteFile writes content to name under the test user's home, making
// directories (0700) as needed, all owned by the user.
func (d *Dropbear) WriteFile(t testing.TB, name, content string) {
	t.Helper()
	uid, gid := d.ids(t)
	p := filepath.Join(d.Home, name)
	for dir := filepath.Dir(p); dir != d.Home && strings.HasPrefix(dir, d.Home); dir = filepath.Dir(dir) {
		if err := os.MkdirAll(dir, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(dir, uid, gid); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(p, uid, gid); err != nil {
		t.Fatal(err)
	}
}

func (d *Dropbear) ids(t testing.TB) (int, int) {
	t.Helper()
	fi, err := os.Stat(d.Home)
	if err != nil {
		t.Fatal(err)
	}
	st := fi.Sys().(*syscall.Stat_t)
	return int(st.Uid), int(st.Gid)
}

// start runs dropbear on port and waits until it listens.
func (d *Dropbear) start(bin string, keys []string, port int, noSFTP bool) error {
	pidFile := filepath.Join(d.Dir, "dropbear.pid")
	_ = os.Remove(pidFile)
	argv := append([]string{bin, "-F", "-E", "-p", net.JoinHostPort(d.Host, strconv.Itoa(port)), "-P", pidFile}, keys...)
	var cmd *exec.Cmd
	if noSFTP {
		// Dropbear execs a fixed sftp-server path; an empty file bound
		// over it, in a mount namespace of dropbear's own, is a server
		// without SFTP that changes nothing outside.
		empty := filepath.Join(d.Dir, "no-sftp-server")
		if err := os.WriteFile(empty, nil, 0o644); err != nil {
			return err
		}
		script := `for p in /usr/lib/sftp-server /usr/libexec/sftp-server /usr/lib/openssh/sftp-server; do [ -e "$p" ] && mount --bind "$0" "$(readlink -f "$p")"; done; exec "$@"`
		cmd = exec.Command("unshare", append([]string{"-m", "--propagation", "private", "sh", "-c", script, empty}, argv...)...)
	} else {
		cmd = exec.Command(argv[0], argv[1:]...)
	}
	r, w, err := os.Pipe()
	if err != nil {
		return err
	}
	cmd.Stdout, cmd.Stderr = w, w
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		r.Close()
		w.Close()
		return err
	}
	w.Close()
	d.mu.Lock()
	d.lines = nil
	d.mu.Unlock()
	d.cmd, d.logR, d.scanDone, d.Port = cmd, r, make(chan struct{}), port
	exited := make(chan struct{})
	go func() { // ended by stop, which closes r
		defer close(d.scanDone)
		sc := bufio.NewScanner(r)
		for sc.Scan() {
			d.mu.Lock()
			d.lines = append(d.lines, sc.Text())
			d.mu.Unlock()
		}
		close(exited)
	}()
	// Dropbear writes its pid file once its sockets listen.
	ok := testwait.Poll(context.Background(), 10*time.Second, func() bool {
		select {
		case <-exited:
			return true
		default:
		}
		b, err := os.ReadFile(pidFile)
		return err == nil && len(b) > 0
	})
	select {
	case <-exited:
		d.stop()
		return fmt.Errorf("dropbear exited:\n%s", d.Log())
	default:
	}
	if !ok {
		d.stop()
		return fmt.Errorf("dropbear did not write its pid file within 10s:\n%s", d.Log())
	}
	return nil
}

// Log returns what Dropbear has logged so far.
func (d *Dropbear) Log() string {
	d.mu.Lock()
	defer d.mu.Unlock()
	return strings.Join(d.lines, "\n")
}

// Count returns how many log lines contain s.
func (d *Dropbear) Count(s string) int {
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
func (d *Dropbear) Addr() string { return net.JoinHostPort(d.Host, strconv.Itoa(d.Port)) }

// KnownHostsLines are the known_hosts lines for this server's host keys.
func (d *Dropbear) KnownHostsLines() string {
	var b strings.Builder
	for _, k := range d.HostKeys {
		fmt.Fprintf(&b, "[%s]:%d %s\n", d.Host, d.Port, strings.TrimSpace(string(gossh.MarshalAuthorizedKey(k))))
	}
	return b.String()
}

// ConfigBlock returns an ssh_config Host block that reaches this server as
// alias, as the test user with ClientKey, with the given known_hosts file;
// extra lines are added to the block.
func (d *Dropbear) ConfigBlock(alias, knownHosts string, extra ...string) string {
	return sshdtest.ConfigBlock(alias, d.Host, d.Port, d.User, d.ClientKey, knownHosts, extra...)
}

// Stop ends Dropbear and the per-connection processes it forked. It is
// idempotent.
func (d *Dropbear) Stop() { d.stopOnce.Do(d.stop) }

func (d *Dropbear) stop() {
	if d.cmd == nil || d.cmd.Process == nil {
		return
	}
	pid := d.cmd.Process.Pid
	// Connection processes are children of the listener (of dropbear
	// itself, or of unshare's child).
	for _, p := range append(sshdtest.ChildPids(pid), pid) {
		for _, c := range sshdtest.ChildPids(p) {
			_ = syscall.Kill(c, syscall.SIGTERM) // best effort: it may be gone
		}
	}
	_ = syscall.Kill(-pid, syscall.SIGTERM)
	_ = d.cmd.Wait() // "signal: terminated" is expected
	_ = d.logR.Close()
	<-d.scanDone
}
