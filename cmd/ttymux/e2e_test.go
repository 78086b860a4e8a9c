package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/testhome"
)

var (
	buildOnce sync.Once
	binPath   string
	buildErr  error
	buildDir  string
)

// TestMain removes the binary built for the end-to-end tests.
func TestMain(m *testing.M) {
	if sock := os.Getenv(approvingConsoleEnv); sock != "" {
		os.Exit(runApprovingConsole(sock))
	}
	if spec := os.Getenv(offerProbeEnv); spec != "" {
		os.Exit(runOfferProbe(spec))
	}
	// HOME and every XDG directory private: no test (and no server it
	// starts) reads the user's policy or writes the user's audit log.
	testhome.Private()
	code := m.Run()
	if buildDir != "" {
		_ = os.RemoveAll(buildDir) // best effort
	}
	testhome.Cleanup(code)
}

// ttymuxBinary builds cmd/ttymux once per test run.
func ttymuxBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		buildDir, buildErr = os.MkdirTemp("", "ttymux-e2e-")
		if buildErr != nil {
			return
		}
		binPath = filepath.Join(buildDir, "ttymux")
		out, err := exec.Command("go", "build", "-o", binPath, ".").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build: %v\n%s", err, out)
			return
		}
		// The agent sits beside ttymux, where ttymux looks for it.
		out, err = exec.Command("go", "build", "-o", filepath.Join(buildDir, "ttymux-agent"), "../ttymux-agent").CombinedOutput()
		if err != nil {
			buildErr = fmt.Errorf("go build ttymux-agent: %v\n%s", err, out)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return binPath
}

// serverCmd returns the built server with a deterministic environment and
// sessions kept in this process.
func serverCmd(t testing.TB) *exec.Cmd {
	cmd := exec.Command(ttymuxBinary(t), "mcp", "-no-agent")
	cmd.Env = testEnv(t, t.TempDir())
	return cmd
}

// testEnv is a deterministic environment whose agent socket lives under
// runtime (a private XDG_RUNTIME_DIR).
func testEnv(t testing.TB, runtime string) []string {
	home := t.TempDir()
	return append(os.Environ(), "SHELL=/bin/bash", "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
		"XDG_RUNTIME_DIR="+runtime, "TTYMUX_LOG=debug")
}

// shortTempDir returns a directory with a path short enough for a Unix
// socket inside it.
func shortTempDir(t testing.TB) string {
	d, err := os.MkdirTemp("", "ttm")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(d, 0o700); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(d) })
	return d
}

// persistentServers returns a function that starts the built server (with
// the agent, as a user runs it) over stdio, each time a new process sharing
// one private agent whose socket is under runtime (XDG_RUNTIME_DIR); the
// test's cleanup stops it. The buffer collects the server's stderr.
func persistentServers(t *testing.T, runtime string) func() (*exec.Cmd, *mcp.ClientSession, *bytes.Buffer) {
	t.Helper()
	env := testEnv(t, runtime)
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent"), "stop", "--force")
		stop.Env = env
		_ = stop.Run() // best effort
	})
	return func() (*exec.Cmd, *mcp.ClientSession, *bytes.Buffer) {
		cmd := exec.Command(ttymuxBinary(t), "mcp")
		cmd.Env = env
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v\n%s", err, stderr.String())
		}
		return cmd, cs, &stderr
	}
}

// TestStdioOnlyJSONRPC drives the built binary over stdio the way Claude
// Code does (protocol 2025-06-18, newline-delimited JSON-RPC) and checks
// that every byte on stdout is JSON-RPC while the log goes to stderr.
func TestStdioOnlyJSONRPC(t *testing.T) {
	cmd := serverCmd(t)
	stdin, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	lines := make(chan string, 64)
	go func() {
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 16<<20)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	write := func(v any) {
		b, _ := json.Marshal(v)
		if _, err := stdin.Write(append(b, '\n')); err != nil {
			t.Fatal(err)
		}
	}
	// next returns the response with the given id; every line on stdout must
	// be a JSON-RPC 2.0 message.
	next := func(id int) map[string]any {
		t.Helper()
		timeout := time.After(30 * time.Second)
		for {
			select {
			case l, ok := <-lines:
				if !ok {
					t.Fatalf("stdout closed; stderr:\n%s", stderr.String())
				}
				var msg map[string]any
				if err := json.Unmarshal([]byte(l), &msg); err != nil || msg["jsonrpc"] != "2.0" {
					t.Fatalf("stdout carried a non-JSON-RPC line: %q", l)
				}
				if v, ok := msg["id"].(float64); ok && int(v) == id {
					return msg
				}
			case <-timeout:
				t.Fatalf("no response %d; stderr:\n%s", id, stderr.String())
			}
		}
	}
	write(map[string]any{"jsonrpc": "2.0", "id": 1, "method": "initialize", "params": map[string]any{
		"protocolVersion": "2025-06-18", "capabilities": map[string]any{},
		"clientInfo": map[string]any{"name": "e2e", "version": "0"},
	}})
	init := next(1)
	if v := init["result"].(map[string]any)["protocolVersion"]; v != "2025-06-18" {
		t.Fatalf("negotiated %v, want 2025-06-18", v)
	}
	write(map[string]any{"jsonrpc": "2.0", "method": "notifications/initialized"})
	callTool := func(id int, name string, args map[string]any) map[string]any {
		write(map[string]any{"jsonrpc": "2.0", "id": id, "method": "tools/call", "params": map[string]any{"name": name, "arguments": args}})
		res := next(id)["result"].(map[string]any)
		if res["isError"] == true {
			t.Fatalf("%s: error result %v", name, res)
		}
		return res["structuredContent"].(map[string]any)
	}
	open := callTool(2, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}})
	sid := open["session_id"].(string)
	out := callTool(3, "send", map[string]any{"session_id": sid, "text": "echo hello; echo to-stderr >&2"})
	if out["output"] != "hello\nto-stderr" || out["via"] != "exit-code" || out["exit_code"] != float64(0) {
		t.Fatalf("send: %v", out)
	}
	callTool(4, "close", map[string]any{"session_id": sid})
	if err := stdin.Close(); err != nil {
		t.Fatal(err)
	}
	for l := range lines {
		var msg map[string]any
		if json.Unmarshal([]byte(l), &msg) != nil {
			t.Fatalf("stdout carried a non-JSON line after close: %q", l)
		}
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("server exit: %v; stderr:\n%s", err, stderr.String())
	}
	if !strings.Contains(stderr.String(), "session opened") {
		t.Errorf("expected the debug log on stderr, got:\n%s", stderr.String())
	}
}

// TestStdioGoClient runs the built binary under the go-sdk client, which
// negotiates the newest protocol revision the SDK knows.
func TestStdioGoClient(t *testing.T) {
	cmd := serverCmd(t)
	cmd.Stderr = io.Discard
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "e2e", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	if got, want := cs.InitializeResult().ProtocolVersion, mcp.SupportedProtocolVersions()[0]; got != want {
		t.Errorf("negotiated protocol %s, want the newest the SDK knows, %s", got, want)
	}
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
	var r struct {
		Output   string `json:"output"`
		ExitCode *int   `json:"exit_code"`
	}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "exit_code_test() { return 7; }; exit_code_test"}, &r)
	if r.ExitCode == nil || *r.ExitCode != 7 {
		t.Fatalf("exit code = %v, want 7", r.ExitCode)
	}
}

// TestKillNineResumes is the persistence promise end to end: the server is
// killed with SIGKILL while a command prints ticks; a second server, given
// only the session_id, returns the rest; every tick arrives exactly once,
// and the shell state set before the kill is still there.
func TestKillNineResumes(t *testing.T) {
	start := persistentServers(t, shortTempDir(t))
	startServer := func() (*exec.Cmd, *mcp.ClientSession) {
		cmd, cs, _ := start()
		return cmd, cs
	}

	cmd1, cs1 := startServer()
	var open OpenOut
	call(t, cs1, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
	if !open.Persistent || !open.Integrated {
		t.Fatalf("open_local: %+v", open)
	}
	var r1 struct {
		Output   string `json:"output"`
		Complete bool   `json:"complete"`
	}
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "export VAR=before-kill"}, &r1)
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "for i in $(seq 1 50); do echo tick-$i; sleep 0.05; done", "timeout_ms": 600}, &r1)
	if r1.Complete {
		t.Fatalf("loop finished early: %+v", r1)
	}
	if err := cmd1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cs1.Close()
	_ = cmd1.Wait()

	_, cs2 := startServer()
	defer cs2.Close()
	var r2 struct {
		Output   string `json:"output"`
		Complete bool   `json:"complete"`
		Via      string `json:"via"`
	}
	call(t, cs2, "read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 20000}, &r2)
	if !r2.Complete || r2.Via != "exit-code" {
		t.Fatalf("read after restart: %+v", r2)
	}
	var ticks []string
	for _, l := range strings.Split(r1.Output+"\n"+r2.Output, "\n") {
		if l != "" {
			ticks = append(ticks, l)
		}
	}
	if len(ticks) != 50 {
		t.Fatalf("%d ticks, want 50 exactly once\nbefore kill: %q\nafter: %q", len(ticks), r1.Output, r2.Output)
	}
	for i, l := range ticks {
		if l != fmt.Sprintf("tick-%d", i+1) {
			t.Fatalf("tick %d is %q\nbefore kill: %q\nafter: %q", i+1, l, r1.Output, r2.Output)
		}
	}
	var r3 struct {
		Output string `json:"output"`
	}
	call(t, cs2, "send", map[string]any{"session_id": open.ID, "text": "echo $VAR"}, &r3)
	if r3.Output != "before-kill" {
		t.Fatalf("state after restart: %q", r3.Output)
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
}
