package main

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

var update = flag.Bool("update", false, "rewrite docs/tools.md and toolschemas_gen.go")

// newTestManager returns a Manager with a deterministic bash; keeper, if
// given, keeps its persistent sessions.
func newTestManager(t testing.TB, keeper ...transport.Keeper) *session.Manager {
	t.Helper()
	opts := session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
	}
	if len(keeper) > 0 {
		opts.Keeper = keeper[0]
	}
	m := session.NewManager(opts)
	t.Cleanup(m.CloseAll)
	return m
}

// connect serves a fresh server over in-memory transports and returns the
// client side.
func connect(t testing.TB, srv *mcp.Server, opts *mcp.ClientOptions) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts).Connect(ctx, ct, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

func newTestClient(t testing.TB) *mcp.ClientSession {
	return connect(t, newServer(newTestManager(t), nil), nil)
}

// call invokes a tool and decodes its structured content into out.
func call(t testing.TB, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	return callWithin(t, 60*time.Second, cs, name, args, out)
}

// callWithin is call with its own bound, for requests that are slow to
// carry (a 10 MB argument under -race on a busy machine).
func callWithin(t testing.TB, d time.Duration, cs *mcp.ClientSession, name string, args any, out any) *mcp.CallToolResult {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	res, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	if out != nil && !res.IsError {
		b, _ := json.Marshal(res.StructuredContent)
		if err := json.Unmarshal(b, out); err != nil {
			t.Fatalf("%s: decode %s: %v", name, b, err)
		}
	}
	return res
}

func resultText(r *mcp.CallToolResult) string {
	var b strings.Builder
	for _, c := range r.Content {
		if tc, ok := c.(*mcp.TextContent); ok {
			b.WriteString(tc.Text)
		}
	}
	return b.String()
}

func openLocal(t testing.TB, cs *mcp.ClientSession) string {
	t.Helper()
	var out OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &out)
	if res.IsError || out.ID == "" {
		t.Fatalf("open_local failed: %s", resultText(res))
	}
	return out.ID
}

func TestToolsList(t *testing.T) {
	cs := newTestClient(t)
	res, err := cs.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range res.Tools {
		names = append(names, tool.Name)
		if tool.Annotations == nil || tool.Annotations.Title == "" {
			t.Errorf("%s has no annotations", tool.Name)
		}
		if tool.OutputSchema == nil {
			t.Errorf("%s has no output schema", tool.Name)
		}
	}
	want := "attach close detach download fanout forward list open_local open_serial open_ssh read resize send serial_ports upload"
	if got := strings.Join(names, " "); got != want {
		t.Fatalf("tools = %s, want %s", got, want)
	}
}

// TestToolsDocUpToDate keeps docs/tools.md generated from the definitions.
func TestToolsDocUpToDate(t *testing.T) {
	const path = "../../docs/tools.md"
	got := toolsDoc()
	if *update {
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(want) != got {
		t.Fatal("docs/tools.md is stale: run go test ./cmd/ttymux -update")
	}
}

func TestSendThroughMCP(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	var r session.Result
	res := call(t, cs, "send", map[string]any{"session_id": id, "text": "echo hello"}, &r)
	if res.IsError || r.Output != "hello" || !r.Complete || r.Via != "exit-code" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("echo hello: %s", resultText(res))
	}
	if !strings.Contains(resultText(res), "hello\n[complete via exit-code, exit 0") {
		t.Fatalf("text form: %q", resultText(res))
	}
	call(t, cs, "send", map[string]any{"session_id": id, "text": "false"}, &r)
	if r.ExitCode == nil || *r.ExitCode != 1 {
		t.Fatalf("false: exit %v", r.ExitCode)
	}
	call(t, cs, "send", map[string]any{"session_id": id, "text": "cd /tmp"}, nil)
	call(t, cs, "send", map[string]any{"session_id": id, "text": "pwd"}, &r)
	if r.Output != "/tmp" {
		t.Fatalf("pwd after cd: %q", r.Output)
	}
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].ID != id || l.Sessions[0].State != "prompt" {
		t.Fatalf("list: %+v", l)
	}
	var info session.Info
	if res := call(t, cs, "resize", map[string]any{"session_id": id, "rows": 30, "cols": 100}, &info); res.IsError || info.Rows != 30 {
		t.Fatalf("resize: %s", resultText(res))
	}
	call(t, cs, "send", map[string]any{"session_id": id, "text": "stty size"}, &r)
	if r.Output != "30 100" {
		t.Fatalf("stty size after resize: %q", r.Output)
	}
	var c CloseOut
	call(t, cs, "close", map[string]any{"session_id": id}, &c)
	if !c.Closed {
		t.Fatal("close did not close")
	}
}

func TestErrorsAreActionable(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	tests := []struct {
		name string
		tool string
		args map[string]any
		want string
	}{
		{"wrong session id", "send", map[string]any{"session_id": "s42", "text": "ls"}, "open sessions: " + id},
		{"invalid regex", "send", map[string]any{"session_id": id, "text": "ls", "until": "[a-"}, "not a valid regular expression"},
		{"empty send", "send", map[string]any{"session_id": id}, "nothing to send"},
		{"unknown key", "send", map[string]any{"session_id": id, "keys": []string{"hyper+q"}}, "unknown key"},
		{"zero size", "resize", map[string]any{"session_id": id, "rows": 0, "cols": 80}, "between 1 and 1000"},
		{"negative size", "resize", map[string]any{"session_id": id, "rows": -3, "cols": 80}, "between 1 and 1000"},
		{"open with an impossible size", "open_local", map[string]any{"rows": 5000}, "rows and cols are 1-1000"},
		{"bad mode", "read", map[string]any{"session_id": id, "mode": "everything"}, "use new, screen, diff or range"},
		{"missing parameter", "send", map[string]any{"text": "ls"}, "session_id"},
		{"destructive", "send", map[string]any{"session_id": id, "text": "mkfs.ext4 /dev/sda1"}, "confirm: true"},
		{"missing program", "open_local", map[string]any{"command": "no-such-program-ttymux"}, "not found"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, tt.tool, tt.args, nil)
			if !res.IsError || !strings.Contains(resultText(res), tt.want) {
				t.Fatalf("got isError=%v %q, want an error containing %q", res.IsError, resultText(res), tt.want)
			}
		})
	}
	// The server and the session keep working.
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": id, "text": "echo still-here"}, &r)
	if r.Output != "still-here" {
		t.Fatalf("after errors: %q", r.Output)
	}
}

// TestConcurrentCalls: a long read wait must not delay other calls.
func TestConcurrentCalls(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	call(t, cs, "send", map[string]any{"session_id": id, "text": "sleep 30", "wait": false}, nil)
	waitSleeping(t, cs)
	var wg sync.WaitGroup
	readDone := make(chan struct{})
	wg.Go(func() {
		defer close(readDone)
		var r session.Result
		call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "timeout_ms": 3000}, &r)
		if r.Complete {
			t.Errorf("read wait on sleep 30 reported complete: %+v", r)
		}
	})
	// list must answer while the read is still waiting.
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	select {
	case <-readDone:
		t.Fatal("list only answered after the 3 s read wait ended")
	default:
	}
	if len(l.Sessions) != 1 || l.Sessions[0].Foreground != "sleep" {
		t.Errorf("list during wait: %+v", l.Sessions)
	}
	wg.Wait()
}

// TestCancellation: a cancelled call stops waiting.
func TestCancellation(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": id, "text": "sleep 60", "timeout_ms": 600000}})
		done <- err
	}()
	// Cancel once the command is running.
	waitSleeping(t, cs)
	cancel()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		t.Fatal("cancelled call did not return")
	}
	// The session is usable again: interrupt and run another command.
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": id, "keys": []string{"ctrl+c"}}, &r)
	call(t, cs, "send", map[string]any{"session_id": id, "text": "echo ok"}, &r)
	if r.Output != "ok" {
		t.Fatalf("after cancel: %q", r.Output)
	}
}

func TestPanicBecomesErrorResult(t *testing.T) {
	srv := newServer(newTestManager(t), nil)
	mcp.AddTool(srv, &mcp.Tool{Name: "boom"}, func(context.Context, *mcp.CallToolRequest, struct{}) (*mcp.CallToolResult, struct{}, error) {
		panic("kaboom")
	})
	cs := connect(t, srv, nil)
	res := call(t, cs, "boom", map[string]any{}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "kaboom") {
		t.Fatalf("panic result: %q", resultText(res))
	}
	var l ListOut
	if res := call(t, cs, "list", map[string]any{}, &l); res.IsError {
		t.Fatal("server dead after panic")
	}
}

func TestProgressNotifications(t *testing.T) {
	var mu sync.Mutex
	var msgs []string
	cs := connect(t, newServer(newTestManager(t), nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			mu.Lock()
			msgs = append(msgs, req.Params.Message)
			mu.Unlock()
		},
	})
	id := openLocal(t, cs)
	params := &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": id, "text": "sleep 1.5; echo done"}}
	params.SetProgressToken("tok")
	res, err := cs.CallTool(context.Background(), params)
	if err != nil || res.IsError {
		t.Fatalf("send: %v %v", err, res)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(msgs) == 0 || !strings.Contains(msgs[0], "sleep") {
		t.Fatalf("progress messages = %q, want one naming sleep", msgs)
	}
}

// waitSleeping waits (bounded) until list shows sleep in the foreground.
func waitSleeping(t *testing.T, cs *mcp.ClientSession) {
	t.Helper()
	waitSleepingIn(t, cs) // polling kernel state: no event announces it
}
