package screen

import "bytes"

// This file holds the cheap byte scanner that runs on every Write. It does
// not interpret the stream; it looks only for what must be known before the
// emulator has caught up:
//
//   - terminal queries (DSR, DA, DECRQM, OSC 10/11/12 "?"), so that they are
//     answered at once instead of after the quiet delay;
//   - alternate-screen switches (DEC private modes 47, 1047 and 1049) and RIS,
//     so that AltScreen is known at once and a flood can be cut without
//     losing the screen the program will return to;
//   - control strings (OSC, DCS, SOS, PM, APC), so that a flood is never cut
//     inside one, and the window title (OSC 0 and 2).
//
// Its state machine follows the DEC ANSI parser that vt uses
// (https://vt100.net/emu/dec_ansi_parser, charmbracelet/x/ansi
// parser/transition_table.go) closely enough that both see the same escape
// sequences in ordinary output. It recognises 7-bit introducers only: a stray
// 8-bit C1 byte (0x9B as CSI) or an ESC swallowed by vt as the continuation of
// a broken UTF-8 sequence can make the two disagree; Screen resynchronises
// the alternate-screen flag from the emulator after each catch-up.

const esc = 0x1b

// scanState is where the scanner is inside an escape sequence.
type scanState uint8

const (
	stGround scanState = iota // text
	stEsc                     // after ESC
	stCSI                     // inside a control sequence (ESC [)
	stString                  // inside a control string (ESC ] / P / X / ^ / _)
)

// oscPhase is how far into an OSC string the scanner has parsed.
type oscPhase uint8

const (
	oscNumber oscPhase = iota // reading the command number
	oscQuery                  // after "10;", "11;" or "12;": is it "?"
	oscTitle                  // collecting the title of OSC 0 or 2
	oscSkip                   // rest of the string is of no interest
)

const (
	maxTitleLen = 1024    // longer titles are truncated
	maxParams   = 16      // CSI parameters looked at
	maxParamVal = 1 << 20 // larger parameter values are clamped
)

// transitionKind tells what a transition does to the alternate screen.
type transitionKind uint8

const (
	altOn  transitionKind = iota // switch to the alternate screen
	altOff                       // switch back to the normal screen
	ris                          // full reset (ESC c): normal screen, cleared
)

// A transition is an alternate-screen switch or a full reset found in a
// backlog. Only switches that change the state are recorded; every RIS is.
type transition struct {
	start, end int // backlog offsets of the ESC and just past the final byte; start may be < 0
	kind       transitionKind
	mode       int // 47, 1047 or 1049 for a switch
}

// A span is a half-open range of backlog offsets.
type span struct{ start, end int }

// A resize is a change of the screen size recorded in a backlog while
// there is no emulator: the bytes before off were written at the old size.
type resize struct {
	off              int
	oldRows, oldCols int
	rows, cols       int
}

// A backlog is output not yet fed to the emulator, with what the scanner
// found in it.
type backlog struct {
	buf       []byte
	lines     int          // number of '\n' in buf
	startAlt  bool         // whether the emulator is on the alternate screen when buf begins
	cleanFrom int          // first offset at which the scanner was in the ground state; -1 if never
	trans     []transition // in order
	holes     []span       // complete control strings, in order: never cut inside one
	resizes   []resize     // in order; compact drops them (see Screen.Resize)
	addressed bool         // buf addresses the cursor on the normal screen (see scanner.addressed)
}

// reset empties b for bytes that follow a scanner in state sc, keeping
// the memory of b's slices.
func (b *backlog) reset(sc *scanner) {
	b.buf = b.buf[:0]
	b.lines = 0
	b.startAlt = sc.alt
	b.cleanFrom = 0
	if sc.st != stGround {
		b.cleanFrom = -1
	}
	b.trans = b.trans[:0]
	b.holes = b.holes[:0]
	b.resizes = b.resizes[:0]
	b.addressed = false
}

// A scanner carries the parse state of the byte stream across Writes, so
// that a sequence split between two chunks is seen like an unsplit one.
type scanner struct {
	st       scanState
	alt      bool   // alternate screen active at the end of what was scanned
	title    string // last window title set by OSC 0 or 2
	escStart int    // backlog offset of the ESC that began the current sequence

	// Control sequence being read.
	marker  byte // private marker '<', '=', '>' or '?', or 0
	inter   byte // intermediate byte 0x20-0x2F, or 0
	nparams int
	params  [maxParams]int // -1 for an empty parameter
	cur     int            // parameter being read, -1 if no digit yet

	// Control string being read.
	kind     byte // ']', 'P', 'X', '^' or '_'
	dcsFirst bool // next byte is the first after ESC P
	prevHigh bool // the last byte of the string so far is 0x80 or above
	phase    oscPhase
	oscCmd   int
	titleBuf []byte

	// addressed: cursor addressing (CUP, ED) on the normal screen since
	// the Screen last looked (a program that redraws the screen in place,
	// as top does, rather than scrolling).
	addressed bool

	// queries are the backlog spans of the queries found by the last
	// scan, for Write to answer or mute; an OSC query's end is -1 (its
	// string goes on).
	queries []span
}

// rebase shifts the scanner's offsets after the first n bytes of the
// backlog were taken away.
func (sc *scanner) rebase(n int) { sc.escStart -= n }

// stringEnd marks the bytes that end a control string: BEL (OSC only), CAN,
// SUB, ESC and ST (0x9C), as in the vt transition table.
var stringEnd = func() (t [256]bool) {
	for _, c := range []byte{0x07, 0x18, 0x1a, esc, 0x9c} {
		t[c] = true
	}
	return t
}()

// scan advances the scanner over p, the bytes at offsets base.. of b, and
// records transitions and holes in b. It reports whether p contains the end
// of a terminal query.
func (sc *scanner) scan(b *backlog, p []byte, base int) (query bool) {
	for i := 0; i < len(p); {
		switch sc.st {
		case stGround:
			j := bytes.IndexByte(p[i:], esc)
			if j < 0 {
				return query
			}
			i += j
			sc.st, sc.escStart = stEsc, base+i
			i++

		case stEsc:
			c := p[i]
			i++
			switch {
			case c == '[':
				sc.st = stCSI
				sc.marker, sc.inter, sc.nparams, sc.cur = 0, 0, 0, -1
			case c == ']' || c == 'P' || c == 'X' || c == '^' || c == '_':
				sc.st, sc.kind = stString, c
				sc.dcsFirst, sc.prevHigh = c == 'P', false
				sc.phase, sc.oscCmd = oscNumber, 0
				sc.titleBuf = sc.titleBuf[:0]
				if c != ']' {
					sc.phase = oscSkip
				}
			case c == 'c': // RIS
				b.trans = append(b.trans, transition{start: sc.escStart, end: base + i, kind: ris})
				sc.alt = false
				sc.ground(b, base+i)
			case c == esc:
				sc.escStart = base + i - 1
			case c == 0x18 || c == 0x1a:
				sc.ground(b, base+i)
			case c < 0x20 || c == 0x7f:
				// Executed or ignored; the sequence goes on.
			default:
				// Any other escape sequence (ESC ( B, ESC 7, ...) is of no
				// interest; its remaining bytes are harmless in the ground
				// state, where only ESC matters.
				sc.ground(b, base+i)
			}

		case stCSI:
			// Parameters first, in a tight loop: they are most of the bytes.
			for i < len(p) && sc.inter == 0 {
				c := p[i]
				if c >= '0' && c <= '9' {
					sc.cur = min(max(sc.cur, 0)*10+int(c-'0'), maxParamVal)
				} else if c == ';' || c == ':' {
					sc.pushParam()
				} else {
					break
				}
				i++
			}
			if i == len(p) {
				return query
			}
			c := p[i]
			i++
			switch {
			case sc.inter != 0 && c >= 0x30 && c <= 0x3f:
				// A parameter byte after an intermediate: vt drops the
				// sequence and is back in the ground state.
				sc.ground(b, base+i)
			case c >= 0x3c && c <= 0x3f:
				// A private marker counts only first; later, vt ignores it.
				if sc.nparams == 0 && sc.cur < 0 && sc.marker == 0 {
					sc.marker = c
				}
			case c >= 0x20 && c <= 0x2f:
				sc.inter = c
			case c >= 0x40 && c <= 0x7e:
				sc.pushParam()
				if sc.dispatchCSI(b, c, base+i) {
					query = true
					sc.queries = append(sc.queries, span{sc.escStart, base + i})
				}
				sc.ground(b, base+i)
			case c == esc:
				sc.st, sc.escStart = stEsc, base+i-1
			case c == 0x18 || c == 0x1a:
				sc.ground(b, base+i)
			case c < 0x20 || c == 0x7f:
				// Executed or ignored; the sequence goes on.
			default:
				// 8-bit bytes end the sequence in vt's parser.
				sc.ground(b, base+i)
			}

		case stString:
			if sc.dcsFirst {
				// vt takes an ESC right after ESC P as data (tmux passthrough).
				sc.dcsFirst = false
				if p[i] == esc {
					i++
					continue
				}
			}
			if sc.phase == oscNumber || sc.phase == oscQuery {
				c := p[i]
				if stringEnd[c] {
					sc.phase = oscSkip // let the terminator code below end it
					continue
				}
				i++
				switch {
				case sc.phase == oscQuery:
					if c == '?' {
						query = true
						sc.queries = append(sc.queries, span{sc.escStart, -1})
					}
					sc.phase = oscSkip
				case c >= '0' && c <= '9':
					sc.oscCmd = min(sc.oscCmd*10+int(c-'0'), maxParamVal)
				case c == ';' && (sc.oscCmd == 0 || sc.oscCmd == 2):
					sc.phase = oscTitle
				case c == ';' && sc.oscCmd >= 10 && sc.oscCmd <= 12:
					sc.phase = oscQuery
				default:
					sc.phase = oscSkip
				}
				continue
			}
			j := i
			for {
				for j < len(p) && !stringEnd[p[j]] {
					j++
				}
				if j == len(p) || p[j] != 0x9c || sc.kind != ']' && sc.kind != 'P' {
					break
				}
				prevHigh := sc.prevHigh
				if j > i {
					prevHigh = p[j-1] >= 0x80
				}
				if !prevHigh {
					break
				}
				// 0x9C continuing a UTF-8 character (as in "✓", E2 9C 93)
				// is data, as in xterm; vt would take it for ST and print the
				// rest of the string. Hide it from vt in the backlog copy.
				b.buf[base+j] = 0x80
				j++
			}
			if j > i {
				sc.prevHigh = p[j-1] >= 0x80
			}
			if sc.phase == oscTitle {
				n := min(j-i, maxTitleLen-len(sc.titleBuf))
				sc.titleBuf = append(sc.titleBuf, p[i:i+n]...)
			}
			if j == len(p) {
				return query
			}
			c := p[j]
			i = j + 1
			switch {
			case c == 0x18 || c == 0x1a: // cancelled
				sc.endString(b, base+i, false)
				sc.ground(b, base+i)
			case c == esc: // ends the string and begins ST or another sequence
				sc.endString(b, base+j, true)
				sc.st, sc.escStart = stEsc, base+j
			case c == 0x07 && sc.kind != ']':
				// BEL is data in a DCS, SOS, PM or APC string.
			default: // BEL or ST
				sc.endString(b, base+i, true)
				sc.ground(b, base+i)
			}
		}
	}
	return query
}

// ground returns to the ground state at backlog offset off.
func (sc *scanner) ground(b *backlog, off int) {
	sc.st = stGround
	if b.cleanFrom < 0 {
		b.cleanFrom = off
	}
}

// endString records the control string that ends at backlog offset end as a
// hole, and applies it if dispatched.
func (sc *scanner) endString(b *backlog, end int, dispatched bool) {
	b.holes = append(b.holes, span{max(sc.escStart, 0), end})
	if dispatched && sc.kind == ']' && sc.phase == oscTitle {
		sc.title = string(sc.titleBuf)
	}
}

func (sc *scanner) pushParam() {
	if sc.nparams < maxParams {
		sc.params[sc.nparams] = sc.cur
		sc.nparams++
	}
	sc.cur = -1
}

// dispatchCSI acts on a complete control sequence ending with final at
// backlog offset end, and reports whether it is a query that vt answers
// (see the e.pw writes in vt's handlers.go, csi.go and csi_mode.go).
func (sc *scanner) dispatchCSI(b *backlog, final byte, end int) (query bool) {
	params := sc.params[:sc.nparams]
	switch final {
	case 'n': // DSR 5 and 6, DECXCPR
		return sc.inter == 0 && (sc.marker == 0 || sc.marker == '?')
	case 'c': // DA1, DA2
		return sc.inter == 0 && (sc.marker == 0 || sc.marker == '>') && params[0] <= 0
	case 'p': // DECRQM
		return sc.inter == '$'
	case 'H', 'f', 'J': // CUP, HVP, ED
		if !sc.alt && sc.inter == 0 && sc.marker == 0 {
			sc.addressed, b.addressed = true, true
		}
	case 'h', 'l': // SM, RM
		if sc.marker != '?' || sc.inter != 0 {
			return false
		}
		on := final == 'h'
		mode := 0
		for _, v := range params {
			switch v {
			case 1049:
				mode = 1049
			case 1047:
				if mode != 1049 {
					mode = 1047
				}
			case 47:
				if mode == 0 {
					mode = 47
				}
			case 2048: // in-band resize: vt reports the size when it is set
				query = query || on
			}
		}
		if mode != 0 && on != sc.alt {
			sc.alt = on
			k := altOff
			if on {
				k = altOn
			}
			b.trans = append(b.trans, transition{start: sc.escStart, end: end, kind: k, mode: mode})
		}
	}
	return query
}
