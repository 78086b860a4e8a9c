package ring

import (
	"bytes"
	"errors"
	"fmt"
	"runtime"
	"slices"
)

// checkpointEvery is how many lines apart LineIndex checkpoints are. Finding a
// line start scans at most this many lines of held bytes from a checkpoint;
// memory is one int64 per checkpoint, so an 8 MiB ring of empty lines needs
// at most 8 Mi/256 = 32768 of them (256 KiB).
const checkpointEvery = 256

var newline = []byte{'\n'}

// ErrNoLine is wrapped by LineStart for a line number below 1 or above
// Lines(): a line that does not exist (yet), as opposed to one that is gone.
var ErrNoLine = errors.New("no such line")

// LineIndex maps 1-based line numbers to offsets in a Ring's stream. Line 1
// starts at offset 0 and line N starts just after the (N-1)th '\n'; the
// current last line may be empty. Bytes other than '\n' ('\r', escape
// sequences) are not interpreted.
//
// An index made with NewLineIndexAt mirrors a stream whose beginning it never
// saw and takes the number of newlines before it from the caller; so does
// SkipLines for bytes lost in the middle. Where the ring never had the byte
// just before its Start() (see NewAt and Ring.Skip), whether Start() begins a
// line is unknown, and the index takes the line holding Start() to begin
// there: FirstLine is that line and LineStart returns Start() for it, which
// may be only the tail of the line in the original stream. Every other line
// is exact.
//
// The index stores the start of every 256th line and finds other line
// starts by scanning the ring's held bytes from the nearest checkpoint, so its
// memory is bounded by the ring's size, not by how many lines went by.
//
// A LineIndex is not safe for concurrent use, and it reads its Ring: hold the
// Ring's lock around every LineIndex call.
type LineIndex struct {
	r   *Ring
	k   int64 // lines between checkpoints
	end int64 // bytes indexed, equal to r.End() between calls
	nl  int64 // '\n' bytes seen

	// cps[head:] are checkpoints number first, first+1, ...: checkpoint j
	// is the offset where line j*k+1 starts, right after the (j*k)th '\n'.
	// Checkpoints that fall below r.Start() are dropped, since the bytes
	// needed to scan from them are gone.
	cps   []int64
	head  int
	first int64
	next  int64 // the count of '\n' that makes the next checkpoint
}

// NewLineIndex returns an index over r, including any bytes r holds already.
// After every r.Write(p), call ix.Write(p) with the same p. NewLineIndex
// panics if r.Start() > 0 (r has dropped output, or was made with NewAt at an
// offset above 0), since line numbers would be unknown: use NewLineIndexAt.
// Otherwise it is NewLineIndexAt(r, 1).
func NewLineIndex(r *Ring) *LineIndex {
	return newLineIndex(r, checkpointEvery)
}

func newLineIndex(r *Ring, k int64) *LineIndex {
	if r.Start() > 0 {
		panic(fmt.Sprintf("ring: NewLineIndex on a ring that starts at offset %d, so line numbers are unknown; use NewLineIndexAt", r.Start()))
	}
	return newLineIndexAt(r, 1, k)
}

// NewLineIndexAt returns an index over r, including any bytes r holds
// already, in which offset r.Start() lies on line number line (>= 1). After
// every r.Write(p), call ix.Write(p) with the same p.
//
// A client that replays a daemon's log from offset S into NewAt(size, S)
// passes the daemon's LineAt(S): its line numbers are then the daemon's, for
// every line whose start it holds. If S is not the start of a line, the
// client holds only the tail of line L = LineAt(S) and the index takes that
// tail as line L: FirstLine() is L and LineStart(L) is S (see LineIndex). To
// get whole lines, replay from a line start, such as the daemon's
// LineStart(FirstLine()).
//
// If r has wrapped since it started, so that it had the byte before
// r.Start(), the index uses that byte and nothing is assumed. NewLineIndexAt
// panics if line < 1.
func NewLineIndexAt(r *Ring, line int64) *LineIndex {
	return newLineIndexAt(r, line, checkpointEvery)
}

func newLineIndexAt(r *Ring, line, k int64) *LineIndex {
	if line < 1 {
		panic(fmt.Sprintf("ring: NewLineIndexAt line %d; lines are numbered from 1", line))
	}
	ix := &LineIndex{r: r, k: k, end: r.Start(), nl: line - 1}
	ix.restart()
	a, b := r.segments(r.Start(), r.end)
	ix.add(a)
	ix.add(b)
	runtime.KeepAlive(r)
	return ix
}

// restart drops every checkpoint, for an index that has reached ix.end ==
// r.Start() with ix.nl newlines before it, and records the checkpoint at
// Start() if one belongs there.
func (ix *LineIndex) restart() {
	ix.cps, ix.head = ix.cps[:0], 0
	ix.first = ix.nl/ix.k + 1
	if ix.nl%ix.k == 0 && ix.r.startsLine() {
		ix.first--
		ix.cps = append(ix.cps, ix.end)
	}
	ix.next = (ix.first + int64(len(ix.cps))) * ix.k
}

// Skip is SkipLines(n, 0), for when the number of lines lost is unknown: call
// it right after r.Skip(n). The lost bytes are counted as holding no '\n',
// so from then on Lines() and every line number are lower than the source's
// by the number of newlines actually lost. Offsets stay exact.
func (ix *LineIndex) Skip(n int64) { ix.SkipLines(n, 0) }

// SkipLines records, right after r.Skip(n), that the n lost bytes held
// newlines '\n' bytes, so that line numbers stay those of the source. A client
// told by a daemon that bytes From..To are gone gets the count as the
// daemon's LineAt(To) minus its own Lines() before skipping. The line that
// holds the new End() is taken to begin there (see LineIndex), so
// LineStart(Lines()) == End() until a '\n' arrives.
//
// SkipLines(0, 0) does nothing. SkipLines panics if newlines is negative or
// more than n, or if it does not follow r.Skip(n): the index and the ring
// would be out of step.
func (ix *LineIndex) SkipLines(n, newlines int64) {
	if n < 0 || newlines < 0 || newlines > n {
		panic(fmt.Sprintf("ring: LineIndex.SkipLines(%d, %d): want 0 <= newlines <= n", n, newlines))
	}
	if ix.end+n != ix.r.end || (n > 0 && ix.r.Start() != ix.r.end) {
		panic(fmt.Sprintf("ring: LineIndex.SkipLines of %d bytes at offset %d, but the ring holds %d..%d; call it right after Ring.Skip(%d)",
			n, ix.end, ix.r.Start(), ix.r.end, n))
	}
	if n == 0 {
		return
	}
	ix.end += n
	ix.nl += newlines
	ix.restart()
}

// Write indexes p, which must be the bytes just passed to the ring's Write.
// It costs one bytes.Count over p plus a short search of p for each
// checkpoint p contains. Write panics if the index and the ring are out of
// step (p's length does not match what the ring received), because every
// line number after that would be wrong.
func (ix *LineIndex) Write(p []byte) {
	if ix.end+int64(len(p)) != ix.r.end {
		panic(fmt.Sprintf("ring: LineIndex.Write of %d bytes at offset %d, but the ring ends at %d; pass exactly the bytes just written to the Ring",
			len(p), ix.end, ix.r.end))
	}
	ix.add(p)
}

func (ix *LineIndex) add(p []byte) {
	base := ix.end
	ix.end += int64(len(p))
	start := ix.r.Start()
	if skip := start - 1 - base; skip > 0 {
		// p[:skip] was dropped as soon as it was written. A '\n' there
		// could only make a checkpoint below start, and every existing
		// checkpoint is <= base < start, so count and forget.
		ix.nl += int64(bytes.Count(p[:skip], newline))
		ix.cps, ix.head = ix.cps[:0], 0
		ix.first = ix.nl/ix.k + 1
		ix.next = ix.first * ix.k
		p, base = p[skip:], base+skip
	}
	c := int64(bytes.Count(p, newline))
	if ix.nl+c >= ix.next {
		ix.checkpoint(p, base, c)
	}
	ix.nl += c
	for ix.head < len(ix.cps) && ix.cps[ix.head] < start {
		ix.head++
		ix.first++
	}
	if ix.head > 0 && ix.head >= len(ix.cps)/2 {
		n := copy(ix.cps, ix.cps[ix.head:])
		ix.cps, ix.head = ix.cps[:n], 0
	}
}

// checkpoint records the checkpoints that fall in p, which starts at offset
// base and holds c newlines.
func (ix *LineIndex) checkpoint(p []byte, base, c int64) {
	seen, pos := ix.nl, 0
	for ix.next <= ix.nl+c {
		i, _ := indexNth(p[pos:], int(ix.next-seen))
		pos += i + 1
		seen = ix.next
		ix.cps = append(ix.cps, base+int64(pos))
		ix.next += ix.k
	}
}

// Lines returns the number of '\n' written so far plus one: the last line is
// the one still being written, possibly empty. After NewLineIndexAt the
// newlines before the ring's start count as line-1, and after SkipLines the
// lost ones as newlines.
func (ix *LineIndex) Lines() int64 { return ix.nl + 1 }

// FirstLine returns the first line whose start is still held in the ring.
// Lines before it are gone, or only their tails remain. If the ring holds
// just the middle of one long line, FirstLine returns Lines()+1. If the ring
// never had the byte before Start(), FirstLine is the line that holds
// Start(), taken to begin there (see LineIndex).
func (ix *LineIndex) FirstLine() int64 {
	n, _ := ix.firstLine()
	return n
}

// firstLine returns FirstLine and, if it is at most Lines(), its start.
func (ix *LineIndex) firstLine() (n, off int64) {
	start := ix.r.Start()
	c := ix.nlBefore(start)
	if ix.r.startsLine() {
		return c + 1, start
	}
	i := ix.r.indexNth(start, ix.end, 1)
	if i < 0 {
		return c + 2, ix.end
	}
	return c + 2, i + 1
}

// LineStart returns the offset where line n starts. If n is below 1 or above
// Lines() the error wraps ErrNoLine. If line n's start has left the ring (or,
// after NewLineIndexAt or SkipLines, never reached it) the error is a
// *LineGapError that names the first line still held. For FirstLine() when
// the ring never had the byte before Start(), it returns Start() (see
// LineIndex).
func (ix *LineIndex) LineStart(n int64) (int64, error) {
	if n < 1 {
		return 0, fmt.Errorf("line %d: lines are numbered from 1: %w", n, ErrNoLine)
	}
	if n > ix.nl+1 {
		return 0, fmt.Errorf("line %d: output has %d lines so far: %w", n, ix.nl+1, ErrNoLine)
	}
	var from, line int64
	if j := (n - 1) / ix.k; j >= ix.first {
		from, line = ix.cps[ix.head+int(j-ix.first)], j*ix.k+1
	} else {
		// Checkpoint j is gone, but n may be between Start() and the
		// first checkpoint still held.
		fl, off := ix.firstLine()
		if n < fl {
			return 0, &LineGapError{Requested: n, First: fl, Lines: ix.nl + 1}
		}
		from, line = off, fl
	}
	if n == line {
		return from, nil
	}
	return ix.r.indexNth(from, ix.end, n-line) + 1, nil
}

// LineAt returns the number of the line that contains offset off, for
// Start() <= off <= End(); at End() that is the last line, Lines(). It
// returns 0 if off is outside that range, because whether a dropped byte
// was '\n' is no longer known.
func (ix *LineIndex) LineAt(off int64) int64 {
	if off < ix.r.Start() || off > ix.end {
		return 0
	}
	return ix.nlBefore(off) + 1
}

// nlBefore returns the number of '\n' in [0, off) for Start() <= off <= End()
// (including those NewLineIndexAt and SkipLines were told about),
// counting from whichever is nearer: the checkpoint at or before off, or the
// one after it (End() when there is none).
func (ix *LineIndex) nlBefore(off int64) int64 {
	live := ix.cps[ix.head:]
	i, _ := slices.BinarySearch(live, off+1) // live[i-1] <= off < live[i]
	ceilOff, ceilNL := ix.end, ix.nl
	if i < len(live) {
		ceilOff, ceilNL = live[i], (ix.first+int64(i))*ix.k
	}
	if i > 0 {
		if floorOff := live[i-1]; off-floorOff <= ceilOff-off {
			return (ix.first+int64(i-1))*ix.k + ix.r.count(floorOff, off)
		}
	}
	return ceilNL - ix.r.count(off, ceilOff)
}

// count returns the number of '\n' in [from, to), which the ring holds.
func (r *Ring) count(from, to int64) int64 {
	a, b := r.segments(from, to)
	n := int64(bytes.Count(a, newline) + bytes.Count(b, newline))
	runtime.KeepAlive(r)
	return n
}

// indexNth returns the offset of the k-th '\n' (k >= 1) in [from, to), which
// the ring holds, or -1 if there are fewer.
func (r *Ring) indexNth(from, to, k int64) int64 {
	a, b := r.segments(from, to)
	defer runtime.KeepAlive(r)
	i, left := indexNth(a, int(k))
	if i >= 0 {
		return from + int64(i)
	}
	if i, _ = indexNth(b, left); i >= 0 {
		return from + int64(len(a)+i)
	}
	return -1
}

// indexNth returns the index of the k-th '\n' (k >= 1) in p. If p holds
// fewer, it returns -1 and how many are still missing.
//
// Stepping with bytes.IndexByte costs a call per line, which is slow for
// dense short lines, so while many newlines remain it counts blocks of
// doubling size with bytes.Count until one holds the target, then halves
// that block. Both are vectorized; only the last <= 64 bytes go byte by byte.
func indexNth(p []byte, k int) (int, int) {
	base, blk, found := 0, 256, false
	for k > 4 && len(p) > 64 {
		n := len(p) / 2
		if !found {
			n = min(blk, len(p))
			blk *= 2
		}
		if c := bytes.Count(p[:n], newline); c >= k {
			p, found = p[:n], true
		} else {
			k -= c
			p, base = p[n:], base+n
		}
	}
	if len(p) <= 64 {
		for i, b := range p {
			if b == '\n' {
				if k--; k == 0 {
					return base + i, 0
				}
			}
		}
		return -1, k
	}
	for {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			return -1, k
		}
		if k--; k == 0 {
			return base + i, 0
		}
		p, base = p[i+1:], base+i+1
	}
}

// LineGapError reports that the start of line Requested has left the ring.
// First is the first line whose start is still held (FirstLine), and Lines
// the number of lines so far.
type LineGapError struct {
	Requested int64
	First     int64
	Lines     int64
}

// Lost returns how many lines, from Requested up to First, can no longer be
// read from their start.
func (e *LineGapError) Lost() int64 { return e.First - e.Requested }

func (e *LineGapError) Error() string {
	if e.First > e.Lines {
		return fmt.Sprintf("output from line %d on is gone (the ring holds only the end of line %d): %d lines lost",
			e.Requested, e.Lines, e.Lost())
	}
	return fmt.Sprintf("output from line %d to line %d is gone (ring holds lines %d..%d): %d lines lost; continue from line %d",
		e.Requested, e.First, e.First, e.Lines, e.Lost(), e.First)
}
