package verdict

import (
	"bytes"
	"strconv"
	"strings"

	"github.com/ttymux/ttymux/internal/termseq"
)

// A MarkKind is the letter of an OSC 133 semantic prompt mark.
type MarkKind byte

// The marks ttymux's shell hook prints (FinalTerm's semantic prompts).
const (
	MarkPromptStart MarkKind = 'A' // the prompt is about to be drawn
	MarkPromptEnd   MarkKind = 'B' // the prompt is drawn; typed input follows
	MarkCommand     MarkKind = 'C' // a command line was accepted; its output follows
	MarkDone        MarkKind = 'D' // the previous command finished; carries $?
	// MarkNoHook is ttymux's own: the hook could not be installed, and
	// the mark says why in words ("PROMPT_COMMAND and PS1 are readonly",
	// "no hook for tcsh"). It is not kept with the
	// others (NoHook).
	MarkNoHook MarkKind = 'N'
)

// A Mark is one shell-integration event found in the output stream.
type Mark struct {
	Kind   MarkKind
	Status int   // exit status, for MarkDone
	Off    int64 // offset of the ESC that starts the sequence
	End    int64 // offset one past its terminator
}

// maxMarks bounds the marks kept: waiters only ever look at marks made after
// their own send, so a short history is enough.
const maxMarks = 256

// maxOSC bounds the OSC payload collected; longer strings (images, clipboard
// data) are skipped without being stored.
const maxOSC = 128

// A Detector scans the terminal's output for what the completion verdict and
// the key encoder need: ttymux's own OSC 133 marks (with the session's nonce,
// so a nested shell's or a printed file's marks never count), bracketed-paste
// mode and application-cursor-key mode. Where sequences begin and end is
// internal/termseq's to say, as for the screen and the renderer; it carries
// its state across Write calls, so the answer never depends on where the
// stream was split.
//
// It is not safe for concurrent use: the session's mutex guards it, and
// every method below is called with that mutex held.
type Detector struct {
	nonce []byte // "ttymux=<nonce>"; empty disables mark detection

	off  int64 // absolute offset of the next byte
	seq  termseq.Scanner
	buf  []byte // OSC payload collected so far
	over bool   // buf overflowed: the string is ignored

	marks []Mark
	count int // marks found so far, including those dropped from marks
	dones int // D marks found so far
	// noHook is the reason of the last N mark, "" for none.
	noHook string

	// promptEnds: where the last B marks end, oldest first. They are kept
	// apart from marks (and not counted) because they only say where a
	// prompt ends, for moving the read cursor past it.
	promptEnds []int64
	// promptStarts: where the last A marks start, oldest first, kept
	// like promptEnds: with them they say where a prompt was drawn (or
	// redrawn) in full (PromptSpans).
	promptStarts []int64

	// noC: the last D mark said the hook prints no C marks ("c=0": a
	// POSIX shell's PS1 hook, which has nothing to run when a command
	// starts).
	noC bool
	// hookless: the far end said no hook will load (the remote bootstrap
	// found a login shell it has none for: "133;P;hook=none").
	hookless    bool
	hooklessEnd int64 // where the mark that said so ends
	// shell: the shell the hook runs in, when it said (fish does: its
	// syntax differs).
	shell string
	// noB: the hook said it marks no prompt's end ("133;P;b=0": bash
	// with a readonly PS1).
	noB bool
	// noLine: the hook said it cannot report the line the shell's editor
	// holds ("133;P;line=0": ash, dash and mksh, which bind no keys to
	// ttymux's line query).
	noLine bool

	bracketedPaste bool  // DECSET 2004
	pasteOnAt      int64 // where bracketed paste was last turned on
	appCursor      bool  // DECSET 1 (DECCKM)
	// cursorHidden: DECRST 25 (DECTCEM) hid the cursor, last at offset
	// hiddenAt, and it was not shown since. A program drawing a full
	// screen hides it; nothing waiting for typed input does.
	cursorHidden bool
	hiddenAt     int64
}

// NewDetector returns a detector for a stream whose next byte is at offset
// off (the log's: after an attach that starts past what the agent lost,
// both start there, issue #13). It counts only marks that carry nonce; an
// empty nonce counts none until SetNonce.
func NewDetector(nonce string, off int64) *Detector {
	d := &Detector{buf: make([]byte, 0, maxOSC), off: off}
	d.SetNonce(nonce)
	return d
}

// SetNonce makes the detector count the marks that carry nonce ("" counts
// none).
func (d *Detector) SetNonce(nonce string) {
	d.nonce = nil
	if nonce != "" {
		d.nonce = []byte("ttymux=" + nonce)
	}
}

// Nonce returns the nonce the marks must carry, or "".
func (d *Detector) Nonce() string {
	return strings.TrimPrefix(string(d.nonce), "ttymux=")
}

// Hooked reports whether the detector has a nonce: a hook the session
// typed or started marks its commands.
func (d *Detector) Hooked() bool { return len(d.nonce) > 0 }

// NoC reports whether the hook that printed the last D mark prints no C
// marks (its D carries "c=0"): the echo of the typed line, not a C mark,
// says where a command's output starts, and a D with no C before it ends
// the command.
func (d *Detector) NoC() bool { return d.noC }

// Hookless reports whether the far end said that no hook will load
// ("133;P;hook=none" with the nonce: the remote bootstrap starts a shell
// it has no hook for), so no mark will come.
func (d *Detector) Hookless() bool { return d.hookless }

// HooklessEnd returns where the mark that said no hook will load ends.
func (d *Detector) HooklessEnd() int64 { return d.hooklessEnd }

// Shell returns the shell the hook said it runs in ("133;P;shell=fish"),
// or "".
func (d *Detector) Shell() string { return d.shell }

// NoB reports whether the hook said it marks no prompt's end (a readonly
// PS1): nothing need wait for a B mark.
func (d *Detector) NoB() bool { return d.noB }

// NoLine reports whether the hook said it cannot report the line the
// shell's line editor holds ("133;P;line=0").
func (d *Detector) NoLine() bool { return d.noLine }

// Count returns how many marks were found so far (B marks excepted).
func (d *Detector) Count() int { return d.count }

// Dones returns how many D marks were found so far: the hook reports only
// once it has printed one (a C mark alone proves nothing of the D marks
// a command's end depends on).
func (d *Detector) Dones() int { return d.dones }

// NoHook returns why the hook said it could not be installed (an N mark),
// or "".
func (d *Detector) NoHook() string { return d.noHook }

// Marks returns the marks kept, oldest first (B marks excepted). The slice
// is the detector's: read it before the next Write.
func (d *Detector) Marks() []Mark { return d.marks }

// BracketedPaste reports whether the far end turned bracketed paste on
// (DECSET 2004) and has not turned it off.
func (d *Detector) BracketedPaste() bool { return d.bracketedPaste }

// AppCursor reports whether the far end wants application cursor keys
// (DECCKM).
func (d *Detector) AppCursor() bool { return d.appCursor }

// PasteOnAt returns where bracketed paste was last turned on.
func (d *Detector) PasteOnAt() int64 { return d.pasteOnAt }

// CursorHiddenSince reports whether the cursor was hidden (DECTCEM) at or
// after off and not shown since.
func (d *Detector) CursorHiddenSince(off int64) bool {
	return d.cursorHidden && d.hiddenAt >= off
}

// Write scans p, the bytes that follow everything written before. It never
// fails.
func (d *Detector) Write(p []byte) (int, error) {
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
			if k := len(d.marks) - 1; d.seq.Final() == '\\' && d.seq.Inter() == 0 && k >= 0 && d.marks[k].End == d.seq.Start()+delta {
				d.marks[k].End = d.seq.Offset() + delta
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
func (d *Detector) Skip(n int64) {
	d.off += n
	d.seq.Skip(n)
	d.buf, d.over = d.buf[:0], false
}

func (d *Detector) collect(p []byte) {
	if d.over || len(d.buf)+len(p) > maxOSC {
		d.over = true
		return
	}
	d.buf = append(d.buf, p...)
}

// csi handles a complete CSI sequence that began at off; only DEC private
// modes matter here.
func (d *Detector) csi(off int64) {
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
func (d *Detector) osc(off, end int64) {
	if d.over || len(d.nonce) == 0 || !bytes.HasPrefix(d.buf, []byte("133;")) {
		return
	}
	fields := bytes.Split(d.buf[4:], []byte{';'})
	if len(fields) < 2 || len(fields[0]) != 1 || !bytes.Equal(fields[len(fields)-1], d.nonce) {
		return
	}
	m := Mark{Kind: MarkKind(fields[0][0]), Off: off, End: end}
	switch m.Kind {
	case 'P':
		// A property of the far end, not a mark.
		if len(fields) != 3 {
			return
		}
		switch k, v, _ := bytes.Cut(fields[1], []byte{'='}); string(k) {
		case "hook":
			d.hookless, d.hooklessEnd = string(v) == "none", end
		case "shell":
			d.shell = string(v)
		case "b":
			d.noB = string(v) == "0"
		case "line":
			d.noLine = string(v) == "0"
		}
		return
	case MarkPromptEnd:
		d.promptEnds = appendBounded(d.promptEnds, end)
		return
	case MarkPromptStart:
		d.promptStarts = appendBounded(d.promptStarts, off)
		return
	case MarkDone:
		// "D;<status>;ttymux=<nonce>", or "D;<status>;c=0;ttymux=<nonce>"
		// from a hook that prints no C marks.
		noC := len(fields) == 4 && string(fields[2]) == "c=0"
		if len(fields) != 3 && !noC {
			return
		}
		st, err := strconv.Atoi(string(fields[1]))
		if err != nil {
			return
		}
		m.Status = st
		d.noC = noC
	case MarkNoHook:
		if len(fields) == 3 {
			// No hook will load: said with a reason, it is also what
			// "P;hook=none" says (Hookless).
			d.noHook = string(fields[1])
			d.hookless, d.hooklessEnd = true, end
			d.count++
		}
		return
	case MarkCommand:
	default:
		return
	}
	if m.Kind == MarkDone {
		d.dones++
	}
	if len(d.marks) == maxMarks {
		copy(d.marks, d.marks[maxMarks/2:])
		d.marks = d.marks[:maxMarks/2]
	}
	d.marks = append(d.marks, m)
	d.count++
}

// FirstAfter returns the first mark of kind k that starts at or after off.
func (d *Detector) FirstAfter(k MarkKind, off int64) (Mark, bool) {
	for _, m := range d.marks {
		if m.Kind == k && m.Off >= off {
			return m, true
		}
	}
	return Mark{}, false
}

// DrawsPromptEnds reports whether the hook has marked the end of a prompt
// (a B mark) at least once: fish's does not.
func (d *Detector) DrawsPromptEnds() bool { return len(d.promptEnds) > 0 }

// PromptEndAfter returns where the prompt drawn after the D mark at done
// ends (one past its B mark): the first B after done, unless another D
// comes before it (that prompt had no B).
func (d *Detector) PromptEndAfter(done int64) (int64, bool) {
	for _, e := range d.promptEnds {
		if e <= done {
			continue
		}
		for _, m := range d.marks {
			if m.Kind == MarkDone && m.Off > done && m.Off < e {
				return 0, false
			}
		}
		return e, true
	}
	return 0, false
}

// DoneSince counts the D marks that start at or after off.
func (d *Detector) DoneSince(off int64) int {
	n := 0
	for _, m := range d.marks {
		if m.Kind == MarkDone && m.Off >= off {
			n++
		}
	}
	return n
}

// Last returns the most recent mark of any kind.
func (d *Detector) Last() (Mark, bool) {
	if len(d.marks) == 0 {
		return Mark{}, false
	}
	return d.marks[len(d.marks)-1], true
}

// appendBounded appends off to offs, keeping the newest half when offs
// holds maxMarks.
func appendBounded(offs []int64, off int64) []int64 {
	if len(offs) == maxMarks {
		offs = append(offs[:0], offs[maxMarks/2:]...)
	}
	return append(offs, off)
}

// A PromptSpan is a prompt the hook marked: from its A mark (Start, or -1
// when no A mark of it lies in the range asked about) to past its B mark.
type PromptSpan struct{ Start, End int64 }

// PromptSpans returns the prompts drawn, or drawn again, within [from,
// to): each B mark ending there, with the A mark before it that is not
// before from, before the previous span's B or before a C or D mark. A
// shell redraws its prompt in full (a theme's clock, zle reset-prompt,
// fish's repaint, a job notice) with both marks; readline may redraw only
// the prompt's last line, with the B alone. A last A with no B before to
// is a prompt still being drawn: its span ends at to. None of it is a
// command's output.
func (d *Detector) PromptSpans(from, to int64) []PromptSpan {
	var spans []PromptSpan
	floor := from // an A before it belongs to an earlier span or command
	for _, e := range d.promptEnds {
		if e <= from || e > to {
			continue
		}
		for _, m := range d.marks {
			if (m.Kind == MarkDone || m.Kind == MarkCommand) && m.Off >= floor && m.End <= e {
				floor = m.End
			}
		}
		start := int64(-1)
		for _, a := range d.promptStarts {
			if a >= floor && a < e {
				start = a // the last A before the B
			}
		}
		spans = append(spans, PromptSpan{Start: start, End: e})
		floor = e
	}
	// A prompt still being drawn at to (its B not come yet) is cut to
	// to.
	last := int64(-1)
	for _, a := range d.promptStarts {
		if a >= floor && a < to {
			last = a
		}
	}
	if last < 0 {
		return spans
	}
	for _, m := range d.marks {
		if (m.Kind == MarkDone || m.Kind == MarkCommand) && m.Off >= last && m.Off < to {
			return spans
		}
	}
	return append(spans, PromptSpan{Start: last, End: to})
}
