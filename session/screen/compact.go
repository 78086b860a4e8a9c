package screen

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// This file cuts a long backlog down to a tail that leaves the emulator
// showing the same screen, so that catching up after a flood costs a bounded
// amount of emulator time.

const (
	// cancelSeq ends whatever the emulator may be in the middle of: CAN
	// aborts an escape sequence, and three of them complete a UTF-8
	// character whose first byte was fed already (vt's parser takes any byte
	// as a continuation byte, ESC included).
	cancelSeq = "\x18\x18\x18"
	// resetSeq is RIS, then ED 3 because vt's RIS keeps the scrollback.
	resetSeq = "\x1bc\x1b[3J"
	// maxPartial is how much of an unfinished control string at the end of
	// a backlog is kept; beyond it only the introducer is, so that the
	// rest of the string still reaches the emulator as a string.
	maxPartial = 4 << 10
)

// compact returns a backlog, built in dst, that leaves an emulator in the
// same state as b would, for ordinary programs, but holds at most about
// maxBytes of b and tailLines lines of normal-screen output; cols is the
// width of the screen. sc is the
// scanner as it was after the last byte of b; compact returns it rebased to
// the new backlog.
//
// The tail is taken from the normal-screen parts of b, skipping over whole
// alternate-screen sessions, which leave no trace on the normal screen; if b
// ends on the alternate screen, the replay ends with that alternate-screen
// session, or with its last maxBytes if it is longer. The emulator is reset
// (RIS) first, except when the alternate screen was already active before b
// and still is: then the normal screen the program will return to is kept.
func compact(dst []byte, b *backlog, sc *scanner, cols, tailLines, maxBytes int) (backlog, scanner) {
	nsc := *sc
	if b.cleanFrom < 0 {
		// All of b continues a sequence that the emulator has already
		// begun to parse (a long control string): nothing in it shows.
		nsc.rebase(len(b.buf))
		return backlog{buf: dst[:0], startAlt: b.startAlt, cleanFrom: -1}, nsc
	}

	buf := b.buf
	lo, limit := b.cleanFrom, len(buf)
	var partial []byte
	if sc.st != stGround {
		// An unfinished sequence at the end: keep it out of the tail
		// search, and append it (or its introducer) last.
		limit = sc.escStart
		partial = buf[limit:]
		if sc.st == stString && len(partial) > maxPartial {
			partial = partial[:2]
		}
	}

	out := append(dst[:0], cancelSeq...)
	n := len(b.trans)
	switch {
	case sc.alt && (n == 0 || b.trans[n-1].kind != altOn):
		// On the alternate screen since before b.
		out = appendTail(out, b, cols, []span{{lo, limit}}, tailLines, maxBytes)
	case sc.alt:
		e := b.trans[n-1]
		out = append(out, resetSeq...)
		out = appendTail(out, b, cols, normalSpans(b, lo, e.start), tailLines, maxBytes/4)
		if e.start >= lo && limit-e.start <= maxBytes {
			out = append(out, buf[e.start:limit]...)
		} else {
			if e.mode == 1049 {
				out = append(out, "\x1b[?1049h"...)
			} else {
				out = append(out, "\x1b[?1047h"...)
			}
			out = appendTail(out, b, cols, []span{{max(e.end, lo), limit}}, tailLines, maxBytes)
		}
	default:
		out = append(out, resetSeq...)
		out = appendTail(out, b, cols, normalSpans(b, lo, limit), tailLines, maxBytes)
	}
	out = append(out, partial...)

	nb := backlog{buf: out, lines: bytes.Count(out, []byte{'\n'}), startAlt: b.startAlt}
	rs := scanner{alt: b.startAlt}
	rs.scan(&nb, out, 0)
	nsc.alt = rs.alt
	if sc.st != stGround {
		nsc.escStart = len(out) - len(partial)
	}
	return nb, nsc
}

// normalSpans returns, latest first, the parts of b.buf[lo:limit] that were
// written while the normal screen was active, back to the last full reset.
// The normal screen must be active at limit.
func normalSpans(b *backlog, lo, limit int) []span {
	var spans []span
	end := limit
	inAlt := false
	for i := len(b.trans) - 1; i >= 0; i-- {
		t := b.trans[i]
		if t.start >= limit {
			continue
		}
		if inAlt {
			if t.kind == altOn {
				end, inAlt = t.start, false
			}
			continue
		}
		if t.kind == altOn {
			return spans // inconsistent; keep what is certain
		}
		if s := max(t.end, lo); s < end {
			spans = append(spans, span{s, end})
		}
		if t.kind == ris {
			return spans
		}
		inAlt = true
	}
	if !inAlt && !b.startAlt && lo < end {
		spans = append(spans, span{lo, end})
	}
	return spans
}

// appendTail appends to out the end of the bytes in spans (latest first):
// from just after the (lines+1)th '\n' before the end, or at most budget
// bytes, never starting inside a control string.
func appendTail(out []byte, b *backlog, cols int, spans []span, lines, budget int) []byte {
	buf := b.buf
	need := lines
	var picked []span // latest first
	for _, sp := range spans {
		if sp.end <= sp.start {
			continue
		}
		if budget <= 0 {
			break
		}
		a, cut := sp.start, false
		if sp.end-a > budget {
			a, cut = sp.end-budget, true
		}
		pos := sp.end
		for need >= 0 {
			j := bytes.LastIndexByte(buf[a:pos], '\n')
			if j < 0 {
				break
			}
			pos = a + j
			need--
		}
		start := -1
		if need < 0 {
			start = pos + 1
		} else if cut {
			start = safeStart(buf, sp.start, a, sp.end, cols)
		}
		if start >= 0 {
			picked = append(picked, span{skipHole(b.holes, start, sp.end), sp.end})
			break
		}
		picked = append(picked, sp)
		budget -= sp.end - sp.start
	}
	for i := len(picked) - 1; i >= 0; i-- {
		out = append(out, buf[picked[i].start:picked[i].end]...)
	}
	return out
}

// safeStart returns the first place in buf[a:end] where replay can begin
// without starting in the middle of an escape sequence or a character, or
// in a wrong column: a carriage return or the start of a line; else, in a
// long line of plain text (minified code, base64), the start of a screen
// row of that line, found from its beginning in buf[spanStart:a]; else an
// ESC.
func safeStart(buf []byte, spanStart, a, end, cols int) int {
	if i := bytes.IndexAny(buf[a:end], "\r\n"); i >= 0 {
		if buf[a+i] == '\n' {
			return a + i + 1
		}
		return a + i
	}
	if ls := bytes.LastIndexAny(buf[spanStart:a], "\r\n"); ls >= 0 {
		line := spanStart + ls + 1
		start := line + (a-line+cols-1)/cols*cols
		if start < end && printable(buf[line:start]) {
			return start
		}
	}
	if i := bytes.IndexByte(buf[a:end], esc); i >= 0 {
		return a + i
	}
	for k := 0; k < utf8.UTFMax && a < end && !utf8.RuneStart(buf[a]); k++ {
		a++
	}
	return a
}

// printable reports whether p is all printable ASCII, one column a byte.
func printable(p []byte) bool {
	for _, c := range p {
		if c < 0x20 || c > 0x7e {
			return false
		}
	}
	return true
}

// skipHole moves pos to the end of the control string it is inside, if any,
// but not past end.
func skipHole(holes []span, pos, end int) int {
	i := sort.Search(len(holes), func(i int) bool { return holes[i].end > pos })
	if i < len(holes) && holes[i].start < pos {
		return min(holes[i].end, end)
	}
	return pos
}
