package main

import (
	"encoding"
	"encoding/json"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"sync"
	"unicode/utf8"
)

// A tool's structured result goes on the wire with its object keys sorted:
// that is what go-sdk's mcp.AddTool sends (it decodes the marshalled result
// into a map and marshals that again), what typedHandler sent until issue
// #37, and what the tests and clients have byte-compared since. Decoding
// and encoding again cost each call a map per object, an interface per
// value and a second encoding (208 allocations for a list of three
// sessions, 2 now: TestListResultEncodedOnce). sortedJSON writes the same
// bytes in one pass: an encoder per result type, made once, that writes
// each struct's fields in the sorted order of their JSON names.
//
// A type it cannot write the same way (an interface, a map, a type with
// its own MarshalJSON, an embedded pointer, two fields of one name, a
// float, a ",string" or omitzero option) has no encoder: encodeOutput then
// encodes, decodes and encodes again, as before.
// TestSortedJSONMatchesRoundTrip holds every tool's result type to the old
// bytes.

// sortedEnc appends v's JSON, keys sorted, to buf.
type sortedEnc func(buf []byte, v reflect.Value) []byte

// sortedEncs holds each type's encoder, or a nil one when it has none.
var sortedEncs sync.Map // reflect.Type → sortedEnc

// sortedJSON returns v's JSON with every object's keys sorted, and false
// when v's type has no such encoder.
func sortedJSON(v reflect.Value) ([]byte, bool) {
	enc := sortedEncoderFor(v.Type())
	if enc == nil {
		return nil, false
	}
	return enc(make([]byte, 0, 512), v), true
}

func sortedEncoderFor(t reflect.Type) sortedEnc {
	if e, ok := sortedEncs.Load(t); ok {
		return e.(sortedEnc)
	}
	e := newSortedEnc(t, map[reflect.Type]bool{})
	sortedEncs.Store(t, e)
	return e
}

var (
	marshalerType     = reflect.TypeFor[json.Marshaler]()
	textMarshalerType = reflect.TypeFor[encoding.TextMarshaler]()
)

// newSortedEnc makes t's encoder, nil when t has none. seen breaks
// recursive types (which have none: no result type is one).
func newSortedEnc(t reflect.Type, seen map[reflect.Type]bool) sortedEnc {
	if seen[t] || t.Implements(marshalerType) || t.Implements(textMarshalerType) ||
		reflect.PointerTo(t).Implements(marshalerType) || reflect.PointerTo(t).Implements(textMarshalerType) {
		return nil
	}
	seen[t] = true
	defer delete(seen, t)
	switch t.Kind() {
	case reflect.Bool:
		return func(buf []byte, v reflect.Value) []byte { return strconv.AppendBool(buf, v.Bool()) }
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return appendInt
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return appendUint
	case reflect.String:
		return func(buf []byte, v reflect.Value) []byte { return appendJSONString(buf, v.String()) }
	case reflect.Pointer:
		return pointerEnc(t, seen)
	case reflect.Slice:
		return sliceEnc(t, seen)
	case reflect.Struct:
		return structEnc(t, seen)
	}
	// Floats (no result has one: json.Marshal's NaN error is kept by not
	// writing them), interfaces, maps, arrays, channels, funcs.
	return nil
}

// appendInt writes an integer as the round trip did: decoded as a float64
// and encoded again, which for |n| < 2^53 (every count and size a result
// holds) is the integer itself.
func appendInt(buf []byte, v reflect.Value) []byte {
	n := v.Int()
	if n > 1<<53 || n < -(1<<53) {
		return appendFloat64(buf, float64(n))
	}
	return strconv.AppendInt(buf, n, 10)
}

func appendUint(buf []byte, v reflect.Value) []byte {
	n := v.Uint()
	if n > 1<<53 {
		return appendFloat64(buf, float64(n))
	}
	return strconv.AppendUint(buf, n, 10)
}

// appendFloat64 is encoding/json's format of an integer decoded as a
// float64 (always finite).
func appendFloat64(buf []byte, f float64) []byte {
	b, _ := json.Marshal(f)
	return append(buf, b...)
}

func pointerEnc(t reflect.Type, seen map[reflect.Type]bool) sortedEnc {
	elem := newSortedEnc(t.Elem(), seen)
	if elem == nil {
		return nil
	}
	return func(buf []byte, v reflect.Value) []byte {
		if v.IsNil() {
			return append(buf, "null"...)
		}
		return elem(buf, v.Elem())
	}
}

func sliceEnc(t reflect.Type, seen map[reflect.Type]bool) sortedEnc {
	if t.Elem().Kind() == reflect.Uint8 {
		return nil // base64, as json.Marshal writes it: no result has one
	}
	elem := newSortedEnc(t.Elem(), seen)
	if elem == nil {
		return nil
	}
	return func(buf []byte, v reflect.Value) []byte {
		if v.IsNil() {
			return append(buf, "null"...)
		}
		buf = append(buf, '[')
		for i := range v.Len() {
			if i > 0 {
				buf = append(buf, ',')
			}
			buf = elem(buf, v.Index(i))
		}
		return append(buf, ']')
	}
}

// sortedField is one struct field as the encoder writes it.
type sortedField struct {
	index     []int  // of the field, through embedded structs
	key       string // `"name":`
	omitEmpty bool
	// nilEmpty: a nil slice is written [], as noNulls makes it (a field
	// without omitempty, reached through exported fields).
	nilEmpty bool
	enc      sortedEnc
}

func structEnc(t reflect.Type, seen map[reflect.Type]bool) sortedEnc {
	fields, ok := structFields(t, nil, true, seen)
	if !ok {
		return nil
	}
	names := map[string]bool{}
	for _, f := range fields {
		if names[f.key] {
			return nil // a name two fields have: encoding/json's rules pick
		}
		names[f.key] = true
	}
	slices.SortFunc(fields, func(a, b sortedField) int { return strings.Compare(a.key, b.key) })
	return func(buf []byte, v reflect.Value) []byte {
		buf = append(buf, '{')
		first := true
		for _, f := range fields {
			fv := v.FieldByIndex(f.index)
			if f.omitEmpty && emptyValue(fv) {
				continue
			}
			if !first {
				buf = append(buf, ',')
			}
			first = false
			buf = append(buf, f.key...)
			if f.nilEmpty && fv.IsNil() {
				buf = append(buf, "[]"...)
				continue
			}
			buf = f.enc(buf, fv)
		}
		return append(buf, '}')
	}
}

// structFields are t's fields as JSON writes them, an embedded struct's
// (untagged, not a pointer) in its place; false for a field or an option
// structEnc does not write as encoding/json would. exported: noNulls
// reaches t's fields (it does not enter an unexported embedded struct).
func structFields(t reflect.Type, at []int, exported bool, seen map[reflect.Type]bool) ([]sortedField, bool) {
	var fields []sortedField
	for i := range t.NumField() {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		index := append(slices.Clone(at), i)
		if f.Anonymous && tag == "" {
			if f.Type.Kind() != reflect.Struct || f.Type.Implements(marshalerType) || f.Type.Implements(textMarshalerType) ||
				reflect.PointerTo(f.Type).Implements(marshalerType) || reflect.PointerTo(f.Type).Implements(textMarshalerType) {
				return nil, false
			}
			inner, ok := structFields(f.Type, index, exported && f.IsExported(), seen)
			if !ok {
				return nil, false
			}
			fields = append(fields, inner...)
			continue
		}
		if !f.IsExported() || tag == "-" {
			continue
		}
		name, opts, _ := strings.Cut(tag, ",")
		if name == "" {
			name = f.Name
		}
		omit := false
		for o := range strings.SplitSeq(opts, ",") {
			switch o {
			case "":
			case "omitempty":
				omit = true
			default:
				return nil, false // ",string", omitzero
			}
		}
		if !validKey(name) {
			return nil, false
		}
		enc := newSortedEnc(f.Type, seen)
		if enc == nil {
			return nil, false
		}
		fields = append(fields, sortedField{index: index, key: string(appendJSONString(nil, name)) + ":", omitEmpty: omit,
			nilEmpty: exported && !omit && f.Type.Kind() == reflect.Slice, enc: enc})
	}
	return fields, true
}

// validKey: a name json.Marshal writes as it is (it escapes nothing in a
// key made of these), so that sorting the quoted keys sorts the names.
func validKey(name string) bool {
	for _, c := range name {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-') {
			return false
		}
	}
	return name != ""
}

// emptyValue is encoding/json's omitempty test.
func emptyValue(v reflect.Value) bool {
	switch v.Kind() {
	case reflect.Array, reflect.Map, reflect.Slice, reflect.String:
		return v.Len() == 0
	case reflect.Bool:
		return !v.Bool()
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		return v.Int() == 0
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Uintptr:
		return v.Uint() == 0
	case reflect.Float32, reflect.Float64:
		return v.Float() == 0
	case reflect.Interface, reflect.Pointer:
		return v.IsNil()
	}
	return false
}

// appendJSONString writes s as the round trip did (HTML characters, U+2028
// and U+2029 escaped, invalid UTF-8 as a plain U+FFFD): plain ASCII
// directly, anything else through json.Marshal.
func appendJSONString(buf []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' || c >= utf8.RuneSelf {
			// Invalid UTF-8 became U+FFFD in the round trip's decode,
			// which its second encoding wrote as it is.
			b, _ := json.Marshal(strings.ToValidUTF8(s, "\uFFFD"))
			return append(buf, b...)
		}
	}
	buf = append(buf, '"')
	buf = append(buf, s...)
	return append(buf, '"')
}
