package screen

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/vt"
)

// Defaults and limits. See the package documentation for the reasoning.
const (
	defaultRows       = 24
	defaultCols       = 80
	defaultScrollback = 1000

	// quietDelay is how long the output must pause before the emulator
	// catches up on its own.
	quietDelay = 15 * time.Millisecond
	// maxBacklog is the most output Write keeps for the emulator; beyond
	// it, the backlog is cut to a tail (see compact).
	maxBacklog = 256 << 10
	// maxReplay is the most output of a flood replayed into the emulator.
	maxReplay = 64 << 10
	// replyQueue is how many answers may wait for Options.Reply; more are
	// dropped rather than stall the emulator.
	replyQueue = 64
)

// Options configure a Screen. The zero value is ready to use.
type Options struct {
	// Scrollback is the number of lines kept after they scroll off the top
	// of the normal screen. Zero or less means 1000. A flood (see the
	// package documentation) keeps at most about 64 KiB of them. vt
	// stores about 15 KB per full 80-column line, and more lines make the
	// catch-up after a flood slower.
	Scrollback int

	// Reply receives the terminal's answers to queries the program makes
	// (cursor position ESC[6n, device attributes ESC[c and ESC[>c, ...),
	// normally the PTY's input. Programs block until they get the answer.
	// Answers are written from a goroutine of the Screen, one Write per
	// answer; Reply must be safe to use concurrently with the caller's own
	// writes. nil discards the answers.
	Reply io.Writer
}

// limits are the tunables, fixed in production and small in some tests.
type limits struct {
	quiet      time.Duration
	maxBacklog int
	maxReplay  int
	// Answers to queries are rate-limited: a program asks a few questions
	// at startup or after a resize (vim asks about a dozen), not hundreds
	// a second. Beyond answerBurst, queries are answered at answerRate a
	// second, and the rest vanish. Zero means the defaults.
	answerBurst int
	answerRate  float64
}

var defaultLimits = limits{quiet: quietDelay, maxBacklog: maxBacklog, maxReplay: maxReplay, answerBurst: 32, answerRate: 16}

// A Screen is a terminal emulator fed with a program's output: bytes in,
// screen snapshots out. All its methods are safe for concurrent use.
//
// The emulator is created on first need (see the package documentation).
// Write never waits for it. Snapshot, Scrollback, Resize and Reset wait for
// it.
type Screen struct {
	lim        limits
	scrollback int
	reply      io.Writer

	kick chan struct{} // wakes run; buffered, one token
	done chan struct{} // closed by Close
	wg   sync.WaitGroup

	closeOnce sync.Once

	// mu protects the following. It is held only briefly, never while the
	// emulator works.
	mu     sync.Mutex
	sc     scanner
	pend   backlog
	spare  []byte // a buffer for the next backlog, or nil
	cbuf   []byte // scratch for compaction in Write
	rows   int
	cols   int
	writes uint64  // number of Writes, to detect quiet
	tokens float64 // queries that may still be answered now (answerableLocked)
	// addrPauses counts the quiet pauses in a row after output that
	// addressed the cursor on the normal screen.
	addrPauses int
	filled     time.Time // when tokens was last topped up
	urgent     bool      // a query waits for its answer
	feeding    bool      // catchUp feeds the emulator a query (answers may come)
	replying   int       // answers queued for Options.Reply or being written
	// reads counts the answers drain has read; readsFed is reads when the
	// last feed of a query began and fedAt when it ended. vt's Write
	// returns as soon as drain has read its answer, a moment before drain
	// counts it.
	reads    uint64
	readsFed uint64
	fedAt    time.Time
	armed    bool         // run has been told of pending output
	closed   bool         // Close has begun
	made     *vt.Emulator // emu once it exists: Write and Close may test it and close its input pipe

	// emuMu protects the following, and serialises all use of the
	// emulator. Lock order: emuMu, then mu.
	emuMu sync.Mutex
	emu   *vt.Emulator // nil until first needed
	fbuf  []byte       // scratch for compaction in catchUp
}

// New returns a Screen of rows by cols cells, ready for Write. Values below
// 1 mean 24 rows or 80 columns. The Screen runs goroutines until Close. It
// does not create the emulator yet.
func New(rows, cols int, opts Options) *Screen {
	return newScreen(rows, cols, opts, defaultLimits)
}

func newScreen(rows, cols int, opts Options, lim limits) *Screen {
	if rows < 1 {
		rows = defaultRows
	}
	if cols < 1 {
		cols = defaultCols
	}
	sb := opts.Scrollback
	if sb <= 0 {
		sb = defaultScrollback
	}
	s := &Screen{
		lim:        lim,
		scrollback: sb,
		reply:      opts.Reply,
		kick:       make(chan struct{}, 1),
		done:       make(chan struct{}),
		rows:       rows,
		cols:       cols,
	}
	s.pend.reset(&s.sc)
	s.wg.Go(s.run)
	return s
}

// makeEmu creates the emulator at rows x cols, with the goroutines that
// read its answers to queries. s.emuMu must be held, and s.emu be nil.
func (s *Screen) makeEmu(rows, cols int) {
	emu := vt.NewEmulator(cols, rows)
	emu.SetScrollbackSize(s.scrollback)
	// vt answers DSR 5 (operating status) with the DEC form ESC[?0n;
	// terminals answer ESC[0n (ECMA-48 8.3.35; xterm ctlseqs, "CSI Ps n").
	// Handlers registered later are tried first.
	emu.RegisterCsiHandler('n', func(params ansi.Params) bool {
		if n, _, _ := params.Param(0, 0); n != 5 || len(params) != 1 {
			return false
		}
		_, _ = io.WriteString(emu.InputPipe(), "\x1b[0n") // fails only after Close
		return true
	})
	s.emu = emu

	// vt's Write blocks on a query until its answer is read from the
	// emulator, so something must always be reading. Close waits for the
	// readers if it finds s.made set; if it has run already, nobody
	// reads, and the closed pipe makes the answers fail instead of block.
	s.mu.Lock()
	defer s.mu.Unlock()
	s.made = emu
	if s.closed {
		closeInput(emu)
		return
	}
	replies := make(chan []byte, replyQueue)
	s.wg.Go(func() { s.drain(emu, replies) })
	s.wg.Go(func() { s.answer(replies) })
}

// closeInput closes the emulator's input pipe, which ends drain and makes
// further answers fail at once. Closing the pipe, rather than calling the
// emulator's Close, avoids racing with its unguarded closed flag, which
// Read checks, and keeps the emulator usable.
func closeInput(emu *vt.Emulator) {
	if c, ok := emu.InputPipe().(io.Closer); ok {
		_ = c.Close() // a pipe's Close cannot fail
	} else {
		_ = emu.Close()
	}
}

// Write records output of the program for the emulator. It never blocks on
// the emulator and always returns len(p), nil; after Close it drops p.
func (s *Screen) Write(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return len(p), nil
	}
	base := len(s.pend.buf)
	s.pend.buf = append(s.pend.buf, p...)
	s.pend.lines += bytes.Count(p, []byte{'\n'})
	hideC1(s.pend.buf, base)
	s.sc.queries = s.sc.queries[:0]
	query := s.sc.scan(&s.pend, p, base)
	if query {
		// Binary output, or queries faster than a program asks them:
		// vt must not answer them into the program's input (issue #14
		// item 5). vt ignores CAN: in place of a query's bytes it makes
		// the query vanish (of an OSC query, only the ESC).
		n := s.answerableLocked()
		for _, q := range s.sc.queries[n:] {
			if q.start < 0 || q.start >= len(s.pend.buf) || s.pend.buf[q.start] != esc {
				continue
			}
			end := q.end
			if end < 0 || end > len(s.pend.buf) {
				end = q.start + 1
			}
			for k := q.start; k < end; k++ {
				s.pend.buf[k] = 0x18
			}
		}
		query = n > 0
	}
	cut := len(s.pend.buf) > s.lim.maxBacklog
	if cut {
		old := s.pend.buf
		s.pend, s.sc = compact(s.cbuf, &s.pend, &s.sc, s.cutLocked())
		s.cbuf = nil
		if cap(old) <= 2*s.lim.maxBacklog { // not after one huge Write
			s.cbuf = old[:0]
		}
	}
	s.writes++
	kick := false
	// Without an emulator, output waits in the backlog until something
	// needs the screen: a query, the alternate screen or a reader. After a
	// cut, run lets go of the flood's buffers once it is over.
	if query || s.sc.alt || s.sc.addressed || s.made != nil || cut {
		kick = query || !s.armed
		s.armed = true
	}
	if query {
		s.urgent = true
	}
	s.mu.Unlock()

	if kick {
		select {
		case s.kick <- struct{}{}:
		default:
		}
	}
	return len(p), nil
}

// answerableLocked returns how many of the queries the last scan found
// may be answered: none if the output before the first of them looks like
// binary data (in which query-shaped bytes are chance), else as many as the
// rate limit allows. s.mu must be held.
func (s *Screen) answerableLocked() int {
	qs := s.sc.queries
	if len(qs) == 0 {
		return 0
	}
	if at := qs[0].start; at >= 0 && at < len(s.pend.buf) && looksBinary(s.pend.buf[max(0, at-binaryWindow):min(len(s.pend.buf), at+binaryWindow)]) {
		return 0
	}
	burst, rate := float64(s.lim.answerBurst), s.lim.answerRate
	if burst <= 0 {
		burst, rate = float64(defaultLimits.answerBurst), defaultLimits.answerRate
	}
	now := time.Now()
	if s.filled.IsZero() {
		s.tokens = burst
	} else {
		s.tokens = min(burst, s.tokens+now.Sub(s.filled).Seconds()*rate)
	}
	s.filled = now
	n := min(len(qs), int(s.tokens))
	s.tokens -= float64(n)
	return n
}

// binaryWindow is how much output on each side of a query tells whether
// it is text.
const binaryWindow = 256

// looksBinary reports whether more than a tenth of p are bytes that text
// does not hold: NUL and other C0 controls than tab, newline, carriage
// return, backspace, bell, form feed and ESC; DEL; bytes not part of
// valid UTF-8.
func looksBinary(p []byte) bool {
	n, high := 0, false
	for _, c := range p {
		if c < 0x20 && c != '\t' && c != '\n' && c != '\r' && c != '\b' && c != '\a' && c != '\f' && c != esc || c == 0x7f {
			n++
		}
		high = high || c >= 0x80
	}
	if high && !utf8.Valid(p) {
		for i := 0; i < len(p); {
			r, size := utf8.DecodeRune(p[i:])
			if r == utf8.RuneError && size == 1 {
				n++
			}
			i += size
		}
	}
	return n*10 > len(p)
}

// hideC1 replaces, in buf from start on, each byte that is not part of
// valid UTF-8 with 0xFF, which vt shows as an invalid character. vt takes
// a lone byte 0x80–0x9F for an 8-bit C1 control (0x9B for CSI, 0x90 for
// DCS), and its UTF-8 decoder takes any bytes after a lead byte for the
// rest of the character, so that in "\xde\xcf\x9bc" it swallows the
// 0xCF and leaves 0x9B c, a DA query. Binary output is full of both, and
// vt answered the queries into the shell ("22cecho: command not found",
// issue #14 item 5). A UTF-8 terminal (xterm in UTF-8 mode, tmux) shows
// such bytes as invalid characters. A sequence split by the previous Write
// is completed from the bytes before start; one left incomplete at the
// end is looked at again by the next call (those bytes are still in buf,
// not yet fed to vt).
func hideC1(buf []byte, start int) {
	i := start
	// Back up to the lead byte of a sequence the previous bytes began.
	for k := 1; k <= utf8.UTFMax-1 && start-k >= 0; k++ {
		c := buf[start-k]
		if c < 0x80 {
			break
		}
		if c >= 0xc0 {
			i = start - k
			break
		}
	}
	// Most output is ASCII: skip to the first byte that is not, eight
	// bytes at a time.
	for i+8 <= len(buf) && binary.LittleEndian.Uint64(buf[i:])&0x8080808080808080 == 0 {
		i += 8
	}
	for i < len(buf) && buf[i] < 0x80 {
		i++
	}
	if i == len(buf) || utf8.Valid(buf[i:]) {
		return
	}
	for i < len(buf) {
		c := buf[i]
		if c < 0x80 {
			i++
			continue
		}
		if !utf8.FullRune(buf[i:]) {
			return // completed, or not, by the next Write
		}
		r, size := utf8.DecodeRune(buf[i:])
		if r == utf8.RuneError && size == 1 {
			buf[i] = 0xff
		}
		i += size
	}
}

// partialRune returns the length of an incomplete UTF-8 sequence at the
// end of b (a lead byte and fewer continuation bytes than it needs), or 0.
func partialRune(b []byte) int {
	for k := 1; k < utf8.UTFMax && k <= len(b); k++ {
		c := b[len(b)-k]
		if c < 0x80 {
			return 0
		}
		if c >= 0xc0 {
			if !utf8.FullRune(b[len(b)-k:]) {
				return k
			}
			return 0
		}
	}
	return 0
}

// cutLocked says how to cut a flood: keep enough lines to fill the screen
// and the scrollback, so that the cut loses nothing the emulator would have
// kept, within maxReplay bytes. s.mu must be held.
func (s *Screen) cutLocked() cut {
	return cut{rows: s.rows, cols: s.cols, lines: s.rows + s.scrollback, maxBytes: s.lim.maxReplay}
}

// AltScreen reports whether the program has switched to the alternate screen
// (as full-screen programs such as vim, less and htop do). It does not wait
// for the emulator.
func (s *Screen) AltScreen() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sc.alt
}

// RedrawsInPlace reports whether the program draws on the normal screen
// as a full-screen program does: it hid the cursor and, since then, moved
// it to absolute positions (CUP, HVP, VPA), as top does for every frame.
// Such a program skips the rows that did not change since its last frame,
// so its output makes sense only as its screen (issue #13 item 8). Showing
// the cursor, a switch of screens or a reset ends it.
func (s *Screen) RedrawsInPlace() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.sc.inPlace && s.sc.hidden && !s.sc.alt
}

// Snapshot brings the emulator up to date with everything written so far
// and returns the screen. After a flood, only its tail is replayed (see the
// package documentation), which takes at most a few tens of milliseconds.
func (s *Screen) Snapshot() Snapshot {
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	title := s.catchUp()

	snap := Snapshot{
		Lines:     screenLines(s.emu),
		AltScreen: s.emu.IsAltScreen(),
		Rows:      s.emu.Height(),
		Cols:      s.emu.Width(),
		Title:     title,
	}
	pos := s.emu.CursorPosition()
	snap.CursorRow, snap.CursorCol = pos.Y, pos.X
	return snap
}

// screenLines returns the visible rows of emu without trailing spaces.
func screenLines(emu *vt.Emulator) []string {
	rows, cols := emu.Height(), emu.Width()
	lines := make([]string, rows)
	var line strings.Builder
	for y := range rows {
		line.Reset()
		for x := 0; x < cols; x++ {
			c := emu.CellAt(x, y)
			if c == nil || c.Content == "" {
				line.WriteByte(' ')
				continue
			}
			line.WriteString(c.Content)
			// A wide character is followed by placeholder cells.
			x += max(c.Width, 1) - 1
		}
		lines[y] = strings.TrimRight(line.String(), " ")
	}
	return lines
}

// Scrollback returns the last n lines that scrolled off the top of the
// normal screen, oldest first, without trailing spaces. It returns fewer if
// fewer are kept, and nil if n < 1.
func (s *Screen) Scrollback(n int) []string {
	if n < 1 {
		return nil
	}
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	s.catchUp()
	sb := s.emu.Scrollback()
	if sb == nil {
		return nil
	}
	all := sb.Lines()
	all = all[max(len(all)-n, 0):]
	lines := make([]string, len(all))
	for i, l := range all {
		lines[i] = strings.TrimRight(l.String(), " ")
	}
	return lines
}

// Resize changes the size of the screen. Output written before the call is
// laid out at the old size, as a terminal would have done. Values below 1
// leave the size unchanged.
func (s *Screen) Resize(rows, cols int) {
	if rows < 1 || cols < 1 {
		return
	}
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	if s.emu == nil {
		// Record the size; the replay resizes at the same place.
		s.mu.Lock()
		s.pend.addResize(s.rows, s.cols, rows, cols)
		s.rows, s.cols = rows, cols
		s.mu.Unlock()
		return
	}
	s.catchUp()
	s.emu.Resize(cols, rows)
	s.mu.Lock()
	s.rows, s.cols = rows, cols
	s.mu.Unlock()
}

// Reset discards pending output and resets the terminal fully: both
// screens, the scrollback, the modes and the title, as when a new program
// takes over the session.
func (s *Screen) Reset() {
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	s.mu.Lock()
	s.sc = scanner{}
	s.pend.reset(&s.sc)
	s.urgent = false
	s.mu.Unlock()
	if s.emu == nil {
		return // a new emulator starts out reset
	}
	_, _ = s.emu.Write([]byte(cancelSeq + "\x1bc")) // RIS; vt's Write never fails
	s.emu.ClearScrollback()                         // which RIS keeps in vt
}

// Close stops the Screen's goroutines and waits for them. It is idempotent
// and always returns nil. Write drops its input after Close; the other
// methods keep working on the final state. A write to Options.Reply in
// progress is waited for, so close the PTY first if it may block.
func (s *Screen) Close() error {
	s.closeOnce.Do(func() {
		s.mu.Lock()
		s.closed = true
		emu := s.made
		s.mu.Unlock()
		close(s.done)
		if emu != nil {
			closeInput(emu) // ends drain, whose end ends answer
		}
		s.wg.Wait()
	})
	return nil
}

// run feeds the emulator when the output pauses or a query is waiting. It
// creates the emulator for a query or for the alternate screen.
func (s *Screen) run() {
	t := time.NewTimer(time.Hour)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-s.done:
			return
		case <-s.kick:
		}
		for {
			s.mu.Lock()
			urgent, armed, writes := s.urgent, s.armed, s.writes
			s.mu.Unlock()
			if urgent || !armed {
				break
			}
			t.Reset(s.lim.quiet)
			quiet := false
			select {
			case <-s.done:
				return
			case <-s.kick: // a query, or more output after a catch-up
				t.Stop()
				continue
			case <-t.C:
				s.mu.Lock()
				quiet = s.writes == writes
				s.mu.Unlock()
			}
			if quiet {
				break
			}
		}
		s.emuMu.Lock()
		s.mu.Lock()
		// A program that addresses the cursor on the normal screen in
		// two pauses in a row redraws it in place (top): its frames skip
		// the rows that did not change, so only an emulator that saw every
		// frame shows them; a replay of a tail would leave them blank
		// (issue #13 item 8). One such pause is a clear command.
		if s.sc.addressed {
			s.addrPauses++
			s.sc.addressed = false
		} else {
			s.addrPauses = 0
		}
		need := s.emu != nil || s.urgent || s.sc.alt || s.addrPauses >= 2
		if !need {
			s.armed = false
			s.trimLocked()
		}
		s.mu.Unlock()
		if need {
			s.catchUp()
		}
		s.emuMu.Unlock()
	}
}

// trimLocked lets go of the scratch buffer of a flood and of the unused
// capacity of the backlog, for a Screen without an emulator (so without
// s.spare or s.fbuf) that has gone quiet. s.mu must be held.
func (s *Screen) trimLocked() {
	s.cbuf = nil
	if b := s.pend.buf; cap(b)-len(b) > max(len(b), 4<<10) {
		s.pend.buf = append(make([]byte, 0, len(b)+len(b)/4), b...)
	}
}

// catchUp feeds the backlog to the emulator, cut to a tail if it is long,
// and returns the window title as of its end. It creates the emulator if
// there is none yet. s.emuMu must be held.
func (s *Screen) catchUp() (title string) {
	s.mu.Lock()
	b, sc := s.pend, s.sc
	c := s.cutLocked()
	s.pend = backlog{buf: s.spare}
	s.spare = nil
	s.pend.reset(&s.sc)
	// A UTF-8 sequence cut by the end of the output so far waits for the
	// rest in the new backlog, so that hideC1 sees it whole.
	if k := partialRune(b.buf); k > 0 && sc.inGround() {
		s.pend.buf = append(s.pend.buf, b.buf[len(b.buf)-k:]...)
		b.buf = b.buf[:len(b.buf)-k]
	}
	s.sc.rebase(len(b.buf))
	s.feeding = s.urgent // only a feed that answers a query is waited for
	if s.feeding {
		s.readsFed = s.reads
	}
	s.urgent, s.armed = false, false
	s.mu.Unlock()
	defer func() {
		s.mu.Lock()
		if s.feeding {
			s.fedAt = time.Now()
		}
		s.feeding = false
		s.mu.Unlock()
	}()

	fed := b.buf
	// Output that redraws the normal screen in place (top) is not cut by
	// lines: its frames skip the rows that did not change, which only its
	// earlier frames draw. Write keeps it within maxBacklog.
	inPlace := b.addressed && !sc.alt && len(b.trans) == 0 && len(b.buf) <= s.lim.maxBacklog
	if (len(b.buf) > c.maxBytes || b.lines > c.lines) && !inPlace {
		b, _ = compact(s.fbuf, &b, &sc, c) // laid out at the current size
		s.fbuf = b.buf
	}
	if s.emu == nil {
		rows, cols := c.rows, c.cols
		if len(b.resizes) > 0 {
			rows, cols = b.resizes[0].oldRows, b.resizes[0].oldCols
		}
		s.makeEmu(rows, cols)
	}
	if len(b.buf) > 0 {
		feed(s.emu, &b)
	}
	b.buf = fed

	s.mu.Lock()
	if cap(b.buf) <= 2*s.lim.maxBacklog {
		s.spare = b.buf[:0]
	}
	// Trust the emulator if the scanner misread a switch (see scan.go).
	if alt := s.emu.IsAltScreen(); alt != sc.alt && len(s.pend.trans) == 0 {
		s.sc.alt, s.pend.startAlt = alt, alt
	}
	s.mu.Unlock()
	return sc.title
}

// feed writes a backlog to the emulator, resizing it where the backlog
// says. vt does not know mode 47, the original alternate screen of xterm,
// so switches by it are doubled with the equivalent 1047.
func feed(emu *vt.Emulator, b *backlog) {
	pos := 0
	rs := b.resizes
	// upTo writes up to end, resizing on the way.
	upTo := func(end int) {
		for ; len(rs) > 0 && rs[0].off <= end; rs = rs[1:] {
			_, _ = emu.Write(b.buf[pos:rs[0].off]) // vt's Write never fails
			pos = rs[0].off
			emu.Resize(rs[0].cols, rs[0].rows)
		}
		_, _ = emu.Write(b.buf[pos:end])
		pos = end
	}
	for _, t := range b.trans {
		if t.mode != 47 {
			continue
		}
		upTo(t.end)
		if t.kind == altOn {
			_, _ = emu.Write([]byte("\x1b[?1047h"))
		} else {
			_, _ = emu.Write([]byte("\x1b[?1047l"))
		}
	}
	upTo(len(b.buf))
}

// addResize records a change of the screen size from oldRows x oldCols at the
// end of b. Output before it is laid out at the old size when fed.
func (b *backlog) addResize(oldRows, oldCols, rows, cols int) {
	n := len(b.buf)
	if n == 0 {
		return // nothing laid out yet: the emulator starts at the new size
	}
	if k := len(b.resizes); k > 0 && b.resizes[k-1].off == n {
		r := &b.resizes[k-1]
		r.rows, r.cols = rows, cols
		if r.rows == r.oldRows && r.cols == r.oldCols {
			b.resizes = b.resizes[:k-1]
		}
		return
	}
	if rows != oldRows || cols != oldCols {
		b.resizes = append(b.resizes, resize{off: n, oldRows: oldRows, oldCols: oldCols, rows: rows, cols: cols})
	}
}

// drain reads the emulator's answers to queries and queues them for
// answer, dropping them if the queue is full, so that the emulator never
// waits for the PTY. It closes replies when the emulator's pipe is closed.
func (s *Screen) drain(emu *vt.Emulator, replies chan<- []byte) {
	defer close(replies)
	buf := make([]byte, 4096)
	for {
		n, err := emu.Read(buf)
		if n > 0 && s.reply != nil {
			s.mu.Lock()
			s.replying++
			s.reads++
			s.mu.Unlock()
			select {
			case replies <- bytes.Clone(buf[:n]):
			default:
				s.answered()
			}
		}
		if err != nil {
			return
		}
	}
}

// answer writes queued answers to Options.Reply.
func (s *Screen) answer(replies <-chan []byte) {
	for p := range replies {
		_, _ = s.reply.Write(p) // best effort: the program may be gone
		s.answered()
	}
}

func (s *Screen) answered() {
	s.mu.Lock()
	s.replying--
	s.mu.Unlock()
}

// answerPoll is how often AwaitAnswers looks again; answerGrace is how
// long after a query was fed to the emulator its answer may still be on
// its way to being counted (vt answers none to some queries).
const (
	answerPoll  = time.Millisecond
	answerGrace = 20 * time.Millisecond
)

// AwaitAnswers waits, at most d, until the program's terminal queries
// written so far are answered: the answers written to Options.Reply. A
// terminal answers at once; the emulator answers from a goroutine, after
// creating itself for the first query. Input typed before the answer
// lands in front of it: BusyBox ash asks where the cursor is (ESC[6n)
// after every prompt, and an answer that comes after a typed command is
// read by that command, or echoed into its output. It returns at once
// when no query is pending.
func (s *Screen) AwaitAnswers(ctx context.Context, d time.Duration) {
	var deadline <-chan time.Time
	var tick *time.Ticker
	for {
		s.mu.Lock()
		pending := s.urgent || s.feeding || s.replying > 0 ||
			s.reads == s.readsFed && !s.fedAt.IsZero() && time.Since(s.fedAt) < answerGrace
		s.mu.Unlock()
		if !pending {
			return
		}
		if tick == nil {
			t := time.NewTimer(d)
			defer t.Stop()
			deadline = t.C
			tick = time.NewTicker(answerPoll)
			defer tick.Stop()
		}
		select {
		case <-tick.C:
		case <-deadline:
			return
		case <-ctx.Done():
			return
		case <-s.done:
			return
		}
	}
}
