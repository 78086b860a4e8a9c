package main

// Faults of issue #8: the server killed, the agent killed, an SSH link
// black-holed, a serial device unplugged, and the log on a full disk. In
// each, a call in flight returns with an answer that says what happened,
// later calls get clear errors, and nothing hangs. docs/security.md lists
// these tests.

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/serial"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// faultWait bounds how long a fault may take to surface.
const faultWait = 15 * time.Second

// asyncSend starts a send and returns a channel with its result (the error
// text for an error result or a failed call).
func asyncSend(cs *mcp.ClientSession, args map[string]any) <-chan sendOutcome {
	ch := make(chan sendOutcome, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: args})
		ch <- outcome(res, err)
	}()
	return ch
}

type sendOutcome struct {
	res  session.Result
	text string // the text form, or the error
	err  error  // the call itself failed (no answer)
}

func outcome(res *mcp.CallToolResult, err error) sendOutcome {
	if err != nil {
		return sendOutcome{err: err, text: err.Error()}
	}
	o := sendOutcome{text: resultText(res)}
	if !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		_ = json.Unmarshal(b, &o.res)
	} else {
		o.err = fmt.Errorf("error result: %s", o.text)
	}
	return o
}

func await(t *testing.T, ch <-chan sendOutcome, what string) sendOutcome {
	t.Helper()
	select {
	case o := <-ch:
		return o
	case <-time.After(faultWait):
		t.Fatalf("%s: the call in flight did not return within %s", what, faultWait)
	}
	return sendOutcome{}
}

// TestFaultKillServer: the server is killed with SIGKILL while a send
// waits. The client's call returns an error at once, and the sessions the
// server held in its own process end with it: their shells get SIGHUP and
// exit, nothing is left running. (With the agent, sessions survive the
// kill: TestKillNineResumes.)
func TestFaultKillServer(t *testing.T) {
	cmd := serverCmd(t)
	var stderr syncBuffer
	cmd.Stderr = &stderr
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "fault", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	id := openLocal(t, cs)
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "echo $$"})
	shell, err := strconv.Atoi(r.Output)
	if err != nil {
		t.Fatalf("shell pid: %q", r.Output)
	}
	inFlight := asyncSend(cs, map[string]any{"session_id": id, "text": "sleep 300", "timeout_ms": 600000})
	waitSleepingIn(t, cs)
	if err := cmd.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	o := await(t, inFlight, "server killed")
	if o.err == nil {
		t.Fatalf("send in flight when the server died returned a result: %+v", o.res)
	}
	t.Logf("call in flight: %v", o.err)
	waitUntil(t, "the orphaned shell to exit", faultWait, func() bool {
		return syscall.Kill(shell, 0) != nil
	})
	if res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "list", Arguments: map[string]any{}}); err == nil {
		t.Fatalf("a call after the server died got an answer: %v", res)
	}
}

// waitSleepingIn waits until list shows sleep in the foreground of the
// only session.
func waitSleepingIn(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	waitUntil(t, "sleep to run", faultWait, func() bool {
		var l ListOut
		call(t, cs, "list", map[string]any{}, &l)
		return len(l.Sessions) == 1 && l.Sessions[0].Foreground == "sleep"
	})
}

// onScreen waits until the session's screen shows s.
func onScreen(t *testing.T, cs *mcp.ClientSession, id, s string) {
	t.Helper()
	waitUntil(t, strconv.Quote(s)+" on the screen", faultWait, func() bool {
		var r session.Result
		call(t, cs, "read", map[string]any{"session_id": id, "mode": "screen"}, &r)
		return strings.Contains(r.Output, s)
	})
}

// agentBinary returns the ttymux-agent built beside the test server.
func agentBinary(t *testing.T) string {
	return filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent")
}

// agentPid asks the kernel which process serves sock (SO_PEERCRED).
func agentPid(t testing.TB, sock string) int {
	t.Helper()
	c, err := net.Dial("unix", sock)
	if err != nil {
		t.Fatalf("dial the agent: %v", err)
	}
	defer c.Close()
	raw, err := c.(*net.UnixConn).SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var cred *unix.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) { cred, cerr = unix.GetsockoptUcred(int(fd), unix.SOL_SOCKET, unix.SO_PEERCRED) }); err != nil || cerr != nil {
		t.Fatalf("SO_PEERCRED: %v %v", err, cerr)
	}
	return int(cred.Pid)
}

// TestFaultKillAgent: the agent holding a persistent session is killed
// with SIGKILL while a send waits on it. The send returns at once saying
// the link to the agent was lost; later calls on that session say the
// session has ended and why; a new open starts a new agent and works.
func TestFaultKillAgent(t *testing.T) {
	sock := filepath.Join(shortTempDir(t), "agent.sock")
	client := &agent.Client{Socket: sock, AgentPath: agentBinary(t)}
	t.Cleanup(func() {
		stop := exec.Command(agentBinary(t), "stop", "--force", "--socket", sock)
		_ = stop.Run() // best effort: the second agent, if the test got that far
	})
	_, cs := keptServer(t, client)
	open := openKept(t, cs, nil)
	inFlight := asyncSend(cs, map[string]any{"session_id": open.ID, "text": "sleep 300", "timeout_ms": 600000})
	waitSleepingIn(t, cs)
	pid := agentPid(t, sock)
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	o := await(t, inFlight, "agent killed")
	if o.err != nil || !o.res.Complete || o.res.State != "exited" {
		t.Fatalf("send in flight when the agent died: %+v (%v)", o.res, o.err)
	}
	msg := wantError(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo hi"}, "has ended", "agent", "open a new session")
	t.Logf("send after the agent died: %s", msg)
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].State != "exited" {
		t.Fatalf("list after the agent died: %+v", l.Sessions)
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
	var again OpenOut
	call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &again)
	if !again.Persistent || agentPid(t, sock) == pid {
		t.Fatalf("no new agent after the old one died: %+v", again)
	}
	stillWorks(t, cs, again.ID)
}

// tcpHole forwards TCP connections to target until BlackHole, after which
// it drops every byte in both directions and closes nothing: a link whose
// packets vanish.
type tcpHole struct {
	addr string
	ln   net.Listener
	hole atomic.Bool
	wg   sync.WaitGroup
	mu   sync.Mutex
	open []net.Conn
}

func startHole(t *testing.T, target string) *tcpHole {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	h := &tcpHole{addr: ln.Addr().String(), ln: ln}
	h.wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			u, err := net.Dial("tcp", target)
			if err != nil {
				_ = c.Close()
				continue
			}
			h.mu.Lock()
			h.open = append(h.open, c, u)
			h.mu.Unlock()
			h.wg.Go(func() { h.pipe(u, c) })
			h.wg.Go(func() { h.pipe(c, u) })
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		h.mu.Lock()
		for _, c := range h.open {
			_ = c.Close()
		}
		h.mu.Unlock()
		h.wg.Wait()
	})
	return h
}

func (h *tcpHole) pipe(dst, src net.Conn) {
	b := make([]byte, 32<<10)
	for {
		n, err := src.Read(b)
		if n > 0 && !h.hole.Load() {
			if _, err := dst.Write(b[:n]); err != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}

// TestFaultSSHBlackHole: the network between ttymux and sshd starts
// dropping every packet while a send waits. Keepalives (ServerAliveInterval
// 1, ServerAliveCountMax 2 in ssh_config) notice within a few seconds: the
// send returns with state exited, and the next send says the link was
// black-holed and what to do.
func TestFaultSSHBlackHole(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	hole := startHole(t, d.Addr())
	home := t.TempDir()
	known := filepath.Join(home, "known_hosts")
	_, port, _ := net.SplitHostPort(hole.addr)
	line := fmt.Sprintf("[127.0.0.1]:%s %s", port, strings.SplitN(d.KnownHostsLine(), " ", 2)[1])
	if err := os.WriteFile(known, []byte(line+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config")
	block := strings.Replace(d.ConfigBlock("box", known, "ServerAliveInterval 1", "ServerAliveCountMax 2"),
		"Port "+strconv.Itoa(d.Port), "Port "+port, 1)
	if err := os.WriteFile(cfg, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	t.Cleanup(func() { _ = ssh.Close() })
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"ssh": ssh}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	var open OpenOut
	if res := call(t, cs, "open_ssh", map[string]any{"host": "box"}, &open); res.IsError {
		t.Fatalf("open_ssh: %s\n%s", resultText(res), d.Log())
	}
	stillWorks(t, cs, open.ID)
	inFlight := asyncSend(cs, map[string]any{"session_id": open.ID, "text": "sleep 300", "timeout_ms": 600000})
	onScreen(t, cs, open.ID, "sleep 300") // echoed: it reached the remote shell
	start := time.Now()
	hole.hole.Store(true)
	o := await(t, inFlight, "link black-holed")
	if o.err != nil || !o.res.Complete || o.res.Via != "exited" {
		t.Fatalf("send in flight when the link died: %+v (%v)", o.res, o.err)
	}
	t.Logf("dead link noticed after %s", time.Since(start))
	msg := wantError(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo hi"}, "has ended", "black-holing", "open a new session")
	t.Logf("send after the link died: %s", msg)
}

// TestFaultSerialUnplugged: the serial device goes away while a send waits,
// on a session opened with reconnect: false. The send returns with state
// exited and the later send says the device was disconnected. (With
// reconnect, the default, the session waits for the device to come back:
// TestSerialConsoleThroughMCP.)
func TestFaultSerialUnplugged(t *testing.T) {
	link := filepath.Join(t.TempDir(), "ttyUSB-fault")
	router := startRouter(t, link, false)
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	var open OpenOut
	if res := call(t, cs, "open_serial", map[string]any{"port": link, "reconnect": false}, &open); res.IsError {
		t.Fatalf("open_serial: %s", resultText(res))
	}
	// The console's first prompt, before typing: read by the server after
	// the send was typed (a loaded machine), it would be this send's "# $".
	if !strings.HasSuffix(open.Output, "# ") {
		var first session.Result
		if res := call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "# $", "timeout_ms": 30000}, &first); res.IsError || !first.Complete {
			t.Fatalf("the console's prompt: %s", resultText(res))
		}
	}
	r := mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "uname -a", "until": "# $"})
	if !strings.Contains(r.Output, "Linux router") {
		t.Fatalf("before unplug: %+v", r)
	}
	// Typed without Enter, so the console has nothing to answer.
	inFlight := asyncSend(cs, map[string]any{"session_id": open.ID, "text": "wait-for-ever", "enter": false, "until": "never-printed", "timeout_ms": 600000})
	onScreen(t, cs, open.ID, "wait-for-ever") // echoed: it reached the device
	router.unplug()
	o := await(t, inFlight, "device unplugged")
	if o.err != nil || !o.res.Complete || o.res.Via != "exited" {
		t.Fatalf("send in flight when the device went away: %+v (%v)", o.res, o.err)
	}
	msg := wantError(t, cs, "send", map[string]any{"session_id": open.ID, "text": "uname -a"}, "has ended", "open a new session")
	t.Logf("send after unplug: %s", msg)
}

// TestFaultLogDiskFull: the server's log writer fails with ENOSPC on every
// write (/dev/full), at debug level so every call logs: sessions and the
// protocol work as before, in memory and over stdio, and a persistent
// session through an agent whose own log is /dev/full works too.
func TestFaultLogDiskFull(t *testing.T) {
	full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
	if err != nil {
		t.Skipf("no /dev/full: %v", err)
	}
	defer full.Close()
	if _, err := full.Write([]byte("x")); !errors.Is(err, syscall.ENOSPC) {
		t.Skipf("/dev/full does not fail with ENOSPC: %v", err)
	}
	log := slog.New(slog.NewTextHandler(full, &slog.HandlerOptions{Level: slog.LevelDebug}))

	t.Run("in memory", func(t *testing.T) {
		sock := filepath.Join(shortTempDir(t), "agent.sock")
		client := &agent.Client{Socket: sock, AgentPath: agentBinary(t), StartArgs: []string{"--log", "/dev/full"}, Logger: log}
		t.Cleanup(func() { _ = exec.Command(agentBinary(t), "stop", "--force", "--socket", sock).Run() })
		m := session.NewManager(session.Options{
			Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
			StateDir: t.TempDir(),
			Shell:    "/bin/bash",
			NoRC:     true,
			Logger:   log,
			Keeper:   client,
		})
		t.Cleanup(m.CloseAll)
		cs := connect(t, newServer(m, log), nil)
		for _, persistent := range []bool{false, true} {
			var open OpenOut
			call(t, cs, "open_local", map[string]any{"persistent": persistent, "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &open)
			if open.Persistent != persistent {
				t.Fatalf("persistent %v: %+v", persistent, open)
			}
			stillWorks(t, cs, open.ID)
			wantError(t, cs, "send", map[string]any{"session_id": open.ID, "text": "mkfs /dev/sdz"}, "looks destructive")
			call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
		}
	})

	t.Run("stdio", func(t *testing.T) {
		cmd := serverCmd(t) // TTYMUX_LOG=debug
		cmd.Stderr = full
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "fault", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		id := openLocal(t, cs)
		stillWorks(t, cs, id)
		call(t, cs, "close", map[string]any{"session_id": id}, nil)
		if err := cs.Close(); err != nil {
			t.Errorf("close the client: %v", err)
		}
		if err := cmd.Wait(); err != nil && !isExitAfterClose(err) {
			t.Errorf("server exit with its log on a full disk: %v", err)
		}
	})
}

// isExitAfterClose reports whether err is how a server stopped by closing
// its stdin may end (the SDK's CommandTransport signals it if it lingers).
func isExitAfterClose(err error) bool {
	return strings.Contains(err.Error(), "signal: terminated") || strings.Contains(err.Error(), "Wait was already called")
}
