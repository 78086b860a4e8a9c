package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// generateToolSchemas infers every tool's schemas from its parameter and
// result types (addTool with a nil server), as toolschemas.json holds them.
func generateToolSchemas(t *testing.T) []byte {
	m := map[string]toolSchemas{}
	for _, d := range toolDefs() {
		tool := *d.tool
		d.add(nil, &tool, &handlers{})
		m[tool.Name] = toolSchemas{Input: mustJSON(tool.InputSchema), Output: mustJSON(tool.OutputSchema)}
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// TestToolSchemasUpToDate holds toolschemas.json, which the server embeds
// instead of inferring schemas at start-up, to the tool definitions: it
// fails when a parameter, a result field or a description changed without
// go generate ./cmd/ttymux. Every schema in it must resolve, since the
// server resolves each only on the first call of its tool.
func TestToolSchemasUpToDate(t *testing.T) {
	const path = "toolschemas.json"
	got := generateToolSchemas(t)
	if *update {
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(want, got) {
		t.Fatal("cmd/ttymux/toolschemas.json is stale: run go generate ./cmd/ttymux")
	}
	var m map[string]toolSchemas
	if err := json.Unmarshal(want, &m); err != nil {
		t.Fatal(err)
	}
	for name, sc := range m {
		for _, raw := range []json.RawMessage{sc.Input, sc.Output} {
			var s jsonschema.Schema
			if err := json.Unmarshal(raw, &s); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
			if _, err := s.Resolve(&jsonschema.ResolveOptions{ValidateDefaults: true}); err != nil {
				t.Fatalf("%s: %v", name, err)
			}
		}
	}
}

type probeIn struct {
	Name  string   `json:"name" jsonschema:"what the probe does"`
	Flag  *bool    `json:"flag,omitempty"`
	Items []string `json:"items,omitempty"`
	N     int      `json:"n,omitempty"`
}

type probeOut struct {
	Got  string   `json:"got"`
	List []string `json:"list"`
	Opt  *int     `json:"opt,omitempty"`
}

func probe(_ context.Context, _ *mcp.CallToolRequest, in probeIn) (*mcp.CallToolResult, probeOut, error) {
	switch in.Name {
	case "err":
		return nil, probeOut{}, errors.New("the probe failed; try again")
	case "wire":
		return nil, probeOut{}, &jsonrpc.Error{Code: jsonrpc.CodeInvalidParams, Message: "bad probe"}
	case "text":
		return textResult("probed"), probeOut{Got: in.Name, List: in.Items}, nil
	}
	return nil, probeOut{Got: in.Name, List: in.Items, Opt: ptr(in.N)}, nil
}

// TestTypedHandlerMatchesAddTool holds addTool, which resolves schemas on
// a tool's first call (typedHandler), to what it replaced: mcp.AddTool
// with the same portable schemas and noNulls. Both servers get the same
// calls, good and bad, and must give the same answers byte for byte.
func TestTypedHandlerMatchesAddTool(t *testing.T) {
	old := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	in, out := inferSchemas[probeIn, probeOut]("probe")
	mcp.AddTool(old, &mcp.Tool{Name: "probe", InputSchema: in, OutputSchema: out}, func(ctx context.Context, req *mcp.CallToolRequest, in probeIn) (*mcp.CallToolResult, probeOut, error) {
		res, out, err := probe(ctx, req, in)
		noNulls(reflect.ValueOf(&out).Elem())
		return res, out, err
	})
	cur := mcp.NewServer(&mcp.Implementation{Name: "probe"}, nil)
	addTool(cur, &mcp.Tool{Name: "probe"}, probe)
	a, b := connect(t, old, nil), connect(t, cur, nil)
	for _, args := range []string{
		`{}`, `{"name":"ok"}`, `{"name":"ok","n":3,"items":["x","y"]}`, `{"name":1}`,
		`{"name":"ok","extra":true}`, `{"name":"ok","flag":null}`, `{"name":"ok","flag":false}`,
		`{"name":"ok","items":"x"}`, `{"Name":"ok"}`, `{"name":"err"}`, `{"name":"wire"}`, `{"name":"text"}`,
	} {
		var want, got string
		for i, cs := range []*mcp.ClientSession{a, b} {
			res, err := cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "probe", Arguments: json.RawMessage(args)})
			j, _ := json.Marshal(res)
			s := fmt.Sprintf("%s %v", j, err)
			if i == 0 {
				want = s
			} else {
				got = s
			}
		}
		if got != want {
			t.Errorf("%s:\n mcp.AddTool: %s\n addTool:     %s", args, want, got)
		}
	}
	la, err := a.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	lb, err := b.ListTools(t.Context(), nil)
	if err != nil {
		t.Fatal(err)
	}
	ja, _ := json.Marshal(la)
	jb, _ := json.Marshal(lb)
	if !bytes.Equal(ja, jb) {
		t.Errorf("tools/list:\n mcp.AddTool: %s\n addTool:     %s", ja, jb)
	}
}
