package console

import (
	"errors"
	"io"
	"sync"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// frameEvery is the shortest time between two output events sent to a
// page. A keystroke's echo after a quiet spell goes at once; a flood goes
// as at most 100 larger events a second instead of one per read, which
// costs the server a fraction of the writes and flushes (and the page
// cannot draw faster anyway).
const frameEvery = 10 * time.Millisecond

// frameBytes bounds one event: with frameEvery, a page gets at most
// 6.4 MB/s, more than a browser's terminal draws. A session that prints
// faster leaves its page behind; maxPending bounds what is read ahead,
// past it the reader waits, and the source reports what the page missed
// as a gap (the page notes it) and goes on from recent output.
const (
	frameBytes = 64 << 10
	maxPending = 256 << 10
)

// frames reads a Stream ahead and hands out what came since the last
// Read, at most once per frameEvery. A gap in the stream comes back with
// the data read before it (the page then notes the loss).
type frames struct {
	st Stream

	mu      sync.Mutex
	cond    *sync.Cond
	pending []byte
	gap     bool
	err     error // the stream's end, returned once pending is drained
	last    time.Time
	done    chan struct{} // the reader goroutine ended
}

func newFrames(st Stream) *frames {
	f := &frames{st: st, done: make(chan struct{})}
	f.cond = sync.NewCond(&f.mu)
	go f.run()
	return f
}

func (f *frames) run() {
	defer close(f.done)
	buf := make([]byte, 32<<10)
	for {
		n, err := f.st.Read(buf)
		f.mu.Lock()
		for len(f.pending) >= maxPending && f.err == nil {
			f.cond.Wait()
		}
		f.pending = append(f.pending, buf[:n]...)
		var gap *transport.GapError
		switch {
		case errors.As(err, &gap):
			f.gap = true
		case err != nil:
			f.err = err
		}
		stop := f.err != nil
		f.cond.Broadcast()
		f.mu.Unlock()
		if stop {
			return
		}
	}
}

// Read waits for output, then for the rest of the current frame, and
// returns what came: a *transport.GapError with the data when output was
// lost, the stream's error once everything before it was returned.
func (f *frames) Read(p []byte) (int, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for len(f.pending) == 0 && !f.gap && f.err == nil {
		f.cond.Wait()
	}
	if wait := frameEvery - time.Since(f.last); wait > 0 && f.err == nil {
		f.mu.Unlock()
		time.Sleep(wait) // gather the rest of the frame
		f.mu.Lock()
	}
	f.last = time.Now()
	n := copy(p, f.pending)
	f.pending = f.pending[:copy(f.pending, f.pending[n:])]
	f.cond.Broadcast()
	switch {
	case f.gap:
		f.gap = false
		return n, &transport.GapError{}
	case len(f.pending) == 0 && f.err != nil:
		return n, f.err
	}
	return n, nil
}

// Close ends the stream and waits for the reader.
func (f *frames) Close() error {
	err := f.st.Close()
	f.mu.Lock()
	if f.err == nil {
		f.err = io.ErrClosedPipe
	}
	f.cond.Broadcast()
	f.mu.Unlock()
	<-f.done
	return err
}
