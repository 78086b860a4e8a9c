package main

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// consoleOf serves the human's console for a holdRig: listening on its
// socket, in this process (the human's ttymux web), showing the rig's
// audit log. It records the status of every answer posted to it.
type consoleOf struct {
	hs  *console.Holds
	cs  *console.Server
	srv *httptest.Server

	mu      sync.Mutex
	answers []int // the status of each POST /api/holds/…
}

func newConsoleOf(t *testing.T, r *holdRig) *consoleOf {
	t.Helper()
	hs, err := console.ListenHolds(r.sock, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { hs.Close() })
	c := &consoleOf{hs: hs}
	c.cs = console.New(console.Options{Source: agentSource{&agentc.Client{Socket: humanAgent(t)}}, Holds: hs, AuditLog: r.audit, Poll: 50 * time.Millisecond})
	c.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		if req.Method == http.MethodPost && strings.HasPrefix(req.URL.Path, "/api/holds/") {
			sw := &statusWriter{ResponseWriter: w, code: 200}
			c.cs.ServeHTTP(sw, req)
			c.mu.Lock()
			c.answers = append(c.answers, sw.code)
			c.mu.Unlock()
			return
		}
		c.cs.ServeHTTP(w, req)
	}))
	t.Cleanup(c.srv.Close)
	t.Cleanup(c.cs.Close)
	return c
}

func (c *consoleOf) posted() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return append([]int(nil), c.answers...)
}

type statusWriter struct {
	http.ResponseWriter
	code int
}

func (w *statusWriter) WriteHeader(code int) { w.code = code; w.ResponseWriter.WriteHeader(code) }

// browserCtx starts headless Chromium for one test.
func browserCtx(t *testing.T) context.Context {
	t.Helper()
	return browserSized(t, 1280, 860)
}

// browserSized starts headless Chromium for one test with a window of
// width×height (the screenshots' size); it ends with the test.
func browserSized(t *testing.T, width, height int) context.Context {
	t.Helper()
	bin := chromium(t)
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(bin), chromedp.NoSandbox,
		chromedp.WindowSize(width, height), chromedp.Flag("disable-gpu", true))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	t.Cleanup(cancel)
	ctx, cancel := chromedp.NewContext(actx)
	t.Cleanup(cancel)
	ctx, cancel = context.WithTimeout(ctx, 120*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// holdCard is the first question on the approvals page.
var holdCard = chromedp.CSS(`section.hold`)

// TestConsoleApprovalInChromium is issue #35's acceptance test in a real
// browser: with a client that cannot ask and no_elicitation = "console",
// git clean -fdx waits, appears on the console's approvals page (the whole
// command, the session, the host, the reason), and runs only after the
// human approves there; a second one, declined on the page, is refused
// and nothing runs. The audit tab shows both decisions.
func TestConsoleApprovalInChromium(t *testing.T) {
	r := newHoldRig(t)
	c := newConsoleOf(t, r)
	ctx := browserCtx(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(c.srv.URL+"/?token="+c.cs.Token()), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`))); err != nil {
		t.Fatalf("the console: %v", err)
	}
	done := r.clean(60000)
	// The sessions page counts the question, and its tab leads to it.
	if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.ID("holdcount")), chromedp.Click(chromedp.CSS(`a[href="/approvals"]`)), chromedp.WaitVisible(holdCard)); err != nil {
		t.Fatalf("the held command on the page: %v", err)
	}
	text, err := chromedp.Run(ctx, chromedp.Text(holdCard))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"git clean -fdx", "session " + r.id + " on local", "git history rewrite", "Approve"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the page does not show %q:\n%s", want, text)
		}
	}
	if !r.junk() {
		t.Fatal("git clean ran before the human approved")
	}
	shot(t, ctx, "console-approval.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.hold button.approve`))); err != nil {
		t.Fatal(err)
	}
	res := waitResult(t, done)
	if res.IsError || !strings.Contains(resultText(res), "in the console, who approved it") {
		t.Fatalf("approved on the page, the send says: %s", resultText(res))
	}
	testwait.Until(t, "git clean to run", 10*time.Second, func() bool { return !r.junk() })
	if err := chromedp.Do(ctx, chromedp.WaitNotPresent(holdCard)); err != nil {
		t.Fatalf("the answered question stayed on the page: %v", err)
	}

	// Declined on the page: refused, nothing runs.
	if err := writeJunk(r); err != nil {
		t.Fatal(err)
	}
	done = r.clean(60000)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(holdCard), chromedp.Click(chromedp.CSS(`section.hold button.decline`))); err != nil {
		t.Fatal(err)
	}
	res = waitResult(t, done)
	if !res.IsError || !strings.Contains(resultText(res), "the human declined") {
		t.Fatalf("declined on the page, the send says: %s", resultText(res))
	}
	if !r.junk() {
		t.Fatal("a declined git clean ran")
	}
	if got := c.posted(); len(got) != 2 || got[0] != http.StatusNoContent || got[1] != http.StatusNoContent {
		t.Fatalf("the page's answers got %v", got)
	}

	// The audit tab.
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a[href="/audit"]`)), chromedp.WaitVisible(chromedp.CSS(`#audit tbody tr`))); err != nil {
		t.Fatal(err)
	}
	_, err = chromedp.Run(ctx, chromedp.PollFunction[bool](`() => { const t = document.querySelector("#audit tbody").textContent; return t.includes("approved_by_human") && t.includes("declined_by_human") && t.includes("git clean -fdx"); }`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		body, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`main`)))
		t.Fatalf("the audit tab: %v\n%s", err, body)
	}
	shot(t, ctx, "console-audit.png")
}

func writeJunk(r *holdRig) error {
	return os.WriteFile(r.repo+"/junk.o", []byte("x"), 0o644)
}

// TestConsoleCrossOriginCannotApprove: a page from another origin (another
// port on 127.0.0.1: the same site, so the browser even sends the
// console's SameSite=Strict cookie) cannot read the CSRF token and cannot
// approve a held command, by fetch or by a form, even knowing the
// question's id. The command still waits, and nothing runs.
func TestConsoleCrossOriginCannotApprove(t *testing.T) {
	r := newHoldRig(t)
	c := newConsoleOf(t, r)
	ctx := browserCtx(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(c.srv.URL+"/?token="+c.cs.Token()), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`))); err != nil {
		t.Fatal(err)
	}
	done := r.clean(60000)
	var id string
	testwait.Until(t, "the hold in the console", 30*time.Second, func() bool {
		if l := c.hs.List(); len(l) == 1 {
			id = l[0].ID
		}
		return id != ""
	})
	target := c.srv.URL + "/api/holds/" + id
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<!doctype html><title>evil</title><iframe name="sink"></iframe>
<form id="f" method="POST" action="%[1]s" enctype="text/plain" target="sink"><input name='{"decision":"approve","x":"' value='"}'></form>
<script>
(async () => {
  let csrf = "unread";
  try { const r = await fetch("%[2]s/api/csrf", {credentials: "include"}); csrf = "read:" + (await r.text()); } catch (e) { csrf = "blocked"; }
  try { await fetch("%[1]s", {method: "POST", mode: "no-cors", credentials: "include", headers: {"Content-Type": "text/plain"}, body: JSON.stringify({decision: "approve"})}); } catch (e) {}
  try { await fetch("%[1]s", {method: "POST", credentials: "include", headers: {"Content-Type": "application/json", "X-Ttymux-CSRF": "guess"}, body: JSON.stringify({decision: "approve"})}); } catch (e) {}
  document.getElementById("f").submit();
  document.title = "done " + csrf;
})();
</script>`, target, c.srv.URL)
	}))
	t.Cleanup(evil.Close)
	if err := chromedp.Do(ctx, chromedp.Navigate(evil.URL)); err != nil {
		t.Fatal(err)
	}
	title, err := chromedp.Run(ctx, chromedp.PollFunction[string](`() => document.title.startsWith("done") ? document.title : ""`, chromedp.WithPollingTimeout(20*time.Second)))
	if err != nil {
		t.Fatal(err)
	}
	if title != "done blocked" {
		t.Fatalf("another origin read the CSRF token: %q", title)
	}
	// The form's post (and the no-cors fetch) reach the console: wait for
	// them, then check each was refused. (The preflighted fetch never
	// leaves the browser: the console answers no CORS preflight.)
	testwait.Until(t, "the other origin's posts to reach the console", 20*time.Second, func() bool { return len(c.posted()) >= 2 })
	for _, code := range c.posted() {
		if code != http.StatusForbidden {
			t.Fatalf("a post from another origin got %d, want 403 (all: %v)", code, c.posted())
		}
	}
	if l := c.hs.List(); len(l) != 1 || !r.junk() {
		t.Fatalf("the hold was answered from another origin: %v, junk %v", l, r.junk())
	}
	if err := c.hs.Answer(id, console.Answer{Decision: console.Decline}); err != nil {
		t.Fatal(err)
	}
	if res := waitResult(t, done); !res.IsError || !r.junk() {
		t.Fatalf("after the decline: %s", resultText(res))
	}
}

// TestConsoleSecretInChromium: with a console open, ask_secret asks there
// (not by a one-time page): the human types into the console's password
// field, the secret reaches the read -s prompt (the program prints its
// sha256), and it is in no result, in the page's DOM afterwards, in the
// audit log (which records it via the console) or in the page's history.
func TestConsoleSecretInChromium(t *testing.T) {
	r := newHoldRig(t)
	c := newConsoleOf(t, r)
	ctx := browserCtx(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(c.srv.URL+"/?token="+c.cs.Token()), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)), chromedp.Click(chromedp.CSS(`a[href="/approvals"]`)), chromedp.WaitVisible(chromedp.ID("empty"))); err != nil {
		t.Fatal(err)
	}
	l := &leakCheck{t: t, cs: r.cs, log: &syncBuffer{}}
	if res := l.result("send", map[string]any{"session_id": r.id, "text": readPrompt, "timeout_ms": 5000}); res.Complete {
		t.Fatalf("read -s finished at once: %+v", res)
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		done <- l.call("send", map[string]any{"session_id": r.id, "ask_secret": "Password for the test program", "timeout_ms": 60000})
	}()
	field := chromedp.CSS(`section.hold.secret input[type=password]`)
	if err := chromedp.Do(ctx, chromedp.WaitVisible(field)); err != nil {
		t.Fatalf("the secret's form: %v", err)
	}
	text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`section.hold.secret`)))
	if !strings.Contains(text, "Password for the test program") || !strings.Contains(text, "session "+r.id) {
		t.Fatalf("the form says:\n%s", text)
	}
	if err := chromedp.Do(ctx, chromedp.SendKeys(field, planted)); err != nil {
		t.Fatal(err)
	}
	shot(t, ctx, "console-secret.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.hold.secret button.approve`))); err != nil {
		t.Fatal(err)
	}
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("ask_secret did not return")
	}
	if res.IsError || !strings.Contains(resultText(res), plantedSum()) {
		t.Fatalf("the program did not get the secret: %s", resultText(res))
	}
	if strings.Contains(l.all.String(), planted) {
		t.Fatal("the secret reached the model")
	}
	dom, err := chromedp.Run(ctx, chromedp.Evaluate[string](`document.documentElement.outerHTML + "|" + Array.from(document.querySelectorAll("input")).map(i => i.value).join(",") + "|" + location.href + "|" + history.length`))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(dom, planted) {
		t.Fatalf("the secret stayed in the page: %s", dom)
	}
	var secretEvents []audit.Event
	for _, e := range r.events() {
		if strings.Contains(e.Command+e.Reason, planted) {
			t.Fatal("the secret is in the audit log")
		}
		if e.Event == audit.KindSecretAsked || e.Event == audit.KindSecretAnswered {
			secretEvents = append(secretEvents, e)
		}
	}
	if len(secretEvents) != 2 || secretEvents[1].Decision != audit.Typed || secretEvents[0].Via != audit.ViaConsole || secretEvents[1].Via != audit.ViaConsole {
		t.Fatalf("secret audit events = %+v", secretEvents)
	}
}

// TestConsoleBinariesInChromium is the "done when" with the built
// binaries, as a user runs them: ttymux web prints one URL; ttymux mcp,
// spawned by a client without elicitation under a policy file that says
// no_elicitation = "console", holds git clean -fdx until the human
// approves it on the console's page in Chromium.
func TestConsoleBinariesInChromium(t *testing.T) {
	ctx := browserCtx(t)
	bin := ttymuxBinary(t)
	runtime, cfg, state, repo := shortTempDir(t), t.TempDir(), t.TempDir(), t.TempDir()
	if out, err := exec.Command("git", "init", "-q", repo).CombinedOutput(); err != nil {
		t.Skipf("git init: %v %s", err, out)
	}
	if err := os.WriteFile(filepath.Join(repo, "junk.o"), []byte("x"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cfg, "ttymux"), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(cfg, "ttymux", "policy.toml"), []byte(consolePolicy), 0o600); err != nil {
		t.Fatal(err)
	}
	env := append(testEnv(t, runtime), "XDG_CONFIG_HOME="+cfg, "XDG_STATE_HOME="+state)

	web := exec.Command(bin, "web")
	web.Env = env
	var webErr bytes.Buffer
	web.Stderr = &webErr
	out, err := web.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Process.Signal(syscall.SIGTERM); web.Wait() })
	url, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(url, "http://127.0.0.1:") {
		t.Fatalf("ttymux web printed %q (%v)\n%s", url, err, webErr.String())
	}
	waitSocket(t, filepath.Join(runtime, "ttymux", console.SocketName))

	srv := exec.Command(bin, "mcp", "-no-agent")
	srv.Env = env
	var srvErr bytes.Buffer
	srv.Stderr = &srvErr
	cctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "no-elicitation", Version: "0"}, nil).Connect(cctx, &mcp.CommandTransport{Command: srv}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, srvErr.String())
	}
	t.Cleanup(func() { cs.Close() })
	var open OpenOut
	if res := call(t, cs, "open_local", map[string]any{"cwd": repo, "env": map[string]string{"PS1": "$ "}}, &open); res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	done := make(chan *mcp.CallToolResult, 1)
	go func() {
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: "send", Arguments: map[string]any{"session_id": open.ID, "text": "git clean -fdx", "timeout_ms": 60000}})
		if err != nil {
			res = &mcp.CallToolResult{IsError: true, Content: []mcp.Content{&mcp.TextContent{Text: err.Error()}}}
		}
		done <- res
	}()
	if err := chromedp.Do(ctx, chromedp.Navigate(strings.TrimSpace(url)), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`)),
		chromedp.Click(chromedp.CSS(`a[href="/approvals"]`)), chromedp.WaitVisible(holdCard)); err != nil {
		t.Fatalf("the held command on the page: %v\nweb: %s\nmcp: %s", err, webErr.String(), srvErr.String())
	}
	text, _ := chromedp.Run(ctx, chromedp.Text(holdCard))
	if !strings.Contains(text, "git clean -fdx") || !strings.Contains(text, "session "+open.ID) {
		t.Fatalf("the page shows:\n%s", text)
	}
	junk := func() bool { _, err := os.Stat(filepath.Join(repo, "junk.o")); return err == nil }
	if !junk() {
		t.Fatal("git clean ran before the human approved")
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`section.hold button.approve`))); err != nil {
		t.Fatal(err)
	}
	var res *mcp.CallToolResult
	select {
	case res = <-done:
	case <-time.After(90 * time.Second):
		t.Fatal("the send did not return")
	}
	if res.IsError || !strings.Contains(resultText(res), "approved it") {
		t.Fatalf("approved on the page, the send says: %s\nmcp: %s", resultText(res), srvErr.String())
	}
	testwait.Until(t, "git clean to run", 10*time.Second, func() bool { return !junk() })
}
