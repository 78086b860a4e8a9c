package fanout

import (
	"fmt"
	"sync"
)

// capBuf keeps the first head and the last tail bytes written to it and
// counts what it dropped between them. It is safe for concurrent use.
type capBuf struct {
	mu      sync.Mutex
	head    []byte
	tail    []byte // the last bytes, at most 2*tailMax before a trim
	headMax int
	tailMax int
	dropped int64
}

func newCapBuf(limit int) *capBuf {
	h := limit / 4
	return &capBuf{headMax: h, tailMax: limit - h}
}

func (b *capBuf) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	n := len(p)
	if room := b.headMax - len(b.head); room > 0 {
		k := min(room, len(p))
		b.head = append(b.head, p[:k]...)
		p = p[k:]
	}
	if len(p) == 0 {
		return n, nil
	}
	b.tail = append(b.tail, p...)
	if over := len(b.tail) - b.tailMax; over > b.tailMax {
		// Trim at twice the size, so copying stays linear overall.
		b.dropped += int64(over)
		b.tail = append(b.tail[:0:0], b.tail[over:]...)
	}
	return n, nil
}

// Bytes returns what was kept, with a line marking the dropped middle.
func (b *capBuf) Bytes() []byte {
	b.mu.Lock()
	defer b.mu.Unlock()
	tail, dropped := b.tail, b.dropped
	if over := len(tail) - b.tailMax; over > 0 {
		dropped += int64(over)
		tail = tail[over:]
	}
	out := make([]byte, 0, len(b.head)+len(tail)+64)
	out = append(out, b.head...)
	if dropped > 0 {
		if len(out) > 0 && out[len(out)-1] != '\n' {
			out = append(out, '\n')
		}
		out = fmt.Appendf(out, "[… %d bytes of output not kept …]\n", dropped)
	}
	return append(out, tail...)
}

// Dropped is how many bytes were not kept.
func (b *capBuf) Dropped() int64 {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.dropped + int64(max(0, len(b.tail)-b.tailMax))
}
