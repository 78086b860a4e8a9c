package ring

import (
	"sort"
	"time"
)

// timesWindow is the precision of the stamps Times keeps at first: a chunk
// that arrives within this of the last stamp is taken to have arrived with
// it. Stamps are shown to the millisecond.
const timesWindow = time.Millisecond

// minTimes is the fewest stamps a Times keeps before it coarsens, however
// small its ring.
const minTimes = 1024

// Times records when the bytes of a Ring's stream arrived: a stamp (offset,
// time) for each chunk written, so that At(off) is the time the chunk
// holding offset off arrived. A line's time is At(its start): when its
// first byte came.
//
// Memory is bounded by the ring, not by how many chunks go by: stamps
// whose bytes have left the ring are dropped (but the one covering
// Start()), chunks arriving within a window of the last stamp share it
// (1 ms at first), and when more than max(1024, Size()/64) stamps are held
// the window doubles and stamps closer than it merge, so a ring of 8 MiB
// keeps at most 131072 stamps (2 MiB). Precision then degrades: a stamp is
// never later than the byte's arrival and never earlier by more than
// Precision (2 ms before any coarsening).
//
// A Times is not safe for concurrent use; hold the Ring's lock around it.
type Times struct {
	r      *Ring
	offs   []int64 // offsets where stamps begin, ascending; live from head on
	ns     []int64 // their arrival times, Unix nanoseconds
	head   int
	max    int
	window int64 // nanoseconds
}

// NewTimes returns an empty Times over r. After every r.Write(p), call
// Write(p, t) with the same p and the time p arrived.
func NewTimes(r *Ring) *Times {
	return &Times{r: r, max: max(minTimes, r.Size()/64), window: int64(timesWindow)}
}

// Write records that p, just written to the ring, arrived at t.
func (ts *Times) Write(p []byte, t time.Time) {
	if len(p) == 0 {
		return
	}
	off, ns := ts.r.End()-int64(len(p)), t.UnixNano()
	if n := len(ts.offs); n > ts.head {
		if ns-ts.ns[n-1] < ts.window {
			ts.drop()
			return // within the window of the last stamp: its time stands
		}
		ns = max(ns, ts.ns[n-1]) // times never go back, whatever the wall clock does
	}
	ts.offs = append(ts.offs, off)
	ts.ns = append(ts.ns, ns)
	ts.drop()
	if len(ts.offs)-ts.head > ts.max {
		ts.coarsen()
	}
}

// drop forgets the stamps of bytes that have left the ring, keeping the
// last stamp at or below Start(), which covers it.
func (ts *Times) drop() {
	start := ts.r.Start()
	for ts.head+1 < len(ts.offs) && ts.offs[ts.head+1] <= start {
		ts.head++
	}
	if ts.head > 0 && ts.head >= len(ts.offs)/2 {
		n := copy(ts.offs, ts.offs[ts.head:])
		copy(ts.ns, ts.ns[ts.head:])
		ts.offs, ts.ns, ts.head = ts.offs[:n], ts.ns[:n], 0
	}
}

// coarsen doubles the window until at most half the maximum stamps are
// held, merging each stamp into the one before it when the two are less
// than the window apart. The earlier one's time stands for both, so a
// stamp is never later than its bytes' arrival.
func (ts *Times) coarsen() {
	for len(ts.offs)-ts.head > ts.max/2 {
		ts.window *= 2
		j := 0
		for i := ts.head; i < len(ts.offs); i++ {
			if j > 0 && ts.ns[i]-ts.ns[j-1] < ts.window && i != ts.head {
				continue
			}
			ts.offs[j], ts.ns[j] = ts.offs[i], ts.ns[i]
			j++
		}
		ts.offs, ts.ns, ts.head = ts.offs[:j], ts.ns[:j], 0
	}
}

// At returns the time the byte at offset off arrived, and false when it is
// not known: off is below the first stamp (the ring never saw the byte, or
// it arrived before Times was made) or at or past End().
func (ts *Times) At(off int64) (time.Time, bool) {
	if off >= ts.r.End() || off < 0 {
		return time.Time{}, false
	}
	live := ts.offs[ts.head:]
	i := sort.Search(len(live), func(i int) bool { return live[i] > off })
	if i == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ts.ns[ts.head+i-1]), true
}

// Stamps returns a copy of the stamps that cover offsets [from, to): the
// offsets where they begin and their times (Unix nanoseconds), so that a
// caller can look many offsets up after letting go of the Ring's lock
// (Lookup).
func (ts *Times) Stamps(from, to int64) (offs, ns []int64) {
	live := ts.offs[ts.head:]
	i := sort.Search(len(live), func(i int) bool { return live[i] > from })
	i = max(i-1, 0)
	j := sort.Search(len(live), func(j int) bool { return live[j] >= to })
	if i >= j {
		return nil, nil
	}
	return append([]int64(nil), live[i:j]...), append([]int64(nil), ts.ns[ts.head+i:ts.head+j]...)
}

// Lookup returns the time of offset off in stamps returned by Stamps, and
// false when off is below the first.
func Lookup(offs, ns []int64, off int64) (time.Time, bool) {
	i := sort.Search(len(offs), func(i int) bool { return offs[i] > off })
	if i == 0 {
		return time.Time{}, false
	}
	return time.Unix(0, ns[i-1]), true
}

// Len returns how many stamps are held.
func (ts *Times) Len() int { return len(ts.offs) - ts.head }

// Precision bounds how much earlier than its bytes' arrival a stamp may
// be: twice the window (a chunk within the window of a stamp shares it, and
// each coarsening merges stamps less than the new window apart, whose own
// error was under the old one).
func (ts *Times) Precision() time.Duration { return 2 * time.Duration(ts.window) }
