package main

import (
	"context"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// approvingConsoleEnv makes the test binary a console that approves every
// question (TestMain): what a model would start from its own session to
// approve its own holds.
const approvingConsoleEnv = "TTYMUX_TEST_APPROVING_CONSOLE"

func runApprovingConsole(sock string) int {
	hs, err := console.ListenHolds(sock, nil)
	if err != nil {
		return 1
	}
	defer hs.Close()
	parent := os.Getppid()
	for start := time.Now(); time.Since(start) < time.Minute && os.Getppid() == parent; time.Sleep(20 * time.Millisecond) {
		for _, q := range hs.List() {
			_ = hs.Answer(q.ID, console.Answer{Decision: console.Approve})
		}
	}
	return 0
}

// holdRig is a server whose client cannot ask the human and whose policy
// says no_elicitation = "console", a session in a git repository holding
// an untracked file, and the console's socket path (nothing listens yet).
type holdRig struct {
	*humanRig
	sock string
	repo string
	id   string
}

const consolePolicy = "[defaults]\nno_elicitation = \"console\"\n"

func newHoldRig(t *testing.T) *holdRig {
	t.Helper()
	sock := filepath.Join(shortTempDir(t), "ttymux", console.SocketName)
	r := &holdRig{humanRig: newHumanRigOpts(t, "2025-06-18", rigOptions{policy: consolePolicy, console: consoleConfig{socket: sock}}), sock: sock, repo: t.TempDir()}
	if out, err := exec.Command("git", "init", "-q", r.repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(r.repo, "junk.o"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	r.id = r.openLocal()
	var res session.Result
	if c := call(t, r.cs, "send", map[string]any{"session_id": r.id, "text": "cd " + r.repo}, &res); c.IsError {
		t.Fatalf("cd: %s", resultText(c))
	}
	return r
}

// junk reports whether the untracked file is still there (git clean has
// not run).
func (r *holdRig) junk() bool {
	_, err := os.Stat(filepath.Join(r.repo, "junk.o"))
	return err == nil
}

// clean sends git clean -fdx (held by the gate) and returns its result
// when the call ends.
func (r *holdRig) clean(timeoutMS int) <-chan *mcp.CallToolResult {
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
		defer cancel()
		res, err := r.cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": r.id, "text": "git clean -fdx", "timeout_ms": timeoutMS}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	return done
}

func waitResult(t *testing.T, done <-chan *mcp.CallToolResult) *mcp.CallToolResult {
	t.Helper()
	select {
	case res := <-done:
		return res
	case <-time.After(90 * time.Second):
		t.Fatal("the send did not return")
		return nil
	}
}

// consoleEvents are the audit log's approval records.
func (r *holdRig) consoleEvents() []audit.Event {
	var out []audit.Event
	for _, e := range r.events() {
		if e.Event == audit.KindApprovalAsked || e.Event == audit.KindApprovalAnswered {
			out = append(out, e)
		}
	}
	return out
}

// TestConsoleHolds is issue #35's no_elicitation = "console" without a
// browser: git clean -fdx waits for the console, is listed there whole
// with its session, host and reason, runs only when the human approves,
// and is refused when they decline or do not answer in time (the
// question is then withdrawn from the console). The result says where it
// waited; the audit log records it via "console".
func TestConsoleHolds(t *testing.T) {
	tests := []struct {
		name    string
		answer  string // "" : never answered
		timeout int
		runs    bool
		errWant string
		want    audit.Decision
	}{
		{"approved", console.Approve, 60000, true, "", audit.ApprovedByHuman},
		{"declined", console.Decline, 60000, false, "the human declined", audit.DeclinedByHuman},
		{"no answer in time", "", 1500, false, "did not answer within the call's timeout", audit.DeclinedByHuman},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newHoldRig(t)
			hs, err := console.ListenHolds(r.sock, nil)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { hs.Close() })
			done := r.clean(tt.timeout)
			var q []console.HoldView
			testwait.Until(t, "the hold in the console", 30*time.Second, func() bool { q = hs.List(); return len(q) == 1 })
			h := q[0]
			if h.Kind != console.KindHold || h.Command != "git clean -fdx" || h.Session != r.id || h.Host != "local" || len(h.Reasons) == 0 || h.PID != os.Getpid() {
				t.Fatalf("the console shows %+v", h)
			}
			if !r.junk() {
				t.Fatal("git clean ran before the human answered")
			}
			if tt.answer != "" {
				if err := hs.Answer(h.ID, console.Answer{Decision: tt.answer}); err != nil {
					t.Fatal(err)
				}
			}
			res := waitResult(t, done)
			if tt.runs {
				if res.IsError {
					t.Fatalf("refused: %s", resultText(res))
				}
				if !strings.Contains(resultText(res), "waited") || !strings.Contains(resultText(res), "in the console, who approved it") {
					t.Fatalf("the result does not say where it waited: %s", resultText(res))
				}
				testwait.Until(t, "git clean to run", 10*time.Second, func() bool { return !r.junk() })
			} else {
				if !res.IsError || !strings.Contains(resultText(res), tt.errWant) {
					t.Fatalf("want a refusal with %q, got %s", tt.errWant, resultText(res))
				}
				var after session.Result
				call(t, r.cs, "send", map[string]any{"session_id": r.id, "text": "echo after"}, &after)
				if !r.junk() {
					t.Fatal("a refused git clean ran")
				}
				testwait.Until(t, "the question withdrawn from the console", 10*time.Second, func() bool { return len(hs.List()) == 0 })
			}
			ev := r.consoleEvents()
			if len(ev) != 2 || ev[0].Event != audit.KindApprovalAsked || ev[1].Decision != tt.want || ev[0].Via != audit.ViaConsole || ev[1].Via != audit.ViaConsole {
				t.Fatalf("audit approvals = %+v", ev)
			}
			if err := hs.Answer(h.ID, console.Answer{Decision: console.Approve}); err == nil {
				t.Fatal("a question was answered twice")
			}
		})
	}
}

// TestConsoleHoldNoConsole: with no console open the held line is refused
// at once, and the model reads what to ask the user.
func TestConsoleHoldNoConsole(t *testing.T) {
	r := newHoldRig(t)
	res := waitResult(t, r.clean(60000))
	if !res.IsError || !strings.Contains(resultText(res), "no console is open") || !strings.Contains(resultText(res), "ttymux web") {
		t.Fatalf("want a refusal naming ttymux web, got %s", resultText(res))
	}
	if !r.junk() {
		t.Fatal("git clean ran")
	}
}

// TestConsoleHoldModelConfirmIsNotEnough: under no_elicitation = "console"
// the model's confirm: true does not run a held line.
func TestConsoleHoldModelConfirmIsNotEnough(t *testing.T) {
	r := newHoldRig(t)
	res := call(t, r.cs, "send", map[string]any{"session_id": r.id, "text": "git clean -fdx", "confirm": true}, nil)
	if !res.IsError || !r.junk() {
		t.Fatalf("confirm: true ran it: %s", resultText(res))
	}
}

// TestFakeConsoleRefused: the server trusts a decision only from the
// console the human started. A process that is not ttymux listening on the
// console's socket (here python3, answering "approve" to anything), and a
// real console started from inside a session (what a model could do to
// approve its own holds), are refused before anything is sent; nothing
// runs.
func TestFakeConsoleRefused(t *testing.T) {
	t.Run("not ttymux", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not found")
		}
		r := newHoldRig(t)
		if err := os.MkdirAll(filepath.Dir(r.sock), 0o700); err != nil {
			t.Fatal(err)
		}
		got := filepath.Join(t.TempDir(), "received")
		cmd := exec.Command(py, "-c", `
import socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(sys.argv[1]); s.listen(4)
while True:
    c, _ = s.accept()
    data = c.recv(65536)
    open(sys.argv[2], "ab").write(data)
    try:
        c.sendall(b'{"decision":"approve"}\n')
    except OSError:
        pass
    c.close()
`, r.sock, got)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitSocket(t, r.sock)
		res := waitResult(t, r.clean(60000))
		if !res.IsError || !strings.Contains(resultText(res), "not trusted") || !strings.Contains(resultText(res), "not this ttymux binary") {
			t.Fatalf("want the fake console refused, got %s", resultText(res))
		}
		if !r.junk() {
			t.Fatal("git clean ran on the fake console's word")
		}
		if b, _ := os.ReadFile(got); len(b) > 0 {
			t.Fatalf("the fake console was told the question: %q", b)
		}
	})
	t.Run("inside a session", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		r := newHoldRig(t)
		// Started by the model, in its own session: the test binary in
		// the approving-console mode is the same binary as this server.
		var res0 session.Result
		line := approvingConsoleEnv + "=" + r.sock + " " + self + " >/dev/null 2>&1 &"
		if c := call(t, r.cs, "send", map[string]any{"session_id": r.id, "text": line}, &res0); c.IsError {
			t.Fatalf("start the console in the session: %s", resultText(c))
		}
		waitSocket(t, r.sock)
		res := waitResult(t, r.clean(60000))
		if !res.IsError || !strings.Contains(resultText(res), "runs inside a session") {
			t.Fatalf("want the console in a session refused, got %s", resultText(res))
		}
		if !r.junk() {
			t.Fatal("git clean ran on the word of a console the model started")
		}
	})
}

// TestFakeConsoleRefusedDetached: a console the model starts from its
// session and detaches by a double fork (its parent is then init or a
// subreaper, not the session's shell) is still refused: it keeps the
// terminal session whose leader, the session's shell, runs under ttymux.
func TestFakeConsoleRefusedDetached(t *testing.T) {
	self, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	r := newHoldRig(t)
	var res0 session.Result
	line := "( " + approvingConsoleEnv + "=" + r.sock + " " + self + " >/dev/null 2>&1 & )"
	if c := call(t, r.cs, "send", map[string]any{"session_id": r.id, "text": line}, &res0); c.IsError {
		t.Fatalf("start the console in the session: %s", resultText(c))
	}
	waitSocket(t, r.sock)
	c, err := net.Dial("unix", r.sock)
	if err != nil {
		t.Fatal(err)
	}
	pid, _, err := console.PeerCred(c)
	c.Close()
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if p, err := os.FindProcess(pid); err == nil {
			p.Kill() // it outlives the session by design
		}
	})
	// Detached: this process (the server holding the session) is no
	// longer among its ancestors.
	for p := pid; p > 1; {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", p))
		if err != nil {
			break
		}
		f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+1:]))
		fmt.Sscan(f[1], &p)
		if p == os.Getpid() {
			t.Fatalf("the console was not detached from the session (pid %d is under this process)", pid)
		}
	}
	res := waitResult(t, r.clean(60000))
	if !res.IsError || !strings.Contains(resultText(res), "runs inside a session") {
		t.Fatalf("want the detached console refused, got %s", resultText(res))
	}
	if !r.junk() {
		t.Fatal("git clean ran on the word of a console the model started")
	}
}

func waitSocket(t *testing.T, path string) {
	t.Helper()
	// A connection, not the file: the file appears at bind, before listen.
	testwait.Until(t, "a listener on "+path, 30*time.Second, func() bool {
		fi, err := os.Lstat(path)
		if err != nil || fi.Mode().Type() != fs.ModeSocket {
			return false
		}
		c, err := net.Dial("unix", path)
		if err == nil {
			c.Close()
		}
		return err == nil
	})
}
