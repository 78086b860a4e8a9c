package main

import (
	"reflect"
	"runtime"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/jsonrpc"
)

// TestDecodeLineAsSDK: decodeLine's own decoding of requests gives what
// jsonrpc.DecodeMessage gives, and everything else still goes to it.
func TestDecodeLineAsSDK(t *testing.T) {
	deep := `{"jsonrpc":"2.0","id":1,"method":"x","params":{"a":` + strings.Repeat("[", 1001) + strings.Repeat("]", 1001) + `}}`
	for _, line := range []string{
		`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"send","arguments":{"session_id":"t1","text":"echo hello"}}}`,
		`{"jsonrpc":"2.0","id":"a-1","method":"tools/list"}`,
		`{"jsonrpc":"2.0","method":"notifications/initialized"}`,
		`{"jsonrpc":"2.0","method":"notifications/cancelled","params":{"requestId":7}}  `,
		`{"jsonrpc":"2.0","id":8,"method":""}`,
		`{"jsonrpc":"2.0","id":9,"method":5}`,
		`{"jsonrpc":"2.0","id":1.5,"method":"x"}`,
		`{"jsonrpc":"2.0","id":true,"method":"x"}`,
		`{"jsonrpc":"1.0","id":1,"method":"x"}`,
		`{"JSONRPC":"2.0","id":1,"method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"Method":"x"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","error":"no"}`,
		`{"jsonrpc":"2.0","id":1,"method":"x","error":{"code":1,"message":"m"}}`,
		`{"jsonrpc":"2.0","id":3,"result":{"action":"accept"}}`,
		`{"jsonrpc":"2.0","id":3,"error":{"code":-1,"message":"no"}}`,
		`{"jsonrpc":"2.0","result":{}}`,
		`{"jsonrpc":"2.0","id":1,"method":"caf\u00e9","params":[1,2]}`,
		deep,
	} {
		want, wantErr := jsonrpc.DecodeMessage([]byte(line))
		got, errResp := decodeLine([]byte(line))
		if (wantErr != nil) != (errResp != nil) {
			t.Errorf("%s: DecodeMessage error %v, decodeLine error response %s", line, wantErr, errResp)
			continue
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("%s:\ndecodeLine    %#v\nDecodeMessage %#v", line, got, want)
		}
	}
}

// TestDecodeLineAllocs: a tools/call line costs a few hundred bytes to
// decode, not the 64 KiB of the two json.Decoder buffers that
// DecodeMessage allocates (it was 66 KB a line, issue #37).
func TestDecodeLineAllocs(t *testing.T) {
	line := []byte(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"send","arguments":{"session_id":"t1","text":"echo hello"}}}`)
	const n = 200
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for range n {
		if msg, errResp := decodeLine(line); msg == nil || errResp != nil {
			t.Fatalf("decodeLine: %v %s", msg, errResp)
		}
	}
	runtime.ReadMemStats(&m1)
	if per := (m1.TotalAlloc - m0.TotalAlloc) / n; per > 4<<10 {
		t.Errorf("%d bytes allocated per line decoded", per)
	}
}
