package ring

import (
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"

	"github.com/ttymux/ttymux/transport"
)

// DefaultSize is the capacity New uses when asked for size <= 0: 8 MiB, about
// half a second of a terminal flooding at full speed, or several hundred
// thousand lines of ordinary output.
const DefaultSize = 8 << 20

// minAlloc is the first allocation of a ring's buffer. The buffer grows by
// doubling up to directAlloc, then to Size at once, so a session that prints
// little costs little.
const minAlloc = 4 << 10

// directAlloc is the largest buffer grow reaches by doubling. It was 1 MiB:
// the heap buffers 128 KiB to 1 MiB (2 MiB allocated, 1.5 MiB of it live
// during the last copy) raised the garbage collector's goal while a flood
// filled them, and were garbage once the mapped buffer took over (issue
// #17). A mapped buffer costs only the pages written to it.
const directAlloc = 64 << 10

// ErrNegativeOffset is returned by ReadAt for an offset below 0. Such bytes
// never existed, so it is not a gap.
var ErrNegativeOffset = errors.New("negative output offset")

// Ring keeps the most recent Size() bytes of an unbounded stream. Offsets are
// absolute: in a ring made with New, offset 0 is the first byte ever written;
// a ring made with NewAt(size, off) mirrors a stream from offset off on,
// numbered by whoever produced it. End() is the offset one past the newest
// byte and Start() the oldest offset still held.
//
// A Ring is not safe for concurrent use: callers hold their own lock around
// Write and every read. The zero value is not usable; call New or NewAt.
type Ring struct {
	size int
	// buf holds offset o at buf[(o-base)%size]. Until the ring first
	// wraps, len(buf) may be shorter than size (it grows, see grow) and
	// holds offsets base..end-1 in place.
	buf []byte
	end int64
	// base is the lowest offset the ring can hold: the offset given to
	// NewAt, or End() after the last Skip. The ring never had the bytes
	// below it, so Start() >= base.
	base int64
	// before is the byte at offset Start()-1, the last one dropped, valid
	// when Start() > base. LineIndex needs it to tell whether Start() itself
	// begins a line, and it is gone from buf by the time LineIndex.Write runs.
	before byte
	// mapped is set when buf is memory from mapBuf, outside the Go heap;
	// unmap returns it to the system once the Ring is unreachable (see
	// grow). Every method that works on slices of buf ends with
	// runtime.KeepAlive(r), so the cleanup never runs while one is in use.
	mapped bool
	unmap  runtime.Cleanup
	// mapAll maps every buffer, not just the full-size one: for tests, so
	// that small rings exercise mapped memory too.
	mapAll bool
}

// New returns an empty Ring that keeps the last size bytes. A size <= 0 means
// DefaultSize. Memory is allocated as output arrives, up to size bytes.
// New(size) is NewAt(size, 0).
func New(size int) *Ring {
	return NewAt(size, 0)
}

// NewAt returns an empty Ring, like New, whose stream begins at absolute
// offset off: Start() == End() == off, and the next byte written is offset
// off. A client that replays a daemon's log from offset S uses NewAt(size, S)
// so that its offsets are the daemon's.
//
// The bytes below off count as gone, not as never written: they existed, this
// ring just never had them. ReadAt at an offset 0 <= o < Start() returns a
// *transport.GapError whose Lost() counts them, and AppendRange counts them in gone,
// exactly as for bytes the ring dropped itself. NewAt panics if off < 0.
func NewAt(size int, off int64) *Ring {
	if size <= 0 {
		size = DefaultSize
	}
	if off < 0 {
		panic(fmt.Sprintf("ring: NewAt offset %d is negative", off))
	}
	return &Ring{size: size, end: off, base: off}
}

// Size returns the ring's capacity in bytes.
func (r *Ring) Size() int { return r.size }

// Start returns the oldest offset still held: End()-Size(), but not below
// the offset the ring started at (0 for New, off for NewAt) or the End() it
// skipped to last (Skip).
func (r *Ring) Start() int64 {
	return max(r.base, r.end-int64(r.size))
}

// End returns the offset one past the newest byte: for a ring made with New
// and never skipped, the number of bytes ever written.
func (r *Ring) End() int64 { return r.end }

// Skip records that the next n bytes of the stream are lost: they were
// produced but never reached this ring, for instance because a client fell
// behind the daemon it mirrors and was told "bytes From..To are gone" (call
// Skip(To-From) with End() == From). End() advances by n without data, and
// everything the ring held is dropped as well, since a ring holds one
// contiguous run of offsets: Start() == End() afterwards, and reads below the
// new End() return a *transport.GapError. Read what is needed before skipping. Writes
// continue at the new End().
//
// Skip(0) does nothing. Skip panics if n < 0, since offsets never go back.
// A ring with a LineIndex must call LineIndex.Skip or LineIndex.SkipLines
// right after.
func (r *Ring) Skip(n int64) {
	if n < 0 || n > math.MaxInt64-r.end {
		panic(fmt.Sprintf("ring: Skip(%d) at offset %d", n, r.end))
	}
	if n == 0 {
		return
	}
	r.end += n
	r.base = r.end
}

// startsLine reports whether Start() is taken to begin a line: the byte before
// it was '\n', or the ring never had that byte (Start() is the offset NewAt
// or Skip left it at), in which case the line is taken to begin there.
func (r *Ring) startsLine() bool {
	return r.Start() == r.base || r.before == '\n'
}

// Write appends p to the stream. It never fails and always returns len(p).
// If p is longer than the ring, only its last Size() bytes are kept, but End()
// still advances by len(p). Write does not retain p. Once the ring has filled
// for the first time, Write does not allocate.
func (r *Ring) Write(p []byte) (int, error) {
	n := len(p)
	if n == 0 {
		return 0, nil
	}
	size := int64(r.size)
	end := r.end + int64(n)
	// Save the byte just before the new start before it is overwritten.
	// Since n > 0 the start moves, and newStart-1 is either in p or still
	// held.
	if newStart := end - size; newStart > r.base {
		if i := newStart - 1; i >= r.end {
			r.before = p[i-r.end]
		} else {
			r.before = r.buf[(i-r.base)%size]
		}
	}
	if n > r.size {
		p = p[n-r.size:]
	}
	if rel := end - r.base; rel > int64(len(r.buf)) && len(r.buf) < r.size {
		r.grow(rel)
	}
	pos := int((end - int64(len(p)) - r.base) % size)
	c := copy(r.buf[pos:], p)
	copy(r.buf, p[c:])
	r.end = end
	runtime.KeepAlive(r)
	return n, nil
}

// grow enlarges buf, which has not wrapped yet, to hold rel bytes from base.
// Past directAlloc it goes straight to the full size: doubling a 4 MiB
// buffer to 8 MiB held both (12 MiB) while the copy ran, the largest part of
// a flood's peak memory, while one large allocation is fresh memory from
// the system whose pages become resident only as output fills them
// (issue #17).
//
// The full-size buffer of a ring larger than directAlloc is anonymous
// memory outside the Go heap (mapBuf), returned to the system by a cleanup
// when the Ring becomes unreachable: the log is the largest object a
// session holds, and on the heap it raised the garbage collector's goal by
// its own size, so a million-line command peaked 8 MiB higher (issue #17).
// Where mapping fails, or on systems without it, the buffer is on the heap.
func (r *Ring) grow(rel int64) {
	n := int(min(max(int64(2*len(r.buf)), minAlloc, rel), int64(r.size)))
	if n > directAlloc {
		n = r.size
	}
	var buf []byte
	mapped := n > directAlloc || r.mapAll
	if mapped {
		buf = mapBuf(n)
		mapped = buf != nil
	}
	if !mapped {
		buf = make([]byte, n)
	}
	copy(buf, r.buf[:r.end-r.base])
	if r.mapped {
		r.unmap.Stop()
		unmapBuf(r.buf)
	}
	r.buf, r.mapped = buf, mapped
	if mapped {
		r.unmap = runtime.AddCleanup(r, unmapBuf, buf)
	}
}

// segments returns the held bytes of [from, to) as up to two slices of buf,
// in order. The caller ensures Start() <= from <= to <= End().
func (r *Ring) segments(from, to int64) (a, b []byte) {
	if from >= to {
		return nil, nil
	}
	pos := int((from - r.base) % int64(r.size))
	n := int(to - from)
	if pos+n <= len(r.buf) {
		return r.buf[pos : pos+n], nil
	}
	return r.buf[pos:], r.buf[:n-(len(r.buf)-pos)]
}

// ReadAt copies held bytes starting at absolute offset off into p. If off <
// Start() the bytes are gone: ReadAt returns 0 and a *transport.GapError. If off >=
// End() there is nothing yet: it returns 0 and io.EOF. Otherwise it copies
// min(len(p), End()-off) bytes and returns a nil error even when that is less
// than len(p); unlike io.ReaderAt, a short read here only means "no more
// output yet". Bytes below the offset a ring made with NewAt started at, and
// bytes lost to Skip, are gone like dropped ones.
func (r *Ring) ReadAt(p []byte, off int64) (int, error) {
	switch {
	case off < 0:
		return 0, fmt.Errorf("read output at offset %d: %w", off, ErrNegativeOffset)
	case off < r.Start():
		return 0, &transport.GapError{From: off, To: r.Start(), End: r.end}
	case off >= r.end:
		return 0, io.EOF
	}
	a, b := r.segments(off, min(r.end, off+int64(len(p))))
	n := copy(p, a)
	n += copy(p[n:], b)
	runtime.KeepAlive(r)
	return n, nil
}

// AppendRange appends the held bytes of [from, to) to dst and returns the
// extended slice. The range is clipped to [Start(), End()); gone reports how
// many bytes at the front of the range had already been dropped (from <
// Start()), so the caller can report an explicit gap instead of silently
// returning less. Offsets below 0 name no bytes and are not counted as gone.
// An empty or inverted range appends nothing.
func (r *Ring) AppendRange(dst []byte, from, to int64) (out []byte, gone int64) {
	from = max(from, 0)
	to = min(to, r.end)
	if from >= to {
		return dst, 0
	}
	if start := r.Start(); from < start {
		gone = min(to, start) - from
		from = start
	}
	a, b := r.segments(from, to)
	dst = append(dst, a...)
	dst = append(dst, b...)
	runtime.KeepAlive(r)
	return dst, gone
}
