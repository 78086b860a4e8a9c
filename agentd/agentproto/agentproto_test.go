package agentproto

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"io"
	"reflect"
	"strings"
	"testing"
)

// messages holds one populated value of every message Marshal takes, with
// edge values (negative numbers, empty and non-ASCII strings, big offsets).
var messages = []struct {
	name string
	msg  any
	typ  Type
}{
	{"create", Create{Command: "bash", Args: []string{"--norc", "", "ünï"}, Dir: "/tmp", Env: []string{"A=1", "PS1=$ "},
		Rows: 40, Cols: 120, Term: "xterm-256color", Meta: []byte{0, 1, 2, 255}}, TypeCreate},
	{"create empty", Create{}, TypeCreate},
	{"create confined", Create{Command: "bash", Confine: true}, TypeCreate},
	{"create model", Create{Command: "bash", Model: true}, TypeCreate},
	{"create serial", Create{Command: "/dev/ttyUSB0", Rows: 40, Cols: 120, Meta: []byte(`{"transport":"serial"}`), Kind: KindSerial,
		Serial: SerialLine{Baud: 74880, DataBits: 7, Parity: "even", StopBits: "2", FlowControl: "rtscts", Reconnect: true}}, TypeCreate},
	{"attach from", Attach{ID: "s1", From: 1 << 40}, TypeAttach},
	{"attach start", Attach{ID: "s2", FromStart: true}, TypeAttach},
	{"attach end tail", Attach{ID: "s3", FromEnd: true, Tail: 4096}, TypeAttach},
	{"attach model", Attach{ID: "s4", FromStart: true, Model: true}, TypeAttach},
	{"attach reply", AttachReply{Status: StatusAttached, Message: "hi", From: 10, Lost: 5, FromLine: 7, Session: SessionInfo{
		ID: "s1", Command: "bash --norc", Pid: 1234, Created: 1700000000123, Rows: 24, Cols: 80, Exited: true,
		ExitStatus: 137, ExitSignal: "KILL", Start: 100, End: 1 << 33, StartLine: 42, Clients: 2, Foreground: "vim",
		Meta: []byte("meta"), Confined: 7}}, TypeAttachReply},
	{"attach reply refused", AttachReply{Status: StatusForbidden, Message: "no"}, TypeAttachReply},
	{"attach reply serial", AttachReply{Status: StatusCreated, Kind: KindSerial, Session: SessionInfo{ID: "s4", Command: "serial /dev/ttyACM0"}}, TypeAttachReply},
	{"attach reply serial failed", AttachReply{Status: StatusFailed, Message: "serial port /dev/ttyUSB9 does not exist", Kind: KindSerial}, TypeAttachReply},
	{"list reply", ListReply{Sessions: []SessionInfo{{ID: "s1", Pid: 1}, {ID: "s2", ExitStatus: -1, Meta: []byte{9}, Confined: 6}}}, TypeListReply},
	{"list reply empty", ListReply{}, TypeListReply},
	{"output", Output{Offset: 1<<62 + 3, Data: []byte("hello\r\n\x1b[0m")}, TypeOutput},
	{"output empty", Output{Offset: 0}, TypeOutput},
	{"input", Input{Data: []byte("echo x\r")}, TypeInput},
	{"gap", Gap{From: 3, To: 1 << 35}, TypeGap},
	{"resize", Resize{Rows: 50, Cols: 200}, TypeResize},
	{"signal", Signal{Name: "INT"}, TypeSignal},
	{"exit status", Exit{Status: 3}, TypeExit},
	{"exit signal", Exit{Status: 143, Signal: "TERM"}, TypeExit},
	{"exit message", Exit{Status: 255, Message: "serial port /dev/ttyUSB0 disappeared"}, TypeExit},
	{"link down", Link{State: LinkDisconnected}, TypeLink},
	{"link up", Link{State: LinkUp}, TypeLink},
	{"break", Break{Millis: 250}, TypeBreak},
	{"break default", Break{}, TypeBreak},
	{"modem", Modem{Line: "dtr", On: true}, TypeModem},
	{"modem off", Modem{Line: "rts"}, TypeModem},
	{"foreground", Foreground{Pgid: 99, Name: "sleep", IsShell: false, Echo: true}, TypeForeground},
	{"foreground shell", Foreground{Pgid: 98, Name: "bash", IsShell: true}, TypeForeground},
	{"set meta", SetMeta{Meta: []byte(`{"read":12}`)}, TypeSetMeta},
	{"kill", Kill{ID: "s12"}, TypeKill},
	{"stop", Stop{Force: true}, TypeStop},
	{"reply", Reply{Status: StatusBusy, Message: "2 sessions running"}, TypeReply},
	{"reply unsupported", Reply{Status: StatusUnsupported, Message: "this device has no DTR line (a pseudo-terminal?)"}, TypeReply},
	{"redact", Redact{From: 10, To: 1 << 33}, TypeRedact},
	{"stamps", Stamps{Offsets: []int64{0, 4096}, Times: []int64{1764300000000000000, 1764300000123456789}}, TypeStamps},
	{"typed", Typed{Others: 17}, TypeTyped},
	{"person input", PersonInput{Data: []byte("ls\r")}, TypePersonInput},
	{"hello", Hello{TokenPath: "/home/u/.cache/ttymux/agent/v1/agent.token", Nonce: []byte("0123456789abcdef")}, TypeHello},
	{"hello reply", HelloReply{Status: StatusOK, Proof: []byte("proof")}, TypeHelloReply},
	{"hello refused", HelloReply{Status: StatusFailed, Message: "permission denied"}, TypeHelloReply},
}

// TestRoundTrip marshals every message, frames it, reads the frame back and
// decodes it to the same value.
func TestRoundTrip(t *testing.T) {
	for _, tc := range messages {
		t.Run(tc.name, func(t *testing.T) {
			typ, p := Marshal(tc.msg)
			if typ != tc.typ {
				t.Fatalf("Marshal type = %s, want %s", typ, tc.typ)
			}
			var buf bytes.Buffer
			if err := WriteFrame(&buf, typ, p); err != nil {
				t.Fatal(err)
			}
			f, err := ReadFrame(&buf, nil)
			if err != nil {
				t.Fatal(err)
			}
			got, err := Unmarshal(f)
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(normalize(got), normalize(tc.msg)) {
				t.Errorf("round trip:\n got %#v\nwant %#v", got, tc.msg)
			}
			if buf.Len() != 0 {
				t.Errorf("%d bytes left after the frame", buf.Len())
			}
		})
	}
}

// normalize makes empty and nil slices compare equal.
func normalize(m any) any {
	v := reflect.New(reflect.TypeOf(m)).Elem()
	v.Set(reflect.ValueOf(m))
	normValue(v)
	return v.Interface()
}

func normValue(v reflect.Value) {
	switch v.Kind() {
	case reflect.Slice:
		if v.Len() == 0 {
			v.Set(reflect.Zero(v.Type()))
			return
		}
		for i := range v.Len() {
			normValue(v.Index(i))
		}
	case reflect.Struct:
		for i := range v.NumField() {
			normValue(v.Field(i))
		}
	}
}

// TestEmptyPayloads checks List and Detach, which Marshal does not take.
func TestEmptyPayloads(t *testing.T) {
	for _, typ := range []Type{TypeList, TypeDetach} {
		m, err := Unmarshal(Frame{Type: typ})
		if err != nil || m != (struct{}{}) {
			t.Errorf("Unmarshal(%s) = %#v, %v; want struct{}{}", typ, m, err)
		}
	}
}

// TestAppendedFieldsAbsent pins the versioning rule: a payload from an older
// build of the same Version lacks the fields appended since, and those
// decode as zero (AttachReply.Caps, Kind and FromLine, SessionInfo.StartLine
// and Confined).
func TestAppendedFieldsAbsent(t *testing.T) {
	rep := AttachReply{Status: StatusAttached, From: 5, Session: SessionInfo{ID: "s1", StartLine: 3, Confined: 7}, FromLine: 9, Kind: KindSerial, Caps: CapMetaNoReply}
	_, p := Marshal(rep)
	// Drop Confined (1 byte), then Caps (1 byte), Kind (1 byte), FromLine
	// (1 byte: zig-zag 9 = 18) and StartLine (1 byte), one after the other.
	if m, err := Unmarshal(Frame{Type: TypeAttachReply, Payload: p[:len(p)-1]}); err != nil || m.(AttachReply).Session.Confined != 0 || m.(AttachReply).Caps != CapMetaNoReply {
		t.Errorf("without Confined: %+v, %v", m, err)
	}
	p = p[:len(p)-1]
	for _, cut := range []int{1, 2, 3, 4} {
		m, err := Unmarshal(Frame{Type: TypeAttachReply, Payload: p[:len(p)-cut]})
		if err != nil {
			t.Fatalf("cut %d: %v", cut, err)
		}
		got := m.(AttachReply)
		if got.Caps != 0 || got.Session.ID != "s1" || got.From != 5 {
			t.Errorf("cut %d: got %+v", cut, got)
		}
		if wantKind := map[int]Kind{1: KindSerial}[cut]; got.Kind != wantKind {
			t.Errorf("cut %d: Kind = %v, want %v", cut, got.Kind, wantKind)
		}
		if wantLine := map[int]int64{1: 9, 2: 9}[cut]; got.FromLine != wantLine {
			t.Errorf("cut %d: FromLine = %d, want %d", cut, got.FromLine, wantLine)
		}
		if cut == 4 && got.Session.StartLine != 0 {
			t.Errorf("cut %d: StartLine = %d, want 0", cut, got.Session.StartLine)
		}
	}
	// SetMeta.NoReply, appended after Meta, is absent from an older
	// client's SetMeta: the agent answers it.
	_, sp := Marshal(SetMeta{Meta: []byte("m"), NoReply: true})
	if m, err := Unmarshal(Frame{Type: TypeSetMeta, Payload: sp[:len(sp)-1]}); err != nil || m.(SetMeta).NoReply || string(m.(SetMeta).Meta) != "m" {
		t.Errorf("SetMeta without NoReply: %+v, %v", m, err)
	}
	if m, err := Unmarshal(Frame{Type: TypeSetMeta, Payload: sp}); err != nil || !m.(SetMeta).NoReply {
		t.Errorf("SetMeta with NoReply: %+v, %v", m, err)
	}
	// Model, appended after Tail and after Confine, is absent from an
	// older client's Attach and Create: its input counts as a person's.
	_, ap := Marshal(Attach{ID: "s1", FromEnd: true, Tail: 7, Model: true})
	if m, err := Unmarshal(Frame{Type: TypeAttach, Payload: ap[:len(ap)-1]}); err != nil || m.(Attach).Model || m.(Attach).Tail != 7 {
		t.Errorf("Attach without Model: %+v, %v", m, err)
	}
	_, cp := Marshal(Create{Command: "bash", Confine: true, Model: true})
	if m, err := Unmarshal(Frame{Type: TypeCreate, Payload: cp[:len(cp)-1]}); err != nil || m.(Create).Model || !m.(Create).Confine {
		t.Errorf("Create without Model: %+v, %v", m, err)
	}
	// Trailing bytes from a newer build are ignored.
	m, err := Unmarshal(Frame{Type: TypeAttachReply, Payload: append(p, 1, 2, 3)})
	if err != nil || m.(AttachReply).FromLine != 9 || m.(AttachReply).Kind != KindSerial || m.(AttachReply).Caps != CapMetaNoReply {
		t.Errorf("with trailing bytes: %+v, %v", m, err)
	}
}

// TestOlderCreateIsPTY pins what an agent makes of a Create from a client
// that predates serial sessions (no Kind, no SerialLine): a PTY session. And
// an Exit from an agent that predates Message has none.
func TestOlderCreateIsPTY(t *testing.T) {
	var e enc
	e.str("bash")
	e.strs([]string{"-l"})
	e.str("/tmp")
	e.strs(nil)
	e.i(24)
	e.i(80)
	e.str("xterm")
	e.bytes([]byte("m"))
	m, err := Unmarshal(Frame{Type: TypeCreate, Payload: e.b})
	if err != nil {
		t.Fatal(err)
	}
	want := Create{Command: "bash", Args: []string{"-l"}, Dir: "/tmp", Rows: 24, Cols: 80, Term: "xterm", Meta: []byte("m")}
	if !reflect.DeepEqual(normalize(m), normalize(want)) {
		t.Errorf("old Create = %#v, want %#v", m, want)
	}
	var x enc
	x.i(129)
	x.str("HUP")
	m, err = Unmarshal(Frame{Type: TypeExit, Payload: x.b})
	if err != nil || m != (Exit{Status: 129, Signal: "HUP"}) {
		t.Errorf("old Exit = %#v, %v", m, err)
	}
}

func TestBadFrames(t *testing.T) {
	varint := func(v int64) []byte { return binary.AppendVarint(nil, v) }
	tests := []struct {
		name  string
		frame Frame
	}{
		{"unknown type", Frame{Type: 200}},
		{"type zero", Frame{Type: 0}},
		{"string longer than payload", Frame{Type: TypeKill, Payload: []byte{10, 'a'}}},
		{"truncated varint", Frame{Type: TypeGap, Payload: []byte{0x80}}},
		{"rows out of int32", Frame{Type: TypeResize, Payload: varint(1 << 40)}},
		{"status over 255", Frame{Type: TypeReply, Payload: binary.AppendUvarint(nil, 256)}},
		{"list count over payload", Frame{Type: TypeListReply, Payload: []byte{5, 0}}},
		{"args count over payload", Frame{Type: TypeCreate, Payload: []byte{0, 200}}},
		{"kind over 255", Frame{Type: TypeAttachReply, Payload: append(payloadOf(AttachReply{}, 3), binary.AppendUvarint(nil, 256)...)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m, err := Unmarshal(tc.frame)
			if !errors.Is(err, ErrBadFrame) {
				t.Errorf("Unmarshal = %#v, %v; want an error matching ErrBadFrame", m, err)
			}
		})
	}
}

func TestReadFrameLimits(t *testing.T) {
	var h [5]byte
	h[0] = byte(TypeOutput)
	binary.BigEndian.PutUint32(h[1:], MaxPayload+1)
	if _, err := ReadFrame(bytes.NewReader(h[:]), nil); !errors.Is(err, ErrBadFrame) {
		t.Errorf("oversized frame: err = %v, want ErrBadFrame", err)
	}
	if err := WriteFrame(io.Discard, TypeInput, make([]byte, MaxPayload+1)); err == nil {
		t.Error("WriteFrame of an oversized payload succeeded")
	}
	binary.BigEndian.PutUint32(h[1:], 10)
	if _, err := ReadFrame(bytes.NewReader(append(h[:], 1, 2)), nil); !errors.Is(err, io.ErrUnexpectedEOF) {
		t.Errorf("short payload: err = %v, want io.ErrUnexpectedEOF", err)
	}
	if _, err := ReadFrame(bytes.NewReader(nil), nil); err != io.EOF {
		t.Errorf("no frame: err = %v, want io.EOF", err)
	}
}

// TestWriteFrameBuffered covers the bufio.Writer path of WriteFrame.
func TestWriteFrameBuffered(t *testing.T) {
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	for _, tc := range messages {
		typ, p := Marshal(tc.msg)
		if err := WriteFrame(w, typ, p); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	var reuse []byte
	for _, tc := range messages {
		f, err := ReadFrame(&buf, reuse)
		if err != nil {
			t.Fatal(err)
		}
		reuse = f.Payload
		if f.Type != tc.typ {
			t.Fatalf("%s: type %s, want %s", tc.name, f.Type, tc.typ)
		}
	}
}

func TestHeader(t *testing.T) {
	var buf bytes.Buffer
	if err := WriteHeader(&buf); err != nil {
		t.Fatal(err)
	}
	if got, want := buf.String(), Magic+"\x00\x01"; Version == 1 && got != want {
		t.Errorf("header = %q, want %q", got, want)
	}
	if err := ReadHeader(&buf); err != nil {
		t.Errorf("ReadHeader of our own header: %v", err)
	}
	if err := ReadHeader(strings.NewReader("SSH-2.0-OpenSSH_9.6\r\n")); !errors.Is(err, ErrBadFrame) {
		t.Errorf("ReadHeader of a non-agent: %v, want ErrBadFrame", err)
	}
	if err := ReadHeader(strings.NewReader("ttymux")); err == nil {
		t.Error("ReadHeader of a short header succeeded")
	}
}

// TestVersionMismatchNamesBoth pins tmux's rule (shared/STYLE.md §6): the
// error names both versions.
func TestVersionMismatchNamesBoth(t *testing.T) {
	hdr := []byte(Magic)
	hdr = binary.BigEndian.AppendUint16(hdr, Version+1)
	err := ReadHeader(bytes.NewReader(hdr))
	var ve *VersionError
	if !errors.As(err, &ve) || ve.Local != Version || ve.Remote != Version+1 {
		t.Fatalf("ReadHeader = %v, want a *VersionError{%d, %d}", err, Version, Version+1)
	}
	msg := err.Error()
	for _, v := range []string{"1", "2"} {
		if !strings.Contains(msg, v) {
			t.Errorf("%q does not name version %s", msg, v)
		}
	}
}

func TestStrings(t *testing.T) {
	if got := TypeGap.String(); got != "Gap" {
		t.Errorf("TypeGap = %q", got)
	}
	if got := Type(99).String(); got != "Type(99)" {
		t.Errorf("Type(99) = %q", got)
	}
	if got := StatusBusy.String(); got != "busy" {
		t.Errorf("StatusBusy = %q", got)
	}
	if got := Status(42).String(); got != "status(42)" {
		t.Errorf("Status(42) = %q", got)
	}
	if got := StatusUnsupported.String(); got != "unsupported" {
		t.Errorf("StatusUnsupported = %q", got)
	}
	if got := TypeModem.String(); got != "Modem" {
		t.Errorf("TypeModem = %q", got)
	}
	for k, want := range map[Kind]string{KindPTY: "pty", KindSerial: "serial", 7: "kind(7)"} {
		if got := k.String(); got != want {
			t.Errorf("Kind(%d) = %q, want %q", k, got, want)
		}
	}
}

// TestTypesNeverRenumbered pins the wire numbers: changing one breaks every
// deployed agent (tmux keeps retired message numbers as unused).
func TestTypesNeverRenumbered(t *testing.T) {
	want := map[Type]byte{TypeCreate: 1, TypeAttach: 2, TypeAttachReply: 3, TypeList: 4, TypeListReply: 5,
		TypeInput: 6, TypeOutput: 7, TypeResize: 8, TypeSignal: 9, TypeDetach: 10, TypeExit: 11,
		TypeForeground: 12, TypeSetMeta: 13, TypeKill: 14, TypeReply: 15, TypeStop: 16, TypeGap: 17,
		TypeLink: 18, TypeBreak: 19, TypeModem: 20, TypeHello: 21, TypeHelloReply: 22, TypeRedact: 23, TypeStamps: 24, TypeTyped: 25,
		TypePersonInput: 26}
	for typ, n := range want {
		if byte(typ) != n {
			t.Errorf("%s = %d, want %d", typ, typ, n)
		}
	}
	st := map[Status]byte{StatusOK: 0, StatusCreated: 1, StatusAttached: 2, StatusNotFound: 3, StatusForbidden: 4,
		StatusLimit: 5, StatusFailed: 6, StatusBusy: 7, StatusUnsupported: 8}
	for s, n := range st {
		if byte(s) != n {
			t.Errorf("%s = %d, want %d", s, s, n)
		}
	}
	if KindPTY != 0 || KindSerial != 1 {
		t.Errorf("kinds renumbered: pty %d, serial %d", KindPTY, KindSerial)
	}
}

func TestMarshalPanicsOnUnknown(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Error("Marshal(struct{}{}) did not panic")
		}
	}()
	Marshal(struct{}{})
}

// payloadOf returns m's payload without its last drop bytes.
func payloadOf(m any, drop int) []byte {
	_, p := Marshal(m)
	return p[:len(p)-drop]
}

// TestProof: the proof depends on the token and the nonce, and checks only
// against the same pair (issue #14: a relay without the token cannot make
// it, and one proof is no good for another nonce).
func TestProof(t *testing.T) {
	tok, n1, n2 := []byte("secret-token"), []byte("nonce-one-16byte"), []byte("nonce-two-16byte")
	p := Proof(tok, n1)
	if !ProofOK(tok, n1, p) {
		t.Fatal("proof does not check")
	}
	if ProofOK(tok, n2, p) || ProofOK([]byte("other"), n1, p) || ProofOK(tok, n1, nil) {
		t.Fatal("a proof checks against another nonce or token")
	}
}
