package screen

import (
	"bytes"
	"slices"
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
	// maxPartial is how much of an unfinished control string at the end of
	// a backlog is kept; beyond it only the introducer is, so that the
	// rest of the string still reaches the emulator as a string.
	maxPartial = 4 << 10
	// bigHole is the size from which a control string is left out of a
	// replay: an OSC 52 clipboard copy or an image shows nothing on the
	// screen; small ones (titles, colour queries) are kept.
	bigHole = 256
)

// A cut describes the screen for compact.
type cut struct {
	rows, cols int
	lines      int // normal-screen lines to keep: rows plus scrollback
	maxBytes   int // most bytes to keep
}

// compact returns a backlog, built in dst, that leaves an emulator in the
// same state as b would, for ordinary programs, but holds at most about
// c.maxBytes of b and c.lines lines of normal-screen output. sc is the
// scanner as it was after the last byte of b; compact returns it rebased to
// the new backlog.
//
// The tail is taken from the normal-screen parts of b, skipping over whole
// alternate-screen sessions, which leave no trace on the normal screen. The
// skipped normal-screen lines are replaced by as many empty ones (up to a
// screenful), so that the tail lands on the rows it would have. If b ends
// on the alternate screen, the replay ends with that alternate-screen
// session, or with its last c.maxBytes if it is longer.
func compact(dst []byte, b *backlog, sc *scanner, c cut) (backlog, scanner) {
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
	if !sc.inGround() {
		// An unfinished sequence at the end: keep it out of the tail
		// search, and append it (or its introducer) last.
		limit = sc.escStart()
		partial = buf[limit:]
		if sc.seq.InString() && len(partial) > maxPartial {
			partial = partial[:2]
		}
	}

	out := append(dst[:0], cancelSeq...)
	n := len(b.trans)
	switch {
	case sc.alt && (n == 0 || b.trans[n-1].kind != altOn):
		// On the alternate screen since before b.
		out = appendTail(out, b, withoutHoles([]span{{lo, limit}}, b.holes), c)
	case sc.alt:
		e := b.trans[n-1]
		out = appendNormal(out, b, c, lo, e.start, c.maxBytes/4)
		if e.start >= lo && limit-e.start <= c.maxBytes {
			out = append(out, buf[e.start:limit]...)
		} else {
			if e.mode == 1049 {
				out = append(out, "\x1b[?1049h"...)
			} else {
				out = append(out, "\x1b[?1047h"...)
			}
			out = appendTail(out, b, withoutHoles([]span{{max(e.end, lo), limit}}, b.holes), c)
		}
	default:
		out = appendNormal(out, b, c, lo, limit, c.maxBytes)
	}
	out = append(out, partial...)

	nb := backlog{buf: out, lines: bytes.Count(out, []byte{'\n'}), startAlt: b.startAlt}
	rs := scanner{alt: b.startAlt}
	rs.scan(&nb, out, 0)
	nsc.alt = rs.alt
	if !sc.inGround() {
		nsc.esc = len(out) - len(partial)
	}
	return nb, nsc
}

// appendNormal appends the tail of the normal-screen output in
// b.buf[lo:limit], at most budget bytes, with what it takes to bring the
// emulator to where the skipped output would have left it: a full reset if
// one was skipped, leaving the alternate screen if the emulator is on it,
// and before each kept piece the line feeds skipped before it.
func appendNormal(out []byte, b *backlog, c cut, lo, limit, budget int) []byte {
	spans, reset := normalSpans(b, lo, limit)
	spans = withoutHoles(spans, b.holes)
	switch {
	case reset:
		out = append(out, "\x1bc"...)
	case b.startAlt:
		out = append(out, "\x1b[?1047l"...)
	}
	pieces := pickTail(b, c.cols, spans, c.lines, budget)
	out = carryState(out, b.buf, spans, pieces)
	prev := lo
	for _, p := range pieces {
		if n := countLines(b.buf, spans, prev, p.start); n > 0 {
			out = append(out, '\r')
			for range min(n, c.rows) {
				out = append(out, '\n')
			}
		} else if p.rowStart {
			out = append(out, '\r')
		}
		out = append(out, b.buf[p.start:p.end]...)
		prev = p.end
	}
	return out
}

// countLines returns the number of '\n' in the parts of spans within
// buf[from:to].
func countLines(buf []byte, spans []span, from, to int) int {
	n := 0
	for _, sp := range spans {
		if s, e := max(sp.start, from), min(sp.end, to); s < e {
			n += bytes.Count(buf[s:e], []byte{'\n'})
		}
	}
	return n
}

// appendTail appends the tail of spans (latest first) that pickTail keeps,
// after the state that the skipped part of them set.
func appendTail(out []byte, b *backlog, spans []span, c cut) []byte {
	pieces := pickTail(b, c.cols, spans, c.lines, c.maxBytes)
	out = carryState(out, b.buf, spans, pieces)
	return appendPieces(out, b, pieces)
}

// carryState appends sequences that set the state (modes, scroll region,
// character sets; see carry.go) that the parts of spans (latest first)
// before the first of pieces leave, which the replay skips.
func carryState(out, buf []byte, spans []span, pieces []piece) []byte {
	from := len(buf)
	if len(pieces) > 0 {
		from = pieces[0].start
	}
	var skipped []span
	for _, sp := range slices.Backward(spans) {
		if sp.start >= from {
			break
		}
		skipped = append(skipped, span{sp.start, min(sp.end, from)})
	}
	c := scanSkipped(buf, skipped)
	return c.appendTo(out)
}

// appendPieces appends the bytes of pieces.
func appendPieces(out []byte, b *backlog, pieces []piece) []byte {
	for _, p := range pieces {
		out = append(out, b.buf[p.start:p.end]...)
	}
	return out
}

// normalSpans returns, latest first, the parts of b.buf[lo:limit] that were
// written while the normal screen was active, back to the last full reset
// (RIS); reset reports whether there is one. The normal screen must be
// active at limit.
func normalSpans(b *backlog, lo, limit int) (spans []span, reset bool) {
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
			return spans, false // inconsistent; keep what is certain
		}
		if s := max(t.end, lo); s < end {
			spans = append(spans, span{s, end})
		}
		if t.kind == ris {
			return spans, true
		}
		inAlt = true
	}
	if !inAlt && !b.startAlt && lo < end {
		spans = append(spans, span{lo, end})
	}
	return spans, false
}

// A piece is a part of a backlog kept in a replay.
type piece struct {
	span
	rowStart bool // begins a screen row inside a long line
}

// pickTail returns, in order, the pieces of spans (latest first) to replay:
// from just after the (lines+1)th '\n' before the end, within budget
// bytes, never starting inside a control string. If the budget ends inside
// a line (a progress bar redrawn with '\r', a long line), three quarters of
// it go to the end of that line, from a safe place, and the rest to the
// lines before it, so that the command line above a progress bar stays.
func pickTail(b *backlog, cols int, spans []span, lines, budget int) []piece {
	buf := b.buf
	need := lines
	// back counts need newlines back from pos, no further than lo, and
	// returns where the last one found is.
	back := func(lo, pos int) int {
		for need >= 0 {
			j := bytes.LastIndexByte(buf[lo:pos], '\n')
			if j < 0 {
				break
			}
			pos = lo + j
			need--
		}
		return pos
	}
	var picked []piece // latest first
	for _, sp := range spans {
		if sp.end <= sp.start {
			continue
		}
		if budget <= 0 {
			break
		}
		if sp.end-sp.start <= budget {
			if pos := back(sp.start, sp.end); need < 0 {
				picked = append(picked, piece{span: span{skipHole(b.holes, pos+1, sp.end), sp.end}})
				break
			}
			picked = append(picked, piece{span: sp})
			budget -= sp.end - sp.start
			continue
		}
		a := sp.end - budget*3/4
		if pos := back(a, sp.end); need < 0 {
			picked = append(picked, piece{span: span{skipHole(b.holes, pos+1, sp.end), sp.end}})
			break
		}
		start, rowStart := safeStart(buf, sp.start, a, sp.end, cols)
		start = skipHole(b.holes, start, sp.end)
		picked = append(picked, piece{span{start, sp.end}, rowStart})

		// The lines before the line that was cut.
		ls := sp.start + bytes.LastIndexByte(buf[sp.start:a], '\n') + 1
		if ls == sp.start {
			break
		}
		hb := max(sp.start, ls-budget/4)
		hs := back(hb, ls) + 1
		if need >= 0 && hb > sp.start {
			// Out of budget: start at a line boundary.
			hs = ls
			if j := bytes.IndexByte(buf[hb:ls], '\n'); j >= 0 {
				hs = hb + j + 1
			}
		} else if need >= 0 {
			hs = sp.start
		}
		if hs = skipHole(b.holes, hs, ls); hs < ls {
			picked = append(picked, piece{span: span{hs, ls}})
		}
		break
	}
	slices.Reverse(picked)
	return picked
}

// withoutHoles returns spans (latest first) without the control strings of
// bigHole bytes or more in them.
func withoutHoles(spans []span, holes []span) []span {
	var out []span
	for _, sp := range spans {
		end := sp.end
		i := sort.Search(len(holes), func(i int) bool { return holes[i].start >= sp.end })
		for i--; i >= 0 && holes[i].end > sp.start; i-- {
			h := holes[i]
			if h.end-h.start < bigHole {
				continue
			}
			if h.end < end {
				out = append(out, span{h.end, end})
			}
			end = h.start
		}
		if sp.start < end {
			out = append(out, span{sp.start, end})
		}
	}
	return out
}

// safeStart returns the first place in buf[a:end] where replay can begin
// without starting in the middle of an escape sequence or a character, or
// in a wrong column. That is, in order of preference: in a long line of
// plain text (minified code, base64), the start of a screen row, counted
// from the start of the line in buf[spanStart:a] or else from spanStart
// (rowStart); a carriage return or the start of a line; an ESC.
func safeStart(buf []byte, spanStart, a, end, cols int) (start int, rowStart bool) {
	line := spanStart + bytes.LastIndexAny(buf[spanStart:a], "\r\n") + 1
	if start := line + (a-line+cols-1)/cols*cols; start < end && printable(buf[line:start]) {
		return start, true
	}
	if i := bytes.IndexAny(buf[a:end], "\r\n"); i >= 0 {
		if buf[a+i] == '\n' {
			return a + i + 1, false
		}
		return a + i, false
	}
	if i := bytes.IndexByte(buf[a:end], esc); i >= 0 {
		return a + i, false
	}
	for k := 0; k < utf8.UTFMax && a < end && !utf8.RuneStart(buf[a]); k++ {
		a++
	}
	return a, false
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
