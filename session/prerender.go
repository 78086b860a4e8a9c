package session

import (
	"bytes"

	"github.com/ttymux/ttymux/session/reduce"
)

// A prerender renders a long command's output while the command runs, so
// that its result does not wait for all of it to be rendered at the end.
// It is fed only whole lines, so it never runs past where the output ends
// (an end-of-command mark or a prompt comes after the last newline). It
// keeps what a result can show (reduce.Collector): memory is bounded by
// the collector's limits and the log, whatever the command prints.
type prerender struct {
	from  int64 // the command's anchor: where rendering started
	fed   int64 // rendered up to here
	first int64 // the session line number of the line at from
	c     reduce.Collector
	buf   []byte
}

// feed renders b, a run of whole lines of output.
func (p *prerender) feed(b []byte) { p.c.Write(b) }

// finish renders the rest of the output and returns the lines for
// reduce.Reduce (see reduce.Collector.Finish).
func (p *prerender) finish(rest []byte, hint func(from, to int64) string) ([]string, []int64, []reduce.Gap) {
	return p.c.Finish(rest, p.first, hint)
}

// prerenderMin is how much unrendered output makes rendering ahead worth
// it; less is rendered at the end in well under a millisecond.
const prerenderMin = 256 << 10

// prerender renders c's output that arrived since the last call, up to its
// last complete line, once there is enough of it. It copies at most
// prerenderChunk bytes out of the log at a time.
func (s *Session) prerender(c *command) {
	if c.Anchor < 0 {
		return
	}
	for {
		s.mu.Lock()
		if c.pre == nil {
			if s.ring.Start() > c.Anchor {
				s.mu.Unlock()
				return
			}
			c.pre = &prerender{from: c.Anchor, fed: c.Anchor, first: s.lines.LineAt(c.Anchor)}
			c.pre.c.Rows = s.size.Rows
			if seed, nl := s.seedLocked(c.Anchor); len(seed) > 0 {
				// The rest of a program's frames, over its screen
				// (readseed.go): a few KiB at most.
				c.pre.c.Write(seed)
				c.pre.first = max(c.pre.first-int64(nl), 1)
			}
		}
		p := c.pre
		end := s.ring.End()
		if end-p.fed < prerenderMin || s.ring.Start() > p.fed {
			s.mu.Unlock()
			return
		}
		p.buf, _ = s.ring.AppendRange(p.buf[:0], p.fed, min(end, p.fed+prerenderChunk))
		began := s.flood != nil && !c.flooding
		c.flooding = c.flooding || began
		s.mu.Unlock()
		if began {
			s.flood(true)
		}
		n := bytes.LastIndexByte(p.buf, '\n') + 1
		if n == 0 {
			if len(p.buf) < prerenderChunk {
				return
			}
			n = len(p.buf) // a line longer than a chunk: the renderer takes it in pieces
		}
		p.feed(p.buf[:n])
		p.fed += int64(n)
	}
}

// floodEnded tells Options.Flood that the flood c's prerender began has
// its result (or its caller gave up), once for each time it was told one
// began.
func (s *Session) floodEnded(c *command) {
	s.mu.Lock()
	was := c.flooding
	c.flooding = false
	s.mu.Unlock()
	if was {
		s.flood(false)
	}
}

// prerenderChunk is the most output prerender copies out of the log at once.
const prerenderChunk = 64 << 10
