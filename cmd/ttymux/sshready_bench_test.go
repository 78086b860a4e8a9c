package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ttymux/ttymux/internal/dropbeartest"
)

// BenchmarkSSHBashReady measures open_ssh to a bash login shell until the
// session is ready, against OpenSSH's ssh client logging in to the same
// account on a PTY until the prompt is drawn, in the same run: to OpenSSH's
// sshd and to Dropbear. bash's integration file comes as the bootstrap's
// input after the bootstrap asks for it (session/remote.go), a round trip
// the plain login does not make. The target is at most 300 ms beyond the
// floor (DESIGN.md, "session ready").
func BenchmarkSSHBashReady(b *testing.B) {
	sshBin, err := exec.LookPath("ssh")
	if err != nil {
		b.Skip("no ssh client for the floor")
	}
	const profile = "PS1='bashbox$ '\n"
	b.Run("openssh", func(b *testing.B) {
		h := newRemoteHost(b, "SetEnv SHELL=/bin/bash")
		if err := os.WriteFile(filepath.Join(h.sshd.Home, ".bash_profile"), []byte(profile), 0o600); err != nil {
			b.Fatal(err)
		}
		benchReady(b, sshBin, h.cfg, "box", "bashbox$ ", func() func(string, map[string]any, any) {
			_, do := h.server(b)
			return func(n string, a map[string]any, o any) { do(n, a, o) }
		})
	})
	b.Run("dropbear", func(b *testing.B) {
		bash, err := exec.LookPath("bash")
		if err != nil {
			b.Skip("no bash")
		}
		dropbeartest.AllowShell(b, bash)
		d := dropbeartest.Start(b, dropbeartest.Options{Shell: bash, Files: map[string]string{".bash_profile": profile}})
		r := &router{d: d, home: b.TempDir()}
		known := filepath.Join(r.home, "known_hosts")
		if err := os.WriteFile(known, []byte(d.KnownHostsLines()), 0o600); err != nil {
			b.Fatal(err)
		}
		r.cfg = filepath.Join(r.home, "ssh_config")
		if err := os.WriteFile(r.cfg, []byte(d.ConfigBlock("router", known)), 0o600); err != nil {
			b.Fatal(err)
		}
		b.Setenv("SSH_AUTH_SOCK", "")
		benchReady(b, sshBin, r.cfg, "router", "bashbox$ ", func() func(string, map[string]any, any) {
			do := r.server(b, false)
			return func(n string, a map[string]any, o any) { do(n, a, o) }
		})
	})
}

// benchReady times open_ssh to host through a fresh server each time (a
// cold open) and ssh -tt to the same host until prompt shows, and reports
// the medians.
func benchReady(b *testing.B, sshBin, cfg, host, prompt string, server func() func(string, map[string]any, any)) {
	var open, raw []time.Duration
	for b.Loop() {
		do := server()
		start := time.Now()
		var o OpenOut
		do("open_ssh", map[string]any{"host": host}, &o)
		open = append(open, time.Since(start))
		if !o.Integrated {
			b.Fatalf("not integrated: %+v", o)
		}
		do("close", map[string]any{"session_id": o.ID}, nil)

		start = time.Now()
		cmd := exec.Command(sshBin, "-F", cfg, "-tt", host)
		f, err := pty.Start(cmd)
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 0, 4096)
		chunk := make([]byte, 4096)
		for !strings.Contains(string(buf), prompt) {
			n, err := f.Read(chunk)
			if err != nil {
				b.Fatalf("raw ssh: %v after %q", err, buf)
			}
			buf = append(buf, chunk[:n]...)
		}
		raw = append(raw, time.Since(start))
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
		_ = f.Close()
	}
	b.StopTimer()
	mo, mr := median(open), median(raw)
	b.ReportMetric(float64(mo.Milliseconds()), "open_ssh-ms")
	b.ReportMetric(float64(mr.Milliseconds()), "raw-ssh-ms")
	b.ReportMetric(float64((mo - mr).Milliseconds()), "beyond-ms")
}
