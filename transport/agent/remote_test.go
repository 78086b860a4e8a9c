package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// remoteEnv is a real sshd on 127.0.0.1 playing the remote host, an
// Opener configured to reach it as "box", and the agent binary to deploy.
type remoteEnv struct {
	sshd      *sshdtest.SSHD
	opener    *sshconn.Opener
	dir       string // the install directory "on the host"
	socketDir string
	uploads   atomic.Int32
	cacheDir  string
	agent     string
}

func newRemoteEnv(t testing.TB, sshdConfig ...string) *remoteEnv {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "")
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: sshdConfig})
	home := t.TempDir()
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "ssh_config")
	if err := os.WriteFile(cfg, []byte(d.ConfigBlock("box", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	e := &remoteEnv{
		sshd:      d,
		opener:    &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}},
		dir:       filepath.Join(t.TempDir(), "install"),
		cacheDir:  filepath.Join(t.TempDir(), "remote-agents"), // made private by the Remote
		socketDir: filepath.Join(sockDir(t), "s"),
		agent:     buildAgent(t),
	}
	t.Cleanup(func() {
		// The deployed agent is a daemon on this machine: stop it.
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		c := &Client{Socket: filepath.Join(e.socketDir, "agent-v1.sock")}
		if err := c.Stop(ctx, true); err != nil && !errors.Is(err, ErrNoAgent) {
			t.Logf("stop deployed agent: %v", err)
		}
		_ = e.opener.Close()
	})
	return e
}

// remote returns a Remote for the test host, as a fresh ttymux server
// would make it.
func (e *remoteEnv) remote(t testing.TB) *Remote {
	t.Helper()
	return &Remote{
		Host: "box",
		Connect: func(ctx context.Context) (SSHLink, error) {
			return e.opener.Link(ctx, e.target())
		},
		Version:    "test",
		Agents:     t.TempDir(), // empty: the local agent serves this host
		LocalAgent: e.agent,
		Dir:        e.dir,
		SocketDir:  e.socketDir,
		CacheDir:   e.cacheDir,
		uploadHook: func(b []byte) []byte { e.uploads.Add(1); return b },
	}
}

func (e *remoteEnv) target() transport.Target {
	return transport.SSHTarget("box")
}

func (e *remoteEnv) installed() string { return filepath.Join(e.dir, "test", "ttymux-agent") }

func TestRemoteDeployAndReuse(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	r := e.remote(t)
	ctx := t.Context()
	kc, ks, err := r.Create(ctx, testShell(), nil)
	if err != nil {
		t.Fatalf("create: %v\nsshd log:\n%s", err, e.sshd.Log())
	}
	p := startPump(t, kc)
	if _, err := kc.Write([]byte("echo remote-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "remote-42")
	if n := e.uploads.Load(); n != 1 {
		t.Fatalf("%d uploads, want 1", n)
	}
	fi, err := os.Stat(e.installed())
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("installed agent: %v, mode %v", err, fi.Mode())
	}
	if leftovers, _ := filepath.Glob(filepath.Join(e.dir, "test", ".ttymux-agent.*")); len(leftovers) > 0 {
		t.Fatalf("temporary files left: %v", leftovers)
	}
	// A new server (a new Remote) finds the same agent: no upload, and the
	// session is listed.
	r2 := e.remote(t)
	list, err := r2.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if n := e.uploads.Load(); n != 1 {
		t.Fatalf("%d uploads after a second deploy, want still 1", n)
	}
	if len(list) != 1 || list[0].ID != ks.ID {
		t.Fatalf("list = %+v, want session %s", list, ks.ID)
	}
	// The agent stops (a host reboot); the next server's cached idea of
	// where it was is stale: it starts the agent again.
	stopAgent(t, e)
	r3 := e.remote(t)
	if !r3.cachedForTest() {
		t.Fatal("the host's agent location was not cached")
	}
	list, err = r3.List(ctx)
	if err != nil {
		t.Fatalf("list after the agent stopped: %v", err)
	}
	if len(list) != 0 {
		t.Fatalf("sessions of a stopped agent listed: %+v", list)
	}
}

func TestRemoteUploadFallsBackToSCP(t *testing.T) {
	e := newRemoteEnv(t) // no sftp subsystem
	r := e.remote(t)
	if err := r.Deploy(t.Context()); err != nil {
		t.Fatalf("deploy without sftp: %v", err)
	}
	if _, err := os.Stat(e.installed()); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteUploadByCat(t *testing.T) {
	e := newRemoteEnv(t)
	r := e.remote(t)
	r.noSFTP, r.noSCP = true, true
	if err := r.Deploy(t.Context()); err != nil {
		t.Fatalf("deploy by cat: %v", err)
	}
	if _, err := os.Stat(e.installed()); err != nil {
		t.Fatal(err)
	}
}

func TestRemoteCorruptedUploadRefused(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	r := e.remote(t)
	r.uploadHook = func(b []byte) []byte {
		c := append([]byte(nil), b...)
		c[len(c)/2] ^= 0xff
		return c
	}
	err := r.Deploy(t.Context())
	if !errors.Is(err, ErrChecksum) {
		t.Fatalf("deploy of a corrupted upload: %v, want ErrChecksum", err)
	}
	if _, err := os.Stat(e.installed()); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("corrupted agent installed: %v", err)
	}
	if leftovers, _ := filepath.Glob(filepath.Join(e.dir, "test", ".ttymux-agent.*")); len(leftovers) > 0 {
		t.Fatalf("corrupted upload left behind: %v", leftovers)
	}
	if _, err := os.Stat(filepath.Join(e.socketDir, "agent-v1.sock")); err == nil {
		t.Fatal("an agent was started from a corrupted upload")
	}
}

func TestRemoteBridgeWhenStreamLocalForbidden(t *testing.T) {
	e := newRemoteEnv(t, "AllowStreamLocalForwarding no")
	r := e.remote(t)
	kc, _, err := r.Create(t.Context(), testShell(), nil)
	if err != nil {
		t.Fatalf("create through the bridge: %v", err)
	}
	p := startPump(t, kc)
	if _, err := kc.Write([]byte("echo bridged-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "bridged-42")
	if !r.bridge {
		t.Fatal("stream-local forwarding was refused, yet the bridge was not used")
	}
}

// TestRemoteLinkKilledNothingLost kills the sshd process carrying the
// connection while a session prints ticks: the Conn re-attaches and every
// tick arrives exactly once, in order. Then a new server attaches from the
// offset the first one had read and gets the rest.
func TestRemoteLinkKilledNothingLost(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	r := e.remote(t)
	kc, ks, err := r.Create(t.Context(), testShell(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc)
	if _, err := kc.Write([]byte("for i in $(seq 1 100); do echo tick-$i; sleep 0.02; done; echo ticks-done\n")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "tick-30\r\n")
	killConnections(t, e.sshd)
	p.waitFor(t, "\nticks-done\r\n")
	out := p.tail()
	_ = out
	p.mu.Lock()
	all := string(p.out)
	p.mu.Unlock()
	checkTicks(t, all, 100)
	if ls := kc.(transport.LinkStater).LinkState(); ls != transport.LinkUp {
		t.Fatalf("link state after re-attach = %q", ls)
	}
	// Detach, output while nobody is attached, a new server attaches.
	off := kc.(*Resilient).Offset()
	if err := kc.Close(); err != nil {
		t.Fatal(err)
	}
	r2 := e.remote(t)
	probe, _, _, err := r2.Attach(t.Context(), ks.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := probe.Write([]byte("for i in $(seq 101 120); do echo tick-$i; done; echo more-done\n")); err != nil {
		t.Fatal(err)
	}
	p2 := startPump(t, probe)
	p2.waitFor(t, "\nmore-done\r\n")
	probe.Close()
	kc3, _, _, err := r2.Attach(t.Context(), ks.ID, off)
	if err != nil {
		t.Fatal(err)
	}
	p3 := startPump(t, kc3)
	p3.waitFor(t, "\nmore-done\r\n")
	p3.mu.Lock()
	rest := string(p3.out)
	p3.mu.Unlock()
	checkTicksRange(t, all+rest, 1, 120)
}

// killConnections SIGKILLs the per-connection sshd processes, as a dropped
// link would end them.
func killConnections(t *testing.T, d *sshdtest.SSHD) {
	t.Helper()
	pids := d.ConnectionPids()
	if len(pids) == 0 {
		t.Fatal("no sshd connection process to kill")
	}
	for _, pid := range pids {
		if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
			t.Logf("kill %d: %v", pid, err)
		}
	}
}

func checkTicks(t *testing.T, out string, n int) { t.Helper(); checkTicksRange(t, out, 1, n) }

// checkTicksRange checks that tick-a … tick-b each appear exactly once as
// an output line, in order.
func checkTicksRange(t *testing.T, out string, a, b int) {
	t.Helper()
	next := a
	for _, line := range strings.Split(out, "\n") {
		line = strings.TrimRight(line, "\r")
		i := strings.Index(line, "tick-")
		if i < 0 || strings.Contains(line, "tick-$") {
			continue // not a tick, or the echo of the loop
		}
		line = line[i:] // a late first prompt may precede it
		if line != fmt.Sprintf("tick-%d", next) {
			t.Fatalf("got %q, want tick-%d (output:\n%s)", line, next, out)
		}
		next++
	}
	if next != b+1 {
		t.Fatalf("ticks ended at %d, want %d", next-1, b)
	}
}

// cachedForTest reports whether a deploy record for the host is cached.
func (r *Remote) cachedForTest() bool {
	_, err := os.Stat(r.cacheFile())
	return err == nil
}

// TestRemoteBuildsMissingAgent: a host whose system has no agent built yet
// gets one from Remote.Build (install.sh leaves other systems' agents to
// their first use), which is then uploaded and runs; a failing build is an
// ErrAgentNotFound that says why, and nothing is uploaded.
func TestRemoteBuildsMissingAgent(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	r := e.remote(t)
	r.LocalAgent = "/nonexistent/ttymux-agent" // nothing built for this host's system
	r.Build = func(context.Context, string) (string, error) { return "", errors.New("no Go toolchain here") }
	if _, _, err := r.Create(t.Context(), testShell(), nil); !errors.Is(err, ErrAgentNotFound) || !strings.Contains(err.Error(), "no Go toolchain here") {
		t.Fatalf("create with a failing build: %v", err)
	}
	if n := e.uploads.Load(); n != 0 {
		t.Fatalf("%d uploads after a failed build", n)
	}

	r = e.remote(t)
	r.LocalAgent = "/nonexistent/ttymux-agent"
	var built []string
	r.Build = func(_ context.Context, target string) (string, error) {
		built = append(built, target)
		return e.agent, nil // what the build produced
	}
	kc, _, err := r.Create(t.Context(), testShell(), nil)
	if err != nil {
		t.Fatalf("create: %v\nsshd log:\n%s", err, e.sshd.Log())
	}
	p := startPump(t, kc)
	if _, err := kc.Write([]byte("echo built-$((6*7))\n")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "built-42")
	if len(built) != 1 || built[0] != localTarget() || e.uploads.Load() != 1 {
		t.Fatalf("built %v, %d uploads; want one build for %s and one upload", built, e.uploads.Load(), localTarget())
	}
}
