package main

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
)

// portableKeywords are the JSON Schema keywords a tool's input schema may
// use: those that Gemini's function declarations and OpenAI's function
// calling both take, and that MCP Inspector's CLI can fill from
// --tool-arg.
var portableKeywords = map[string]bool{
	"type": true, "description": true, "title": true, "properties": true, "required": true,
	"items": true, "additionalProperties": true, "enum": true, "default": true,
	"minItems": true, "maxItems": true, "minimum": true, "maximum": true,
}

// TestToolSchemasArePortable walks every tool's input schema as
// tools/list sends it and fails on a type array (go-sdk's
// ["null","boolean"] for a *bool: Inspector 0.15 cannot pass wait=false,
// Inspector 2.x warns), a property without a type (a Go any), and any
// keyword outside the portable subset ($ref, anyOf, …). Without portable()
// it fails on 7 type arrays in 5 tools (read's timestamps, boolean or
// string, was an eighth).
func TestToolSchemasArePortable(t *testing.T) {
	cs := newTestClient(t)
	tools, err := cs.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(tools.Tools) < 14 {
		t.Fatalf("tools/list has %d tools", len(tools.Tools))
	}
	var problems []string
	for _, tool := range tools.Tools {
		b, err := json.Marshal(tool.InputSchema)
		if err != nil {
			t.Fatal(err)
		}
		var sc map[string]any
		if err := json.Unmarshal(b, &sc); err != nil {
			t.Fatal(err)
		}
		if sc["type"] != "object" {
			problems = append(problems, tool.Name+": the input schema is not an object")
		}
		if sc["additionalProperties"] != false {
			problems = append(problems, tool.Name+": additionalProperties is not false")
		}
		problems = append(problems, schemaProblems(tool.Name, sc)...)
		if tool.OutputSchema != nil {
			b, _ := json.Marshal(tool.OutputSchema)
			var out map[string]any
			if err := json.Unmarshal(b, &out); err != nil {
				t.Fatal(err)
			}
			// Results are read, not filled in: only the types matter.
			for _, p := range schemaProblems(tool.Name+" result", out) {
				if !strings.Contains(p, "keyword") && !strings.Contains(p, "no description") {
					problems = append(problems, p)
				}
			}
		}
	}
	sort.Strings(problems)
	if len(problems) > 0 {
		t.Fatalf("%d schema portability problems:\n%s", len(problems), strings.Join(problems, "\n"))
	}
}

// schemaProblems lists what is not portable in sc (at path) and its
// subschemas.
func schemaProblems(path string, sc map[string]any) []string {
	var out []string
	for k := range sc {
		if !portableKeywords[k] {
			out = append(out, fmt.Sprintf("%s: keyword %q", path, k))
		}
	}
	typ, ok := sc["type"].(string)
	switch {
	case sc["type"] == nil:
		out = append(out, path+": no type")
	case !ok:
		out = append(out, fmt.Sprintf("%s: type %v is not one type", path, sc["type"]))
	}
	if props, ok := sc["properties"].(map[string]any); ok {
		for name, p := range props {
			ps, ok := p.(map[string]any)
			if !ok {
				out = append(out, path+"."+name+": not a schema")
				continue
			}
			if ps["description"] == nil && strings.Count(path, ".") == 0 {
				out = append(out, path+"."+name+": no description")
			}
			out = append(out, schemaProblems(path+"."+name, ps)...)
		}
	}
	if typ == "array" {
		items, ok := sc["items"].(map[string]any)
		if !ok {
			out = append(out, path+": an array without items")
		} else {
			out = append(out, schemaProblems(path+"[]", items)...)
		}
	}
	if ap, ok := sc["additionalProperties"].(map[string]any); ok {
		out = append(out, schemaProblems(path+"{}", ap)...)
	}
	return out
}

// TestOptionalParametersLeftOut: a parameter whose schema lost its "null"
// is still optional: left out, the handler applies the default its
// description states (persistent true for open_local, enter and wait true
// for send), and false is passed through as false.
func TestOptionalParametersLeftOut(t *testing.T) {
	cs := newTestClient(t)
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"persistent": false, "args": []string{}}, &open)
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo plain-$((6*7))"}, &r)
	if !r.Complete || !strings.Contains(r.Output, "plain-42") {
		t.Fatalf("send with enter and wait left out: %+v", r)
	}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo typed-$((6*7))", "enter": false, "wait": false, "keys": []string{"enter"}}, &r)
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "typed-42"}, &r)
	if !strings.Contains(r.Output, "typed-42") {
		t.Fatalf("send with enter false and the Enter key: %+v", r)
	}
	if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "x", "wait": nil}, nil); !res.IsError {
		t.Fatal("wait: null was taken; the schema says boolean")
	}
}

// TestOpenRowsAlone: rows and cols each have a default, so either may be
// given alone. open_local {rows: 30} was refused ("rows and cols must both
// be given").
func TestOpenRowsAlone(t *testing.T) {
	cs := newTestClient(t)
	for _, c := range []struct {
		args       map[string]any
		rows, cols int
	}{
		{map[string]any{"rows": 30}, 30, 120},
		{map[string]any{"cols": 100}, 40, 100},
	} {
		c.args["persistent"] = false
		var open OpenOut
		call(t, cs, "open_local", c.args, &open)
		if open.Rows != c.rows || open.Cols != c.cols {
			t.Errorf("open_local %v: %dx%d, want %dx%d", c.args, open.Rows, open.Cols, c.rows, c.cols)
		}
	}
	if res := call(t, cs, "open_local", map[string]any{"rows": 5000, "persistent": false}, nil); !res.IsError || !strings.Contains(resultText(res), "1-1000") {
		t.Fatalf("rows 5000: %s", resultText(res))
	}
}
