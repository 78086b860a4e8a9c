package agentproto

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"fmt"
)

// Every message's payload is a sequence of fields in a fixed order, each a
// uvarint (unsigned numbers, booleans as 0/1), a zig-zag varint (signed
// numbers) or a uvarint length followed by that many bytes (strings, byte
// slices); a list is a uvarint count followed by its elements. A decoder
// ignores bytes after the fields it knows, so a later revision may append
// fields without a version change.

// Create starts a session.
type Create struct {
	Command string   // program path or name; empty: the agent's default shell
	Args    []string // after argv[0]
	Dir     string
	Env     []string // KEY=value entries layered over the agent's environment
	Rows    int
	Cols    int
	Term    string
	Meta    []byte // opaque client metadata kept with the session
	// Kind is what the session holds (appended after Meta; an older client
	// sends none: KindPTY). For KindSerial, Command is the port's path,
	// Serial its line settings, and Args, Dir, Env and Term are unused.
	Kind   Kind
	Serial SerialLine // appended after Kind
	// Confine asks for the program to run under Landlock where the agent's
	// host has it (appended after Serial; an older agent ignores it and
	// reports Confined 0).
	Confine bool
	// Model says the client types for a model (a ttymux mcp server), not
	// for a person (appended after Confine). Its input is left out of the
	// Typed counts of the session's other clients, so a second server on
	// the same session is not taken for a person. An older client sends
	// none: its input counts, as before.
	Model bool
}

// Kind is a session's kind: what the agent holds for it.
type Kind uint8

const (
	KindPTY    Kind = 0 // a program on a PTY
	KindSerial Kind = 1 // a serial port
)

func (k Kind) String() string {
	switch k {
	case KindPTY:
		return "pty"
	case KindSerial:
		return "serial"
	}
	return fmt.Sprintf("kind(%d)", k)
}

// SerialLine holds a serial port's line settings. Zero values mean 115200
// baud, 8 data bits, no parity, 1 stop bit, no flow control.
type SerialLine struct {
	Baud        int
	DataBits    int    // 5–8
	Parity      string // "none", "odd", "even", "mark", "space"
	StopBits    string // "1", "1.5", "2"
	FlowControl string // "none", "rtscts"
	// Reconnect keeps the session when the device goes away and reopens
	// the port when it comes back.
	Reconnect bool
}

// Attach asks for a session's output from an offset.
type Attach struct {
	ID string
	// From is the first output offset wanted; FromEnd asks for live output
	// only; FromStart for everything the ring still holds.
	From      int64
	FromStart bool
	FromEnd   bool
	// Tail, when > 0 with FromEnd, replays up to that many bytes before the
	// end (a human attach redrawing the screen).
	Tail int64
	// Model is Create's Model (appended after Tail).
	Model bool
}

// AttachReply is the outcome of Create or Attach. On StatusCreated or
// StatusAttached the connection streams Output frames from From.
type AttachReply struct {
	Status  Status
	Message string
	From    int64 // first offset that will be delivered
	Lost    int64 // bytes asked for that have left the ring
	Session SessionInfo
	// FromLine is the 1-based number of the line holding offset From
	// (appended after Session; 0 from an agent that predates it).
	FromLine int64
	// Kind is the session's kind (appended after FromLine). An agent that
	// knows serial sessions sets it on every reply to a Create of one,
	// failures included; an agent that predates them sends none
	// (KindPTY).
	Kind Kind
	// Caps says what the agent can do on this stream beyond what its
	// Version promises (appended after Kind; 0 from an agent that
	// predates it). A client uses a capability only when it is set here.
	Caps Caps
}

// Caps is a set of capabilities an agent advertises in its AttachReply.
type Caps uint64

const (
	// CapMetaNoReply: the agent answers a SetMeta whose NoReply is set with
	// no Reply frame. An agent that predates it answers every SetMeta (it
	// does not read NoReply), so a client that set NoReply without this
	// capability would take that Reply for the answer to a later request.
	CapMetaNoReply Caps = 1 << 0
	// CapPersonInput: the agent takes PersonInput and counts it in the
	// other clients' Typed, and counts the input of a Model client for no
	// one. A command no counted keys explain then came from another
	// model's client.
	CapPersonInput Caps = 1 << 1
)

// AgentCaps is what an agent built from this package advertises.
const AgentCaps = CapMetaNoReply | CapPersonInput

// SessionInfo describes one session held by the agent.
type SessionInfo struct {
	ID         string
	Command    string
	Pid        int
	Created    int64 // Unix milliseconds
	Rows, Cols int
	Exited     bool
	ExitStatus int
	ExitSignal string
	Start, End int64 // output offsets the ring holds
	StartLine  int64 // 1-based number of the line holding offset Start
	Clients    int
	Foreground string
	Meta       []byte
	// Confined is the Landlock ABI version the program runs under, 0 for
	// none or an agent that predates it. It travels after everything else
	// of the message that carries the SessionInfo (an AttachReply's Caps, a
	// ListReply's sessions), where an older peer does not read.
	Confined int
}

// ListReply lists the agent's sessions.
type ListReply struct {
	Sessions []SessionInfo
}

// Output carries terminal output starting at Offset.
type Output struct {
	Offset int64
	Data   []byte
}

// Gap says output from From to To was lost for this client.
type Gap struct{ From, To int64 }

// Resize changes the window size.
type Resize struct{ Rows, Cols int }

// Signal names a signal ("INT", "TERM", …) for the foreground process group.
type Signal struct{ Name string }

// Exit reports the end of the program, after its last Output.
type Exit struct {
	Status int
	Signal string
	// Message, when set, says why a session without a program ended (a
	// serial device that went away without Reconnect); Status is then 255.
	// Appended after Signal.
	Message string
}

// Link reports a serial session's link state: "up" or "disconnected".
type Link struct{ State string }

// Link states.
const (
	LinkUp           = "up"
	LinkDisconnected = "disconnected"
)

// Break asks for a line BREAK of Millis milliseconds on a serial session;
// 0 means the default, 250 ms.
type Break struct{ Millis int64 }

// Modem asserts (On) or clears a serial session's modem control line,
// "dtr" or "rts".
type Modem struct {
	Line string
	On   bool
}

// Foreground reports the foreground process group and the ECHO flag.
type Foreground struct {
	Pgid    int
	Name    string
	IsShell bool
	Echo    bool
}

// SetMeta replaces the session's client metadata.
type SetMeta struct {
	Meta []byte
	// NoReply asks the agent not to answer (appended after Meta): metadata
	// a client sends on every command (issue #17) then costs one frame,
	// not two. Only for an agent whose AttachReply has CapMetaNoReply; an
	// older agent ignores the field and answers.
	NoReply bool
}

// Kill ends a session.
type Kill struct{ ID string }

// Stop stops the agent; without Force it refuses while sessions run.
type Stop struct{ Force bool }

// Reply is the outcome of Kill, Stop and SetMeta.
type Reply struct {
	Status  Status
	Message string
}

// Input carries bytes for the terminal.
type Input struct{ Data []byte }

// PersonInput is Input a person typed through a Model client (the console
// of a ttymux server driving the session, issue #35): the agent counts it
// in the other clients' Typed like the input of a client that is not a
// Model, so a second server takes those keys for a person's and not for
// the first server's model. A client sends it only to an agent that
// advertises CapPersonInput: an older agent skips types it does not know,
// and the keys would be lost.
type PersonInput struct{ Data []byte }

// Redact, on a stream, asks the agent to overwrite the output bytes
// [From, To) its ring still holds with '*' (line ends kept): the echo of a
// secret the client typed. Whoever reads that output later — a restarted
// server, a person attaching — gets the mask, not the secret (issue #14).
// No reply; an agent that predates it skips it.
type Redact struct{ From, To int64 }

// Stamps says when output arrived at the agent: the bytes from Offsets[i]
// on (up to the next offset) arrived at Times[i], in Unix nanoseconds.
// The agent sends it before the Output frames it covers, so a client that
// attaches later (a restarted server) stamps each line with when it came,
// not with when it was replayed. A client that predates it skips it.
type Stamps struct {
	Offsets []int64
	Times   []int64
}

// Typed, on a stream, says how many bytes of input the session's other
// clients (a person's ttymux attach, the console of ttymux web) wrote in
// all since this client attached: its own input never counts, nor that of
// a client that attached as a Model (another server), so a
// server tells a person's keys from its own even where no shell hook
// marks their commands (issue #35). Others only grows; the agent sends it
// when it changed, ahead of the output read with it, so a client that has
// a person's echo has their count. A client that predates it skips it.
type Typed struct{ Others int64 }

// Hello, sent before the request, asks the agent to prove that it runs as
// the user the client expects: it must read the token file at TokenPath (a
// 0600 file of that user's, written when the agent was installed) and
// answer Proof(token, Nonce). Another user's agent, or a relay to one,
// cannot read the file (issue #14). Nonce is at least 16 random bytes.
type Hello struct {
	TokenPath string
	Nonce     []byte
}

// HelloReply answers Hello: StatusOK with Proof, or StatusFailed with a
// Message saying why there is none (the token file cannot be read). The
// connection then continues with the request.
type HelloReply struct {
	Status  Status
	Message string
	Proof   []byte
}

// proofLabel separates these proofs from any other use of the token.
const proofLabel = "ttymux-agent hello proof v1\x00"

// Proof is what an agent that read token answers to a Hello with nonce:
// HMAC-SHA256 keyed with the token over proofLabel and the nonce. It
// reveals nothing about the token to whoever relays it.
func Proof(token, nonce []byte) []byte {
	m := hmac.New(sha256.New, token)
	m.Write([]byte(proofLabel))
	m.Write(nonce)
	return m.Sum(nil)
}

// ProofOK reports, in constant time, whether proof is Proof(token, nonce).
func ProofOK(token, nonce, proof []byte) bool {
	return hmac.Equal(Proof(token, nonce), proof)
}

// enc appends fields.
type enc struct{ b []byte }

func (e *enc) u(v uint64)     { e.b = binary.AppendUvarint(e.b, v) }
func (e *enc) i(v int64)      { e.b = binary.AppendVarint(e.b, v) }
func (e *enc) bytes(p []byte) { e.u(uint64(len(p))); e.b = append(e.b, p...) }
func (e *enc) str(s string)   { e.u(uint64(len(s))); e.b = append(e.b, s...) }
func (e *enc) bool(v bool) {
	if v {
		e.u(1)
	} else {
		e.u(0)
	}
}
func (e *enc) strs(ss []string) {
	e.u(uint64(len(ss)))
	for _, s := range ss {
		e.str(s)
	}
}

// dec reads fields; the first error sticks.
//
// A field that starts where the payload ends is absent, not malformed: it
// decodes as its zero value. A peer of the same Version built before a
// trailing field was appended sends payloads without it (see "Versioning"
// in doc.go). A field cut off in its middle is still an error.
type dec struct {
	b   []byte
	err error
}

func (d *dec) fail(what string) {
	if d.err == nil {
		d.err = fmt.Errorf("%w: bad %s", ErrBadFrame, what)
	}
}

func (d *dec) u(what string) uint64 {
	if d.err != nil || len(d.b) == 0 {
		return 0
	}
	v, n := binary.Uvarint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) i(what string) int64 {
	if d.err != nil || len(d.b) == 0 {
		return 0
	}
	v, n := binary.Varint(d.b)
	if n <= 0 {
		d.fail(what)
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *dec) int(what string) int {
	v := d.i(what)
	if v < -1<<31 || v > 1<<31-1 {
		d.fail(what)
		return 0
	}
	return int(v)
}

func (d *dec) bool(what string) bool { return d.u(what) != 0 }

// status reads a Status. A value that does not fit in a Status is an
// error, not silently truncated (256 must not read as StatusOK).
func (d *dec) status() Status {
	v := d.u("status")
	if v > 0xff {
		d.fail("status")
		return 0
	}
	return Status(v)
}

// kind reads a Kind; like status, a value over a byte is an error.
func (d *dec) kind() Kind {
	v := d.u("kind")
	if v > 0xff {
		d.fail("kind")
		return 0
	}
	return Kind(v)
}

func (d *dec) bytes(what string) []byte {
	n := d.u(what)
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) {
		d.fail(what)
		return nil
	}
	if n == 0 {
		return nil
	}
	p := make([]byte, n)
	copy(p, d.b[:n])
	d.b = d.b[n:]
	return p
}

func (d *dec) str(what string) string {
	n := d.u(what)
	if d.err != nil {
		return ""
	}
	if n > uint64(len(d.b)) {
		d.fail(what)
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *dec) strs(what string) []string {
	n := d.u(what)
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.b)) { // each element takes at least one byte
		d.fail(what)
		return nil
	}
	ss := make([]string, 0, n)
	for range n {
		ss = append(ss, d.str(what))
	}
	return ss
}

// Marshal encodes m, which must be one of the message types of this package
// (a value, not a pointer), and returns its frame type and payload.
func Marshal(m any) (Type, []byte) {
	var e enc
	switch m := m.(type) {
	case Create:
		e.str(m.Command)
		e.strs(m.Args)
		e.str(m.Dir)
		e.strs(m.Env)
		e.i(int64(m.Rows))
		e.i(int64(m.Cols))
		e.str(m.Term)
		e.bytes(m.Meta)
		e.u(uint64(m.Kind))
		e.i(int64(m.Serial.Baud))
		e.i(int64(m.Serial.DataBits))
		e.str(m.Serial.Parity)
		e.str(m.Serial.StopBits)
		e.str(m.Serial.FlowControl)
		e.bool(m.Serial.Reconnect)
		e.bool(m.Confine)
		e.bool(m.Model)
		return TypeCreate, e.b
	case Attach:
		e.str(m.ID)
		e.i(m.From)
		e.bool(m.FromStart)
		e.bool(m.FromEnd)
		e.i(m.Tail)
		e.bool(m.Model)
		return TypeAttach, e.b
	case AttachReply:
		e.u(uint64(m.Status))
		e.str(m.Message)
		e.i(m.From)
		e.i(m.Lost)
		m.Session.enc(&e)
		e.i(m.FromLine)
		e.u(uint64(m.Kind))
		e.u(uint64(m.Caps))
		e.i(int64(m.Session.Confined))
		return TypeAttachReply, e.b
	case ListReply:
		e.u(uint64(len(m.Sessions)))
		for _, s := range m.Sessions {
			s.enc(&e)
		}
		for _, s := range m.Sessions {
			e.i(int64(s.Confined))
		}
		return TypeListReply, e.b
	case Output:
		e.i(m.Offset)
		e.b = append(e.b, m.Data...) // the rest of the payload
		return TypeOutput, e.b
	case Input:
		return TypeInput, append(e.b, m.Data...)
	case PersonInput:
		return TypePersonInput, append(e.b, m.Data...)
	case Gap:
		e.i(m.From)
		e.i(m.To)
		return TypeGap, e.b
	case Resize:
		e.i(int64(m.Rows))
		e.i(int64(m.Cols))
		return TypeResize, e.b
	case Signal:
		e.str(m.Name)
		return TypeSignal, e.b
	case Exit:
		e.i(int64(m.Status))
		e.str(m.Signal)
		e.str(m.Message)
		return TypeExit, e.b
	case Link:
		e.str(m.State)
		return TypeLink, e.b
	case Break:
		e.i(m.Millis)
		return TypeBreak, e.b
	case Modem:
		e.str(m.Line)
		e.bool(m.On)
		return TypeModem, e.b
	case Foreground:
		e.i(int64(m.Pgid))
		e.str(m.Name)
		e.bool(m.IsShell)
		e.bool(m.Echo)
		return TypeForeground, e.b
	case SetMeta:
		e.bytes(m.Meta)
		e.bool(m.NoReply)
		return TypeSetMeta, e.b
	case Kill:
		e.str(m.ID)
		return TypeKill, e.b
	case Stop:
		e.bool(m.Force)
		return TypeStop, e.b
	case Reply:
		e.u(uint64(m.Status))
		e.str(m.Message)
		return TypeReply, e.b
	case Redact:
		e.i(m.From)
		e.i(m.To)
		return TypeRedact, e.b
	case Stamps:
		n := min(len(m.Offsets), len(m.Times))
		e.u(uint64(n))
		for i := range n {
			e.i(m.Offsets[i])
			e.i(m.Times[i])
		}
		return TypeStamps, e.b
	case Typed:
		e.i(m.Others)
		return TypeTyped, e.b
	case Hello:
		e.str(m.TokenPath)
		e.bytes(m.Nonce)
		return TypeHello, e.b
	case HelloReply:
		e.u(uint64(m.Status))
		e.str(m.Message)
		e.bytes(m.Proof)
		return TypeHelloReply, e.b
	}
	panic(fmt.Sprintf("agentproto: cannot marshal %T", m))
}

func (s SessionInfo) enc(e *enc) {
	e.str(s.ID)
	e.str(s.Command)
	e.i(int64(s.Pid))
	e.i(s.Created)
	e.i(int64(s.Rows))
	e.i(int64(s.Cols))
	e.bool(s.Exited)
	e.i(int64(s.ExitStatus))
	e.str(s.ExitSignal)
	e.i(s.Start)
	e.i(s.End)
	e.i(int64(s.Clients))
	e.str(s.Foreground)
	e.bytes(s.Meta)
	e.i(s.StartLine)
}

func (d *dec) session() SessionInfo {
	var s SessionInfo
	s.ID = d.str("session id")
	s.Command = d.str("command")
	s.Pid = d.int("pid")
	s.Created = d.i("created")
	s.Rows = d.int("rows")
	s.Cols = d.int("cols")
	s.Exited = d.bool("exited")
	s.ExitStatus = d.int("exit status")
	s.ExitSignal = d.str("exit signal")
	s.Start = d.i("start")
	s.End = d.i("end")
	s.Clients = d.int("clients")
	s.Foreground = d.str("foreground")
	s.Meta = d.bytes("meta")
	s.StartLine = d.i("start line")
	return s
}

// Unmarshal decodes a frame into its message value (Create, Attach, …; not
// pointers). Unknown types are an error wrapping ErrBadFrame; the caller
// decides whether to skip them. Byte slices in the result do not alias
// f.Payload.
func Unmarshal(f Frame) (any, error) {
	d := &dec{b: f.Payload}
	var m any
	switch f.Type {
	case TypeCreate:
		m = Create{Command: d.str("command"), Args: d.strs("args"), Dir: d.str("dir"), Env: d.strs("env"),
			Rows: d.int("rows"), Cols: d.int("cols"), Term: d.str("term"), Meta: d.bytes("meta"),
			Kind: d.kind(), Serial: SerialLine{Baud: d.int("baud"), DataBits: d.int("data bits"), Parity: d.str("parity"),
				StopBits: d.str("stop bits"), FlowControl: d.str("flow control"), Reconnect: d.bool("reconnect")},
			Confine: d.bool("confine"), Model: d.bool("model")}
	case TypeAttach:
		m = Attach{ID: d.str("id"), From: d.i("from"), FromStart: d.bool("from start"), FromEnd: d.bool("from end"), Tail: d.i("tail"),
			Model: d.bool("model")}
	case TypeAttachReply:
		r := AttachReply{Status: d.status(), Message: d.str("message"), From: d.i("from"), Lost: d.i("lost"),
			Session: d.session(), FromLine: d.i("from line"), Kind: d.kind(), Caps: Caps(d.u("caps"))}
		r.Session.Confined = d.int("confined")
		m = r
	case TypeList:
		m = struct{}{}
	case TypeListReply:
		n := d.u("count")
		if n > uint64(len(d.b)) {
			d.fail("count")
		}
		var r ListReply
		for i := uint64(0); i < n && d.err == nil; i++ {
			r.Sessions = append(r.Sessions, d.session())
		}
		for i := range r.Sessions {
			r.Sessions[i].Confined = d.int("confined")
		}
		m = r
	case TypeOutput:
		off := d.i("offset")
		m = Output{Offset: off, Data: append([]byte(nil), d.b...)}
		d.b = nil
	case TypeInput:
		m = Input{Data: append([]byte(nil), d.b...)}
	case TypePersonInput:
		m = PersonInput{Data: append([]byte(nil), d.b...)}
	case TypeGap:
		m = Gap{From: d.i("from"), To: d.i("to")}
	case TypeResize:
		m = Resize{Rows: d.int("rows"), Cols: d.int("cols")}
	case TypeSignal:
		m = Signal{Name: d.str("signal")}
	case TypeDetach:
		m = struct{}{}
	case TypeExit:
		m = Exit{Status: d.int("status"), Signal: d.str("signal"), Message: d.str("message")}
	case TypeLink:
		m = Link{State: d.str("state")}
	case TypeBreak:
		m = Break{Millis: d.i("millis")}
	case TypeModem:
		m = Modem{Line: d.str("line"), On: d.bool("on")}
	case TypeForeground:
		m = Foreground{Pgid: d.int("pgid"), Name: d.str("name"), IsShell: d.bool("is shell"), Echo: d.bool("echo")}
	case TypeSetMeta:
		m = SetMeta{Meta: d.bytes("meta"), NoReply: d.bool("no reply")}
	case TypeKill:
		m = Kill{ID: d.str("id")}
	case TypeStop:
		m = Stop{Force: d.bool("force")}
	case TypeReply:
		m = Reply{Status: d.status(), Message: d.str("message")}
	case TypeRedact:
		m = Redact{From: d.i("from"), To: d.i("to")}
	case TypeStamps:
		n := d.u("count")
		if n > uint64(len(d.b)) {
			d.fail("count")
		}
		var s Stamps
		for i := uint64(0); i < n && d.err == nil; i++ {
			s.Offsets = append(s.Offsets, d.i("offset"))
			s.Times = append(s.Times, d.i("time"))
		}
		m = s
	case TypeTyped:
		m = Typed{Others: d.i("others")}
	case TypeHello:
		m = Hello{TokenPath: d.str("token path"), Nonce: d.bytes("nonce")}
	case TypeHelloReply:
		m = HelloReply{Status: d.status(), Message: d.str("message"), Proof: d.bytes("proof")}
	default:
		return nil, fmt.Errorf("%w: unknown message type %d", ErrBadFrame, f.Type)
	}
	if d.err != nil {
		return nil, fmt.Errorf("decode %s: %w", f.Type, d.err)
	}
	return m, nil
}

// List and Detach have empty payloads; use these values with Marshal-less
// sends: WriteFrame(w, TypeList, nil).
