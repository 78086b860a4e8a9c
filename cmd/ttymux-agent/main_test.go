package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/internal/testhome"
)

// asAgentEnv makes the test binary behave as ttymux-agent, so that
// "serve --detach" can re-execute it.
const asAgentEnv = "TTYMUX_AGENT_TEST_MAIN"

func TestMain(m *testing.M) {
	if os.Getenv(asAgentEnv) == "1" {
		os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
	}
	os.Exit(testhome.Run(m))
}

const waitTimeout = 20 * time.Second

func runCmd(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errb bytes.Buffer
	rc := run(args, &out, &errb)
	return rc, out.String(), errb.String()
}

// shortDir returns a private directory whose path leaves room for a socket
// name within sun_path's 108 bytes.
func shortDir(t *testing.T) string {
	dir, err := os.MkdirTemp("", "tmc")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	return dir
}

func TestVersion(t *testing.T) {
	rc, out, _ := runCmd(t, "version")
	want := regexp.MustCompile(`^ttymux-agent \S+ protocol ` + strconv.Itoa(agentproto.Version) + "\n$")
	if rc != 0 || !want.MatchString(out) {
		t.Errorf("version: %d %q", rc, out)
	}
	version = "v9.9.9"
	defer func() { version = "" }()
	if _, out, _ := runCmd(t, "version"); out != "ttymux-agent v9.9.9 protocol "+strconv.Itoa(agentproto.Version)+"\n" {
		t.Errorf("version with -X: %q", out)
	}
}

func TestUsage(t *testing.T) {
	if rc, _, _ := runCmd(t); rc != 2 {
		t.Errorf("no command: %d", rc)
	}
	if rc, _, errs := runCmd(t, "frobnicate"); rc != 2 || !strings.Contains(errs, "unknown command") {
		t.Errorf("unknown command: %d %q", rc, errs)
	}
	if rc, _, _ := runCmd(t, "serve", "--ring-mib", "0"); rc != 2 {
		t.Errorf("bad flag value: %d", rc)
	}
}

// createSession starts a shell in the agent on sock and detaches.
func createSession(t *testing.T, sock string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	l, err := agentlink.Dial(ctx, sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	typ, p := agentproto.Marshal(agentproto.Create{Command: "sh", Args: []string{"-c", "read x"}})
	m, err := l.Request(ctx, "create", "", typ, p, agentproto.TypeAttachReply)
	if err != nil || m.(agentproto.AttachReply).Status != agentproto.StatusCreated {
		t.Fatalf("create: %#v, %v", m, err)
	}
	_ = l.Send(agentproto.TypeDetach, nil)
	return m.(agentproto.AttachReply).Session.ID
}

// TestServeLsStop runs "serve" in the foreground, then "ls" and "stop".
func TestServeLsStop(t *testing.T) {
	sock := filepath.Join(shortDir(t), "a.sock")
	done := make(chan int, 1)
	serveErr := &watchWriter{want: "agent serving", seen: make(chan struct{})}
	go func() { done <- run([]string{"serve", "--socket", sock}, &bytes.Buffer{}, serveErr) }()
	select {
	case <-serveErr.seen: // logged once it listens
	case rc := <-done:
		t.Fatalf("serve exited %d: %s", rc, serveErr)
	case <-time.After(waitTimeout):
		t.Fatalf("serve did not listen: %s", serveErr)
	}
	createSession(t, sock)

	rc, out, errs := runCmd(t, "ls", "--socket", sock)
	if rc != 0 || !regexp.MustCompile(`(?m)^s1-[0-9a-z]{4} +\d+ +running.* +sh -c read x +\d+ +\d+$`).MatchString(out) {
		t.Errorf("ls: %d %q %q", rc, out, errs)
	}
	if rc, _, errs := runCmd(t, "stop", "--socket", sock); rc != 1 || !strings.Contains(errs, "1 session(s) still running") {
		t.Errorf("stop with a session running: %d %q", rc, errs)
	}
	if rc, out, errs := runCmd(t, "stop", "--socket", sock, "--force"); rc != 0 || !strings.Contains(out, "stopped") {
		t.Errorf("stop --force: %d %q %q", rc, out, errs)
	}
	select {
	case rc := <-done:
		if rc != 0 {
			t.Errorf("serve exited %d: %s", rc, serveErr.String())
		}
	case <-time.After(waitTimeout):
		t.Fatal("serve did not return after stop")
	}
	if rc, _, errs := runCmd(t, "ls", "--socket", sock); rc != 1 || !strings.Contains(errs, "no agent running on "+sock) {
		t.Errorf("ls with no agent: %d %q", rc, errs)
	}
}

// TestServeDetach re-executes the test binary as the daemon: it must
// return once the socket answers, run in its own session with its log in
// the socket's directory, and be idempotent.
func TestServeDetach(t *testing.T) {
	t.Setenv(asAgentEnv, "1")
	dir := shortDir(t)
	sock := filepath.Join(dir, "a.sock")
	rc, out, errs := runCmd(t, "serve", "--detach", "--socket", sock)
	if rc != 0 || !strings.Contains(out, "serving on "+sock) {
		t.Fatalf("serve --detach: %d %q %q", rc, out, errs)
	}
	t.Cleanup(func() { runCmd(t, "stop", "--socket", sock, "--force") })
	if !answers(sock) {
		t.Fatal("not listening after serve --detach returned")
	}
	b, err := os.ReadFile(sock + ".pid")
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(b)))
	if err != nil {
		t.Fatalf("pid file %q", b)
	}
	// /proc/PID/stat field 6 is the session id: setsid makes it the pid.
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		t.Fatal(err)
	}
	fields := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
	if fields[3] != strconv.Itoa(pid) {
		t.Errorf("daemon session id %s, want its pid %d", fields[3], pid)
	}
	if rc, out, _ := runCmd(t, "serve", "--detach", "--socket", sock); rc != 0 || !strings.Contains(out, "already running") {
		t.Errorf("second serve --detach: %d %q", rc, out)
	}
	// The daemon may log its start just after its socket starts answering:
	// wait (bounded) for the line rather than read once.
	var logb []byte
	for deadline := time.Now().Add(5 * time.Second); ; {
		logb, err = os.ReadFile(filepath.Join(dir, "agent.log"))
		if err == nil && strings.Contains(string(logb), "agent serving") {
			break
		}
		if time.Now().After(deadline) {
			t.Errorf("agent.log: %q, %v", logb, err)
			break
		}
		time.Sleep(10 * time.Millisecond) // another process's file: no event to wait on
	}
	if rc, _, errs := runCmd(t, "stop", "--socket", sock); rc != 0 {
		t.Errorf("stop: %d %q", rc, errs)
	}
	if answers(sock) {
		t.Error("still answering after stop")
	}
}

// TestServeDetachUnsafeDir: an unsafe socket directory is reported to the
// caller, not only to the daemon's log.
func TestServeDetachUnsafeDir(t *testing.T) {
	dir := filepath.Join(shortDir(t), "open")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(dir, 0o755)
	rc, _, errs := runCmd(t, "serve", "--detach", "--socket", filepath.Join(dir, "a.sock"))
	if rc != 1 || !strings.Contains(errs, "has unsafe permissions 0755") {
		t.Errorf("serve --detach in a 0755 directory: %d %q", rc, errs)
	}
}

// watchWriter collects what is written to it and closes seen once want has
// appeared.
type watchWriter struct {
	want string
	seen chan struct{}

	mu  sync.Mutex
	buf bytes.Buffer
}

func (w *watchWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	had := strings.Contains(w.buf.String(), w.want)
	w.buf.Write(p)
	if !had && strings.Contains(w.buf.String(), w.want) {
		close(w.seen)
	}
	return len(p), nil
}

func (w *watchWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// serveOn runs "serve" on sock until the test stops it.
func serveOn(t *testing.T, sock string) chan int {
	t.Helper()
	done := make(chan int, 1)
	serveErr := &watchWriter{want: "agent serving", seen: make(chan struct{})}
	go func() { done <- run([]string{"serve", "--socket", sock}, &bytes.Buffer{}, serveErr) }()
	select {
	case <-serveErr.seen:
	case rc := <-done:
		t.Fatalf("serve exited %d: %s", rc, serveErr)
	case <-time.After(waitTimeout):
		t.Fatalf("serve did not listen: %s", serveErr)
	}
	return done
}

// TestSessionIDsNotReused pins issue #14 finding 7: an agent started after
// another was killed handed out s1 again, so a stale id addressed a
// different session. Ids now carry the agent's epoch.
func TestSessionIDsNotReused(t *testing.T) {
	sock := filepath.Join(shortDir(t), "a.sock")
	seen := map[string]bool{}
	for range 3 {
		done := serveOn(t, sock)
		id := createSession(t, sock)
		if !regexp.MustCompile(`^s1-[0-9a-z]{4}$`).MatchString(id) {
			t.Fatalf("first id %q, want s1-<epoch>", id)
		}
		if seen[id] {
			t.Fatalf("id %s handed out again by a new agent", id)
		}
		seen[id] = true
		if rc, _, errs := runCmd(t, "stop", "--socket", sock, "--force"); rc != 0 {
			t.Fatalf("stop: %d %s", rc, errs)
		}
		<-done
	}
}
