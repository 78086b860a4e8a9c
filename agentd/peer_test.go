package agentd

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/testhome"
)

// peerHelperEnv makes the test binary act as a client of the agent on the
// socket it names (see TestPeerOtherUIDRefused).
const peerHelperEnv = "TTYMUX_AGENT_TEST_PEER"

// TestMain runs the peer helper when asked to, and otherwise the tests,
// failing the run if a goroutine outlives them (STYLE.md 5: whoever starts a
// goroutine waits for it). goleak retries for a while, since a goroutine
// may still be finishing after the Wait that released its owner.
func TestMain(m *testing.M) {
	if sock := os.Getenv(peerHelperEnv); sock != "" {
		os.Exit(peerHelper(sock))
	}
	testhome.Private() // HOME and the XDG directories private
	goleak.VerifyTestMain(m, goleak.Cleanup(testhome.Cleanup))
}

// peerHelper asks for a List and an Attach and prints the answers.
func peerHelper(sock string) int {
	ctx, cancel := context.WithTimeout(context.Background(), waitTimeout)
	defer cancel()
	_, err := List(ctx, sock)
	fmt.Println("list:", err)
	c, err := Dial(ctx, sock)
	if err != nil {
		fmt.Println("dial:", err)
		return 1
	}
	defer c.Close()
	t, p := agentproto.Marshal(agentproto.Attach{ID: "s1", FromStart: true})
	if err := agentproto.WriteFrame(c, t, p); err != nil {
		fmt.Println("attach:", err)
		return 1
	}
	_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
	br := bufio.NewReader(c)
	f, err := agentproto.ReadFrame(br, nil)
	if err != nil {
		fmt.Println("attach:", err)
		return 1
	}
	m, err := agentproto.Unmarshal(f)
	if r, ok := m.(agentproto.AttachReply); ok {
		fmt.Println("attach:", r.Status)
	} else {
		fmt.Println("attach:", m, err)
	}
	if _, err := agentproto.ReadFrame(br, nil); err != io.EOF {
		fmt.Println("after attach:", err)
	}
	return 0
}

// TestPeerOtherUIDRefused runs a real client process as uid 65534 against
// an agent run by root, on a socket that uid may reach: the agent's
// SO_PEERCRED check must refuse it with StatusForbidden (shpool
// check_peer). The directory's 0700 mode normally stops such a peer
// earlier; this checks the second line of defence.
func TestPeerOtherUIDRefused(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("needs root to run a client as another uid")
	}
	dir := shortTempDir(t)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The test binary's own directory is private to root: copy it where
	// uid 65534 can run it.
	bin := filepath.Join(dir, "peer.test")
	data, err := os.ReadFile(exe)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(bin, data, 0o755); err != nil {
		t.Fatal(err)
	}
	sock := filepath.Join(dir, "a.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sock, 0o666); err != nil {
		t.Fatal(err)
	}
	ta := serveOn(t, l, sock, Options{})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "read x"}})
	_ = tc

	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "-test.run=^$")
	cmd.Env = append(os.Environ(), peerHelperEnv+"="+sock)
	cmd.Dir = dir
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("peer as uid 65534: %v\n%s", err, out)
	}
	for _, want := range []string{"list: agent refused list: forbidden: this agent serves uid 0 only", "attach: forbidden"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("peer output lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(string(out), "after attach:") {
		t.Errorf("connection not closed after the refusal:\n%s", out)
	}
	for range 2 {
		if ev := ta.ev.wait(t, EventRefused, ""); !strings.Contains(ev.Detail, "peer uid 65534") {
			t.Errorf("refusal %q does not name the peer's uid", ev.Detail)
		}
	}
	if s, _ := ta.info(t, "s1"); s.Clients != 1 {
		t.Errorf("the refused peer attached: Clients = %d", s.Clients)
	}
}

// TestPeerUID reads our own uid back through SO_PEERCRED.
func TestPeerUID(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "p.sock")
	l, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := net.Dial("unix", sock)
		if err == nil {
			defer c.Close()
			c.Read(make([]byte, 1))
		}
	}()
	c, err := l.Accept()
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	uid, err := agentsock.PeerUID(c)
	if err != nil || uid != os.Geteuid() {
		t.Errorf("peerUID = %d, %v; want %d", uid, err, os.Geteuid())
	}
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	if _, err := agentsock.PeerUID(a); err == nil {
		t.Error("peerUID of a net.Pipe succeeded")
	}
}
