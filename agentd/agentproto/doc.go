// Package agentproto is the wire protocol between ttymux (the client,
// transport/agent) and ttymux-agent (the daemon, agentd) that holds
// persistent terminal sessions. It is a specification as much as code:
// docs/agentd.md describes the same thing for readers who do not read
// Go, and the two must agree.
//
// The package owns the byte layout only: the version header, framing, and
// the encoding of each message. It does not own connections, sessions or
// policy (what an agent does with a request is agentd's business), and
// it imports the standard library only, so that the agent binary stays small.
//
// # Header
//
// Each side of a connection first sends a header: the 12 ASCII bytes
// "ttymux-agent" (Magic) followed by the protocol Version as a big-endian
// uint16. Both sides write their header without waiting for the other's, then
// read the peer's. ReadHeader fails with a *VersionError naming both versions
// when they differ; a connection whose versions differ carries nothing else.
//
// # Frames
//
// After the headers, each direction is a sequence of frames:
//
//	type    1 byte            (a Type: never renumbered, never reused)
//	length  4 bytes, big-endian (at most MaxPayload)
//	payload length bytes
//
// A connection carries one request. List, Kill and Stop get one reply frame
// and the agent closes the connection. Create and Attach get an AttachReply;
// on StatusCreated or StatusAttached the connection then becomes a stream:
// the agent sends Output, Gap, Foreground, Link (serial sessions), Typed, Reply (to
// SetMeta, Break and Modem, in order) and finally Exit frames, and the
// client sends Input, PersonInput (to an agent with CapPersonInput),
// Resize, Signal, SetMeta, Break, Modem and Detach frames. Any request may instead be answered with a Reply whose
// status is not StatusOK (StatusForbidden for a peer of another user,
// StatusFailed for a request type the agent does not know).
//
// # Payloads
//
// A payload is a sequence of fields in a fixed order, that of the message's
// Go struct except where Marshal says otherwise (SessionInfo.StartLine was
// appended last; Create's SerialLine is inlined after Kind;
// docs/agentd.md lists every message's wire order):
// unsigned numbers and booleans (0/1) as uvarints, signed numbers as
// zig-zag varints (encoding/binary), strings and byte slices as a uvarint
// length then the bytes, lists as a uvarint count then the elements. Two
// messages end with raw bytes instead: Output (offset varint, then the data
// to the end of the payload) and Input and PersonInput (the whole payload
// is data). List and
// Detach have empty payloads; Marshal does not take them, send them with
// WriteFrame(w, TypeList, nil).
//
// # Versioning
//
// Version changes only when an existing message changes meaning. Adding a
// message type, or appending a field at the end of a message, does not
// change it: a decoder ignores bytes after the fields it knows, and a field
// that is absent because the payload ends before it decodes as its zero
// value, so old and new builds of one Version interoperate. A receiver skips
// frame types it does not know.
//
// SessionInfo is embedded without a length prefix in AttachReply (followed by
// FromLine) and, repeated, in ListReply, so a field appended to SessionInfo
// would be misread by an older decoder: its field list is frozen for this
// Version. New per-session data goes into a new trailing field of the
// enclosing message (for ListReply, a parallel list after Sessions).
//
// # Session kinds
//
// Create.Kind (appended after Meta) says what the session holds: a program
// on a PTY (KindPTY, what an older client's Create means) or a serial port
// (KindSerial: Command is the port's path, Serial its line settings). An
// agent that knows serial sessions echoes the kind in every AttachReply to
// a Create of one, failures included, so a client can tell such an agent
// from an older one, which would have tried to run the port's path as a
// program (and failed: a device node is not executable). Break and Modem
// are answered on the stream by a Reply: StatusOK, StatusUnsupported (a PTY
// session, or a line the device lacks) or StatusFailed; an agent that
// predates them skips them, so a client sends them only on a stream whose
// AttachReply said KindSerial.
//
// # Concurrency
//
// Marshal, Unmarshal and the header functions are pure. WriteFrame and
// ReadFrame are not safe for concurrent use on one writer or reader.
package agentproto
