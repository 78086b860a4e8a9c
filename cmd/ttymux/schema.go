package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"
)

// Portable tool schemas. go-sdk infers ["null","boolean"] for a *bool and
// ["null","array"] for a slice. Such type arrays are legal JSON Schema, but
// MCP Inspector 0.15's CLI cannot fill them (--tool-arg wait=false and
// keys='["ctrl+c"]' are refused), Inspector 2.x warns about each
// ("Schema portability"), and function-calling APIs that take a subset of
// JSON Schema (Gemini's, OpenAI's) reject them. Every parameter gets one
// plain type instead: a parameter left out means "not given" (a *bool is
// still nil, the handler applies the default its description states),
// and a JSON null is refused like any other wrong type.

// addTool is mcp.AddTool with the input and output schemas made portable.
// An output field that may be absent is optional (omitempty) rather than
// nullable; a slice or map field that is always sent is sent as [] or {},
// never null (noNulls), so the output schema can say array or object.
func addTool[In, Out any](s *mcp.Server, t *mcp.Tool, h mcp.ToolHandlerFor[In, Out]) {
	if t.InputSchema == nil {
		t.InputSchema = schemaFor[In](t.Name)
	}
	if t.OutputSchema == nil {
		t.OutputSchema = schemaFor[Out](t.Name)
	}
	for _, sc := range []any{t.InputSchema, t.OutputSchema} {
		if sc, ok := sc.(*jsonschema.Schema); ok {
			portable(sc)
		}
	}
	mcp.AddTool(s, t, func(ctx context.Context, req *mcp.CallToolRequest, in In) (*mcp.CallToolResult, Out, error) {
		res, out, err := h(ctx, req, in)
		noNulls(reflect.ValueOf(&out).Elem())
		return res, out, err
	})
}

func schemaFor[T any](tool string) *jsonschema.Schema {
	sc, err := jsonschema.For[T](nil)
	if err != nil {
		panic(fmt.Sprintf("tool %s: schema of %T: %v", tool, *new(T), err)) // a programming error, caught by every test
	}
	return sc
}

// noNulls sets every nil slice or map that JSON would send as null (a
// field without omitempty) to an empty one, in v and the structs it holds.
func noNulls(v reflect.Value) {
	switch v.Kind() {
	case reflect.Pointer:
		if !v.IsNil() {
			noNulls(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			noNulls(v.Index(i))
		}
	case reflect.Struct:
		t := v.Type()
		for i := range t.NumField() {
			f, fv := t.Field(i), v.Field(i)
			if !f.IsExported() {
				continue
			}
			tag := f.Tag.Get("json")
			if tag == "-" {
				continue
			}
			if (fv.Kind() == reflect.Slice || fv.Kind() == reflect.Map) && fv.IsNil() && !strings.Contains(tag, ",omitempty") && fv.CanSet() {
				switch fv.Kind() {
				case reflect.Slice:
					fv.Set(reflect.MakeSlice(fv.Type(), 0, 0))
				case reflect.Map:
					fv.Set(reflect.MakeMap(fv.Type()))
				}
			}
			noNulls(fv)
		}
	}
}

// portable rewrites sc in place: a type array of "null" and one type
// becomes that type, in every subschema.
func portable(sc *jsonschema.Schema) {
	if sc == nil {
		return
	}
	if len(sc.Types) == 2 && (sc.Types[0] == "null" || sc.Types[1] == "null") {
		t := sc.Types[0]
		if t == "null" {
			t = sc.Types[1]
		}
		sc.Type, sc.Types = t, nil
	}
	for _, p := range sc.Properties {
		portable(p)
	}
	portable(sc.Items)
	portable(sc.AdditionalProperties)
}

// readStamps is receiving middleware for read's timestamps, whose schema
// says string ("relative" or "iso"): a boolean, as earlier versions
// documented it, is still taken (true is "relative", false leaves it out)
// instead of failing the schema check.
func readStamps(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		if method != "tools/call" {
			return next(ctx, method, req)
		}
		p, ok := req.GetParams().(*mcp.CallToolParamsRaw)
		if !ok || p.Name != "read" || !bytes.Contains(p.Arguments, []byte(`"timestamps"`)) {
			return next(ctx, method, req)
		}
		var args map[string]json.RawMessage
		if json.Unmarshal(p.Arguments, &args) != nil {
			return next(ctx, method, req)
		}
		switch string(bytes.TrimSpace(args["timestamps"])) {
		case "true":
			args["timestamps"] = json.RawMessage(`"relative"`)
		case "false":
			delete(args, "timestamps")
		default:
			return next(ctx, method, req)
		}
		if b, err := json.Marshal(args); err == nil {
			p.Arguments = b
		}
		return next(ctx, method, req)
	}
}
