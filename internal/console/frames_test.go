package console

import (
	"bytes"
	"context"
	"errors"
	"io"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// chunkStream yields its chunks one Read at a time, then err.
type chunkStream struct {
	chunks chan []byte
	err    error
	closed chan struct{}
}

func (c *chunkStream) Read(p []byte) (int, error) {
	select {
	case b, ok := <-c.chunks:
		if !ok {
			return 0, c.err
		}
		return copy(p, b), nil
	case <-c.closed:
		return 0, io.ErrClosedPipe
	}
}
func (c *chunkStream) Write(p []byte) (int, error)                  { return len(p), nil }
func (c *chunkStream) Resize(context.Context, transport.Size) error { return nil }
func (c *chunkStream) Close() error                                 { close(c.closed); return nil }

// TestFramesCoalesce: a flood of small reads reaches the page as a few
// events, every byte in order, and the stream's end after the last byte;
// the first output after a quiet spell is not held back.
func TestFramesCoalesce(t *testing.T) {
	cs := &chunkStream{chunks: make(chan []byte), err: io.EOF, closed: make(chan struct{})}
	f := newFrames(cs)
	defer f.Close()
	start := time.Now()
	cs.chunks <- []byte("first")
	buf := make([]byte, frameBytes)
	n, err := f.Read(buf)
	if string(buf[:n]) != "first" || err != nil {
		t.Fatalf("first read: %q %v", buf[:n], err)
	}
	if took := time.Since(start); took >= frameEvery {
		t.Logf("the first output took %v (a loaded machine?)", took)
	}
	var want bytes.Buffer
	go func() {
		for i := range 2000 {
			b := []byte{byte('a' + i%26)}
			cs.chunks <- b
		}
		close(cs.chunks)
	}()
	for i := range 2000 {
		want.WriteByte(byte('a' + i%26))
	}
	var got bytes.Buffer
	events := 0
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		events++
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if got.String() != want.String() {
		t.Fatalf("got %d bytes, want the 2000 in order", got.Len())
	}
	if events >= 2000/4 {
		t.Fatalf("2000 one-byte reads went out as %d events: not coalesced", events)
	}
}

// TestFramesGap: a gap in the stream comes back as a GapError (with the
// data before it), and reading goes on.
func TestFramesGap(t *testing.T) {
	gs := &gapStream{steps: []step{{b: "before"}, {err: &transport.GapError{From: 6, To: 100}}, {b: "after"}, {err: io.EOF}}}
	f := newFrames(gs)
	defer f.Close()
	buf := make([]byte, frameBytes)
	var got bytes.Buffer
	gaps := 0
	for {
		n, err := f.Read(buf)
		got.Write(buf[:n])
		var g *transport.GapError
		if errors.As(err, &g) {
			gaps++
			continue
		}
		if err != nil {
			break
		}
	}
	if gaps != 1 || got.String() != "beforeafter" {
		t.Fatalf("gaps %d, output %q", gaps, got.String())
	}
}

type step struct {
	b   string
	err error
}

type gapStream struct{ steps []step }

func (g *gapStream) Read(p []byte) (int, error) {
	if len(g.steps) == 0 {
		return 0, io.EOF
	}
	s := g.steps[0]
	g.steps = g.steps[1:]
	return copy(p, s.b), s.err
}
func (g *gapStream) Write(p []byte) (int, error)                  { return len(p), nil }
func (g *gapStream) Resize(context.Context, transport.Size) error { return nil }
func (g *gapStream) Close() error                                 { return nil }
