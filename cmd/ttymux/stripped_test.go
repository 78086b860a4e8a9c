package main

import (
	"context"
	"encoding/json"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
)

// runUserBinary builds ttymux with its /run/user replaced by base (the
// test cannot make /run/user/<uid> on the machine), beside the agent the
// other end-to-end tests use.
func runUserBinary(t *testing.T, base string) string {
	t.Helper()
	dir := t.TempDir()
	bin := filepath.Join(dir, "ttymux")
	out, err := exec.Command("go", "build", "-ldflags", "-X github.com/ttymux/ttymux/internal/agentsock.runUserBase="+base, "-o", bin, ".").CombinedOutput()
	if err != nil {
		t.Fatalf("go build: %v\n%s", err, out)
	}
	agent := filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent")
	if err := os.Link(agent, filepath.Join(dir, "ttymux-agent")); err != nil {
		b, err := os.ReadFile(agent)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(dir, "ttymux-agent"), b, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	return bin
}

// TestStrippedEnvironment is "one agent per user whatever the client
// passes": a server started the way the TypeScript SDK starts it (only
// HOME, LOGNAME, PATH, SHELL, TERM and USER) lists the session a normally
// started server opened, and writes its audit log where that server's
// XDG_STATE_HOME says. Before, it made a second, hidden agent under
// /tmp/ttymux-<uid> and a second audit log under ~/.local/state.
func TestStrippedEnvironment(t *testing.T) {
	t.Parallel() // waits on builds and processes: overlaps the other parallel tests
	base := shortTempDir(t)
	uid := strconv.Itoa(os.Geteuid())
	run := filepath.Join(base, uid) // what systemd-logind makes: /run/user/<uid>, 0700
	if err := os.Mkdir(run, 0o700); err != nil {
		t.Fatal(err)
	}
	bin := runUserBinary(t, base)
	home, cfg, state := t.TempDir(), t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "ttymux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "ttymux", "policy.toml"), []byte("[defaults]\nheld = \"deny\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stripped := []string{"HOME=" + home, "LOGNAME=u", "PATH=" + os.Getenv("PATH"), "SHELL=/bin/bash", "TERM=xterm-256color", "USER=u"}
	normal := append(stripped, "XDG_RUNTIME_DIR="+run, "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+state)
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(filepath.Dir(bin), "ttymux-agent"), "stop", "--force")
		stop.Env = normal
		_ = stop.Run() // best effort
	})

	connect := func(env []string) *mcp.ClientSession {
		t.Helper()
		cmd := exec.Command(bin, "mcp")
		cmd.Env = env
		cmd.Stderr = io.Discard
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		cs, err := mcp.NewClient(&mcp.Implementation{Name: "stripped", Version: "0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: cmd}, nil)
		if err != nil {
			t.Fatalf("connect: %v", err)
		}
		return cs
	}

	cs := connect(normal)
	var open OpenOut
	// No history file: a shell hung up when the test's agent stops would
	// write one into HOME while the test removes it.
	call(t, cs, "open_local", map[string]any{"env": map[string]string{"HISTFILE": "/dev/null"}}, &open)
	if !open.Persistent {
		t.Fatalf("open_local: not persistent: %+v", open)
	}
	_ = cs.Close()

	// Doctor first: a server that looked elsewhere would start an agent
	// outside the test's directories.
	doc := exec.Command(bin, "doctor", "--json")
	doc.Env = stripped
	out, _ := doc.Output() // exit 1 when a check fails: the report says
	var rep doctorReport
	if err := json.Unmarshal(out, &rep); err != nil {
		t.Fatalf("doctor --json: %v\n%s", err, out)
	}
	details := map[string]string{}
	for _, c := range rep.Checks {
		details[c.Name] = c.Detail
	}
	if d := details["agent-socket-dir"]; !strings.HasPrefix(d, filepath.Join(run, "ttymux")) || !strings.Contains(d, "XDG_RUNTIME_DIR is not set") {
		t.Fatalf("doctor in a stripped environment: agent-socket-dir %q, want %s and why", d, filepath.Join(run, "ttymux"))
	}
	if d := details["policy"]; !strings.Contains(d, cfg) {
		t.Fatalf("doctor in a stripped environment: policy %q, want the one in %s", d, cfg)
	}

	cs = connect(stripped)
	defer cs.Close()
	var list ListOut
	call(t, cs, "list", map[string]any{}, &list)
	found := false
	for _, s := range list.Sessions {
		found = found || s.ID == open.ID
	}
	if !found {
		t.Fatalf("the server started with a stripped environment lists %+v, not %s", list.Sessions, open.ID)
	}
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo stripped-$((6*7))"}, &r)
	if !strings.Contains(r.Output, "stripped-42") {
		t.Fatalf("send: %+v", r)
	}
	b, err := os.ReadFile(filepath.Join(state, "ttymux", "audit.jsonl"))
	if err != nil || !strings.Contains(string(b), "stripped-") {
		t.Fatalf("the audit log under XDG_STATE_HOME %s lacks the stripped server's send: %v\n%s", state, err, b)
	}
	if _, err := os.Stat(filepath.Join(home, ".local", "state", "ttymux", "audit.jsonl")); err == nil {
		t.Fatal("the stripped server wrote a second audit log under ~/.local/state")
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
}
