package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// appClientOptions declares the MCP Apps extension, as a host that renders
// apps does.
func appClientOptions() *mcp.ClientOptions {
	caps := &mcp.ClientCapabilities{}
	caps.AddExtension(uiExtension, map[string]any{"mimeTypes": []string{console.AppMIME}})
	return &mcp.ClientOptions{Capabilities: caps}
}

// TestMCPAppAdvertised: a client with the extension finds the App's
// resource in resources/list, reads the HTML (xterm.js inlined) with the
// App MIME type, and sees open_local point at it and the app-only
// terminal_output tool; a client without it sees none of this.
func TestMCPAppAdvertised(t *testing.T) {
	// Claude Code's revision (2025-11-25: capabilities at initialize) and
	// the stateless one a Go client negotiates.
	for _, version := range []string{"2025-11-25", "2026-07-28"} {
		t.Run(version, func(t *testing.T) { testMCPAppAdvertised(t, version) })
	}
}

func testMCPAppAdvertised(t *testing.T, version string) {
	m := newTestManager(t)
	srv := newServer(m, nil)
	app := connectAt(t, srv, appClientOptions(), version)
	plain := connectAt(t, srv, nil, version)
	ctx := t.Context()

	rl, err := app.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, r := range rl.Resources {
		found = found || r.URI == appURI && r.MIMEType == console.AppMIME
	}
	if !found {
		t.Fatalf("resources/list of an app client lacks %s", appURI)
	}
	rr, err := app.ReadResource(ctx, &mcp.ReadResourceParams{URI: appURI})
	if err != nil {
		t.Fatal(err)
	}
	if len(rr.Contents) != 1 || rr.Contents[0].MIMEType != console.AppMIME || !strings.HasPrefix(rr.Contents[0].Text, "<!doctype html>") ||
		!strings.Contains(rr.Contents[0].Text, "ui/initialize") || !strings.Contains(rr.Contents[0].Text, "xterm") {
		t.Fatalf("resources/read %s: %d contents, mime %q", appURI, len(rr.Contents), rr.Contents[0].MIMEType)
	}
	tl, err := app.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	uis := map[string]any{}
	for _, tool := range tl.Tools {
		if ui, ok := tool.Meta["ui"]; ok {
			uis[tool.Name] = ui
		}
	}
	b, _ := json.Marshal(uis)
	if got := string(b); !strings.Contains(got, `"open_local":{"resourceUri":"ui://ttymux/terminal"}`) ||
		!strings.Contains(got, `"terminal_output":{"resourceUri":"ui://ttymux/terminal","visibility":["app"]}`) ||
		!strings.Contains(got, `"terminal_input":{"resourceUri":"ui://ttymux/terminal","visibility":["app"]}`) {
		t.Fatalf("tools' _meta.ui for an app client: %s", got)
	}

	rl, err = plain.ListResources(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range rl.Resources {
		if r.URI == appURI {
			t.Fatalf("a client without the extension lists %s", appURI)
		}
	}
	tl, err = plain.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tool := range tl.Tools {
		if tool.Name == appOutputTool || tool.Name == appInputTool || tool.Meta["ui"] != nil {
			t.Fatalf("a client without the extension sees %s with _meta %v", tool.Name, tool.Meta)
		}
	}
}

// TestMCPAppOutput: terminal_output returns the session's raw output from
// an offset, waits for more, and names an unknown session plainly.
func TestMCPAppOutput(t *testing.T) {
	cs := connect(t, newServer(newTestManager(t), nil), appClientOptions())
	id := openPlain(t, cs, nil)
	mustSend(t, cs, map[string]any{"session_id": id, "text": "echo app-$((6*7))"})
	var out AppOutputOut
	call(t, cs, appOutputTool, map[string]any{"session_id": id, "from_offset": -1}, &out)
	raw, _ := base64.StdEncoding.DecodeString(out.Data)
	if !strings.Contains(string(raw), "app-42\r\n") || out.NextOffset <= 0 || out.Rows == 0 || out.Cols == 0 {
		t.Fatalf("terminal_output from the tail: %q next %d size %dx%d", raw, out.NextOffset, out.Rows, out.Cols)
	}
	// A wait ends with the next output.
	done := make(chan AppOutputOut, 1)
	go func() {
		var o AppOutputOut
		res, err := cs.CallTool(context.Background(), &mcp.CallToolParams{Name: appOutputTool, Arguments: map[string]any{"session_id": id, "from_offset": out.NextOffset, "wait_ms": 20000}})
		if err == nil && !res.IsError {
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &o)
		}
		done <- o
	}()
	mustSend(t, cs, map[string]any{"session_id": id, "text": "echo later"})
	select {
	case o := <-done:
		raw, _ := base64.StdEncoding.DecodeString(o.Data)
		if len(raw) == 0 || o.NextOffset <= out.NextOffset {
			t.Fatalf("the waiting call: %q next %d", raw, o.NextOffset)
		}
	case <-time.After(humanWait):
		t.Fatal("terminal_output did not return when output came")
	}
	res := call(t, cs, appOutputTool, map[string]any{"session_id": "s999"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), `no session "s999"`) {
		t.Fatalf("an unknown session: %s", resultText(res))
	}
}

// appHostPage is a minimal MCP Apps host: it loads the App in a sandboxed
// frame, answers ui/initialize, sends the tool's input and result, and
// proxies the App's tools/call to the server (through /call).
const appHostPage = `<!doctype html><html><body>
<iframe id="app" src="/app" sandbox="allow-scripts allow-same-origin" style="width:900px;height:520px;border:1px solid #888"></iframe>
<script>
const f = document.getElementById("app");
const post = (m) => f.contentWindow.postMessage(Object.assign({jsonrpc: "2.0"}, m), "*");
window.calls = 0;
window.addEventListener("message", async (ev) => {
  if (ev.source !== f.contentWindow) return;
  const m = ev.data;
  if (m.method === "ui/initialize") {
    post({id: m.id, result: {protocolVersion: "2026-01-26", hostInfo: {name: "test-host", version: "0"}, hostCapabilities: {serverTools: {}}, hostContext: {displayMode: "inline"}}});
  } else if (m.method === "ui/notifications/initialized") {
    post({method: "ui/notifications/tool-input", params: {arguments: {}}});
    post({method: "ui/notifications/tool-result", params: RESULT});
  } else if (m.method === "tools/call") {
    window.calls++;
    const r = await fetch("/call", {method: "POST", body: JSON.stringify(m.params)});
    post({id: m.id, result: await r.json()});
  } else if (m.id !== undefined && m.method) {
    post({id: m.id, result: {}});
  }
});
</script></body></html>`

// TestMCPAppInChromium renders the App as a host would, in headless
// Chromium: it shows the session's screen, follows new output, and takes
// no keys (watch-only).
func TestMCPAppInChromium(t *testing.T) {
	chromium(t) // skips the test early when there is none
	cs := connect(t, newServer(newTestManager(t), nil), appClientOptions())
	var open OpenOut
	res := call(t, cs, "open_local", map[string]any{"persistent": false, "env": map[string]string{"PS1": "app$ ", "HOME": t.TempDir()}}, &open)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	// A short prompt on a clean screen, for the docs' screenshot.
	mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "PS1='app$ '; clear"})
	mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "echo before-$((6*7))"})
	rr, err := cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: appURI})
	if err != nil {
		t.Fatal(err)
	}
	result, _ := json.Marshal(res)
	mux := http.NewServeMux()
	mux.HandleFunc("GET /{$}", func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, strings.Replace(appHostPage, "RESULT", string(result), 1))
	})
	mux.HandleFunc("GET /app", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		// The host's CSP when the resource declares no domains (SEP-1865).
		w.Header().Set("Content-Security-Policy", "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'self' 'unsafe-inline'; img-src 'self' data:; media-src 'self' data:; connect-src 'none'")
		io.WriteString(w, rr.Contents[0].Text)
	})
	mux.HandleFunc("POST /call", func(w http.ResponseWriter, r *http.Request) {
		var p mcp.CallToolParams
		if err := json.NewDecoder(r.Body).Decode(&p); err != nil {
			http.Error(w, err.Error(), 400)
			return
		}
		res, err := cs.CallTool(r.Context(), &p)
		if err != nil {
			http.Error(w, err.Error(), 502)
			return
		}
		json.NewEncoder(w).Encode(res)
	})
	hs := httptest.NewServer(mux)
	t.Cleanup(hs.Close)

	ctx := browserSized(t, 960, 600)
	if err := chromedp.Do(ctx, chromedp.Navigate(hs.URL+"/")); err != nil {
		t.Fatal(err)
	}
	appScreen := `(() => { const w = document.getElementById("app").contentWindow; const b = w && w.ttymuxTerm && w.ttymuxTerm.buffer.active; if (!b) return ""; let o = []; for (let i = 0; i < b.length; i++) { const l = b.getLine(i); if (l) o.push(l.translateToString(true)); } return o.join("\n"); })()`
	wait := func(s string) {
		t.Helper()
		_, err := chromedp.Run(ctx, chromedp.PollFunction[bool](`(s) => `+appScreen+`.includes(s)`,
			chromedp.WithPollingArgs(s), chromedp.WithPollingTimeout(30*time.Second)))
		if err != nil {
			text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](appScreen))
			t.Fatalf("the App never showed %q (%v); it shows:\n%s", s, err, text)
		}
	}
	wait("before-42")
	mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "echo live-$((7*7))"})
	wait("live-49")
	shot(t, ctx, "mcp-app.png")
	ro, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`document.getElementById("app").contentWindow.ttymuxTerm.options.disableStdin === true`))
	if err != nil || !ro {
		t.Fatalf("the App's terminal takes keys (disableStdin %v, %v)", ro, err)
	}
	st, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("app").contentDocument.getElementById("status").textContent`))
	if !strings.Contains(st, fmt.Sprint(open.ID)) || !strings.Contains(st, "read-only") {
		t.Fatalf("the App's status line: %q", st)
	}
	// Keys while watching go nowhere; after "Take over" they reach the
	// shell, and the model's next read says a person typed.
	keys := func(s string) {
		t.Helper()
		if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { document.getElementById("app").contentWindow.ttymuxTerm.input(`+strconvQuote(s)+`, true); return true; })()`)); err != nil {
			t.Fatal(err)
		}
	}
	keys("echo ignored\r")
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`(() => { document.getElementById("app").contentWindow.ttymuxTake(); return true; })()`)); err != nil {
		t.Fatal(err)
	}
	keys("echo typed-in-the-$((6*7))-app\r")
	wait("typed-in-the-42-app")
	shot(t, ctx, "mcp-app-takeover.png")
	var rd session.Result
	testwait.Until(t, "the model's read after the person typed", humanWait, func() bool {
		call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 500}, &rd)
		return strings.Contains(rd.Note, "a person typed")
	})
	if !strings.Contains(rd.Note, `"echo typed-in-the-$((6*7))-app"`) || strings.Contains(rd.Note, "ignored") {
		t.Fatalf("the model's read after the person typed in the App: %+v", rd)
	}
}

func strconvQuote(s string) string { b, _ := json.Marshal(s); return string(b) }

// TestMCPAppOverHTTP: over Streamable HTTP, where each request may come
// without a session of its own, an app client still gets the App.
func TestMCPAppOverHTTP(t *testing.T) {
	hs := httpTestServer(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	tr := &mcp.StreamableClientTransport{Endpoint: hs.URL + httpPath, HTTPClient: &http.Client{Transport: bearer{testToken, http.DefaultTransport}}}
	cs, err := mcp.NewClient(&mcp.Implementation{Name: "http-app", Version: "v0"}, appClientOptions()).Connect(ctx, tr, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer cs.Close()
	tl, err := cs.ListTools(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, tool := range tl.Tools {
		found = found || tool.Name == appOutputTool
	}
	if !found {
		t.Fatalf("over HTTP (protocol %s) an app client does not get %s", cs.InitializeResult().ProtocolVersion, appOutputTool)
	}
}
