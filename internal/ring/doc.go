// Package ring keeps the recent output of an unbounded byte stream, such as
// everything a terminal printed, in bounded memory, and addresses it by
// absolute offset: offset 0 is the first byte ever written and offsets never
// repeat or skip, so a reader can say "resume from N" across reconnects.
//
// A [Ring] holds the most recent Size() bytes. Older bytes are dropped, and a
// read that asks for them gets a [*transport.GapError] (or, from [Ring.AppendRange], a
// count of missing bytes) rather than silently different data, so callers can
// mark the gap. A [LineIndex] fed the same bytes maps 1-based line numbers to
// offsets ("lines 1001–2000 of this session") using a checkpoint every few
// hundred lines plus fast scans of the held bytes, so its memory stays bounded
// no matter how many lines go by.
//
// A ring can also mirror a stream kept elsewhere, with the same offsets and
// line numbers: a client re-attaching to a session kept by a daemon replays
// the daemon's log from offset S into [NewAt](size, S), indexed by
// [NewLineIndexAt](r, L) where L is the daemon's LineAt(S). Bytes below S
// count as gone. A client told that bytes From..To were lost calls
// [Ring.Skip](To-From), which drops everything it held, and
// [LineIndex.SkipLines] with the newlines lost (or [LineIndex.Skip] if that
// count is unknown, after which its line numbers run low). Where the byte
// before the ring's start was never seen, the line holding the start is taken
// to begin there, so the first line may be partial; every other line is
// exact.
//
// The package owns only bytes and offsets. It does not interpret terminal
// escape sequences (that is session/screen), and it does not block or wake
// readers: a caller that waits for new output keeps its own condition.
//
// Concurrency: Ring and LineIndex are not safe for concurrent use. The owner
// holds one lock around Ring.Write plus LineIndex.Write and around every read.
//
// Usage:
//
//	r := ring.New(0) // DefaultSize
//	ix := ring.NewLineIndex(r)
//	// in the output pump, under the session lock:
//	r.Write(chunk)
//	ix.Write(chunk)
//	// later, for "lines 1001-2000":
//	from, err := ix.LineStart(1001) // a *LineGapError if line 1001 is gone
//	to, err := ix.LineStart(2001)   // wraps ErrNoLine if there are fewer lines: use r.End()
//	out, gone := r.AppendRange(nil, from, to)
package ring
