package session_test

import (
	"testing"

	"github.com/ttymux/ttymux/session"
)

// BenchmarkSessionSeq runs `seq 1 1000000` through a session and waits for
// its verdict: compare its MB/s with transport/local's BenchmarkDrainSeq
// (the same PTY drained raw).
func BenchmarkSessionSeq(b *testing.B) {
	m := newManager(b, session.Options{})
	s := openShell(b, m)
	var n int64
	for b.Loop() {
		r := send(b, s, session.SendRequest{Text: "seq 1 1000000"})
		if !r.Complete || r.Reduction == nil || r.Reduction.RawLines != 1000000 {
			b.Fatalf("seq: complete=%v reduction=%+v", r.Complete, r.Reduction)
		}
		n = r.NextOffset - r.Offset
	}
	b.SetBytes(n)
}

// BenchmarkEchoSession is the echo round trip without the MCP layer.
func BenchmarkEchoSession(b *testing.B) {
	m := newManager(b, session.Options{})
	s := openShell(b, m)
	for b.Loop() {
		if r := send(b, s, session.SendRequest{Text: "echo x"}); r.Output != "x" {
			b.Fatalf("echo: %q", r.Output)
		}
	}
}
