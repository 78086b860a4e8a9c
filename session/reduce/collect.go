package reduce

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"strings"
	"unicode/utf8"
	"unsafe"
)

// Limits of a Collector. Reduce returns at most the head and tail of a fold
// (60 and 100 lines) and the lines it keeps from the middle, so the lines a
// Collector holds are those and a window of recent lines large enough for
// the tail after repeats are collapsed and for a command reducer to see a
// build's or a test run's last part whole: 10,000 lines, 100 times the
// tail. A line that leaves the window is still counted, and kept if it
// looks like an error, so a smaller window changes only where a marker
// starts, never what is lost. The window was 50,000 lines (4 MiB): 2.7 MB
// of a million-line command's live heap, which the garbage collector's
// goal doubles (issue #17).
const (
	collectHead      = 1000 // lines kept from the start
	collectHeadBytes = 256 << 10
	collectWindow    = 10000   // recent lines kept
	collectWinBytes  = 1 << 20 // … and their bytes
	collectKeptBytes = 2 << 20 // lines kept from the middle (LooksLikeError)
	maxQuoted        = 80      // the longest line a gap marker quotes
)

// A Collector renders a stream of any length into the lines Reduce needs,
// in memory bounded by its limits rather than by the stream's length: the
// first lines (the fold's head), the last lines (a window that covers the
// fold's tail), and from the middle every line that LooksLikeError, up to 2
// MiB of them. The other middle lines are counted, not kept: each run of
// them comes back from Finish as one marker line that says how many lines
// it stands for, which session lines they are and the call that reads
// them, and as an entry of Options.Gaps. Output short enough to fit the
// head and the window comes back whole, exactly as RenderNumbered renders
// it.
//
// Write accepts chunks split anywhere, as Renderer.Write does. The zero
// Collector is ready to use. A Collector is not safe for concurrent use.
type Collector struct {
	// Rows, if not zero, is the terminal's height (see Renderer.Rows).
	// Set it before the first Write.
	Rows int

	r Renderer

	head      []string
	headNums  []int64
	headBytes int

	// The window: the last lines, oldest first from win[ws], a ring once
	// it holds collectWindow lines (len(win) grows to that, then stays).
	// Their text is in wb (see push).
	win      []wline
	ws, wn   int // the oldest line's index and the count
	winBytes int
	wb       []byte // the window's text: bytes wbase.. of all it was given
	wbase    int64
	wend     int64 // wbase + len(wb)

	own arena // the text of the head's lines

	mid       []midItem
	keptBytes int
	total     int64 // lines completed
	lastNum   int64 // the num of the last line completed

	// oneByOne makes lines leave the window one at a time, as they did
	// before dropN: the reference its tests compare with.
	oneByOne bool

	// Bytes written, and of them those that text does not hold (see
	// binaryBytes), to tell binary output from text.
	written, odd int64
}

// A wline is a line of the window: its text is bytes off..off+n of what
// the window was given (wb from wbase on).
type wline struct {
	off, num int64
	n        int
}

// A midItem is a line kept from the middle (n == 0) or a run of n lines
// left out, the first of which is text.
type midItem struct {
	text string
	num  int64 // the first line's num
	n    int64
	same bool  // every line of the run is text
	errs int64 // lines of the run that LooksLikeError (over the byte limit)
	// textErr is whether text LooksLikeError, so that a run of the same
	// line judges it once.
	textErr bool
}

// Write renders p. It always returns len(p), nil.
//
// The Collector keeps its own copy of the lines it holds, and lets the
// renderer reuse its memory for the others (Renderer.borrow): the text of
// a long command's lines, about a byte for each byte of output, is no
// longer garbage for the collector to collect (issue #17).
func (c *Collector) Write(p []byte) (int, error) {
	c.r.borrow = true
	n := len(p)
	c.r.Rows = c.Rows // read by the first Write only
	for len(p) > 0 {
		// In pieces, so the renderer never holds more than a piece's
		// lines before take keeps what a result can show: one 8 MiB
		// write of `y` lines would otherwise be 4 million strings at once.
		k := len(p)
		if k > collectPiece {
			k = collectPiece
			if nl := bytes.LastIndexByte(p[:k], '\n'); nl >= 0 {
				k = nl + 1
			}
		}
		c.count(p[:k])
		c.r.Write(p[:k])
		c.take()
		p = p[k:]
	}
	return n, nil
}

// collectPiece is the most output Write renders before it keeps what a
// result can show of it.
const collectPiece = 16 << 10

// Lines returns how many lines have been completed so far.
func (c *Collector) Lines() int64 { return c.total }

func (c *Collector) take() {
	lines, nums := c.r.Take()
	i := 0
	for ; i < len(lines) && len(c.head) < collectHead && c.headBytes < collectHeadBytes; i++ {
		c.head = append(c.head, c.own.add(bytesOf(lines[i])))
		c.headNums = append(c.headNums, nums[i])
		c.headBytes += len(lines[i])
	}
	c.total += int64(len(lines))
	if len(nums) > 0 {
		c.lastNum = nums[len(nums)-1]
	}
	rest := len(lines) - i
	if rest == 0 {
		return
	}
	// Lines that will not fit the window leave it before the new ones
	// come in, oldest first, as they would one at a time: the window
	// ends as the longest run of last lines within both limits either
	// way, and the middle gets the same lines in the same order. In one
	// go, a flood's leaving lines cost a scan of their bytes rather
	// than a look at each line (see dropN).
	if over := c.wn + rest - collectWindow; over > 0 && !c.oneByOne {
		c.dropN(min(over, c.wn))
	}
	for ; i < len(lines); i++ {
		if c.wn == collectWindow {
			c.drop() // more new lines than the window holds
		}
		c.push(lines[i], nums[i])
		for c.oneByOne && c.wn > 1 && c.winBytes > collectWinBytes {
			c.drop()
		}
	}
	for c.wn > 1 && c.winBytes > collectWinBytes {
		c.drop()
	}
}

// push adds a line to the window's end. The window's entries grow by
// doubling up to collectWindow lines and are a ring from then on: 240 KB
// for the window of a long command, where a slice of strings that the
// window slid along held twice that and more. Its text is copied to wb,
// in order, so the window's oldest line starts its live bytes: when wb is
// full those move to its front, or wb grows when they fill half of it, so
// wb holds at most twice the window's bytes and copies each byte about
// twice (issue #17).
func (c *Collector) push(s string, num int64) {
	if c.wn == len(c.win) {
		// Full below collectWindow lines (take drops one at that size):
		// grow, oldest first from index 0.
		n := min(max(2*len(c.win), 1024), collectWindow)
		win := make([]wline, n)
		k := copy(win, c.win[c.ws:])
		copy(win[k:], c.win[:c.ws])
		c.win, c.ws = win, 0
	}
	if len(c.wb)+len(s) > cap(c.wb) {
		from := c.wend
		if c.wn > 0 {
			from = c.win[c.ws].off
		}
		live := c.wb[from-c.wbase:]
		if need := len(live) + len(s); 2*need > cap(c.wb) {
			c.wb = append(make([]byte, 0, max(2*need, 4<<10)), live...)
		} else {
			c.wb = c.wb[:copy(c.wb, live)]
		}
		c.wbase = from
	}
	c.wb = append(c.wb, s...)
	k := c.ws + c.wn
	if k >= len(c.win) {
		k -= len(c.win)
	}
	c.win[k] = wline{off: c.wend, num: num, n: len(s)}
	c.wend += int64(len(s))
	c.wn++
	c.winBytes += len(s)
}

// text returns the text of a window line, which lives in wb until the line
// leaves the window (a string that Finish hands out lives as long as it is
// used: wb is never written again).
func (c *Collector) text(l wline) string {
	if l.n == 0 {
		return ""
	}
	return unsafe.String(&c.wb[l.off-c.wbase], l.n)
}

// drop takes the window's oldest line out of it, to the middle.
func (c *Collector) drop() {
	l := c.win[c.ws]
	c.leave(c.text(l), l.num)
	c.winBytes -= l.n
	c.wn--
	if c.ws++; c.ws == len(c.win) {
		c.ws = 0
	}
}

// dropN takes the window's k oldest lines out of it, to the middle, as k
// drops do. When the middle ends in a run of lines that are not all the
// same and the k lines hold no letter (seq, a column of numbers), none of
// them looks like an error (lineInfo: a keyword and a location both need
// a letter) and each would only add one to the run: their text, which is
// contiguous in wb, is scanned eight bytes at a time instead. So too when
// the run is of one line that is not an error and the k lines are that
// line again (yes).
func (c *Collector) dropN(k int) {
	if k <= 0 {
		return
	}
	if last := len(c.mid) - 1; last >= 0 && c.mid[last].n > 0 {
		g := &c.mid[last]
		from := c.win[c.ws].off
		end := c.wend
		if k < c.wn {
			end = c.win[c.at(k)].off
		}
		text := c.wb[from-c.wbase : end-c.wbase]
		if !g.same && !hasLetter(text) || g.same && !g.textErr && c.allAre(k, g.text, text) {
			g.n += int64(k)
			c.winBytes -= int(end - from)
			c.wn -= k
			c.ws = c.at(k)
			return
		}
	}
	for range k {
		c.drop()
	}
}

// allAre reports whether each of the window's k oldest lines, whose text
// is b, is s: a run of one line (yes) that is not an error, which they
// would only add one each to.
func (c *Collector) allAre(k int, s string, b []byte) bool {
	if len(b) != k*len(s) {
		return false
	}
	for i := range k {
		if c.win[c.at(i)].n != len(s) {
			return false
		}
	}
	if len(s) == 1 {
		return len(bytes.Trim(b, s)) == 0
	}
	for i := 0; i < len(b); i += len(s) {
		if string(b[i:i+len(s)]) != s {
			return false
		}
	}
	return true
}

// at returns the ring index of the window's i-th oldest line.
func (c *Collector) at(i int) int {
	k := c.ws + i
	if k >= len(c.win) {
		k -= len(c.win)
	}
	return k
}

// hasLetter reports whether p holds an ASCII letter or a byte of 0x80 or
// above (isLetter), eight bytes at a time.
func hasLetter(p []byte) bool {
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		if x&hi8 != 0 {
			return true
		}
		y := x | lo8*0x20 // fold case
		if (lo8*(127+'{')-y)&(y+lo8*(127-'`'))&hi8 != 0 {
			return true
		}
	}
	for ; i < len(p); i++ {
		if isLetter[p[i]] {
			return true
		}
	}
	return false
}

// window returns the window's lines and nums, oldest first.
func (c *Collector) window() ([]string, []int64) {
	lines, nums := make([]string, 0, c.wn), make([]int64, 0, c.wn)
	for i := range c.wn {
		k := c.ws + i
		if k >= len(c.win) {
			k -= len(c.win)
		}
		lines = append(lines, c.text(c.win[k]))
		nums = append(nums, c.win[k].num)
	}
	return lines, nums
}

// bytesOf returns s's bytes, which must not be changed.
func bytesOf(s string) []byte { return unsafe.Slice(unsafe.StringData(s), len(s)) }

// leave takes a line that leaves the window for the middle.
func (c *Collector) leave(s string, num int64) {
	var isErr bool
	if k := len(c.mid) - 1; k >= 0 && c.mid[k].n > 0 && c.mid[k].same && s == c.mid[k].text {
		isErr = c.mid[k].textErr // a run of one line (yes): judged once
	} else {
		isErr = looksLikeError(s)
	}
	if isErr && c.keptBytes+len(s) <= collectKeptBytes {
		c.mid = append(c.mid, midItem{text: strings.Clone(s), num: num})
		c.keptBytes += len(s)
		return
	}
	if k := len(c.mid) - 1; k >= 0 && c.mid[k].n > 0 {
		g := &c.mid[k]
		g.n++
		g.same = g.same && s == g.text
		if isErr {
			g.errs++
		}
		return
	}
	g := midItem{num: num, n: 1, same: true}
	if len(s) <= maxQuoted {
		g.text = strings.Clone(s) // only compared and quoted: keep no more
		g.textErr = isErr
	} else {
		g.same = false
	}
	if isErr {
		g.errs++
	}
	c.mid = append(c.mid, g)
}

// Finish renders the rest of the stream and returns the lines for Reduce:
// every line if they all fitted, else the head, the middle's kept lines
// with a marker line for each run left out, and the window; nums as
// RenderNumbered's and gaps for Options.Gaps. first is the session line
// number of the stream's first line and hint gives the read call for
// session lines from to to (see Options.ReadHint); the markers use them.
// The Collector must not be used after Finish.
func (c *Collector) Finish(rest []byte, first int64, hint func(from, to int64) string) (lines []string, nums []int64, gaps []Gap) {
	c.Write(rest)
	c.r.Flush()
	c.take()
	if first == 0 {
		first = 1
	}
	if c.Binary() && c.total > 0 {
		// Rendered, binary data is garbage that costs tokens: say what it
		// is and how to get the bytes instead.
		from, to := first, first+c.lastNum
		call := "read that range with raw: true"
		if hint != nil {
			call = hint(from, to)
			if strings.HasSuffix(call, "}") {
				call = call[:len(call)-1] + `,"raw":true}`
			}
		}
		text := fmt.Sprintf("[%s of binary data (session lines %d–%d); %s for the bytes]", byteSize(c.written), from, to, call)
		c.head, c.win, c.mid = nil, nil, nil
		return []string{text}, []int64{0}, []Gap{{Index: 0, Lines: c.total}}
	}
	n := len(c.head) + len(c.mid) + c.wn
	lines = append(make([]string, 0, n), c.head...)
	nums = append(make([]int64, 0, n), c.headNums...)
	win, winNums := c.window()
	for k, m := range c.mid {
		if m.n == 0 {
			lines = append(lines, m.text)
			nums = append(nums, m.num)
			continue
		}
		next := winNums[0] // a run is always followed by a line: the window is never empty
		if k+1 < len(c.mid) {
			next = c.mid[k+1].num
		}
		from, to := first+m.num, first+max(next-1, m.num)
		gaps = append(gaps, Gap{Index: len(lines), Lines: m.n})
		lines = append(lines, gapText(m, from, to, hint))
		nums = append(nums, m.num)
	}
	lines = append(lines, win...)
	nums = append(nums, winNums...)
	c.head, c.win, c.mid = nil, nil, nil
	return lines, nums, gaps
}

// Binary reports whether the output written so far looks like binary data
// rather than text: at least 32 bytes, more than a tenth of them bytes that
// text does not hold (NUL and other control characters than tab, newline,
// carriage return, backspace, bell, form feed and ESC; bytes that are not
// UTF-8). A program's colours and cursor moves are text; the output of
// cat /bin/ls or of /dev/urandom is not.
func (c *Collector) Binary() bool { return c.written >= 32 && c.odd*10 > c.written }

// count adds p to the byte counts for Binary.
func (c *Collector) count(p []byte) {
	c.written += int64(len(p))
	c.odd += int64(binaryBytes(p))
}

// oddByte[b] is 1 for the bytes text does not hold on their own: controls
// other than tab, newline, carriage return, backspace, bell, form feed and
// ESC, and DEL. Bytes of 0x80 and above are judged by UTF-8 validity.
var oddByte = func() (t [256]uint8) {
	for b := range 0x20 {
		switch b {
		case '\t', '\n', '\r', '\b', '\a', '\f', 0x1b:
		default:
			t[b] = 1
		}
	}
	t[0x7f] = 1
	return t
}()

// binaryBytes counts the bytes of p that text does not hold: those oddByte
// marks, and bytes of 0x80 and above that are not part of valid UTF-8.
// It runs over every byte of a command's output: a table and no branch per
// byte (the loop with two comparisons per byte was a fifth of the
// pre-renderer's time for seq 1 1000000, issue #17).
//
// Eight bytes that are all printable ASCII (0x20–0x7e) or tab, newline
// and carriage return, most of a flood's, are passed over at once (a
// fifth of the pre-renderer's time for a flood of `yes` lines went to the
// table, issue #37; seq's lines of 8 bytes missed the fast path in every
// word until its line endings counted).
func binaryBytes(p []byte) int {
	n := 0
	var high uint8
	i := 0
	for ; i+8 <= len(p); i += 8 {
		x := binary.LittleEndian.Uint64(p[i:])
		// The top bit of each byte of x+0x60.. is set for 0x20 and
		// above, that of x+0x01.. for 0x7f (no carry for bytes below
		// 0x80, and any byte of 0x80 or above fails first).
		if x&hi8 == 0 {
			// Tabs, newlines and carriage returns count as printable:
			// a flood's lines are short, so most words hold one.
			x |= (isByte(x, '\n') | isByte(x, '\r') | isByte(x, '\t')) >> 2
			if ^(x+lo8*0x60)&hi8 == 0 && (x+lo8)&hi8 == 0 {
				continue
			}
		}
		for _, b := range p[i : i+8] {
			n += int(oddByte[b])
			high |= b
		}
	}
	for _, b := range p[i:] {
		n += int(oddByte[b])
		high |= b
	}
	if high >= 0x80 {
		n += invalidUTF8(p)
	}
	return n
}

// isByte returns the top bit of each byte of x that equals c, and no
// other bit, for x without bytes of 0x80 and above (no carry crosses a
// byte: each sum stays below 0x100).
func isByte(x uint64, c byte) uint64 {
	y := x ^ lo8*uint64(c)
	return ^((y + lo8*0x7f) | y) & hi8
}

// invalidUTF8 counts the bytes of p that are not part of valid UTF-8.
func invalidUTF8(p []byte) int {
	if utf8.Valid(p) {
		return 0
	}
	n := 0
	for i := 0; i < len(p); {
		if p[i] < 0x80 {
			i++
			continue
		}
		r, size := utf8.DecodeRune(p[i:])
		if r == utf8.RuneError && size == 1 {
			n++
		}
		i += size
	}
	return n
}

// byteSize formats n bytes for a person: 812 bytes, 56 KB, 95.4 MB.
func byteSize(n int64) string {
	switch {
	case n < 1<<10:
		return fmt.Sprintf("%d bytes", n)
	case n < 1<<20:
		return fmt.Sprintf("%d KB", (n+1<<9)>>10)
	}
	return fmt.Sprintf("%.1f MB", float64(n)/(1<<20))
}

// gapText is the marker for a run of lines left out.
func gapText(m midItem, from, to int64, hint func(from, to int64) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "[… %s elided", linesN(int(m.n)))
	if m.same && m.n > 1 && !looksLikeError(m.text) {
		fmt.Fprintf(&b, ", each %q", m.text)
	}
	fmt.Fprintf(&b, " (session lines %d–%d)", from, to)
	if m.errs > 0 {
		what := "lines that look like errors"
		if m.errs == 1 {
			what = "line that looks like an error"
		}
		fmt.Fprintf(&b, ", among them %s more %s", commas(m.errs), what)
	}
	if hint != nil {
		fmt.Fprintf(&b, ": %s to see them", hint(from, to))
	} else {
		b.WriteString("; read that range to see them")
	}
	b.WriteString("]")
	return b.String()
}
