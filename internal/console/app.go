package console

import (
	"strings"
	"sync"
)

// AppMIME is the MIME type of an MCP App's HTML (SEP-1865, the MCP Apps
// extension io.modelcontextprotocol/ui).
const AppMIME = "text/html;profile=mcp-app"

// AppHTML is the MCP App that shows one session's live terminal in the
// conversation, watch-only until the person takes it over: one HTML document with xterm.js, its style
// sheet and static/app.js inlined, as a host loads it into a sandboxed
// frame with no network access. It reads the session through the app-only
// tool terminal_output and types with terminal_input.
var AppHTML = sync.OnceValue(func() string {
	read := func(name string) string {
		b, err := static.ReadFile("static/" + name)
		if err != nil {
			panic(err) // embedded at build time
		}
		// Inlined in a <script> or <style> element, the text must not
		// close it early.
		return strings.ReplaceAll(string(b), "</", `<\/`)
	}
	var b strings.Builder
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n<title>ttymux terminal</title>\n<style>\n")
	b.WriteString(read("xterm.css"))
	b.WriteString("\nhtml,body{margin:0;background:#111;color:#ddd;font:12px system-ui,sans-serif}\n#bar{display:flex;gap:8px;align-items:center;padding:4px 8px}#status{opacity:.8}#take{font:inherit}\n#term{padding:4px}\n</style>\n</head>\n<body>\n<div id=\"bar\"><button id=\"take\">Take over</button><span id=\"status\">waiting for the session…</span></div>\n<div id=\"term\"></div>\n<script>\n")
	b.WriteString(read("xterm.js"))
	b.WriteString("\n</script>\n<script>\n")
	b.WriteString(read("app.js"))
	b.WriteString("\n</script>\n</body>\n</html>\n")
	return b.String()
})
