// Package termseq splits a terminal byte stream into text and escape
// sequences. It is the one scanner behind everything in ttymux that looks
// at escape sequences: the completion detector and the key encoder's mode
// tracking (session), the screen's query and alternate-screen scanner
// (session/screen), the line renderer (session/reduce) and the gate's view
// of typed text (internal/gate). Because they share it, they cannot disagree
// about where a sequence begins or ends. (The attach filter in cmd/ttymux
// keeps its own parser on purpose: it guards a terminal that is not vt.)
//
// It owns the grammar and nothing else: it reports what it found and leaves
// the meaning (a mode switch, a title, a cursor motion) to its caller. It
// never allocates and keeps its state across calls, so a sequence split
// between two reads is seen as if it came in one.
//
// # Grammar
//
// The grammar is that of the DEC ANSI parser (https://vt100.net/emu/dec_ansi_parser)
// as charmbracelet/x/vt implements it (charmbracelet/x/ansi
// parser/transition_table.go), restricted to 7-bit introducers:
//
//   - ESC, then intermediates (0x20–0x2F) and a final byte (0x30–0x7E): an
//     escape sequence ([Esc]).
//   - ESC [, then parameters (digits, ';', ':'), a private marker (one of
//     "<=>?" before any parameter), intermediates and a final byte
//     (0x40–0x7E): a control sequence ([CSI]). A parameter byte after an
//     intermediate abandons it, as in vt.
//   - ESC ], ESC P, ESC X, ESC ^, ESC _: an OSC, DCS, SOS, PM or APC control
//     string, whose payload comes as [Data] until its end ([StringEnd]). BEL
//     ends an OSC (in the others it is data); ST (ESC \ or the 8-bit 0x9C)
//     ends any of them, except that in an OSC or DCS a 0x9C that continues
//     a UTF-8 character ("✓" is E2 9C 93) is data, as in xterm. An ESC ends
//     the string, as in vt, and begins the next sequence (for ST, the
//     escape sequence ESC \), except right after ESC P, where vt takes it as
//     data (tmux passthrough).
//   - CAN (0x18) and SUB (0x1A) abandon any sequence. An ESC inside an
//     escape or control sequence abandons it and begins another. Other C0
//     controls inside an escape or control sequence are executed ([Control])
//     and the sequence goes on; DEL is ignored.
//   - A byte of 0x80 or above inside an escape or control sequence abandons
//     it and is text. 8-bit C1 introducers (0x9B for CSI, 0x9D for OSC, …)
//     are text too: in a UTF-8 stream those bytes continue characters, and
//     ttymux's terminals run UTF-8 (session/screen hides invalid UTF-8 from
//     vt, so vt does not see them either).
//
// With [Scanner.Keys] set it reads keyboard input instead, as the gate
// needs: there are no control strings (ESC ] is Alt+]), SS3 (ESC O and one
// character, which cursor and function keys send in application mode) is
// one sequence, and a control sequence ends at the first byte that cannot
// belong to it, which stays text.
package termseq

import "bytes"

// Event says what the bytes a [Scanner.Next] call consumed were.
type Event uint8

const (
	// Text: the consumed bytes are text (no ESC; C0 controls included).
	Text Event = iota
	// Part: the consumed bytes belong to the sequence in progress, which
	// has not ended; nothing to act on yet.
	Part
	// Control: the last consumed byte is a C0 control inside an escape or
	// control sequence, to be executed now; the sequence goes on.
	Control
	// Esc: an escape sequence ended with the last consumed byte; see
	// [Scanner.Final] and [Scanner.Inter].
	Esc
	// CSI: a control sequence ended with the last consumed byte; see
	// [Scanner.Final], [Scanner.Marker], [Scanner.Inter], [Scanner.Params].
	CSI
	// StringStart: a control string began with the consumed bytes, its
	// introducer; see [Scanner.Kind].
	StringStart
	// Data: the consumed bytes are payload of the control string in
	// progress.
	Data
	// StringEnd: the control string in progress has ended, as
	// [Scanner.Term] tells; the consumed bytes are its terminator (BEL,
	// 0x9C, CAN or SUB), or none (an ESC, which the next call reads as the
	// start of a sequence, or [Scanner.MaxString]).
	StringEnd
	// Cancel: the escape or control sequence in progress was abandoned. The
	// consumed bytes are the CAN or SUB that did it, or the byte that cannot
	// belong to a control sequence, or none (an ESC, a byte of 0x80 or
	// above, or in Keys mode a control: the next call reads it).
	Cancel
)

// Term is how a control string ended.
type Term uint8

const (
	TermBEL    Term = iota + 1 // BEL (OSC only)
	TermST                     // the 8-bit ST, 0x9C
	TermESC                    // an ESC: ST (ESC \) or the start of another sequence
	TermCancel                 // CAN or SUB: the string is abandoned, not dispatched
	TermLimit                  // MaxString bytes of payload: abandoned; what follows is text
)

// Dispatched reports whether a string that ended this way takes effect.
func (t Term) Dispatched() bool { return t == TermBEL || t == TermST || t == TermESC }

// MaxParams is how many parameters of a control sequence are kept; later
// ones are dropped.
const MaxParams = 16

// MaxParam is the largest parameter value kept; larger values are clamped.
const MaxParam = 1 << 20

const esc = 0x1b

type state uint8

const (
	stGround state = iota
	stEsc          // after ESC (and any intermediates)
	stCSI          // inside ESC [
	stString       // inside a control string
	stSS3          // Keys: after ESC O
)

// A Scanner splits a byte stream into text and sequences. The zero value
// is ready to use. A Scanner is not safe for concurrent use.
type Scanner struct {
	// Keys selects the grammar of keyboard input (see the package comment).
	// Set it before the first call.
	Keys bool
	// MaxString, if positive, bounds the payload of a control string: past
	// it the string ends with TermLimit and what follows is text, so that
	// an unterminated ESC ] in binary output cannot hide the rest of the
	// stream. Zero means no bound, as in a terminal.
	MaxString int

	st    state
	off   int64 // offset of the next byte
	start int64 // offset of the ESC that began the current sequence

	final, marker, inter byte
	nparams              int
	cur                  int // parameter being read, -1 if no digit yet
	params               [MaxParams]int

	kind     byte // control string: ']', 'P', 'X', '^' or '_'
	term     Term
	dcsFirst bool // the next byte is the first after ESC P
	prevHigh bool // the last payload byte was 0x80 or above
	strLen   int  // payload bytes so far
}

// Next scans the start of p, which follows everything scanned before, and
// returns how many bytes it consumed and what they were. Call it again on
// p[n:] until p is empty: it may consume no byte (a sequence that ended
// just before p[0]), but then its next call makes progress.
func (s *Scanner) Next(p []byte) (n int, ev Event) {
	n, ev = s.next(p)
	s.off += int64(n)
	return n, ev
}

func (s *Scanner) next(p []byte) (int, Event) {
	i := 0
	if s.st == stGround {
		if len(p) == 0 {
			return 0, Text
		}
		if p[0] != esc {
			if j := bytes.IndexByte(p, esc); j >= 0 {
				return j, Text
			}
			return len(p), Text
		}
		s.start = s.off
		s.inter = 0
		if len(p) > 1 && p[1] == '[' { // the most common sequence, at once
			s.st, s.marker, s.nparams, s.cur = stCSI, 0, 0, -1
			return s.csi(p, 2)
		}
		s.st = stEsc
		i = 1
	}
	switch s.st {
	case stEsc:
		return s.escape(p, i)
	case stCSI:
		return s.csi(p, i)
	case stString:
		return s.str(p)
	case stSS3:
		if len(p) == 0 {
			return 0, Part
		}
		return s.ss3(p)
	}
	return len(p), Part // unreachable
}

func (s *Scanner) escape(p []byte, i int) (int, Event) {
	for i < len(p) {
		c := p[i]
		switch {
		case c >= 0x30 && c <= 0x7e:
			i++
			if s.inter == 0 {
				switch c {
				case '[':
					s.st = stCSI
					s.marker, s.nparams, s.cur = 0, 0, -1
					return s.csi(p, i)
				case ']', 'P', 'X', '^', '_':
					if s.Keys {
						break
					}
					s.st, s.kind = stString, c
					s.dcsFirst, s.prevHigh, s.strLen = c == 'P', false, 0
					return i, StringStart
				case 'O':
					if s.Keys {
						s.st = stSS3
						return s.ss3Part(p, i)
					}
				}
			}
			s.st, s.final = stGround, c
			return i, Esc
		default:
			if n, ev := s.other(c, i); ev != Part {
				return n, ev
			}
			i++
		}
	}
	return i, Part
}

// other reads c, at index i, inside an escape or control sequence: an
// intermediate, or a byte that is not part of the sequence's syntax. It
// returns what Next returns, or Part to go on with the next byte.
func (s *Scanner) other(c byte, i int) (n int, ev Event) {
	switch {
	case c >= 0x20 && c <= 0x2f:
		s.inter = c
		return i + 1, Part
	case c == 0x18 || c == 0x1a: // CAN, SUB
		s.st = stGround
		return i + 1, Cancel
	case c == esc || c >= 0x80 || s.Keys:
		s.st = stGround
		return i, Cancel
	case c == 0x7f:
		return i + 1, Part // ignored
	}
	return i + 1, Control // C0: executed, the sequence goes on
}

func (s *Scanner) ss3Part(p []byte, i int) (int, Event) {
	if i == len(p) {
		return i, Part
	}
	n, ev := s.ss3(p[i:])
	return i + n, ev
}

// ss3 reads the character after ESC O in Keys mode.
func (s *Scanner) ss3(p []byte) (int, Event) {
	s.st, s.inter = stGround, 'O'
	if c := p[0]; c >= 0x20 && c <= 0x7e {
		s.final = c
		return 1, Esc
	}
	s.inter, s.final = 0, 'O' // ESC O alone
	return 0, Esc
}

func (s *Scanner) csi(p []byte, i int) (int, Event) {
	for i < len(p) {
		c := p[i]
		if s.inter == 0 {
			// Parameters first, in a tight loop: they are most of the bytes.
			for {
				if c >= '0' && c <= '9' {
					s.cur = min(max(s.cur, 0)*10+int(c-'0'), MaxParam)
				} else if c == ';' || c == ':' {
					s.push()
				} else {
					break
				}
				if i++; i == len(p) {
					return i, Part
				}
				c = p[i]
			}
		}
		switch {
		case c >= 0x40 && c <= 0x7e:
			s.push()
			s.st, s.final = stGround, c
			return i + 1, CSI
		case c >= 0x30 && c <= 0x3f: // after an intermediate, or a marker
			if s.inter != 0 {
				s.st = stGround
				return i + 1, Cancel
			}
			if s.nparams == 0 && s.cur < 0 && s.marker == 0 {
				s.marker = c
			} // a later marker is ignored, as in vt
			i++
		default:
			if n, ev := s.other(c, i); ev != Part {
				return n, ev
			}
			i++
		}
	}
	return i, Part
}

func (s *Scanner) push() {
	if s.nparams < MaxParams {
		s.params[s.nparams] = s.cur
		s.nparams++
	}
	s.cur = -1
}

// stringEnd marks the bytes that may end a control string.
var stringEnd = [256]bool{0x07: true, 0x18: true, 0x1a: true, esc: true, 0x9c: true}

func (s *Scanner) str(p []byte) (int, Event) {
	if len(p) == 0 {
		return 0, Data
	}
	i := 0
	if s.dcsFirst {
		s.dcsFirst = false
		if p[0] == esc { // vt: data (tmux passthrough)
			i = 1
		}
	}
	for {
		for i < len(p) && !stringEnd[p[i]] {
			i++
		}
		if i == len(p) {
			break
		}
		c := p[i]
		if c == 0x07 && s.kind != ']' {
			i++ // BEL is data in DCS, SOS, PM, APC
			continue
		}
		if c == 0x9c && (s.kind == ']' || s.kind == 'P') {
			prevHigh := s.prevHigh
			if i > 0 {
				prevHigh = p[i-1] >= 0x80
			}
			if prevHigh {
				i++ // continues a UTF-8 character
				continue
			}
		}
		break
	}
	if s.MaxString > 0 && s.strLen+i > s.MaxString {
		room := s.MaxString - s.strLen
		if room > 0 {
			s.strLen += room
			s.prevHigh = p[room-1] >= 0x80
			return room, Data
		}
		s.st, s.term = stGround, TermLimit
		return 0, StringEnd
	}
	if i > 0 {
		s.strLen += i
		s.prevHigh = p[i-1] >= 0x80
		return i, Data
	}
	s.st = stGround
	switch p[0] {
	case 0x07:
		s.term = TermBEL
	case 0x9c:
		s.term = TermST
	case esc:
		s.term = TermESC
		return 0, StringEnd
	default:
		s.term = TermCancel
	}
	return 1, StringEnd
}

// Offset returns the offset in the stream of the next byte to scan: the
// number of bytes consumed so far, plus any Skip.
func (s *Scanner) Offset() int64 { return s.off }

// Start returns the offset of the ESC that began the sequence in progress or
// the one that ended last.
func (s *Scanner) Start() int64 { return s.start }

// Ground reports whether the scanner is between sequences.
func (s *Scanner) Ground() bool { return s.st == stGround }

// InString reports whether the scanner is inside a control string.
func (s *Scanner) InString() bool { return s.st == stString }

// Final returns the final byte of the last escape or control sequence.
func (s *Scanner) Final() byte { return s.final }

// Inter returns the last intermediate byte (0x20–0x2F) of the last escape
// or control sequence, or 0. In Keys mode an SS3 sequence has Inter 'O'.
func (s *Scanner) Inter() byte { return s.inter }

// Marker returns the private marker ('<', '=', '>' or '?') of the last
// control sequence, or 0.
func (s *Scanner) Marker() byte { return s.marker }

// Params returns the parameters of the last control sequence, -1 for an
// empty one; there is always at least one. The slice is valid until the
// next call of Next.
func (s *Scanner) Params() []int { return s.params[:s.nparams] }

// Param returns parameter i of the last control sequence, or def if it is
// empty or absent.
func (s *Scanner) Param(i, def int) int {
	if i >= s.nparams || s.params[i] < 0 {
		return def
	}
	return s.params[i]
}

// Kind returns the introducer of the control string in progress or last
// ended: ']' (OSC), 'P' (DCS), 'X' (SOS), '^' (PM) or '_' (APC).
func (s *Scanner) Kind() byte { return s.kind }

// Term returns how the last control string ended.
func (s *Scanner) Term() Term { return s.term }

// Skip accounts for n bytes of the stream that will never be scanned (a gap
// in the output): offsets stay those of the stream, and a sequence the gap
// cut is dropped.
func (s *Scanner) Skip(n int64) {
	s.off += n
	s.st = stGround
}

// Reset returns the scanner to the start of a stream at offset 0.
func (s *Scanner) Reset() {
	keys, limit := s.Keys, s.MaxString
	*s = Scanner{Keys: keys, MaxString: limit}
}
