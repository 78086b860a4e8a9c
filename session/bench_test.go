package session_test

import (
	"io"
	"slices"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
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

// BenchmarkSessionVsDrain runs `seq 1 1000000` alternately through a
// session (verdict, rendering and reduction included) and drained raw from
// a PTY, so both see the same machine load, and reports the session's
// rate as a percentage of the raw drain rate (medians).
func BenchmarkSessionVsDrain(b *testing.B) {
	m := newManager(b, session.Options{})
	s := openShell(b, m)
	var o local.Opener
	target := transport.Target{Command: "seq", Args: []string{"1", "1000000"}}
	var sess, drain []time.Duration
	for b.Loop() {
		t0 := time.Now()
		c, err := o.Open(b.Context(), target)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := io.Copy(io.Discard, c); err != nil {
			b.Fatal(err)
		}
		if err := c.Wait(); err != nil {
			b.Fatal(err)
		}
		_ = c.Close()
		drain = append(drain, time.Since(t0))
		t1 := time.Now()
		r := send(b, s, session.SendRequest{Text: "seq 1 1000000"})
		sess = append(sess, time.Since(t1))
		if !r.Complete || r.Reduction == nil || r.Reduction.RawLines != 1000000 {
			b.Fatalf("seq: complete=%v reduction=%+v", r.Complete, r.Reduction)
		}
	}
	slices.Sort(sess)
	slices.Sort(drain)
	ms, md := sess[len(sess)/2], drain[len(drain)/2]
	b.ReportMetric(float64(ms.Milliseconds()), "session-ms")
	b.ReportMetric(float64(md.Milliseconds()), "drain-ms")
	b.ReportMetric(100*md.Seconds()/ms.Seconds(), "pct-of-drain")
}
