package agentproto

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
)

// Version is the protocol version this package speaks. It changes only when
// an existing message changes meaning; new messages and new trailing fields
// do not change it. Agents of different versions use different sockets and
// run side by side.
const Version = 1

// Magic opens the header each side sends first.
const Magic = "ttymux-agent"

// MaxPayload bounds one frame's payload. Larger frames are a protocol error.
const MaxPayload = 1 << 20

// Type identifies a message. Values are never renumbered or reused; a retired
// type stays listed as unused.
type Type uint8

// Message types. "C→A" is sent by a client, "A→C" by the agent.
const (
	TypeCreate      Type = 1  // C→A: start a session and attach to it
	TypeAttach      Type = 2  // C→A: attach to a session from an offset
	TypeAttachReply Type = 3  // A→C: the outcome of Create or Attach
	TypeList        Type = 4  // C→A: list sessions
	TypeListReply   Type = 5  // A→C
	TypeInput       Type = 6  // C→A: bytes for the session's terminal
	TypeOutput      Type = 7  // A→C: bytes the terminal printed, at an offset
	TypeResize      Type = 8  // C→A
	TypeSignal      Type = 9  // C→A: signal the foreground process group
	TypeDetach      Type = 10 // C→A: stop streaming, keep the session
	TypeExit        Type = 11 // A→C: the program ended; all its output was sent
	TypeForeground  Type = 12 // A→C: the foreground program or echo flag changed
	TypeSetMeta     Type = 13 // C→A: replace the session's client metadata
	TypeKill        Type = 14 // C→A: end a session (hang up its program)
	TypeReply       Type = 15 // A→C: the outcome of Kill, Stop, SetMeta
	TypeStop        Type = 16 // C→A: stop the agent
	TypeGap         Type = 17 // A→C: output was lost between two offsets (client too slow)
	TypeLink        Type = 18 // A→C: a serial session's device went away or came back
	TypeBreak       Type = 19 // C→A: send a line BREAK on a serial session
	TypeModem       Type = 20 // C→A: set a serial session's DTR or RTS line
	TypeHello       Type = 21 // C→A: before the request, ask the agent to prove it is the user's
	TypeHelloReply  Type = 22 // A→C: the proof (or why there is none)
	TypeRedact      Type = 23 // C→A: mask a range of the session's output (a secret's echo)
	TypeStamps      Type = 24 // A→C: when the output from each offset arrived
	TypeTyped       Type = 25 // A→C: how much input other clients wrote
	TypePersonInput Type = 26 // C→A: Input a person typed through a model's client
)

func (t Type) String() string {
	names := [...]string{"", "Create", "Attach", "AttachReply", "List", "ListReply", "Input", "Output",
		"Resize", "Signal", "Detach", "Exit", "Foreground", "SetMeta", "Kill", "Reply", "Stop", "Gap",
		"Link", "Break", "Modem", "Hello", "HelloReply", "Redact", "Stamps", "Typed", "PersonInput"}
	if int(t) < len(names) && names[t] != "" {
		return names[t]
	}
	return fmt.Sprintf("Type(%d)", t)
}

// Status is an enumerated outcome, never free text.
type Status uint8

const (
	StatusOK        Status = 0 // done (Reply)
	StatusCreated   Status = 1 // a new session was started and attached
	StatusAttached  Status = 2 // attached to an existing session
	StatusNotFound  Status = 3 // no session with that id
	StatusForbidden Status = 4 // not allowed (wrong user)
	StatusLimit     Status = 5 // the session limit is reached
	StatusFailed    Status = 6 // the request failed; Message says why
	StatusBusy      Status = 7 // Stop refused: sessions are still running
	// StatusUnsupported: the session or its device cannot do that (Break or
	// Modem on a PTY session, a modem line the device lacks).
	StatusUnsupported Status = 8
)

func (s Status) String() string {
	names := [...]string{"ok", "created", "attached", "not_found", "forbidden", "limit", "failed", "busy", "unsupported"}
	if int(s) < len(names) {
		return names[s]
	}
	return fmt.Sprintf("status(%d)", s)
}

// VersionError reports that the two sides speak different versions.
type VersionError struct{ Local, Remote int }

func (e *VersionError) Error() string {
	return fmt.Sprintf("protocol version mismatch (ours %d, agent's %d)", e.Local, e.Remote)
}

// ErrBadFrame is wrapped by every decoding error.
var ErrBadFrame = errors.New("malformed agent protocol frame")

// WriteHeader sends the version header: Magic then a big-endian uint16.
func WriteHeader(w io.Writer) error {
	var b [len(Magic) + 2]byte
	copy(b[:], Magic)
	binary.BigEndian.PutUint16(b[len(Magic):], Version)
	_, err := w.Write(b[:])
	return err
}

// ReadHeader reads the peer's header and checks its version.
func ReadHeader(r io.Reader) error {
	var b [len(Magic) + 2]byte
	if _, err := io.ReadFull(r, b[:]); err != nil {
		return fmt.Errorf("read agent protocol header: %w", err)
	}
	if string(b[:len(Magic)]) != Magic {
		return fmt.Errorf("%w: not a ttymux agent (header %q)", ErrBadFrame, b[:len(Magic)])
	}
	if v := int(binary.BigEndian.Uint16(b[len(Magic):])); v != Version {
		return &VersionError{Local: Version, Remote: v}
	}
	return nil
}

// A Frame is one message on the wire: type, 4-byte big-endian length,
// payload.
type Frame struct {
	Type    Type
	Payload []byte
}

// WriteFrame writes one frame. It is not safe for concurrent use on one w.
func WriteFrame(w io.Writer, t Type, payload []byte) error {
	if len(payload) > MaxPayload {
		return fmt.Errorf("agent frame %s of %d bytes is over the %d-byte limit", t, len(payload), MaxPayload)
	}
	var h [5]byte
	h[0] = byte(t)
	binary.BigEndian.PutUint32(h[1:], uint32(len(payload)))
	if bw, ok := w.(*bufio.Writer); ok {
		bw.Write(h[:])
		_, err := bw.Write(payload)
		return err
	}
	buf := make([]byte, 0, 5+len(payload))
	buf = append(append(buf, h[:]...), payload...)
	_, err := w.Write(buf)
	return err
}

// ReadFrame reads one frame. buf is reused for the payload when it is large
// enough; the returned payload is only valid until the next call.
func ReadFrame(r io.Reader, buf []byte) (Frame, error) {
	var h [5]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		return Frame{}, err
	}
	n := binary.BigEndian.Uint32(h[1:])
	if n > MaxPayload {
		return Frame{}, fmt.Errorf("%w: %s payload of %d bytes is over the %d-byte limit", ErrBadFrame, Type(h[0]), n, MaxPayload)
	}
	if cap(buf) < int(n) {
		buf = make([]byte, n)
	}
	buf = buf[:n]
	if _, err := io.ReadFull(r, buf); err != nil {
		if errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	return Frame{Type: Type(h[0]), Payload: buf}, nil
}
