package vt

import (
	"unicode/utf8"

	uv "github.com/charmbracelet/ultraviolet"
	"github.com/charmbracelet/x/ansi"
)

// printableASCII reports whether r is a character that can never join the
// grapheme cluster beside it. No ASCII character is a combining mark, a ZWJ, a
// spacing mark or a regional indicator, and CR and LF are not printable, so a
// cluster boundary between two of these is certain without asking the
// segmenter.
func printableASCII(r rune) bool {
	return r >= ansi.SP && r < ansi.DEL
}

// handlePrint handles printable characters.
//
// A character is held back rather than printed straight away, because the one
// after it may be a combining mark that belongs to the same cluster. Printing
// "e" from "e\u0301" before the mark arrives puts the base in one cell and
// leaves the mark to become a zero-width cell of its own, which the next write
// or erase then destroys.
func (e *Emulator) handlePrint(r rune) {
	// Programs lay text out one code point at a time by wcwidth, unless
	// they turn grapheme clustering on with mode 2027: the terminal must
	// measure as they do, or every character after an emoji lands in the
	// wrong column.
	if !e.clustering {
		e.flushGrapheme()
		e.printCodepoint(r)
		return
	}

	// No ASCII character can extend the cluster before it: none of them is
	// Extend, ZWJ, SpacingMark, Prepend, a regional indicator, or part of an
	// Indic conjunct. So an ASCII character arriving is proof that whatever is
	// buffered is finished, and the buffer can go out.
	//
	// This is also what keeps the buffer from being re-segmented as it grows.
	// Asking where the clusters are on every character costs the length of the
	// buffer each time, which is quadratic over a long run of combining marks
	// that never resolves into more than one cluster.
	if printableASCII(r) {
		// Two printable ASCII characters in a row is the common case by a wide
		// margin, and needs no segmenting at all.
		if len(e.grapheme) == 1 && printableASCII(rune(e.grapheme[0])) {
			e.handleGrapheme(string(e.grapheme[0]), 1)
			e.grapheme = utf8.AppendRune(e.grapheme[:0], r)
			return
		}
		e.flushGrapheme()
	}

	e.grapheme = utf8.AppendRune(e.grapheme, r)
}

// flushGrapheme flushes the current grapheme buffer, if any, and handles the
// grapheme as a single unit.
func (e *Emulator) flushGrapheme() {
	if len(e.grapheme) == 0 {
		return
	}

	// XXX: We always use [ansi.GraphemeWidth] here to report accurate widths
	// and it's up to the caller to decide how to handle Unicode vs non-Unicode
	// modes.
	method := ansi.GraphemeWidth
	graphemes := e.grapheme
	for len(graphemes) > 0 {
		cluster, width := ansi.FirstGraphemeCluster(graphemes, method)
		if len(cluster) == 0 {
			break
		}
		e.handleGrapheme(string(cluster), width)
		graphemes = graphemes[len(cluster):]
	}
	e.grapheme = e.grapheme[:0] // Reset the grapheme buffer.
}

// handleGrapheme handles UTF-8 graphemes.
func (e *Emulator) handleGrapheme(content string, width int) {
	awm := e.isModeSet(ansi.ModeAutoWrap)
	cell := uv.Cell{
		Content: content,
		Width:   width,
		Style:   e.scr.cursorPen(),
		Link:    e.scr.cursorLink(),
	}

	x, y := e.scr.CursorPosition()
	if e.atPhantom && awm {
		// moves cursor down similar to [Terminal.linefeed] except it doesn't
		// respects [ansi.LNM] mode.
		// This will reset the phantom state i.e. pending wrap state.
		e.index()
		_, y = e.scr.CursorPosition()
		x = 0
	}

	// A single shift applies to the next character, whatever that character
	// turns out to be. Take it now, so it cannot leak onto the one after this
	// when this is a cluster no charset has a mapping for.
	single := e.gsingle
	e.gsingle = 0

	// Handle character set mappings
	if len(content) == 1 { //nolint:nestif
		var charset CharSet
		c := content[0]
		if single > 1 && single < 4 {
			charset = e.charsets[single]
		} else if c < 128 {
			charset = e.charsets[e.gl]
		} else {
			charset = e.charsets[e.gr]
		}

		if charset != nil {
			if r, ok := charset[c]; ok {
				cell.Content = r
				cell.Width = 1
			}
		}
	}

	if cell.Width == 1 && len(content) == 1 {
		e.lastChar, _ = utf8.DecodeRuneInString(content)
	}

	// A wide character that does not fit before the right margin goes to
	// the next line, as xterm does, leaving the rest of this one as it is;
	// without autowrap it is dropped, as tmux does.
	if width := e.scr.Width(); cell.Width > 1 && x+cell.Width > width {
		if !awm {
			return
		}
		e.index()
		_, y = e.scr.CursorPosition()
		x = 0
	}

	// In insert mode the character pushes the rest of the line right.
	if e.insert {
		e.scr.setCursor(x, y, false)
		e.scr.InsertCell(cell.Width)
	}

	e.scr.SetCell(x, y, &cell)

	// Handle phantom state at the end of the line: a character that ends
	// in the last column leaves the cursor there, pending a wrap.
	e.atPhantom = awm && x+cell.Width >= e.scr.Width()
	if !e.atPhantom {
		x += cell.Width
	}

	// NOTE: We don't reset the phantom state here, we handle it up above.
	e.scr.setCursor(x, y, false)
}

// zwj is the zero width joiner, which joins the character after it to the
// one before it.
const zwj = '\u200d'

// maxCombined is the most bytes a character with the code points joined to
// it may take; tmux drops code points beyond its 21, which also keeps a long
// run of combining marks from costing quadratic time.
const maxCombined = 21

// printCodepoint prints r as one code point of wcwidth's width. A zero
// width code point (a combining mark, a variation selector), and the code
// point after a zero width joiner, join the character before the cursor,
// as tmux does, and leave the cursor where it is.
func (e *Emulator) printCodepoint(r rune) {
	w := 1
	if r >= 0x300 {
		w = runeWidth(r)
	}
	if w < 0 {
		return // unassigned: tmux shows nothing
	}
	if w == 0 || e.joining {
		e.joining = r == zwj
		e.combine(r)
		return
	}
	e.handleGrapheme(string(r), w)
}

// combine appends r to the character left of the cursor, or at the cursor
// if a wrap is pending. At the left edge there is none, and r is dropped.
func (e *Emulator) combine(r rune) {
	x, y := e.scr.CursorPosition()
	if !e.atPhantom {
		x--
	}
	// Skip the placeholder cells of a wide character.
	for ; x >= 0; x-- {
		if c := e.scr.CellAt(x, y); c == nil || c.Width != 0 {
			break
		}
	}
	c := e.scr.CellAt(x, y)
	if c == nil || c.Content == "" || len(c.Content)+utf8.RuneLen(r) > maxCombined {
		return
	}
	cell := *c
	cell.Content += string(r)
	e.scr.SetCell(x, y, &cell)
}
