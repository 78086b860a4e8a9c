package local_test

import (
	"io"
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// BenchmarkDrainSeq measures the raw PTY drain rate: how fast a Conn's
// output can be read when nothing else is done with it. ttymux compares its
// session throughput against this floor. Each op runs `seq 1 1000000`
// (7.9 MB through the terminal, with ONLCR's "\r").
func BenchmarkDrainSeq(b *testing.B) {
	target := transport.Target{Command: "seq", Args: []string{"1", "1000000"}}
	var o local.Opener
	for b.Loop() {
		c, err := o.Open(b.Context(), target)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, c)
		if err != nil {
			b.Fatal(err)
		}
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
		if err := c.Close(); err != nil {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
