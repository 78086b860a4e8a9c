package main

import (
	"bytes"
	"encoding/json"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
	sjson "github.com/segmentio/encoding/json"
)

// decodeRequest decodes a line holding a request or a notification into
// what jsonrpc.DecodeMessage returns for it, or returns nil for anything
// else (a response, an error of any kind), which then takes
// DecodeMessage's path. It parses as DecodeMessage does, with the same
// parser (segmentio's, go-sdk's internal/json) and flags, into the same
// fields, but on the line itself: DecodeMessage reads it through a
// json.Decoder for each of its two Unmarshals, and each Decoder allocates
// and zeroes a 32 KiB buffer. On every call that was most of what the
// server's garbage collector had to collect (issue #37).
func decodeRequest(line []byte) *jsonrpc.Request {
	// DecodeMessage refuses nesting deeper than 1000 before it parses:
	// leave anything that could be that deep to it.
	if bytes.Count(line, []byte{'{'})+bytes.Count(line, []byte{'['}) >= 1000 {
		return nil
	}
	var w struct {
		VersionTag string          `json:"jsonrpc"`
		ID         any             `json:"id,omitempty"`
		Method     json.RawMessage `json:"method"`
		Params     json.RawMessage `json:"params,omitempty"`
		Result     json.RawMessage `json:"result,omitempty"`
		Error      *jsonrpc.Error  `json:"error,omitempty"`
	}
	const flags = sjson.DontMatchCaseInsensitiveStructFields
	if rest, err := sjson.Parse(line, &w, flags); err != nil || len(bytes.TrimSpace(rest)) != 0 {
		return nil
	}
	if w.VersionTag != "2.0" || len(w.Method) == 0 {
		return nil
	}
	id, err := jsonrpc.MakeID(w.ID)
	if err != nil {
		return nil
	}
	var method string
	if rest, err := sjson.Parse(w.Method, &method, flags); err != nil || len(rest) != 0 {
		return nil
	}
	return &jsonrpc.Request{ID: id, Method: method, Params: w.Params}
}
