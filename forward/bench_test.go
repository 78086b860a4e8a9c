package forward_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/ttymux/ttymux/forward"
	"github.com/ttymux/ttymux/internal/sshdtest"
)

// benchSize is what each round pulls through a forward (the target's 100 MB).
const benchSize = 100 << 20

// source serves benchSize zero bytes to each connection.
func source(b *testing.B) string {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { ln.Close() })
	go func() {
		buf := make([]byte, 256<<10)
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				for n := 0; n < benchSize; n += len(buf) {
					if _, err := c.Write(buf); err != nil {
						return
					}
				}
			}()
		}
	}()
	return ln.Addr().String()
}

// pull reads everything addr sends and returns its MB/s.
func pull(b *testing.B, addr string) float64 {
	start := time.Now()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		b.Fatal(err)
	}
	defer c.Close()
	n, err := io.Copy(io.Discard, c)
	if err != nil || n != benchSize {
		b.Fatalf("pulled %d bytes (%v), want %d", n, err, benchSize)
	}
	return float64(n) / (1 << 20) / time.Since(start).Seconds()
}

// sshL starts OpenSSH's `ssh -N -L` to d and returns the local address.
func sshL(b *testing.B, d *sshdtest.SSHD, remote string) string {
	ssh, err := exec.LookPath("ssh")
	if err != nil {
		b.Skip("ssh not found")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		b.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	known := filepath.Join(b.TempDir(), "known_hosts")
	os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600)
	cmd := exec.Command(ssh, "-N", "-F", "/dev/null", "-o", "BatchMode=yes", "-o", "UserKnownHostsFile="+known,
		"-o", "ExitOnForwardFailure=yes", "-i", d.ClientKey, "-p", strconv.Itoa(d.Port),
		"-L", fmt.Sprintf("127.0.0.1:%d:%s", port, remote), d.User+"@"+d.Host)
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	deadline := time.Now().Add(20 * time.Second)
	for {
		c, err := net.Dial("tcp", addr)
		if err == nil {
			c.Close()
			return addr
		}
		if time.Now().After(deadline) {
			b.Fatalf("ssh -L never listened: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// BenchmarkForwardVsSSHL pulls 100 MB through a ttymux forward and through
// OpenSSH's ssh -L to the same sshd, alternating, and reports the forward's
// rate as a share of ssh -L's (target: >= 90 %).
func BenchmarkForwardVsSSHL(b *testing.B) {
	d := sshdtest.StartSSHD(b, sshdtest.SSHDOptions{})
	remote := source(b)
	dl := &dialer{d: d}
	f, err := forward.Start(context.Background(), forward.Spec{Kind: forward.Local, Local: "127.0.0.1:0", Remote: remote}, forward.Options{Connect: dl.connect})
	if err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { f.Close() })
	peer := sshL(b, d, remote)
	var ours, theirs float64
	b.SetBytes(benchSize)
	for b.Loop() {
		ours += pull(b, f.Addr())
		theirs += pull(b, peer)
	}
	b.ReportMetric(ours/float64(b.N), "MB/s")
	b.ReportMetric(theirs/float64(b.N), "ssh-L-MB/s")
	b.ReportMetric(100*ours/theirs, "%-of-ssh-L")
}
