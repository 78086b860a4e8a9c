package sshconn_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// BenchmarkSSHDEchoRoundTrip measures typing `echo` into a shell over a
// real sshd on loopback until its output line arrives (DESIGN.md target:
// ≤ 2 ms median). It reports the median in µs.
func BenchmarkSSHDEchoRoundTrip(b *testing.B) {
	d := sshdtest.StartSSHD(b, sshdtest.SSHDOptions{})
	home := b.TempDir()
	cfg := filepath.Join(home, "ssh_config")
	kh := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(cfg, []byte(d.ConfigBlock("box", kh)), 0o600); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(kh, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		b.Fatal(err)
	}
	b.Setenv("SSH_AUTH_SOCK", "")
	o := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	b.Cleanup(func() { _ = o.Close() })
	ctx, cancel := context.WithTimeout(b.Context(), 20*time.Second)
	defer cancel()
	c, err := o.Open(ctx, transport.Target{Command: "exec env PS1='$ ' bash --norc --noprofile", Spec: transport.SSHParams{Host: "box"}})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { _ = c.Close() })

	// One reader on this goroutine, as the session layer has one pump. The
	// terminal echoes the typed line, which "R<n>\r\n" cannot match.
	var buf []byte
	readUntil := func(want []byte) {
		deadline := time.Now().Add(10 * time.Second)
		chunk := make([]byte, 4096)
		for !bytes.Contains(buf, want) {
			if time.Now().After(deadline) {
				b.Fatalf("%q not seen; got %q", want, buf)
			}
			n, err := c.Read(chunk)
			if err != nil {
				b.Fatalf("read: %v (output %q)", err, buf)
			}
			buf = append(buf, chunk[:n]...)
		}
		i := bytes.Index(buf, want)
		buf = buf[i+len(want):]
	}
	if _, err := io.WriteString(c, "echo ready-$((1))\n"); err != nil {
		b.Fatal(err)
	}
	readUntil([]byte("ready-1\r\n"))

	samples := make([]time.Duration, 0, b.N)
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		start := time.Now()
		if _, err := fmt.Fprintf(c, "echo R$((%d+1))\n", i); err != nil {
			b.Fatal(err)
		}
		readUntil(fmt.Appendf(nil, "R%d\r\n", i+1))
		samples = append(samples, time.Since(start))
	}
	b.StopTimer()
	if len(samples) > 0 {
		slices.Sort(samples)
		b.ReportMetric(float64(samples[len(samples)/2].Microseconds()), "median-µs")
	}
}
