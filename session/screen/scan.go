package screen

import (
	"bytes"

	"github.com/ttymux/ttymux/internal/termseq"
)

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
// Where a sequence begins and ends is internal/termseq's to say, the one
// scanner every part of ttymux uses; its grammar is vt's, for 7-bit
// introducers. vt itself is an emulator we do not own: a sequence vt reads
// otherwise than termseq (vt starts a UTF-8 character inside an escape
// sequence, for one) can leave the two apart on the alternate-screen flag,
// so Screen resynchronises it from the emulator after each catch-up.

const esc = 0x1b

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
	if !sc.inGround() {
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
	seq termseq.Scanner
	// esc is the backlog offset of the ESC that began the sequence in
	// progress, as of the end of the last scan; it may be < 0. During a
	// scan, a sequence that began at stream offset callOff or later began
	// at backlog offset callBase plus the difference.
	esc      int
	callOff  int64
	callBase int
	alt      bool   // alternate screen active at the end of what was scanned
	title    string // last window title set by OSC 0 or 2

	// OSC string being read.
	phase    oscPhase
	oscCmd   int
	titleBuf []byte

	// addressed: cursor addressing (CUP, ED) on the normal screen since
	// the Screen last looked (a program that redraws the screen in place,
	// as top does, rather than scrolling).
	addressed bool
	// hidden: the cursor is hidden (DECTCEM reset); inPlace: since it was
	// hidden, the program moved it to an absolute position (CUP, HVP,
	// VPA) on the normal screen. Both together are a program that
	// redraws the normal screen in place, as top does (see
	// Screen.RedrawsInPlace). A move while the cursor is saved (ESC 7,
	// CSI s) paints a status line elsewhere and comes back (apt's
	// progress bar under scrolling output): it does not count.
	hidden, inPlace, saved bool

	// queries are the backlog spans of the queries found by the last
	// scan, for Write to answer or mute; an OSC query's end is -1 (its
	// string goes on).
	queries []span
}

// ground reports whether the scanner is between sequences.
func (sc *scanner) inGround() bool { return sc.seq.Ground() }

// escStart returns the backlog offset of the ESC that began the current
// sequence; it may be < 0.
func (sc *scanner) escStart() int {
	if st := sc.seq.Start(); st >= sc.callOff {
		return sc.callBase + int(st-sc.callOff)
	}
	return sc.esc
}

// rebase shifts the scanner's offsets after the first n bytes of the
// backlog were taken away.
func (sc *scanner) rebase(n int) { sc.esc -= n }

// scan advances the scanner over p, the bytes at offsets base.. of b, and
// records transitions and holes in b. It reports whether p contains the end
// of a terminal query.
func (sc *scanner) scan(b *backlog, p []byte, base int) (query bool) {
	sc.callOff, sc.callBase = sc.seq.Offset(), base
	for i := 0; i < len(p); {
		n, ev := sc.seq.Next(p[i:])
		i += n
		switch ev {
		case termseq.Esc:
			switch f := sc.seq.Final(); {
			case sc.seq.Inter() != 0:
			case f == 'c': // RIS
				b.trans = append(b.trans, transition{start: sc.escStart(), end: base + i, kind: ris})
				sc.alt, sc.hidden, sc.inPlace, sc.saved = false, false, false, false
			case f == '7' || f == '8': // DECSC, DECRC
				sc.saved = f == '7'
			}
			sc.ground(b, base+i)
		case termseq.CSI:
			if sc.dispatchCSI(b, base+i) {
				query = true
				sc.queries = append(sc.queries, span{sc.escStart(), base + i})
			}
			sc.ground(b, base+i)
		case termseq.Cancel:
			sc.ground(b, base+i)
		case termseq.StringStart:
			sc.phase, sc.oscCmd = oscNumber, 0
			sc.titleBuf = sc.titleBuf[:0]
			if sc.seq.Kind() != ']' {
				sc.phase = oscSkip
			}
		case termseq.Data:
			if sc.data(b, p[i-n:i], base+i-n) {
				query = true
			}
		case termseq.StringEnd:
			term := sc.seq.Term()
			sc.endString(b, base+i, term.Dispatched())
			if term != termseq.TermESC { // an ESC goes on to a sequence
				sc.ground(b, base+i)
			}
		}
	}
	sc.endScan()
	return query
}

// endScan keeps the start of a sequence that goes on past the scan.
func (sc *scanner) endScan() {
	if !sc.inGround() {
		sc.esc = sc.escStart()
	}
	sc.callOff = sc.seq.Offset()
}

// data reads d, payload of the control string in progress at backlog
// offset off, and reports whether it ends an OSC query.
func (sc *scanner) data(b *backlog, d []byte, off int) (query bool) {
	kind := sc.seq.Kind()
	if kind == ']' || kind == 'P' {
		// 0x9C continuing a UTF-8 character (as in "✓", E2 9C 93) is
		// data, as in xterm; vt would take it for ST and print the rest
		// of the string. Hide it from vt in the backlog copy.
		for k := bytes.IndexByte(d, 0x9c); k >= 0; {
			b.buf[off+k] = 0x80
			j := bytes.IndexByte(d[k+1:], 0x9c)
			if j < 0 {
				break
			}
			k += 1 + j
		}
	}
	k := 0
	for k < len(d) && (sc.phase == oscNumber || sc.phase == oscQuery) {
		c := d[k]
		k++
		switch {
		case sc.phase == oscQuery:
			if c == '?' {
				query = true
				sc.queries = append(sc.queries, span{sc.escStart(), -1})
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
	}
	if sc.phase == oscTitle {
		n := min(len(d)-k, maxTitleLen-len(sc.titleBuf))
		sc.titleBuf = append(sc.titleBuf, d[k:k+n]...)
	}
	return query
}

// ground returns to the ground state at backlog offset off.
func (sc *scanner) ground(b *backlog, off int) {
	if b.cleanFrom < 0 {
		b.cleanFrom = off
	}
}

// endString records the control string that ends at backlog offset end as a
// hole, and applies it if dispatched.
func (sc *scanner) endString(b *backlog, end int, dispatched bool) {
	b.holes = append(b.holes, span{max(sc.escStart(), 0), end})
	if dispatched && sc.seq.Kind() == ']' && sc.phase == oscTitle {
		sc.title = string(sc.titleBuf)
	}
}

// dispatchCSI acts on the control sequence that ends at backlog offset
// end, and reports whether it is a query that vt answers (see the e.pw
// writes in vt's handlers.go, csi.go and csi_mode.go).
func (sc *scanner) dispatchCSI(b *backlog, end int) (query bool) {
	params := sc.seq.Params()
	inter, marker := sc.seq.Inter(), sc.seq.Marker()
	switch final := sc.seq.Final(); final {
	case 'n': // DSR 5 and 6, DECXCPR
		return inter == 0 && (marker == 0 || marker == '?')
	case 'c': // DA1, DA2
		return inter == 0 && (marker == 0 || marker == '>') && params[0] <= 0
	case 'p': // DECRQM
		return inter == '$'
	case 's': // SCOSC without parameters (else DECSLRM)
		if inter == 0 && marker == 0 && len(params) == 1 && params[0] < 0 {
			sc.saved = true
		}
	case 'u': // SCORC
		if inter == 0 && marker == 0 {
			sc.saved = false
		}
	case 'H', 'f', 'J', 'd': // CUP, HVP, ED, VPA
		if !sc.alt && inter == 0 && marker == 0 {
			if final != 'd' {
				sc.addressed, b.addressed = true, true
			}
			if final != 'J' && sc.hidden && !sc.saved {
				sc.inPlace = true
			}
		}
	case 'h', 'l': // SM, RM
		if marker != '?' || inter != 0 {
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
			case 25: // DECTCEM: show (h) or hide (l) the cursor
				sc.hidden, sc.inPlace = !on, false
			}
		}
		if mode != 0 && on != sc.alt {
			sc.alt, sc.inPlace = on, false
			k := altOff
			if on {
				k = altOn
			}
			b.trans = append(b.trans, transition{start: sc.escStart(), end: end, kind: k, mode: mode})
		}
	}
	return query
}
