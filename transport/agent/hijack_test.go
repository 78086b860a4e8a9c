package agent

import (
	"bufio"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/usertest"
)

// attacker is a second local user with a ttymux agent of their own and a
// relay from the victim's socket path to it: issue #14's repro.
type attacker struct {
	u     *usertest.User
	dir   string // the attacker's private directory
	agent string // their copy of the agent binary
	sock  string // their agent's socket
}

// newAttacker creates the user and starts their agent. It skips when not
// root (usertest) or when socat is missing.
func newAttacker(t *testing.T, agentBin string) *attacker {
	a, _ := newAttackerLog(t, agentBin)
	return a
}

// newAttackerLog is newAttacker, also returning their agent's log.
func newAttackerLog(t *testing.T, agentBin string) (*attacker, *lineLog) {
	t.Helper()
	if _, err := exec.LookPath("socat"); err != nil {
		t.Skip("socat not found: needed to play the attacker's relay (apt-get install socat)")
	}
	u := usertest.Create(t)
	dir, err := os.MkdirTemp("/tmp", "ttmx-atk-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	u.Chown(t, dir)
	a := &attacker{u: u, dir: dir, agent: filepath.Join(dir, "ttymux-agent"), sock: filepath.Join(dir, "a.sock")}
	b, err := os.ReadFile(agentBin)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(a.agent, b, 0o755); err != nil {
		t.Fatal(err)
	}
	u.Chown(t, a.agent)
	log := &lineLog{changed: make(chan struct{})}
	cmd := u.Command(a.agent, "serve", "--socket", a.sock)
	cmd.Stderr = log
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	waitFile(t, a.sock)
	return a, log
}

// lineLog collects a process's log and lets a test wait for a line.
type lineLog struct {
	mu      sync.Mutex
	b       strings.Builder
	changed chan struct{}
}

func (l *lineLog) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.b.Write(p)
	close(l.changed)
	l.changed = make(chan struct{})
	return len(p), nil
}

func (l *lineLog) waitFor(t *testing.T, s string) {
	t.Helper()
	timer := time.NewTimer(30 * time.Second)
	defer timer.Stop()
	for {
		l.mu.Lock()
		found, ch, all := strings.Contains(l.b.String(), s), l.changed, l.b.String()
		l.mu.Unlock()
		if found {
			return
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("no %q in the log within 30s:\n%s", s, all)
		}
	}
}

// start runs cmd until the test ends.
func start(t *testing.T, cmd *exec.Cmd) {
	t.Helper()
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %v: %v", cmd.Args, err)
	}
	done := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, bufio.NewReader(stderr)); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		<-done
		_ = cmd.Wait()
	})
}

func waitFile(t *testing.T, p string) {
	t.Helper()
	waitUntil(t, p+" to appear", func() bool { _, err := os.Lstat(p); return err == nil })
}

// relayAsAttacker plays the attacker taking over the victim's socket
// directory: they create it (mode 0755, theirs) and listen there with a
// relay to their own agent.
func (a *attacker) relayAsAttacker(t *testing.T, victimDir string) {
	t.Helper()
	// The victim's directory lives in a shared, sticky directory, as /tmp.
	if err := os.Chmod(filepath.Dir(victimDir), 0o1777); err != nil {
		t.Fatal(err)
	}
	if out, err := a.u.Command("mkdir", "-m", "755", victimDir).CombinedOutput(); err != nil {
		t.Fatalf("attacker mkdir: %v %s", err, out)
	}
	sock := filepath.Join(victimDir, "agent-v1.sock")
	start(t, a.u.Command("socat", "UNIX-LISTEN:"+sock+",fork,mode=777", "UNIX-CONNECT:"+a.sock))
	waitFile(t, sock)
}

// relayInVictimDir is the relay that passes every check of the directory
// and the socket (both the victim's, as after a race with the victim's
// own directory being removed and made again) but leads to the attacker's
// agent: only the install token can tell.
func (a *attacker) relayInVictimDir(t *testing.T, victimDir string) {
	t.Helper()
	if err := os.MkdirAll(victimDir, 0o700); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(victimDir, "agent-v1.sock")
	start(t, exec.Command("socat", "UNIX-LISTEN:"+sock+",fork", `EXEC:"socat STDIO UNIX-CONNECT:`+a.sock+`",su=`+a.u.Name))
	waitFile(t, sock)
}

// sessions lists what the attacker's agent holds, as the attacker.
func (a *attacker) sessions(t *testing.T) []string {
	t.Helper()
	out, err := a.u.Command(a.agent, "ls", "--socket", a.sock).CombinedOutput()
	if err != nil {
		t.Fatalf("attacker's ls: %v %s", err, out)
	}
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	return lines[1:] // after the header
}

func assertUnsafe(t *testing.T, err error, dir string, atk *attacker) {
	t.Helper()
	var ue *agentsock.UnsafeSocketError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want an *agentsock.UnsafeSocketError", err)
	}
	want := dir + " is owned by uid " + strconv.Itoa(atk.u.UID)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want it to say %q", err, want)
	}
	if s := atk.sessions(t); len(s) != 0 {
		t.Fatalf("the attacker's agent holds sessions: %q", s)
	}
}

// TestRemoteHijackFirstOpen pins issue #14 finding 1 on a first open: another
// user of the host made the socket directory and relays it to their own
// agent. The probe sees the directory is not the SSH user's and refuses by
// name; nothing reaches the attacker's agent.
func TestRemoteHijackFirstOpen(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	atk := newAttacker(t, e.agent)
	atk.relayAsAttacker(t, e.socketDir)
	_, _, err := e.remote(t).Create(t.Context(), testShell(), nil)
	assertUnsafe(t, err, e.socketDir, atk)
}

// TestRemoteHijackAfterAgentDied is issue #14's repro as written: after a
// first persistent open (the host's location is cached), the agent dies
// and its directory goes (a reboot); another user makes the directory with
// a relay to their agent; the next server's open (no probe: the cache)
// must not land in their shell. Over direct-streamlocal the agent's hello
// proof fails, the host is asked again and the probe names the directory;
// over the exec bridge the bridge itself refuses before dialling.
func TestRemoteHijackAfterAgentDied(t *testing.T) {
	for _, tc := range []struct {
		name string
		sshd []string
	}{
		{"streamlocal", []string{"Subsystem sftp internal-sftp"}},
		{"bridge", []string{"Subsystem sftp internal-sftp", "AllowStreamLocalForwarding no"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newRemoteEnv(t, tc.sshd...)
			r := e.remote(t)
			kc, _, err := r.Create(t.Context(), testShell(), nil)
			if err != nil {
				t.Fatalf("create: %v\nsshd log:\n%s", err, e.sshd.Log())
			}
			p := startPump(t, kc)
			if _, err := kc.Write([]byte("echo who-$(id -un)\n")); err != nil {
				t.Fatal(err)
			}
			p.waitFor(t, "who-root")
			_ = kc.Close()
			stopAgent(t, e)
			if err := os.RemoveAll(e.socketDir); err != nil {
				t.Fatal(err)
			}
			atk := newAttacker(t, e.agent)
			atk.relayAsAttacker(t, e.socketDir)
			r2 := e.remote(t)
			if !r2.cachedForTest() {
				t.Fatal("the host's agent location was not cached")
			}
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			_, _, err = r2.Create(ctx, testShell(), nil)
			assertUnsafe(t, err, e.socketDir, atk)
		})
	}
}

// TestRemoteHijackRelayPassesDirCheck: a relay whose directory and socket
// both pass the ownership checks (root's, here) but which leads to another
// user's agent is caught by the install token: that agent cannot read it,
// so its hello carries no proof and nothing else is sent.
func TestRemoteHijackRelayPassesDirCheck(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	atk := newAttacker(t, e.agent)
	atk.relayInVictimDir(t, e.socketDir)
	_, _, err := e.remote(t).Create(t.Context(), testShell(), nil)
	var nye *NotYoursError
	if !errors.As(err, &nye) || !strings.Contains(err.Error(), "agent.token") {
		t.Fatalf("err = %v, want a *NotYoursError about the token", err)
	}
	if s := atk.sessions(t); len(s) != 0 {
		t.Fatalf("the attacker's agent holds sessions: %q", s)
	}
}

// TestRemoteEvilUname is issue #14 finding 6 as reproduced: a host whose
// `uname -sm` answers "Linux /../../x/evilpick" made ttymux upload
// <agents>/../x/evilpick/ttymux-agent and cache that target. Now it is an
// unsupported host: nothing is uploaded and nothing cached.
func TestRemoteEvilUname(t *testing.T) {
	bin := t.TempDir()
	uname := "#!/bin/sh\necho 'Linux /../../x/evilpick'\n"
	if err := os.WriteFile(filepath.Join(bin, "uname"), []byte(uname), 0o755); err != nil {
		t.Fatal(err)
	}
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp", "SetEnv PATH="+bin+":/usr/bin:/bin")
	r := e.remote(t)
	evil := filepath.Join(filepath.Dir(r.Agents), "x", "evilpick", "ttymux-agent")
	if err := os.MkdirAll(filepath.Dir(evil), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(evil, []byte("#!/bin/sh\necho evil\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	_, _, err := r.Create(t.Context(), testShell(), nil)
	if !errors.Is(err, ErrUnsupportedHost) || !strings.Contains(err.Error(), "evilpick") {
		t.Fatalf("err = %v, want an unsupported host error quoting the answer", err)
	}
	if n := e.uploads.Load(); n != 0 {
		t.Fatalf("%d uploads, want none", n)
	}
	if ents, _ := os.ReadDir(e.cacheDir); len(ents) != 0 {
		t.Fatalf("cached: %v", ents)
	}
}

// TestRemoteHijackOnReattach is the other half of issue #14's repro: a
// running server whose link to the agent dropped (here the agent was
// killed) keeps re-attaching; meanwhile another user took over the socket
// directory with a relay to their agent. Each re-attach now meets the hello,
// which their agent cannot answer: the session is never attached there and
// nothing typed reaches them.
func TestRemoteHijackOnReattach(t *testing.T) {
	e := newRemoteEnv(t, "Subsystem sftp internal-sftp")
	r := e.remote(t)
	kc, _, err := r.Create(t.Context(), testShell(), nil)
	if err != nil {
		t.Fatalf("create: %v\nsshd log:\n%s", err, e.sshd.Log())
	}
	defer kc.Close()
	p := startPump(t, kc)
	if _, err := kc.Write([]byte("echo who-$(id -un)\n")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "who-root")
	atk, log := newAttackerLog(t, e.agent)
	// The agent dies (kill -9), its directory goes, the attacker moves in.
	b, err := os.ReadFile(filepath.Join(e.socketDir, "agent-v1.sock.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	if err := os.RemoveAll(e.socketDir); err != nil {
		t.Fatal(err)
	}
	atk.relayAsAttacker(t, e.socketDir)
	log.waitFor(t, "hello without proof")
	if _, err := kc.Write([]byte("echo typed-to-them\n")); err == nil {
		t.Fatal("typing succeeded while the session is not attached to our agent")
	}
	if s := atk.sessions(t); len(s) != 0 {
		t.Fatalf("the attacker's agent holds sessions: %q", s)
	}
}
