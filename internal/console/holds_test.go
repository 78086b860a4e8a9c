package console

import (
	"bufio"
	"encoding/json"
	"errors"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

func shortDir(t *testing.T) string {
	d, err := os.MkdirTemp("", "hold")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return filepath.Join(d, "ttymux")
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}

func ask(t *testing.T, path string, q Question) net.Conn {
	t.Helper()
	c, err := net.Dial("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	b, _ := json.Marshal(q)
	if _, err := c.Write(append(b, '\n')); err != nil {
		t.Fatal(err)
	}
	return c
}

// TestHolds: a question is listed made visible, answered once, and the
// answer reaches the asking connection; a question whose asker hangs up
// is withdrawn; a second console cannot take a live socket, but a stale
// one is replaced; the socket and its directory are private.
func TestHolds(t *testing.T) {
	path := filepath.Join(shortDir(t), SocketName)
	hs, err := ListenHolds(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("socket mode: %v %v", fi.Mode(), err)
	}
	if fi, err := os.Stat(filepath.Dir(path)); err != nil || fi.Mode().Perm() != 0o700 {
		t.Fatalf("directory mode: %v %v", fi.Mode(), err)
	}
	if _, err := ListenHolds(path, nil); !errors.Is(err, ErrConsoleOpen) {
		t.Fatalf("a second console on a live socket: %v", err)
	}

	c := ask(t, path, Question{Kind: KindHold, Command: "rm -rf /tmp/x\x1b[2J", Session: "s1", Host: "local", Reasons: []string{"why\n"}, TimeoutMS: 60000})
	var l []HoldView
	waitFor(t, "the question listed", func() bool { l = hs.List(); return len(l) == 1 })
	if l[0].Command != `rm -rf /tmp/x\x1b[2J` || l[0].Reasons[0] != `why\n` || l[0].PID != os.Getpid() {
		t.Fatalf("listed as %+v", l[0])
	}
	if err := hs.Answer(l[0].ID, Answer{Decision: "maybe"}); err == nil {
		t.Fatal("a decision other than approve or decline was taken")
	}
	if err := hs.Answer(l[0].ID, Answer{Decision: Approve, Secret: "not for a hold"}); err != nil {
		t.Fatal(err)
	}
	line, err := bufio.NewReader(c).ReadBytes('\n')
	if err != nil {
		t.Fatal(err)
	}
	var a Answer
	if err := json.Unmarshal(line, &a); err != nil || a.Decision != Approve || a.Secret != "" {
		t.Fatalf("answer %q %v", line, err)
	}
	if err := hs.Answer(l[0].ID, Answer{Decision: Decline}); !errors.Is(err, ErrNoQuestion) {
		t.Fatalf("answered twice: %v", err)
	}

	// A secret needs the secret.
	c2 := ask(t, path, Question{Kind: KindSecret, Prompt: "pw", TimeoutMS: 60000})
	waitFor(t, "the secret listed", func() bool { l = hs.List(); return len(l) == 1 })
	if err := hs.Answer(l[0].ID, Answer{Decision: Approve}); err == nil {
		t.Fatal("an empty secret was taken")
	}
	// Withdrawn when the asker hangs up.
	c2.Close()
	waitFor(t, "the question withdrawn", func() bool { return len(hs.List()) == 0 })

	// Not a question: nothing is listed.
	c3, _ := net.Dial("unix", path)
	c3.Write([]byte("{\"kind\":\"grant\"}\n"))
	b := make([]byte, 1)
	if _, err := c3.Read(b); err == nil {
		t.Fatal("an unknown question was answered")
	}
	c3.Close()

	hs.Close()
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Fatalf("the socket outlived the console: %v", err)
	}
	// A stale socket (its console died without removing it) is replaced.
	ln, err := net.Listen("unix", path)
	if err != nil {
		t.Fatal(err)
	}
	ln.(*net.UnixListener).SetUnlinkOnClose(false)
	ln.Close()
	hs2, err := ListenHolds(path, nil)
	if err != nil {
		t.Fatalf("a stale socket: %v", err)
	}
	hs2.Close()
}

// TestHoldsRefuseForeignAsker: a question from a process that is not
// ttymux (here python3, asking for a password as a ttymux server would) is
// never shown: the human would type a secret to whoever asked.
func TestHoldsRefuseForeignAsker(t *testing.T) {
	py, err := exec.LookPath("python3")
	if err != nil {
		t.Skip("python3 not found")
	}
	path := filepath.Join(shortDir(t), SocketName)
	hs, err := ListenHolds(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer hs.Close()
	cmd := exec.Command(py, "-c", `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.connect(sys.argv[1])
try:
    s.sendall(b'{"kind":"secret","prompt":"Password for sudo on web1","timeout_ms":60000}\n')
except OSError:
    pass  # the console may have hung up already
try:
    print(s.recv(4096).decode())
except OSError as e:
    print(e)
`, path)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	defer cmd.Process.Kill()
	// Either the console hangs up on it (refused) or shows its question.
	var listed []HoldView
	waitFor(t, "the console to refuse or show the question", func() bool {
		if listed = hs.List(); len(listed) > 0 {
			return true
		}
		select {
		case err := <-exited:
			exited <- err
			return true
		default:
			return false
		}
	})
	if len(listed) > 0 {
		t.Fatalf("a question from python3 was shown: %+v", listed)
	}
	if err := <-exited; err != nil || !strings.Contains(out.String(), `"refused":"pid `) || !strings.Contains(out.String(), "not this ttymux binary") {
		t.Fatalf("the foreign asker: %v %s", err, out.String())
	}
	// The console's own binary asking is shown.
	c := ask(t, path, Question{Kind: KindSecret, Prompt: "pw", TimeoutMS: 60000})
	defer c.Close()
	waitFor(t, "a ttymux asker's question", func() bool { return len(hs.List()) == 1 })
}
