package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/session"
)

// The MCP App (SEP-1865, @modelcontextprotocol/ext-apps): for a client
// that declares the io.modelcontextprotocol/ui extension, opening or
// attaching a session shows its live terminal in the conversation,
// watch-only. Pieces:
//
//   - the resource ui://ttymux/terminal (console.AppHTML: xterm.js and a
//     small script, no network), listed to such clients only;
//   - _meta.ui.resourceUri on open_local, open_ssh, open_serial and
//     attach, added to tools/list for such clients only;
//   - terminal_output and terminal_input, app-only tools
//     (_meta.ui.visibility ["app"]) the App calls through the host to
//     follow a session's raw output and, once the person takes it over,
//     to type their keys (Session.HumanWrite: the AI's next result says a
//     person typed). They are listed only to such clients, so no other
//     model pays for them, and hosts keep them from the model.
const (
	appURI         = "ui://ttymux/terminal"
	uiExtension    = "io.modelcontextprotocol/ui"
	appOutputTool  = "terminal_output"
	appInputTool   = "terminal_input"
	appMaxInput    = 64 << 10
	appMaxWait     = 25 * time.Second
	appChunk       = 64 << 10
	appDefaultTail = 64 << 10
)

// appTools are the tools whose results the App renders.
var appTools = map[string]bool{"open_local": true, "open_ssh": true, "open_serial": true, "attach": true}

// appUIMeta is the resource's _meta.ui: a border, and no network (an empty
// CSP: the App reaches the server only through the host).
var appUIMeta = mcp.Meta{"ui": map[string]any{"prefersBorder": true, "csp": map[string]any{}}}

// registerApp adds the App's resource and the middleware that lists and
// answers its tool.
func registerApp(srv *mcp.Server, mgr *session.Manager) {
	srv.AddResource(&mcp.Resource{
		URI: appURI, Name: "terminal", Title: "Live terminal",
		Description: "A session's live terminal, watch-only (MCP App)",
		MIMEType:    console.AppMIME, Meta: appUIMeta,
	}, func(context.Context, *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{
			URI: appURI, MIMEType: console.AppMIME, Text: console.AppHTML(), Meta: appUIMeta,
		}}}, nil
	})
	a := &appTool{src: managerSource{mgr}}
	srv.AddReceivingMiddleware(a.middleware)
}

type appTool struct{ src managerSource }

// AppOutputIn is terminal_output's input.
type AppOutputIn struct {
	SessionID  string `json:"session_id" jsonschema:"the session whose output to follow"`
	FromOffset int64  `json:"from_offset,omitempty" jsonschema:"the output offset to start from (-1 or absent: the recent tail)"`
	WaitMS     int    `json:"wait_ms,omitempty" jsonschema:"how long to wait for output, in milliseconds (at most 25000)"`
}

// AppInputIn is terminal_input's input.
type AppInputIn struct {
	SessionID string `json:"session_id" jsonschema:"the session the person took over"`
	Data      string `json:"data" jsonschema:"the person's keys, base64"`
}

// AppOutputOut is terminal_output's result.
type AppOutputOut struct {
	Data       string `json:"data"` // base64 of the raw bytes
	NextOffset int64  `json:"next_offset"`
	Rows       int    `json:"rows"`
	Cols       int    `json:"cols"`
	Ended      bool   `json:"ended,omitempty"`
}

// appToolDefs are terminal_output and terminal_input as listed to App
// clients, their input schemas inferred from the types their handlers
// decode (made once, on the first list to such a client).
var appToolDefs = sync.OnceValue(func() []*mcp.Tool {
	return []*mcp.Tool{
		appToolDef[AppOutputIn](appOutputTool, "Terminal output", true,
			"For the live terminal view only: a session's raw output from from_offset (-1: the recent tail), waiting up to wait_ms for more."),
		appToolDef[AppInputIn](appInputTool, "Terminal input", false,
			"For the live terminal view only: type a person's keys (base64 data) into a session they took over."),
	}
})

// appToolDef is one app-only tool (_meta.ui.visibility ["app"]: hosts
// keep it from the model) whose arguments are an In.
func appToolDef[In any](name, title string, readOnly bool, desc string) *mcp.Tool {
	in := schemaFor[In](name)
	describe(in, reflect.TypeFor[In]())
	portable(in)
	return &mcp.Tool{
		Name: name, Title: title + " (for the live terminal view)", Description: desc,
		InputSchema: in,
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: readOnly, Title: title},
		Meta:        mcp.Meta{"ui": map[string]any{"resourceUri": appURI, "visibility": []string{"app"}}},
	}
}

// appArgs decodes an app-only tool's arguments into in.
func appArgs(p *mcp.CallToolParamsRaw, in any) error {
	if len(p.Arguments) == 0 {
		return nil
	}
	if err := json.Unmarshal(p.Arguments, in); err != nil {
		return fmt.Errorf("%s: %v", p.Name, err)
	}
	return nil
}

// appClient reports whether the client declared the MCP Apps extension.
func appClient(req mcp.Request) bool {
	ss, ok := req.GetSession().(*mcp.ServerSession)
	if !ok || ss == nil {
		return false
	}
	ip := ss.InitializeParams()
	if ip == nil || ip.Capabilities == nil {
		return false
	}
	_, ok = ip.Capabilities.Extensions[uiExtension]
	return ok
}

func (a *appTool) middleware(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		switch method {
		case "tools/call":
			if p, ok := req.GetParams().(*mcp.CallToolParamsRaw); ok {
				switch p.Name {
				case appOutputTool:
					return a.call(ctx, p), nil
				case appInputTool:
					return a.input(p), nil
				}
			}
		case "tools/list":
			res, err := next(ctx, method, req)
			if err == nil && appClient(req) {
				if lr, ok := res.(*mcp.ListToolsResult); ok {
					withApp(lr)
				}
			}
			return res, err
		case "resources/list":
			// A person @-mentioning resources in a client without Apps
			// has no use for the App's HTML.
			res, err := next(ctx, method, req)
			if lr, ok := res.(*mcp.ListResourcesResult); ok && err == nil && !appClient(req) {
				lr.Resources = slices.DeleteFunc(slices.Clone(lr.Resources), func(r *mcp.Resource) bool { return r.URI == appURI })
			}
			return res, err
		}
		return next(ctx, method, req)
	}
}

// withApp points the session tools at the App and lists its tool. The
// listed tools are copies: the server's own stay as registered.
func withApp(lr *mcp.ListToolsResult) {
	tools := make([]*mcp.Tool, 0, len(lr.Tools)+1)
	for _, t := range lr.Tools {
		if appTools[t.Name] {
			c := *t
			c.Meta = mcp.Meta{}
			for k, v := range t.Meta {
				c.Meta[k] = v
			}
			c.Meta["ui"] = map[string]any{"resourceUri": appURI}
			t = &c
		}
		tools = append(tools, t)
	}
	lr.Tools = append(tools, appToolDefs()...)
}

// call answers terminal_output.
func (a *appTool) call(ctx context.Context, p *mcp.CallToolParamsRaw) *mcp.CallToolResult {
	in := AppOutputIn{FromOffset: -1}
	if err := appArgs(p, &in); err != nil {
		return errorResult(err)
	}
	s := a.src.find(in.SessionID)
	if s == nil {
		return errorResult(fmt.Errorf("no session %q in this server", in.SessionID))
	}
	from := in.FromOffset
	if from < 0 {
		from = max(s.OutputEnd()-appDefaultTail, 0)
	}
	wait := min(time.Duration(in.WaitMS)*time.Millisecond, appMaxWait)
	t := time.NewTimer(max(wait, 0))
	defer t.Stop()
	for {
		ch := s.Changed()
		b, next, lost, ended := s.OutputFrom(from, appChunk)
		if len(b) > 0 || lost > 0 || ended || wait <= 0 {
			in := s.Info()
			out := AppOutputOut{Data: base64.StdEncoding.EncodeToString(b), NextOffset: next, Rows: in.Rows, Cols: in.Cols, Ended: ended}
			return &mcp.CallToolResult{
				Content:           []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d bytes up to offset %d", len(b), next)}},
				StructuredContent: out,
			}
		}
		select {
		case <-ch:
		case <-t.C:
			wait = 0
		case <-ctx.Done():
			wait = 0
		}
	}
}

// input answers terminal_input.
func (a *appTool) input(p *mcp.CallToolParamsRaw) *mcp.CallToolResult {
	var in AppInputIn
	if err := appArgs(p, &in); err != nil {
		return errorResult(err)
	}
	b, err := base64.StdEncoding.DecodeString(in.Data)
	if err != nil || len(b) > appMaxInput {
		return errorResult(fmt.Errorf("terminal_input: data must be base64 of at most %d bytes", appMaxInput))
	}
	s := a.src.find(in.SessionID)
	if s == nil {
		return errorResult(fmt.Errorf("no session %q in this server", in.SessionID))
	}
	if _, err := s.HumanWrite(b); err != nil {
		return errorResult(fmt.Errorf("terminal_input: %w", err))
	}
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: fmt.Sprintf("%d bytes typed", len(b))}}}
}
