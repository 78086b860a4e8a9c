package main

import (
	"bytes"
	"strconv"
	"unicode"
	"unicode/utf8"
)

// termFilter stands between a session's output and a person's terminal
// during `ttymux attach` (issue #14 finding 4). A program in the session —
// or whatever a remote host or a serial line sends — could otherwise write
// to the person's clipboard (OSC 52), or ask the person's terminal
// questions whose answers the terminal types into the session (DA, DSR,
// DECRQSS and other DCS requests, CSI 21 t and the other window reports,
// DECRQM, XTVERSION, OSC colour queries). Like tmux, which answers such
// queries itself and passes only what it understands, the filter drops
// them, drops every DCS, APC, PM and SOS string, lets through only the OSC
// it knows to be harmless (the window title, with control characters
// removed and the length bounded; OSC 7 and 8 and the shell marks of
// OSC 133), and passes everything else — text, cursor motion, colours,
// modes — unchanged. `ttymux attach --raw` skips it.
//
// It keeps state across writes, so a sequence split between two reads of
// the session is judged whole; a sequence that grows past its bound is
// dropped whole.
//
// It reads the stream with its own small parser, not internal/termseq
// (which the screen, the renderer and the detector share, with vt's
// grammar): it protects a terminal that is not vt and may be tmux, so it
// reads the stream as the most permissive of them would and drops more
// rather than less. A doubled ESC inside a DCS stays inside it (tmux
// passthrough, whose payload tmux would hand to the outer terminal), and a
// string past its bound is dropped to its end instead of shown.
type termFilter struct {
	state int
	seq   []byte // the sequence being collected (ESC included)
}

const (
	tfGround     = iota
	tfEsc        // after ESC
	tfCSI        // in ESC [ … final
	tfString     // in an OSC, DCS, APC, PM or SOS string
	tfStringEsc  // after ESC inside a string: ST (ESC \) or an abort
	tfDiscard    // a string over maxString: dropped up to its end
	tfDiscardEsc // after ESC while discarding
)

const (
	maxCSI    = 256
	maxString = 4096
	maxTitle  = 256
)

// filter appends the bytes of p that may reach the terminal to out and
// returns it.
func (f *termFilter) filter(out, p []byte) []byte {
	for i := 0; i < len(p); i++ {
		b := p[i]
		switch f.state {
		case tfGround:
			j := bytes.IndexByte(p[i:], 0x1b)
			if j < 0 {
				return append(out, p[i:]...)
			}
			out = append(out, p[i:i+j]...)
			i += j
			f.seq = append(f.seq[:0], 0x1b)
			f.state = tfEsc
		case tfEsc:
			switch b {
			case '[':
				f.seq = append(f.seq, b)
				f.state = tfCSI
			case ']', 'P', '_', '^', 'X':
				f.seq = append(f.seq, b)
				f.state = tfString
			case 'Z': // DECID: the terminal answers with its attributes
				f.state = tfGround
			case 0x1b:
				out = append(out, 0x1b) // a lone ESC; this one starts anew
			default:
				out = append(out, 0x1b, b)
				f.state = tfGround
			}
		case tfCSI:
			switch {
			case b == 0x1b: // aborted: drop it, start the next one
				f.seq = append(f.seq[:0], 0x1b)
				f.state = tfEsc
			case b == 0x18 || b == 0x1a: // CAN, SUB abort a sequence
				f.state = tfGround
			case b >= 0x40 && b <= 0x7e:
				f.seq = append(f.seq, b)
				if !csiQuery(f.seq) {
					out = append(out, f.seq...)
				}
				f.state = tfGround
			case len(f.seq) >= maxCSI:
				f.state = tfGround // garbage: dropped
			default:
				f.seq = append(f.seq, b)
			}
		case tfString:
			switch {
			case b == 0x07 && f.seq[1] == ']': // BEL ends an OSC (xterm)
				out = f.finishString(out)
			case b == 0x1b:
				f.state = tfStringEsc
			case b == 0x18 || b == 0x1a:
				f.state = tfGround
			case len(f.seq) >= maxString:
				f.state = tfDiscard
			default:
				f.seq = append(f.seq, b)
			}
		case tfStringEsc:
			if b == '\\' {
				out = f.finishString(out)
				continue
			}
			if b == 0x1b && f.seq[1] == 'P' {
				// A doubled ESC in a DCS is tmux's passthrough escaping:
				// still inside the string (which is dropped whole).
				f.seq = append(f.seq, 0x1b, 0x1b)
				f.state = tfString
				continue
			}
			// ESC inside a string that is not ST aborts the string and
			// starts a new sequence.
			f.seq = append(f.seq[:0], 0x1b)
			f.state = tfEsc
			i--
		case tfDiscard:
			switch b {
			case 0x07, 0x18, 0x1a:
				f.state = tfGround
			case 0x1b:
				f.state = tfDiscardEsc
			}
		case tfDiscardEsc:
			if b == '\\' {
				f.state = tfGround
				continue
			}
			f.seq = append(f.seq[:0], 0x1b)
			f.state = tfEsc
			i--
		}
	}
	return out
}

// finishString decides on a complete string sequence (f.seq without its
// terminator) and returns to the ground state.
func (f *termFilter) finishString(out []byte) []byte {
	f.state = tfGround
	if f.seq[1] != ']' {
		return out // DCS (DECRQSS, XTGETTCAP, tmux passthrough), APC, PM, SOS: never
	}
	body := f.seq[2:]
	num, rest, _ := bytes.Cut(body, []byte(";"))
	n, err := strconv.Atoi(string(num))
	if err != nil {
		return out
	}
	switch n {
	case 0, 1, 2: // icon name and window title
		return append(append(append(out, "\x1b]"+strconv.Itoa(n)+";"...), sanitizeTitle(rest)...), "\x1b\\"...)
	case 7, 8, 133: // current directory, hyperlinks, shell integration marks
		if bytes.Contains(body, []byte("?")) && n != 8 {
			return out
		}
		return append(append(append(out, "\x1b]"...), body...), "\x1b\\"...)
	}
	return out // 52 (clipboard), 4/10/11/12/… (colours, and their queries), 50 (font), 1337, …
}

// sanitizeTitle keeps a title's printable characters, at most maxTitle
// bytes of them.
func sanitizeTitle(b []byte) []byte {
	var out []byte
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r != utf8.RuneError && unicode.IsPrint(r) && len(out)+size <= maxTitle {
			out = append(out, b[:size]...)
		}
		b = b[size:]
	}
	return out
}

// csiQuery reports whether a complete CSI sequence asks the terminal for an
// answer (or, for CSI t, to report or change its window).
func csiQuery(seq []byte) bool {
	params := seq[2 : len(seq)-1]
	final := seq[len(seq)-1]
	var prefix byte
	if len(params) > 0 && params[0] >= 0x3c && params[0] <= 0x3f {
		prefix = params[0]
	}
	hasInter := func(c byte) bool { return bytes.IndexByte(params, c) >= 0 }
	switch final {
	case 'c': // DA1, DA2 (>), DA3 (=)
		return true
	case 'n': // DSR, CPR, DECDSR
		return true
	case 't': // window manipulation and reports (CSI 21 t: the title)
		return true
	case 'x': // DECREQTPARM
		return true
	case 'p': // DECRQM (CSI ? Ps $ p, CSI Ps $ p)
		return hasInter('$')
	case 'w': // DECRQPSR
		return hasInter('$')
	case 'y': // DECRQCRA
		return hasInter('*')
	case 'q': // XTVERSION (CSI > q)
		return prefix == '>'
	case 'u': // kitty keyboard protocol query
		return prefix == '?'
	case 'S': // XTSMGRAPHICS
		return prefix == '?'
	case 'm': // XTQMODKEYS
		return prefix == '?'
	}
	return false
}
