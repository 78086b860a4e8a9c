package agent

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/transport"
)

// BenchmarkEchoRoundTrip types "echo x" into a shell held by the agent and
// waits for its output, through Client and Conn: what a persistent local
// session adds to DESIGN.md's echo round trip. It reports the median in µs.
func BenchmarkEchoRoundTrip(b *testing.B) {
	td := startDaemon(b, agentd.Options{})
	kc, _, err := td.client().Create(b.Context(), testShell(), nil)
	if err != nil {
		b.Fatal(err)
	}
	p := startPump(b, kc)
	p.waitFor(b, "$ ")
	var lat []time.Duration
	for b.Loop() {
		t0 := time.Now()
		if _, err := kc.Write([]byte("echo x\r")); err != nil {
			b.Fatal(err)
		}
		// The terminal echoes "echo x\r\n"; the command's output is the
		// next line.
		p.waitFor(b, "\r\nx\r\n")
		lat = append(lat, time.Since(t0))
		p.waitFor(b, "$ ") // the prompt, so the next command is not typed ahead
	}
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Nanoseconds())/1e3, "median-µs")
}

// BenchmarkReattach measures Attach of a session holding about 1 MB of
// output: from the offset the client had reached (what a restarted ttymux
// server does: nothing to replay), and from the start with the whole
// megabyte read back. It reports medians in ms.
func BenchmarkReattach(b *testing.B) {
	td := startDaemon(b, agentd.Options{})
	c := td.client()
	kc, ks, err := c.Create(b.Context(), testShell(), nil)
	if err != nil {
		b.Fatal(err)
	}
	p := startPump(b, kc)
	p.waitFor(b, "$ ")
	fmt.Fprint(kc, "seq 1 150000; echo seq-''done\r")
	p.waitFor(b, "seq-done\r\n")
	p.waitFor(b, "$ ")
	kc.Close()
	if _, err := p.finish(b); err == nil {
		b.Fatal("Read did not end after Close")
	}
	end := kc.(*Conn).Offset()
	if end < 1<<20 {
		b.Fatalf("only %d bytes of output", end)
	}

	var last, full []time.Duration
	buf := make([]byte, 64<<10)
	for b.Loop() {
		t0 := time.Now()
		kc, _, res, err := c.Attach(b.Context(), ks.ID, end)
		if err != nil || res.From != end {
			b.Fatalf("Attach = %+v, %v", res, err)
		}
		last = append(last, time.Since(t0))
		kc.Close()

		t0 = time.Now()
		kc, _, _, err = c.Attach(b.Context(), ks.ID, 0)
		if err != nil {
			b.Fatal(err)
		}
		conn := kc.(*Conn)
		for conn.Offset() < end {
			if _, err := conn.Read(buf); err != nil {
				b.Fatal(err)
			}
		}
		full = append(full, time.Since(t0))
		kc.Close()
	}
	med := func(d []time.Duration) float64 {
		slices.Sort(d)
		return float64(d[len(d)/2].Microseconds()) / 1e3
	}
	b.ReportMetric(med(last), "reattach-ms")
	b.ReportMetric(med(full), "replay-1MB-ms")
}

// BenchmarkDrainSeq reads `seq 1 1000000` (7.9 MB with ONLCR's "\r")
// through the agent, for comparison with transport/local's
// BenchmarkDrainSeq, the raw PTY floor.
func BenchmarkDrainSeq(b *testing.B) {
	td := startDaemon(b, agentd.Options{RingSize: 16 << 20})
	c := td.client()
	target := transport.Target{Command: "seq", Args: []string{"1", "1000000"}}
	for b.Loop() {
		kc, ks, err := c.Create(b.Context(), target, nil)
		if err != nil {
			b.Fatal(err)
		}
		n, err := io.Copy(io.Discard, kc)
		if err != nil {
			b.Fatal(err)
		}
		if err := kc.Wait(); err != nil {
			b.Fatal(err)
		}
		kc.Close()
		if err := c.Kill(b.Context(), ks.ID); err != nil && !errors.Is(err, transport.ErrNoSession) {
			b.Fatal(err)
		}
		b.SetBytes(n)
	}
}
