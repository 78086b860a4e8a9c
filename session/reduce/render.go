package reduce

import (
	"bytes"
	"encoding/binary"
	"math/bits"
	"strings"
	"sync"
	"unicode/utf8"
	"unsafe"

	"github.com/ttymux/ttymux/internal/termseq"
)

// DefaultWindow is the number of recent lines a Renderer holds back so that
// cursor-up can still rewrite them, when Renderer.Window is zero.
const DefaultWindow = 64

const (
	// maxGap bounds how far right of a line's text a cursor motion (CSI C,
	// CSI G, TAB) may move, so that "\x1b[99999C" cannot make a line of
	// 99999 spaces. A real terminal stops at its right margin; 512 is wider
	// than any terminal an agent runs in.
	maxGap = 512
	// maxString bounds the body of an OSC, DCS, SOS, PM or APC string. An
	// unterminated "ESC ]" in binary output would otherwise swallow the rest
	// of the stream, as it does in a real terminal. Past this many bytes the
	// string is abandoned and what follows is shown as text: a large inline
	// image then shows up as visible garbage rather than hiding output.
	maxString = 16 << 10
	// maxEdit is the widest row that CSI P, @, X and 1K edit. Each costs
	// time in proportion to the row's width, so without a bound a long
	// line followed by many of them would take quadratic time. A
	// terminal's rows are never this wide; on wider rows they are ignored,
	// which can leave text that a terminal would have erased but never
	// hides any.
	maxEdit  = 4096
	maxParam = 1 << 16
)

// A Renderer turns a terminal output stream into the lines a terminal would
// show, for output that scrolls (a build, a log, a shell session) rather than
// a full-screen program. It is an io.Writer: Write accepts chunks split
// anywhere, even inside an escape sequence or a UTF-8 character, and the
// result is the same as for one Write of the whole stream.
//
// Per line it implements what linear programs use: '\n' ends a line (and
// returns the cursor to column 0, as the PTY's ONLCR makes it), '\r' returns
// to column 0 so that later text overwrites, '\b' moves left, TAB moves to
// the next multiple of 8, and CSI K (erase in line), C, D, G (cursor
// forward, back, to column), P, @, X (delete, insert, erase characters).
// Across lines it implements CSI A, B, E, F and ESC M (cursor up and down)
// and CSI J (erase below) within the last Window lines, which is what
// multi-line progress displays (docker pull, BuildKit, pip) use, and ESC 7 /
// ESC 8 (save and restore cursor): text written between a save, an absolute
// cursor move (CSI H, f, d) and the restore is a status line painted
// elsewhere on the screen (apt's "Progress: [ 40%]") and is dropped.
//
// Everything else is stripped: SGR colours and other CSI sequences, OSC,
// DCS, SOS, PM and APC strings, other ESC sequences, and C0 controls other
// than those above; where a sequence ends is internal/termseq's to say, as
// for the screen and the completion detector. 8-bit C1 bytes are not
// controls in a UTF-8 stream: they show as U+FFFD. CSI 1J
// and 2J (clear screen) are ignored so that no output disappears, and so
// are CSI H, f and d outside a status line, unless Rows is set. Invalid
// UTF-8 becomes U+FFFD, one per invalid byte, so a line never holds invalid
// UTF-8 or an ESC byte.
//
// With Rows set, the Renderer also follows a program that redraws the
// normal screen in place: CSI H, f and d (outside a status line) move the
// cursor to that row of the screen, as in a terminal. top moves the cursor
// home for each frame and skips, with a bare "\r\n", the rows that did not
// change: its frames render as its last one, each row where it belongs,
// instead of one after another with the skipped rows blank. The screen's
// top row is not known until the first cursor home or clear screen places
// it, on a new row after the output so far (rows above it, drawn before
// the stream began, cannot be known); from then on it moves down as
// output scrolls past Rows rows, as a terminal's does. A clear screen
// (CSI 2J, or CSI J at the screen's top left, as `clear` writes for some
// terminals) starts a new screen after the output instead of erasing it,
// so that no output disappears.
//
// Columns count runes: a wide (CJK, emoji) or combining character takes one
// column. Overwriting a line that mixes them with cursor motions can differ
// from a real terminal; plain output cannot. Lines are never wrapped.
//
// A line is complete once it has scrolled out of the window of Window lines
// (cursor-up cannot reach it any more) or at Flush. The zero Renderer is
// ready to use. A Renderer is not safe for concurrent use.
//
// Lines of plain text (no control characters but the '\n' that ends them,
// with '\r' before it or not) that start at the bottom of the window, which
// is most of any long output, bypass the byte-at-a-time parser: they are
// split in bulk and, when Emit is nil, stored together.
type Renderer struct {
	// Emit, if not nil, receives each completed line in order. Text
	// excludes the line ending. Num is the number of '\n' bytes written
	// before the line started (when text first reached it as the bottom
	// line, or when it was made): the line's offset in the stream's
	// '\n'-separated lines, counting from 0. Nums never decrease; they skip
	// values where a '\n' moved the cursor onto an existing line (a
	// program that redraws its progress lines), and repeat after Flush of
	// a line without '\n'. Emit must not call the Renderer. If Emit is
	// nil, lines accumulate for Lines.
	Emit func(text string, num int64)

	// Window is how many of the most recent lines cursor-up can reach and
	// rewrite; they are held back until they scroll out of it or Flush.
	// Zero means DefaultWindow. A terminal's cursor cannot go above its top
	// row, so a Window of at least the terminal's height makes cursor-up
	// exact. Set it before the first Write.
	Window int

	// Rows, if not zero, is the terminal's height: the Renderer then
	// follows a program that redraws the screen in place (top on the
	// normal screen) as a terminal does. See the type comment. The window
	// holds at least Rows lines. Set it before the first Write.
	Rows int

	lines []string // completed lines when Emit is nil
	nums  []int64
	store arena // the text of lines when Emit is nil

	// borrow (set by a Collector) makes the lines Take returns borrowed:
	// their text points into the p of the last Write and into tmp, valid
	// only until the next Write or Flush, so a long stream's text is never
	// allocated; rows still frozen at the end of a Write are thawed, since
	// that p is not theirs to keep (issue #17).
	borrow bool
	tmp    reuseArena

	// The window: rows are ring[(start+i)%len(ring)] for i in [0, n).
	ring     []row
	start, n int
	y, x     int   // cursor row (index into the window) and column
	nl       int64 // '\n' bytes seen

	// The screen, when Rows is set. Rows are counted from the first row
	// the Renderer made: base is the count of window row 0 (rows that
	// left the window came before it), top the count of the screen's top
	// row, known once a cursor home or a clear screen placed it (hasTop).
	rows   int
	base   int64
	top    int64
	hasTop bool

	// Cursor save (ESC 7, CSI s) and the status-line heuristic.
	saved    bool  // a save is in effect
	savedNum int64 // the saved row, by its num
	savedX   int
	armed    bool // saved and not yet restored: an absolute move detaches
	detached bool // text is going to a status line elsewhere: drop it

	// Parser state carried between Writes. seq reads the escape sequences
	// (internal/termseq, the scanner the screen and the detector use too);
	// text and the controls in it are the Renderer's, and seq does not see
	// them, so its offsets are not the stream's.
	seq   termseq.Scanner
	part  [utf8.UTFMax]byte // the start of a UTF-8 character split by a Write
	npart int

	// noBulk says the line at the cursor is not plain text (see bulk),
	// so that Write does not look at it again before the next line.
	noBulk bool
	slow   bool   // for tests: never use bulk
	batch  []span // lines found by bulk, not yet added to the window

	scratch []byte
}

// A span is a line of plain text in a Write: p[start:end], w columns wide.
type span struct{ start, end, w int }

// A row is one line of the window. It keeps its text as UTF-8 bytes while
// it is only appended to, or when it is ASCII (one byte per column), and
// switches to one rune per column the first time non-ASCII text is edited
// in place.
//
// A row that bulk filled with a line of plain text is frozen: its text is
// s, which may share memory with other lines, and b and cells are unused.
// Renderer.cur thaws it into b before anything edits it.
type row struct {
	b        []byte
	cells    []rune
	useCells bool
	frozen   bool
	s        string // the text, if frozen
	w        int    // width in columns
	num      int64  // '\n' count when the row was created
}

func (l *row) reset(num int64) {
	l.b, l.cells, l.useCells, l.w, l.num = l.b[:0], l.cells[:0], false, 0, num
	l.frozen, l.s = false, ""
}

// thaw makes a frozen row editable.
func (l *row) thaw() {
	if l.frozen {
		l.b, l.cells, l.useCells = append(l.b[:0], l.s...), l.cells[:0], false
		l.frozen, l.s = false, ""
	}
}

func (l *row) ascii() bool { return !l.useCells && len(l.b) == l.w }

func (l *row) String() string {
	switch {
	case l.frozen:
		return l.s
	case l.useCells:
		return string(l.cells)
	}
	return string(l.b)
}

func (l *row) toCells() {
	if l.useCells {
		return
	}
	l.cells = l.cells[:0]
	for _, c := range string(l.b) {
		l.cells = append(l.cells, c)
	}
	l.useCells = true
	l.w = len(l.cells)
}

// truncate cuts the row to x columns, if it is wider.
func (l *row) truncate(x int) {
	if x >= l.w {
		return
	}
	if x > 0 && !l.ascii() {
		l.toCells() // once, rather than decoding up to x every time
	}
	if l.useCells {
		l.cells = l.cells[:x]
	} else {
		l.b = l.b[:x]
	}
	l.w = x
}

// put writes the rune c at column x, padding with spaces.
func (l *row) put(x int, c rune) {
	for len(l.cells) < x {
		l.cells = append(l.cells, ' ')
	}
	if x < len(l.cells) {
		l.cells[x] = c
	} else {
		l.cells = append(l.cells, c)
	}
	l.w = len(l.cells)
}

func (r *Renderer) init() {
	if r.ring != nil {
		return
	}
	w := r.Window
	if w <= 0 {
		w = DefaultWindow
	}
	r.rows = min(max(r.Rows, 0), maxRows)
	r.ring = make([]row, max(w, r.rows))
	r.n = 1
	r.seq.MaxString = maxString
}

// maxRows bounds Renderer.Rows, and so the window it makes.
const maxRows = 1000

// row returns row i of the window, 0 <= i < len(r.ring).
func (r *Renderer) row(i int) *row {
	k := r.start + i
	if k >= len(r.ring) {
		k -= len(r.ring)
	}
	return &r.ring[k]
}

// cur returns the cursor's row, ready to edit.
func (r *Renderer) cur() *row {
	l := r.row(r.y)
	l.thaw()
	return l
}

func (r *Renderer) emit(l *row) {
	if r.Emit != nil {
		r.Emit(l.String(), l.num)
		return
	}
	var s string
	switch {
	case l.frozen:
		s = l.s
	case l.useCells:
		b := r.scratch[:0]
		for _, c := range l.cells {
			b = utf8.AppendRune(b, c)
		}
		r.scratch = b
		s = r.keep(b)
	default:
		s = r.keep(l.b)
	}
	r.lines = append(r.lines, s)
	r.nums = append(r.nums, l.num)
}

// keep returns p as a string that lives as long as a completed line must.
func (r *Renderer) keep(p []byte) string {
	if r.borrow {
		return r.tmp.add(p)
	}
	return r.store.add(p)
}

// A reuseArena holds the text of a borrowing Renderer's lines (see
// Renderer.borrow) in chunks that reset makes free for the next Write.
type reuseArena struct {
	chunks [][]byte
	i      int // the chunk being filled
}

// reset makes every chunk free: the strings add returned are dead.
func (a *reuseArena) reset() {
	for k := range a.chunks[:min(a.i+1, len(a.chunks))] {
		a.chunks[k] = a.chunks[k][:0]
	}
	a.i = 0
}

// add returns a string of p's bytes, valid until reset.
func (a *reuseArena) add(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	for ; ; a.i++ {
		if a.i == len(a.chunks) {
			a.chunks = append(a.chunks, make([]byte, 0, max(16<<10, len(p))))
		}
		if c := a.chunks[a.i]; cap(c)-len(c) >= len(p) {
			a.chunks[a.i] = append(c, p...)
			return unsafe.String(&a.chunks[a.i][len(c)], len(p))
		}
	}
}

// An arena holds the text of many lines in a few large allocations, so
// that a million short lines do not take a million allocations (nor a
// million objects for the garbage collector to track). Its chunks grow
// from 1 KiB to 64 KiB, so that rendering a few bytes costs little. What
// it has handed out is never written again.
type arena struct {
	b    *strings.Builder // the current chunk
	next int              // the size of the next chunk, or 0 for 1 KiB
}

const maxChunk = 64 << 10

// add returns p as a string.
func (a *arena) add(p []byte) string {
	if len(p) == 0 {
		return ""
	}
	if a.b == nil || a.b.Cap()-a.b.Len() < len(p) {
		size := a.next
		if size == 0 {
			size = 1 << 10
		}
		if len(p) > size/4 {
			return string(p) // a long line: its own allocation
		}
		a.b, a.next = new(strings.Builder), min(2*size, maxChunk)
		a.b.Grow(size)
	}
	n := a.b.Len()
	a.b.Write(p)
	return a.b.String()[n:]
}

// Write renders p. It always returns len(p), nil.
func (r *Renderer) Write(p []byte) (int, error) {
	r.init()
	n := len(p)
	if r.borrow {
		r.tmp.reset()
		defer r.thawAll()
	}
	if r.npart > 0 {
		p = r.finishRune(p)
	}
	for len(p) > 0 {
		if r.seq.Ground() {
			if l := r.row(r.y); !r.noBulk && !r.slow && r.x == 0 && r.y == r.n-1 && !r.detached && l.w == 0 && !l.useCells {
				p = p[r.bulk(p):]
				if len(p) == 0 {
					break
				}
			}
			i := scanText(p)
			if i > 0 {
				r.printable(p[:i], i == len(p))
				p = p[i:]
				if len(p) == 0 {
					break
				}
			}
			if c := p[0]; c != 0x1b {
				p = p[1:]
				r.control(c)
				continue
			}
		}
		k, ev := r.seq.Next(p)
		switch ev {
		case termseq.Control:
			r.control(p[k-1])
		case termseq.Esc:
			if r.seq.Inter() == 0 {
				r.esc(r.seq.Final())
			} // else ESC ( B and the like: charsets, ignored
		case termseq.CSI:
			if r.seq.Marker() == 0 && r.seq.Inter() == 0 {
				r.csi(r.seq.Final())
			}
		}
		// Text cannot come (the scanner was given text only at an ESC);
		// strings are dropped; a cancelled sequence leaves the byte that
		// cancelled it, if it did not consume it, to be read as text.
		p = p[k:]
	}
	return n, nil
}

// thawAll thaws the window's frozen rows, whose text may point into the
// p of a borrowing Renderer's last Write.
func (r *Renderer) thawAll() {
	for i := 0; i < r.n; i++ {
		r.row(i).thaw()
	}
}

// scanText returns the length of the longest prefix of p without C0
// controls and DEL, eight bytes at a time.
func scanText(p []byte) int {
	const (
		lo  = 0x0101010101010101
		hi  = 0x8080808080808080
		sp  = 0x2020202020202020 // ' ' * lo
		del = 0x7f7f7f7f7f7f7f7f
	)
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		y := x ^ del
		// Some byte < 0x20 (hasless) or some byte == 0x7f (haszero).
		if (x-sp)&^x&hi != 0 || (y-lo)&^y&hi != 0 {
			break
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c == 0x7f {
			break
		}
	}
	return i
}

// nextSpecial returns the index in p of the first byte at or after i that
// is a C0 control, DEL or not ASCII, or len(p) if there is none, eight
// bytes at a time.
func nextSpecial(p []byte, i int) int {
	const (
		lo  = 0x0101010101010101
		hi  = 0x8080808080808080
		sp  = 0x2020202020202020
		del = 0x7f7f7f7f7f7f7f7f
	)
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		// A byte's top bit is set in x-sp if it is below 0x20 (or at
		// least 0xa0), in (x^del)-lo if it is 0x7f (or at least 0x80),
		// and in x if it is at least 0x80. A borrow only comes from a
		// byte that is flagged, so the lowest flag is exact.
		if m := ((x - sp) | ((x ^ del) - lo) | x) & hi; m != 0 {
			return i + bits.TrailingZeros64(m)/8
		}
	}
	for ; i < len(p); i++ {
		if c := p[i]; c < 0x20 || c >= 0x7f {
			return i
		}
	}
	return len(p)
}

// bulkBatch is how many lines bulk collects before it adds them.
const bulkBatch = 1024

// bulk renders the plain lines at the start of p and returns how many
// bytes they take. The cursor must be at column 0 of an empty bottom row
// that holds bytes rather than cells (a row of cells pads differently),
// not detached, with no UTF-8 character pending. A plain line is text
// without controls (valid UTF-8 without C1 controls) followed by '\n',
// with any number of '\r' before it: Write would append it to the bottom
// row and start a new one, which bulk does without the byte-at-a-time
// parser. It stops at the end of p or at the first line that is not plain
// or not finished, and then sets noBulk so that Write does not look at
// that line again: Write reads every byte at most twice.
func (r *Renderer) bulk(p []byte) int {
	batch := r.batch[:0]
	i, done, stop := 0, 0, false
	for {
		j := nextSpecial(p, i)
		ascii := true
		if j < len(p) && p[j] >= 0x80 {
			ascii = false
			j += scanText(p[j:])
		}
		k := j
		for k < len(p) && p[k] == '\r' {
			k++
		}
		if k == len(p) {
			// The end of p, or an unfinished line, which Write shows.
			// Writes of '\r' must not come back here for each byte.
			stop = i < len(p)
			break
		}
		if p[k] != '\n' {
			stop = true
			break
		}
		text, w := p[i:j], j-i
		if !ascii {
			if !utf8.Valid(text) || hasC1(text) {
				stop = true
				break
			}
			w = runeCount(text)
		}
		batch = append(batch, span{i, j, w})
		i = k + 1
		if len(batch) == bulkBatch {
			r.addLines(p, batch)
			batch, done = batch[:0], i
		}
	}
	if len(batch) > 0 {
		r.addLines(p, batch)
		done = i
	}
	r.batch, r.noBulk = batch[:0], stop
	return done
}

// addLines adds the lines of p that bulk found, as Write would: each fills
// the empty bottom row, and '\n' makes a new one.
func (r *Renderer) addLines(p []byte, batch []span) {
	var all string
	base := batch[0].start
	switch {
	case r.borrow:
		// The lines are p's own bytes, until the next Write.
		all = unsafe.String(&p[base], batch[len(batch)-1].end-base)
	case r.Emit == nil:
		// One string for the whole batch, line endings included.
		all = r.store.add(p[base:batch[len(batch)-1].end])
	}
	str := func(sp span) string {
		if r.Emit == nil {
			return all[sp.start-base : sp.end-base]
		}
		return string(p[sp.start:sp.end])
	}
	if direct := len(batch) - (len(r.ring) - 1); direct > 0 {
		// All rows above the cursor and the first lines of the batch
		// scroll out of the window: emit them without going through it.
		r.base += int64(r.n-1) + int64(direct)
		for r.n > 1 {
			r.emit(r.row(0))
			if r.start++; r.start == len(r.ring) {
				r.start = 0
			}
			r.n--
		}
		r.y = 0
		num := r.nl
		if batch[0].w == 0 {
			num = r.row(0).num // as if a row of no text was emitted
		}
		if r.Emit == nil {
			for _, sp := range batch[:direct] {
				r.lines = append(r.lines, all[sp.start-base:sp.end-base])
				r.nums = append(r.nums, num)
				r.nl++
				num = r.nl
			}
		} else {
			for _, sp := range batch[:direct] {
				r.Emit(string(p[sp.start:sp.end]), num)
				r.nl++
				num = r.nl
			}
		}
		r.row(0).reset(r.nl)
		batch = batch[direct:]
	}
	for _, sp := range batch {
		s := str(sp)
		l := r.row(r.y)
		if sp.w > 0 {
			l.num = r.nl
		}
		l.s, l.frozen, l.useCells, l.w = s, true, false, sp.w
		r.lf(true)
	}
}

// printable renders a run of bytes without C0 controls. atEnd says the run
// ends the Write, so a UTF-8 character may continue in the next one.
func (r *Renderer) printable(s []byte, atEnd bool) {
	if atEnd && s[len(s)-1] >= 0x80 {
		// Find the start of the last character; keep it for the next
		// Write if it is incomplete.
		for k := len(s) - 1; k >= 0 && k >= len(s)-utf8.UTFMax; k-- {
			if s[k]&0xc0 != 0x80 {
				if !utf8.FullRune(s[k:]) {
					r.npart = copy(r.part[:], s[k:])
					s = s[:k]
				}
				break
			}
		}
		if len(s) == 0 {
			return
		}
	}
	if isASCII(s) {
		r.text(s, len(s))
		return
	}
	if utf8.Valid(s) && !hasC1(s) {
		r.text(s, runeCount(s))
		return
	}
	// Replace each invalid byte with U+FFFD and drop C1 controls.
	buf := r.scratch[:0]
	w := 0
	for len(s) > 0 {
		c, size := utf8.DecodeRune(s)
		s = s[size:]
		if c >= 0x80 && c < 0xa0 {
			continue
		}
		buf = utf8.AppendRune(buf, c)
		w++
	}
	r.scratch = buf
	r.text(buf, w)
}

// finishRune completes a UTF-8 character split by the previous Write and
// returns the rest of p.
func (r *Renderer) finishRune(p []byte) []byte {
	for r.npart > 0 {
		var buf [2 * utf8.UTFMax]byte
		k := copy(buf[:], r.part[:r.npart])
		k += copy(buf[k:utf8.UTFMax], p)
		if !utf8.FullRune(buf[:k]) {
			// Still incomplete, so p is shorter than what is missing.
			r.npart = copy(r.part[:], buf[:k])
			return nil
		}
		c, size := utf8.DecodeRune(buf[:k])
		if size >= r.npart {
			p = p[size-r.npart:]
			r.npart = 0
		} else {
			// An invalid first byte: the bytes after it start over.
			r.npart = copy(r.part[:], r.part[size:r.npart])
		}
		if c < 0x80 || c >= 0xa0 {
			var e [utf8.UTFMax]byte
			r.text(e[:utf8.EncodeRune(e[:], c)], 1)
		}
	}
	return p
}

// runeCount counts the characters of valid UTF-8 s: the bytes that are not
// continuation bytes.
func runeCount(s []byte) int {
	n := len(s)
	for _, c := range s {
		if c&0xc0 == 0x80 {
			n--
		}
	}
	return n
}

func isASCII(s []byte) bool {
	i := 0
	for ; i+8 <= len(s); i += 8 {
		if binary.LittleEndian.Uint64(s[i:])&0x8080808080808080 != 0 {
			return false
		}
	}
	for ; i < len(s); i++ {
		if s[i] >= 0x80 {
			return false
		}
	}
	return true
}

// hasC1 reports whether the valid UTF-8 s holds a C1 control, U+0080 to
// U+009F, which is encoded as 0xC2 0x80 to 0xC2 0x9F.
func hasC1(s []byte) bool {
	for {
		i := bytes.IndexByte(s, 0xc2)
		if i < 0 || i+1 >= len(s) {
			return false
		}
		if s[i+1] < 0xa0 {
			return true
		}
		s = s[i+2:]
	}
}

// text writes valid UTF-8 s, w runes wide, at the cursor.
func (r *Renderer) text(s []byte, w int) {
	if r.detached {
		return
	}
	l := r.cur()
	if l.w == 0 && r.y == r.n-1 {
		// The bottom row may have been made by a '\n' long before, with a
		// redraw of the rows above in between: it starts here.
		l.num = r.nl
	}
	if !l.useCells {
		if r.x >= l.w {
			for l.w < r.x {
				l.b = append(l.b, ' ')
				l.w++
			}
			l.b = append(l.b, s...)
			l.w += w
			r.x += w
			return
		}
		if l.ascii() && len(s) == w {
			// Overwrite in place: ASCII over ASCII.
			k := copy(l.b[r.x:], s)
			l.b = append(l.b, s[k:]...)
			l.w = len(l.b)
			r.x += w
			return
		}
		l.toCells()
	}
	for _, c := range string(s) {
		l.put(r.x, c)
		r.x++
	}
}

// control executes a C0 control other than ESC.
func (r *Renderer) control(c byte) {
	if r.detached {
		if c == '\n' {
			r.restore()
			r.lf(true)
		}
		return
	}
	switch c {
	case '\n':
		r.lf(true)
	case '\r':
		r.x = 0
	case '\b':
		if r.x > 0 {
			r.x--
		}
	case '\t':
		r.forward((r.x/8+1)*8 - r.x)
	}
	// Other C0 controls (BEL, NUL, SO, SI, VT, FF, ...) are dropped.
}

// lf moves to column 0 of the next row, making a row at the bottom of the
// window if the cursor is on the last one. nl says it is for a '\n' byte,
// which line numbers count.
func (r *Renderer) lf(nl bool) {
	if nl {
		r.nl++
	}
	r.x = 0
	if r.y < r.n-1 {
		r.y++
		return
	}
	if r.n == len(r.ring) {
		r.emit(r.row(0))
		if r.start++; r.start == len(r.ring) {
			r.start = 0
		}
		r.base++
	} else {
		r.n++
	}
	r.y = r.n - 1
	r.row(r.y).reset(r.nl)
	r.noBulk = false
}

func (r *Renderer) up(k int)   { r.y = max(r.y-k, 0) }
func (r *Renderer) down(k int) { r.y = min(r.y+k, r.n-1) }

// forward moves the cursor k columns right, at most maxGap past the text.
func (r *Renderer) forward(k int) { r.column(r.x + k) }

// column moves the cursor to column x, at most maxGap past the text.
func (r *Renderer) column(x int) {
	if x > r.x {
		x = min(x, max(r.x, r.cur().w+maxGap))
	}
	r.x = x
}

func (r *Renderer) save() {
	r.saved, r.armed = true, true
	r.savedNum, r.savedX = r.cur().num, r.x
}

func (r *Renderer) restore() {
	r.detached, r.armed = false, false
	if !r.saved {
		return
	}
	// Find the saved row by its num; if it has scrolled out, the top row.
	y := 0
	for i := r.n - 1; i >= 0; i-- {
		if r.row(i).num <= r.savedNum {
			y = i
			break
		}
	}
	r.y, r.x = y, r.savedX
}

// esc executes an escape sequence without intermediates.
func (r *Renderer) esc(final byte) {
	switch final {
	case '7':
		if !r.detached {
			r.save()
		}
	case '8':
		r.restore()
	case 'D': // IND: down one line, same column
		if !r.detached {
			x := r.x
			r.lf(false)
			r.x = x
		}
	case 'E': // NEL
		if !r.detached {
			r.lf(false)
		}
	case 'M': // RI: up one line
		if !r.detached {
			r.up(1)
		}
	}
}

// param returns parameter i, or def if it is absent or zero.
func (r *Renderer) param(i, def int) int {
	if v := r.seq.Param(i, 0); v != 0 {
		return min(v, maxParam)
	}
	return def
}

// csi executes a CSI sequence without private marker or intermediates.
// See ECMA-48 §8.3 and xterm's ctlseqs for the meanings.
func (r *Renderer) csi(final byte) {
	if r.detached {
		switch final {
		case 'u':
			r.restore()
		}
		return
	}
	n := r.param(0, 1)
	switch final {
	case 'A': // CUU
		r.up(n)
	case 'B': // CUD
		r.down(n)
	case 'C': // CUF
		r.forward(n)
	case 'D': // CUB
		r.x = max(r.x-n, 0)
	case 'E': // CNL
		r.down(n)
		r.x = 0
	case 'F': // CPL
		r.up(n)
		r.x = 0
	case 'G', '`': // CHA, HPA
		r.column(n - 1)
	case 'K': // EL
		r.eraseLine(r.param(0, 0))
	case 'J': // ED: only "below" is safe to apply; see the type comment
		switch mode := r.param(0, 0); {
		case r.rows > 0 && (mode == 2 || mode == 0 && r.x == 0 && r.y == r.screenTop()):
			r.clearScreen()
		case mode == 0:
			r.cur().truncate(r.x)
			r.n = r.y + 1
		}
	case 'P': // DCH
		r.deleteChars(n)
	case '@': // ICH
		r.insertChars(n)
	case 'X': // ECH
		r.eraseChars(n)
	case 's': // SCOSC, when it has no parameters (else DECSLRM)
		if ps := r.seq.Params(); len(ps) == 1 && ps[0] < 0 {
			r.save()
		}
	case 'u': // SCORC
		r.restore()
	case 'H', 'f', 'd': // CUP, HVP, VPA
		switch {
		case r.armed:
			r.detached = true
		case r.rows > 0 && final == 'd':
			r.moveTo(n, r.x)
		case r.rows > 0:
			r.moveTo(n, r.param(1, 1)-1)
		}
	}
}

// screenTop returns the window index of the screen's top row, or -1 if it
// is not known (Rows is not set, no cursor home or clear screen placed it,
// or it has left the window). Output that scrolled past Rows rows below
// it has moved it down, as it scrolls a terminal's screen.
func (r *Renderer) screenTop() int {
	if !r.hasTop {
		return -1
	}
	bottom := r.base + int64(r.n) - 1
	r.top = max(r.top, bottom-int64(r.rows)+1)
	if r.top < r.base || r.top > bottom {
		r.hasTop = false // above the window, or erased (CSI J above it)
		return -1
	}
	return int(r.top - r.base)
}

// newScreen places the screen's top row on the row after the output: the
// bottom row of the window if it is empty, else a new one.
func (r *Renderer) newScreen() {
	r.y = r.n - 1
	if r.row(r.y).w > 0 {
		r.lf(false)
	}
	r.top, r.hasTop = r.base+int64(r.y), true
}

// moveTo moves the cursor to row (counting from 1) and column x of the
// screen, making the rows between its bottom and row if they do not exist
// yet (a terminal's rows below the output are empty). Without a known top
// row, a cursor home starts the screen after the output so far
// (newScreen); a move to another row goes to that row too, without
// placing the screen or making up rows above it (top, quitting, moves to
// its last row before the shell's prompt).
func (r *Renderer) moveTo(row, x int) {
	if r.screenTop() < 0 {
		r.newScreen()
		if row > 1 {
			r.hasTop = false
			r.x = 0
			r.column(x)
			return
		}
	}
	row = min(max(row, 1), r.rows)
	for r.base+int64(r.n)-1 < r.top+int64(row)-1 {
		r.y = r.n - 1
		r.lf(false)
	}
	r.y = int(r.top - r.base + int64(row) - 1)
	r.x = 0
	r.column(x)
}

// clearScreen starts a new screen after the output (see the type
// comment), with the cursor on the same row and column of it.
func (r *Renderer) clearScreen() {
	row, x := 1, r.x
	if t := r.screenTop(); t >= 0 && r.y >= t {
		row = r.y - t + 1
	}
	r.newScreen()
	r.moveTo(row, x)
}

func (r *Renderer) eraseLine(mode int) {
	l := r.cur()
	switch mode {
	case 0:
		l.truncate(r.x)
	case 1:
		if l.w > maxEdit {
			return
		}
		if r.x+1 >= l.w {
			l.truncate(0)
			return
		}
		if l.ascii() {
			for i := 0; i <= r.x; i++ {
				l.b[i] = ' '
			}
			return
		}
		l.toCells()
		for i := 0; i <= r.x; i++ {
			l.cells[i] = ' '
		}
	case 2:
		l.truncate(0)
	}
}

func (r *Renderer) deleteChars(n int) {
	l := r.cur()
	if r.x >= l.w || l.w > maxEdit {
		return
	}
	l.toCells()
	n = min(n, l.w-r.x)
	l.cells = append(l.cells[:r.x], l.cells[r.x+n:]...)
	l.w = len(l.cells)
}

func (r *Renderer) insertChars(n int) {
	l := r.cur()
	if r.x >= l.w || l.w > maxEdit {
		return // blanks past the end are invisible
	}
	l.toCells()
	n = min(n, maxGap)
	l.cells = append(l.cells[:r.x], append([]rune(strings.Repeat(" ", n)), l.cells[r.x:]...)...)
	l.w = len(l.cells)
}

func (r *Renderer) eraseChars(n int) {
	l := r.cur()
	if r.x+n >= l.w {
		l.truncate(r.x)
		return
	}
	if l.w > maxEdit {
		return
	}
	l.toCells()
	for i := r.x; i < r.x+n; i++ {
		l.cells[i] = ' '
	}
}

// Flush completes the current line and every line held back for cursor-up,
// and resets the parser: an unfinished escape sequence is dropped and an
// unfinished UTF-8 character becomes U+FFFD. A last line that is empty
// (the output ended with '\n') is not a line. Writes after Flush start a
// new line.
func (r *Renderer) Flush() {
	r.init()
	if r.borrow {
		r.tmp.reset()
	}
	if r.npart > 0 {
		part := r.part[:r.npart]
		r.npart = 0
		r.printable(part, false)
	}
	r.seq.Skip(0) // drops an unfinished sequence
	r.detached, r.armed, r.saved = false, false, false
	r.base, r.hasTop = r.base+int64(r.n), false
	for i := 0; i < r.n; i++ {
		l := r.row(i)
		if i == r.n-1 && l.w == 0 {
			break
		}
		r.emit(l)
	}
	r.n, r.y, r.x = 1, 0, 0
	r.row(0).reset(r.nl)
	r.noBulk = false
}

// Reserve makes room for n more lines (when Emit is nil), so that a
// caller that writes a long stream in pieces, knowing roughly how many
// lines each holds, does not pay for many small growths of the line
// slices. Growth at least doubles them.
func (r *Renderer) Reserve(n int) {
	if need := len(r.lines) + n; need > cap(r.lines) {
		c := max(need, 2*cap(r.lines))
		r.lines = append(make([]string, 0, c), r.lines...)
		r.nums = append(make([]int64, 0, c), r.nums...)
	}
}

// Lines returns the lines completed so far when Emit is nil, and their nums
// (see Emit). Later Writes append to them. The lines share a few large
// allocations (see RenderNumbered).
func (r *Renderer) Lines() (lines []string, nums []int64) { return r.lines, r.nums }

// Take returns the lines completed since the last Take when Emit is nil,
// with their nums, and forgets them: a caller that keeps only some of a
// long stream's lines takes them after each Write. The slices are valid
// until the next Write or Flush; the strings stay valid.
func (r *Renderer) Take() (lines []string, nums []int64) {
	lines, nums = r.lines, r.nums
	r.lines, r.nums = r.lines[:0], r.nums[:0]
	return lines, nums
}

// Pending returns the lines not yet completed: those held back for
// cursor-up and the current line, as Flush would complete them, without
// completing them.
func (r *Renderer) Pending() []string {
	if r.ring == nil {
		return nil
	}
	var out []string
	for i := 0; i < r.n; i++ {
		l := r.row(i)
		if i == r.n-1 && l.w == 0 {
			break
		}
		out = append(out, l.String())
	}
	return out
}

// Render renders a whole buffer: one Write and a Flush.
func Render(p []byte) []string {
	lines, _ := RenderNumbered(p)
	return lines
}

// RenderNumbered is Render that also returns each line's num (see
// Renderer.Emit), for Options.LineNumbers.
//
// The lines share a few large allocations, about as large as p in all: a
// line kept after the others are dropped keeps the others' memory too.
func RenderNumbered(p []byte) (lines []string, nums []int64) { return RenderRows(p, 0) }

// RenderRows is RenderNumbered for output written to a terminal of rows
// rows (Renderer.Rows): a program that redraws the screen in place comes
// out as its last screen.
func RenderRows(p []byte, rows int) (lines []string, nums []int64) {
	r := Renderer{Rows: rows}
	// Most streams have about one line per '\n', and little more text
	// than bytes: make room for them up front.
	n := bytes.Count(p, []byte{'\n'}) + 1
	r.lines, r.nums = make([]string, 0, n), make([]int64, 0, n)
	r.store.next = len(p) + len(p)/16 + 256
	r.borrowRing()
	r.Write(p)
	r.Flush()
	r.returnRing()
	return r.Lines()
}

// ringPool holds the row windows of finished one-shot renders (Render,
// StripANSI): a session renders a small tail several times per command to
// classify the terminal, and a fresh window of DefaultWindow rows was about
// half of what an echo round trip allocated (issue #17).
var ringPool = sync.Pool{New: func() any { rg := make([]row, DefaultWindow); return &rg }}

// borrowRing gives a Renderer with the default window a pooled one; only
// for a Renderer that calls returnRing once its lines are out (they live in
// its store, never in the rows).
func (r *Renderer) borrowRing() {
	if r.ring != nil || (r.Window > 0 && r.Window != DefaultWindow) || r.Rows > DefaultWindow {
		return
	}
	r.ring, r.n = *ringPool.Get().(*[]row), 1
	r.ring[0].reset(0)
	r.rows = max(r.Rows, 0)
	r.seq.MaxString = maxString // what init does besides the window
}

// returnRing clears the window (its rows keep their buffers, not their
// text) and puts it back in the pool.
func (r *Renderer) returnRing() {
	rg := r.ring
	if len(rg) != DefaultWindow {
		return
	}
	for i := range rg {
		rg[i].reset(0)
		if cap(rg[i].b) > 1<<10 || cap(rg[i].cells) > 1<<10 {
			rg[i].b, rg[i].cells = nil, nil // a long line's buffer is not worth keeping
		}
	}
	r.ring, r.n, r.start, r.y, r.x = nil, 0, 0, 0, 0
	ringPool.Put(&rg)
}

// StripANSI returns what a terminal shows for s: Render's lines joined with
// '\n', with a final '\n' if s ends with an empty line. Text that is valid
// UTF-8 without control characters other than '\n' comes back unchanged,
// without copying.
func StripANSI(s string) string {
	clean := utf8.ValidString(s)
	for i := 0; clean && i < len(s); i++ {
		c := s[i]
		clean = (c >= 0x20 || c == '\n') && c != 0x7f && (c != 0xc2 || s[i+1] >= 0xa0)
	}
	if clean {
		return s
	}
	var r Renderer
	r.borrowRing()
	r.Write([]byte(s))
	ended := r.n > 1 && r.row(r.n-1).w == 0
	r.Flush()
	r.returnRing()
	lines, _ := r.Lines()
	out := strings.Join(lines, "\n")
	if ended {
		out += "\n"
	}
	return out
}
