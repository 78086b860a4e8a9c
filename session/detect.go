package session

import (
	"bytes"
	"strconv"

	"github.com/ttymux/ttymux/internal/termseq"
)

// markKind is the letter of an OSC 133 semantic prompt mark.
type markKind byte

const (
	markPromptStart markKind = 'A' // the prompt is about to be drawn
	markPromptEnd   markKind = 'B' // the prompt is drawn; typed input follows
	markCommand     markKind = 'C' // a command line was accepted; its output follows
	markDone        markKind = 'D' // the previous command finished; carries $?
)

// A mark is one shell-integration event found in the output stream.
type mark struct {
	kind   markKind
	status int   // exit status, for markDone
	off    int64 // offset of the ESC that starts the sequence
	end    int64 // offset one past its terminator
}

// maxMarks bounds the marks kept: waiters only ever look at marks made after
// their own send, so a short history is enough.
const maxMarks = 256

// maxOSC bounds the OSC payload collected; longer strings (images, clipboard
// data) are skipped without being stored.
const maxOSC = 128

// detector scans the terminal's output for what the completion verdict and
// the key encoder need: ttymux's own OSC 133 marks (with the session's nonce,
// so a nested shell's or a printed file's marks never count), bracketed-paste
// mode and application-cursor-key mode. Where sequences begin and end is
// internal/termseq's to say, as for the screen and the renderer; it carries
// its state across Write calls, so the answer never depends on where the
// stream was split.
//
// It is not safe for concurrent use; the Session's mutex guards it.
type detector struct {
	nonce []byte // "ttymux=<nonce>"; empty disables mark detection

	off  int64 // absolute offset of the next byte
	seq  termseq.Scanner
	buf  []byte // OSC payload collected so far
	over bool   // buf overflowed: the string is ignored

	marks []mark
	count int // marks found so far, including those dropped from marks

	// promptEnds: where the last B marks end, oldest first. They are kept
	// apart from marks (and not counted) because they only say where a
	// prompt ends, for moving the read cursor past it.
	promptEnds []int64

	bracketedPaste bool  // DECSET 2004
	pasteOnAt      int64 // where bracketed paste was last turned on
	appCursor      bool  // DECSET 1 (DECCKM)
	// cursorHidden: DECRST 25 (DECTCEM) hid the cursor, last at offset
	// hiddenAt, and it was not shown since. A program drawing a full
	// screen hides it; nothing waiting for typed input does.
	cursorHidden bool
	hiddenAt     int64
}

func newDetector(nonce string) *detector {
	d := &detector{buf: make([]byte, 0, maxOSC)}
	if nonce != "" {
		d.nonce = []byte("ttymux=" + nonce)
	}
	return d
}

// Write scans p, the bytes that follow everything written before. It never
// fails.
func (d *detector) Write(p []byte) (int, error) {
	delta := d.off - d.seq.Offset() // the scanner's offsets to absolute ones
	for i := 0; i < len(p); {
		n, ev := d.seq.Next(p[i:])
		switch ev {
		case termseq.CSI:
			d.csi(d.seq.Start() + delta)
		case termseq.StringStart:
			d.buf, d.over = d.buf[:0], false
		case termseq.Data:
			if d.seq.Kind() == ']' {
				d.collect(p[i : i+n])
			}
		case termseq.StringEnd:
			if d.seq.Kind() == ']' && d.seq.Term().Dispatched() {
				d.osc(d.seq.Start()+delta, d.seq.Offset()+delta)
			}
		case termseq.Esc:
			// ST (ESC \) right after a mark is its terminator.
			if k := len(d.marks) - 1; d.seq.Final() == '\\' && d.seq.Inter() == 0 && k >= 0 && d.marks[k].end == d.seq.Start()+delta {
				d.marks[k].end = d.seq.Offset() + delta
			}
		}
		i += n
	}
	d.off += int64(len(p))
	return len(p), nil
}

// Skip accounts for n bytes of output that were lost before they reached
// the detector (a gap the agent reported). Offsets of later marks stay
// absolute, so a verdict waiting for the mark after its send offset finds
// it; a sequence cut by the gap is dropped, as a terminal would lose it.
func (d *detector) Skip(n int64) {
	d.off += n
	d.seq.Skip(n)
	d.buf, d.over = d.buf[:0], false
}

func (d *detector) collect(p []byte) {
	if d.over || len(d.buf)+len(p) > maxOSC {
		d.over = true
		return
	}
	d.buf = append(d.buf, p...)
}

// csi handles a complete CSI sequence that began at off; only DEC private
// modes matter here.
func (d *detector) csi(off int64) {
	final := d.seq.Final()
	if final != 'h' && final != 'l' || d.seq.Marker() != '?' || d.seq.Inter() != 0 {
		return
	}
	on := final == 'h'
	for _, v := range d.seq.Params() {
		switch v {
		case 1:
			d.appCursor = on
		case 2004:
			d.bracketedPaste = on
			if on {
				d.pasteOnAt = off
			}
		case 25:
			d.cursorHidden = !on
			if !on {
				d.hiddenAt = off
			}
		}
	}
}

// osc handles a complete OSC string from off to end (past its terminator).
func (d *detector) osc(off, end int64) {
	if d.over || len(d.nonce) == 0 || !bytes.HasPrefix(d.buf, []byte("133;")) {
		return
	}
	fields := bytes.Split(d.buf[4:], []byte{';'})
	if len(fields) < 2 || len(fields[0]) != 1 || !bytes.Equal(fields[len(fields)-1], d.nonce) {
		return
	}
	m := mark{kind: markKind(fields[0][0]), off: off, end: end}
	switch m.kind {
	case markPromptEnd:
		if len(d.promptEnds) == maxMarks {
			d.promptEnds = append(d.promptEnds[:0], d.promptEnds[maxMarks/2:]...)
		}
		d.promptEnds = append(d.promptEnds, end)
		return
	case markDone:
		if len(fields) != 3 {
			return
		}
		st, err := strconv.Atoi(string(fields[1]))
		if err != nil {
			return
		}
		m.status = st
	case markPromptStart, markCommand:
	default:
		return
	}
	if len(d.marks) == maxMarks {
		copy(d.marks, d.marks[maxMarks/2:])
		d.marks = d.marks[:maxMarks/2]
	}
	d.marks = append(d.marks, m)
	d.count++
}

// firstAfter returns the first mark of kind k that starts at or after off.
func (d *detector) firstAfter(k markKind, off int64) (mark, bool) {
	for _, m := range d.marks {
		if m.kind == k && m.off >= off {
			return m, true
		}
	}
	return mark{}, false
}

// promptEndAfter returns where the prompt drawn after the D mark at done
// ends (one past its B mark): the first B after done, unless another D
// comes before it (that prompt had no B).
func (d *detector) promptEndAfter(done int64) (int64, bool) {
	for _, e := range d.promptEnds {
		if e <= done {
			continue
		}
		for _, m := range d.marks {
			if m.kind == markDone && m.off > done && m.off < e {
				return 0, false
			}
		}
		return e, true
	}
	return 0, false
}

// doneSince counts the D marks that start at or after off.
func (d *detector) doneSince(off int64) int {
	n := 0
	for _, m := range d.marks {
		if m.kind == markDone && m.off >= off {
			n++
		}
	}
	return n
}

// last returns the most recent mark of any kind.
func (d *detector) last() (mark, bool) {
	if len(d.marks) == 0 {
		return mark{}, false
	}
	return d.marks[len(d.marks)-1], true
}
