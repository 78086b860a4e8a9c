//go:build qabugs

// Acceptance tests of issue #13 found failing on the merged main, through
// the in-process MCP client with real PTYs (and a real sshd where a host is
// needed). Each one reproduces a flow a new user or an attacker tried that
// gave a wrong answer; they sit behind the qabugs build tag so that the
// suite stays green until the code is fixed:
//
//	go test -tags qabugs -race -count=1 -run TestQA ./cmd/ttymux
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/sshdtest"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// TestQAFloodMemory: issue #13 item 7, three `yes | head -c 100000000`
// floods in one session, the built server's peak resident set. Through an
// agent deployed on the host (open_ssh persistent: true) it reached 65–74
// MB in 10 runs of 12 (tests and by hand), over the 64 MB the issue asks
// for. Through the local agent (the default) and over SSH held in the
// server it reached 70 and 73 MB by hand on the busy machine, but 49 and
// 52 MB in this test's run: those two subtests pass there and guard the
// figure. One flood, as BenchmarkServerFloodPeakRSS runs it, stays near
// 50 MB everywhere except through a remote agent (65–71 MB).
func TestQAFloodMemory(t *testing.T) {
	flood := func(t *testing.T, cs *mcp.ClientSession, pid int, id string) {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
		defer cancel()
		// The peak varies from run to run with how far the server falls
		// behind: three floods, the highest counts.
		for range 3 {
			res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{
				"session_id": id, "text": "yes | head -c 100000000; echo END", "timeout_ms": 240000}})
			if err != nil || res.IsError {
				t.Fatalf("send: %v %+v", err, res)
			}
		}
		data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
		if err != nil {
			t.Fatal(err)
		}
		var kb int
		for _, l := range strings.Split(string(data), "\n") {
			if strings.HasPrefix(l, "VmHWM:") {
				fmt.Sscanf(strings.TrimPrefix(l, "VmHWM:"), "%d", &kb)
			}
		}
		t.Logf("server peak RSS %d MB", kb>>10)
		if kb == 0 || kb > 64<<10 {
			t.Errorf("server peak RSS %d kB through 100 MB floods held by an agent; want under 64 MB", kb)
		}
		call(t, cs, "close", map[string]any{"session_id": id}, nil)
	}
	t.Run("local-agent", func(t *testing.T) {
		start := persistentServers(t, shortTempDir(t))
		cmd, cs, _ := start()
		defer func() { _ = cs.Close(); _ = cmd.Wait() }()
		var open OpenOut
		call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
		if !open.Persistent {
			t.Fatalf("open_local: %+v", open)
		}
		flood(t, cs, cmd.Process.Pid, open.ID)
	})
	// sshServer starts the built server with an ssh_config in which "box"
	// is a test sshd on loopback.
	sshServer := func(t *testing.T) (*exec.Cmd, *mcp.ClientSession, *sshdtest.SSHD) {
		t.Setenv("SSH_AUTH_SOCK", "")
		d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{"Subsystem sftp internal-sftp"}})
		home := t.TempDir()
		sshDir := filepath.Join(home, ".ssh")
		if err := os.MkdirAll(sshDir, 0o700); err != nil {
			t.Fatal(err)
		}
		known := filepath.Join(sshDir, "known_hosts")
		if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(sshDir, "config"), []byte(d.ConfigBlock("box", known)), 0o600); err != nil {
			t.Fatal(err)
		}
		runtime := shortTempDir(t)
		cmd := exec.Command(ttymuxBinary(t), "mcp")
		cmd.Env = append(os.Environ(), "SHELL=/bin/bash", "HOME="+home, "XDG_CACHE_HOME="+filepath.Join(home, ".cache"),
			"XDG_DATA_HOME="+filepath.Join(home, ".local", "share"), "XDG_STATE_HOME="+filepath.Join(home, ".local", "state"),
			"XDG_CONFIG_HOME="+filepath.Join(home, ".config"), "XDG_RUNTIME_DIR="+runtime)
		cmd.Stderr = io.Discard
		ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "qa", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = cs.Close(); _ = cmd.Wait() })
		return cmd, cs, d
	}
	t.Run("ssh-in-server", func(t *testing.T) {
		cmd, cs, d := sshServer(t)
		var open OpenOut
		if res := call(t, cs, "open_ssh", map[string]any{"host": "box"}, &open); res.IsError {
			t.Fatalf("open_ssh: %s\nsshd log:\n%s", resultText(res), d.Log())
		}
		flood(t, cs, cmd.Process.Pid, open.ID)
	})
	t.Run("remote-agent", func(t *testing.T) {
		// The deployed agent's socket is /tmp/ttymux-<uid>, the default a
		// built server uses; the test stops that agent when done.
		cmd, cs, d := sshServer(t)
		var open OpenOut
		if res := call(t, cs, "open_ssh", map[string]any{"host": "box", "persistent": true}, &open); res.IsError {
			t.Fatalf("open_ssh: %s\nsshd log:\n%s", resultText(res), d.Log())
		}
		t.Cleanup(func() {
			c := &agentc.Client{Socket: fmt.Sprintf("/tmp/ttymux-%d/agent-v1.sock", os.Geteuid())}
			sctx, scancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer scancel()
			if err := c.Stop(sctx, true); err != nil && !errors.Is(err, agentc.ErrNoAgent) {
				t.Logf("stop the deployed agent: %v", err)
			}
		})
		flood(t, cs, cmd.Process.Pid, open.ID)
	})
}
