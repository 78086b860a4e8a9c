package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand"
	"reflect"
	"strings"
	"testing"
	"testing/quick"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/session"
)

// roundTrip is what a result's structured content was before sortedJSON:
// marshalled, decoded into a map, marshalled again (keys sorted).
func roundTrip(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var m any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// smallInts keeps random integers where a float64 holds them exactly, as
// every count, size and code in a result is.
func smallInts(v reflect.Value) {
	switch v.Kind() {
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(v.Int() % 1e12)
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(v.Uint() % 1e12)
	case reflect.Pointer:
		if !v.IsNil() {
			smallInts(v.Elem())
		}
	case reflect.Slice:
		for i := range v.Len() {
			smallInts(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				smallInts(v.Field(i))
			}
		}
	}
}

// TestSortedJSONMatchesRoundTrip: every tool result type that sortedJSON
// writes comes out byte for byte as the round trip wrote it, for random
// values (strings with HTML characters, control characters, invalid
// UTF-8, nil and empty slices, nil pointers), and list's and send's
// results do take the one-pass way.
func TestSortedJSONMatchesRoundTrip(t *testing.T) {
	types := map[string]reflect.Type{
		"ListOut":        reflect.TypeFor[ListOut](),
		"session.Result": reflect.TypeFor[session.Result](),
		"session.Info":   reflect.TypeFor[session.Info](),
		"OpenOut":        reflect.TypeFor[OpenOut](),
		"CloseOut":       reflect.TypeFor[CloseOut](),
		"FileOut":        reflect.TypeFor[FileOut](),
		"ForwardOut":     reflect.TypeFor[ForwardOut](),
		"SerialPortsOut": reflect.TypeFor[SerialPortsOut](),
		"fanout.Report":  reflect.TypeFor[fanout.Report](),
	}
	for _, must := range []string{"ListOut", "session.Result", "session.Info", "OpenOut", "CloseOut"} {
		if sortedEncoderFor(types[must]) == nil {
			t.Errorf("%s has no one-pass encoder: its results take the round trip", must)
		}
	}
	rng := rand.New(rand.NewSource(1))
	strs := []string{"", "plain", `a "q" \ b`, "<b>&</b>", "tab\there\nnl", "\x1b[31mred", "bad \xff utf8", "é ünï", "\u2028x\u2029", "\x00"}
	for name, typ := range types {
		if sortedEncoderFor(typ) == nil {
			t.Logf("%s: no one-pass encoder (round trip)", name)
			continue
		}
		for i := range 300 {
			v, ok := quick.Value(typ, rng)
			if !ok {
				t.Fatalf("%s: no random value", name)
			}
			smallInts(v)
			setStrings(v, rng, strs)
			if i%3 == 0 {
				zeroSome(v, rng)
			}
			p := reflect.New(typ)
			p.Elem().Set(v)
			got, _ := sortedJSON(p.Elem()) // nil slices as noNulls makes them
			noNulls(p.Elem())
			want := roundTrip(t, p.Interface())
			if !bytes.Equal(got, want) {
				t.Fatalf("%s:\n got %s\nwant %s", name, got, want)
			}
		}
	}
}

// setStrings gives every string one of strs, mostly awkward ones.
func setStrings(v reflect.Value, rng *rand.Rand, strs []string) {
	switch v.Kind() {
	case reflect.String:
		if rng.Intn(3) > 0 {
			v.SetString(strs[rng.Intn(len(strs))])
		}
	case reflect.Pointer:
		if !v.IsNil() {
			setStrings(v.Elem(), rng, strs)
		}
	case reflect.Slice:
		for i := range v.Len() {
			setStrings(v.Index(i), rng, strs)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			if v.Type().Field(i).IsExported() {
				setStrings(v.Field(i), rng, strs)
			}
		}
	}
}

// zeroSome sets about half the fields to their zero value, so omitempty
// and nil slices and pointers are taken.
func zeroSome(v reflect.Value, rng *rand.Rand) {
	if v.Kind() != reflect.Struct {
		return
	}
	for i := range v.NumField() {
		if v.Type().Field(i).IsExported() && rng.Intn(2) == 0 {
			v.Field(i).SetZero()
		}
	}
}

// TestListResultEncodedOnce: a list result of three sessions is written
// in one pass (the buffer, and one more for its growth at most), where the
// round trip it replaced made a map per object and an interface per value
// (208 allocations for the same result).
func TestListResultEncodedOnce(t *testing.T) {
	code := 0
	out := ListOut{Sessions: []session.Info{
		{ID: "s1", Transport: "local", Command: "/bin/bash", State: "prompt", Created: "2026-11-28T10:00:00Z", Rows: 40, Cols: 120, Bytes: 1234, Lines: 56, Persistent: true, Integrated: true},
		{ID: "s2", Name: "build", Transport: "local", Command: "/bin/bash", State: "running", Foreground: "sleep", IdleMS: 2500, Created: "2026-11-28T10:00:01Z", Rows: 40, Cols: 120, Bytes: 99, Lines: 3, Persistent: true, Integrated: true},
		{ID: "s3", Transport: "ssh", Command: "u@host", State: "exited", Created: "2026-11-28T10:00:02Z", Rows: 40, Cols: 120, ExitCode: &code},
	}}
	res, err := resolver("list", json.RawMessage(toolSchemaTable["list"].Output))()
	if err != nil {
		t.Fatal(err)
	}
	defer func(c bool) { checkOutput = c }(checkOutput)
	checkOutput = false
	v := reflect.ValueOf(&out).Elem()
	b, err := encodeOutput(v, res)
	if err != nil {
		t.Fatal(err)
	}
	if want := roundTrip(t, out); !bytes.Equal(b, want) {
		t.Fatalf("list result:\n got %s\nwant %s", b, want)
	}
	allocs := testing.AllocsPerRun(100, func() { encodeOutput(v, res) })
	t.Logf("%.0f allocations per list result", allocs)
	if allocs > 2 {
		t.Fatalf("%.0f allocations to encode a list result of three sessions, want at most 2", allocs)
	}
}

// TestListTextUnchanged: list's text, written with appends, is byte for
// byte what the Fprintf calls it replaced wrote.
func TestListTextUnchanged(t *testing.T) {
	old := func(out ListOut) string {
		var b strings.Builder
		b.WriteString(forwardsText(out.Forwards))
		for _, i := range out.Sessions {
			fmt.Fprintf(&b, "%s", i.ID)
			if i.Name != "" {
				fmt.Fprintf(&b, " (%s)", i.Name)
			}
			fmt.Fprintf(&b, " %s %q %s", i.Transport, i.Command, i.State)
			if i.Foreground != "" {
				fmt.Fprintf(&b, " [%s]", i.Foreground)
			}
			if i.Kernel != "" {
				fmt.Fprintf(&b, " %s", i.Kernel)
			}
			fmt.Fprintf(&b, " idle %ds%s\n", i.IdleMS/1000, recordingText(i))
		}
		return b.String()
	}
	out := ListOut{Sessions: []session.Info{
		{ID: "s1", Transport: "local", Command: "/bin/bash", State: "prompt", IdleMS: 999},
		{ID: "s2", Name: "build", Transport: "ssh", Command: "u@h \"quoted\" \x1b é", State: "running", Foreground: "make", Kernel: "landlock", IdleMS: 123456, Recording: "/tmp/r.cast"},
		{ID: "s10", Transport: "serial", Command: "", State: "exited", IdleMS: -1500, Recording: "/x", RecordingNote: "recording stopped"},
	}}
	if got, want := listText(out), old(out); got != want {
		t.Fatalf("list text:\n got %q\nwant %q", got, want)
	}
}
