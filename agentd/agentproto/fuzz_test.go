package agentproto

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzDecode feeds arbitrary bytes to ReadFrame and Unmarshal: they must
// never panic, and a frame that decodes must re-encode to a frame that
// decodes to the same message (Marshal(Unmarshal(x)) round-trips; the bytes
// may differ, since decoders ignore trailing bytes and accept non-minimal
// varints).
func FuzzDecode(f *testing.F) {
	for _, tc := range messages {
		typ, p := Marshal(tc.msg)
		var buf bytes.Buffer
		if err := WriteFrame(&buf, typ, p); err != nil {
			f.Fatal(err)
		}
		f.Add(buf.Bytes())
	}
	f.Add([]byte{byte(TypeList), 0, 0, 0, 0})
	f.Add([]byte{byte(TypeDetach), 0, 0, 0, 1, 7})
	f.Add([]byte{byte(TypeListReply), 0, 0, 0, 2, 0x80, 0x01})
	f.Fuzz(func(t *testing.T, data []byte) {
		r := bytes.NewReader(data)
		for {
			fr, err := ReadFrame(r, nil)
			if err != nil {
				return
			}
			m, err := Unmarshal(fr)
			if err != nil {
				continue
			}
			if fr.Type == TypeList || fr.Type == TypeDetach {
				continue // empty payloads; Marshal does not take them
			}
			typ, p := Marshal(m)
			if typ != fr.Type {
				t.Fatalf("Marshal(%#v) type = %s, want %s", m, typ, fr.Type)
			}
			m2, err := Unmarshal(Frame{Type: typ, Payload: p})
			if err != nil {
				t.Fatalf("re-decode of %#v: %v", m, err)
			}
			if !reflect.DeepEqual(m, m2) {
				t.Fatalf("round trip:\n got %#v\nwant %#v", m2, m)
			}
		}
	})
}
