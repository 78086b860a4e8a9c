package session_test

import (
	"bytes"
	"github.com/ttymux/ttymux/internal/ptytest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/creack/pty"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
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

// BenchmarkEchoSessionPersistent is BenchmarkEchoSession with the session
// kept by an agent (in-process agent server, over its Unix socket): the
// session layer plus the agent hop, for profiling the hop's frames.
func BenchmarkEchoSessionPersistent(b *testing.B) {
	m := newPersistentManager(b, startAgent(b))
	ctx := b.Context()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true, Target: transport.Target{
		Env: []string{"HOME=" + b.TempDir(), "PS1=$ ", "LANG=C.UTF-8"},
	}})
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		if r := send(b, s, session.SendRequest{Text: "echo x"}); r.Output != "x" {
			b.Fatalf("echo: %q", r.Output)
		}
	}
}

// BenchmarkSessionVsDrain runs `seq 1 1000000` alternately through a
// session (verdict, rendering and reduction included) and drained raw from
// a plain creack/pty PTY (pty.Start, read to EIO: what no terminal server can
// beat), so both see the same machine load, and reports the session's rate
// as a percentage of the raw drain rate (medians). The in-process case keeps
// the session in this process; the persistent case keeps it in an agent
// (in-process agent server, over its Unix socket), as open_local does by
// default. DESIGN.md targets ≥ 85 % for both.
func BenchmarkSessionVsDrain(b *testing.B) {
	for _, tc := range []struct {
		name string
		mgr  func(testing.TB) *session.Manager
		open session.OpenRequest
	}{
		{"in-process", func(t testing.TB) *session.Manager { return newManager(t, session.Options{}) }, session.OpenRequest{Transport: "local"}},
		{"persistent", func(t testing.TB) *session.Manager { return newPersistentManager(t, startAgent(t)) }, session.OpenRequest{Transport: "local", Persistent: true}},
	} {
		b.Run(tc.name, func(b *testing.B) {
			m := tc.mgr(b)
			req := tc.open
			req.Target = transport.Target{Env: []string{"HOME=" + b.TempDir(), "PS1=$ ", "LANG=C.UTF-8"}}
			s, err := m.Open(b.Context(), req)
			if err != nil {
				b.Fatal(err)
			}
			if tc.open.Persistent && !s.Persistent() {
				b.Fatalf("not persistent: %s", s.OpenNote())
			}
			var sess, drain []time.Duration
			for b.Loop() {
				drain = append(drain, ptytest.DrainSeq(b))
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
		})
	}
}

// BenchmarkReadyVsRawPrompt measures how long open_local takes to return a
// ready session for a bash with an rc file, against the same bash started
// on a plain creack/pty PTY and read until its first prompt (the rc file's
// own time: what no server can beat), alternately so both see the same
// load. DESIGN.md targets ≤ 300 ms beyond the raw figure (beyond-ms),
// whatever the rc file: one the hook composes with (pyenv-virtualenv's
// trailing ;), and one that leaves the hook out (it execs another bash),
// where the session must find that at the first prompt rather than wait
// out its ready timeout (issue #30).
func BenchmarkReadyVsRawPrompt(b *testing.B) {
	for _, tc := range []struct{ name, rc string }{
		{"pyenv", "_h() { local r=$?; return $r; }\nPROMPT_COMMAND=\"_h;${PROMPT_COMMAND-}\"\nalias ll='ls -l'\nPS1='ready$ '\n"},
		{"hook-left-out", "exec env PS1='ready$ ' bash --norc --noprofile\n"},
	} {
		b.Run(tc.name, func(b *testing.B) {
			home := b.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(tc.rc), 0o600); err != nil {
				b.Fatal(err)
			}
			m := newManager(b, session.Options{Shell: "/bin/bash"})
			var ready, raw []time.Duration
			for b.Loop() {
				raw = append(raw, rawPrompt(b, home, "ready$ "))
				t0 := time.Now()
				s, err := m.Open(b.Context(), session.OpenRequest{Transport: "local", Target: transport.Target{
					Env: []string{"HOME=" + home, "LANG=C.UTF-8", "PROMPT_COMMAND="}}})
				ready = append(ready, time.Since(t0))
				if err != nil {
					b.Fatal(err)
				}
				if r := send(b, s, session.SendRequest{Text: "echo x"}); r.Output != "x" || !r.Complete {
					b.Fatalf("echo x: %+v", r)
				}
				if _, err := m.Close(b.Context(), s.ID()); err != nil {
					b.Fatal(err)
				}
			}
			slices.Sort(ready)
			slices.Sort(raw)
			mr, mw := ready[len(ready)/2], raw[len(raw)/2]
			b.ReportMetric(float64(mr.Microseconds())/1000, "ready-ms")
			b.ReportMetric(float64(mw.Microseconds())/1000, "raw-ms")
			b.ReportMetric(float64((mr-mw).Microseconds())/1000, "beyond-ms")
		})
	}
}

// rawPrompt starts bash -i with HOME=home on a plain PTY and returns how
// long it took to print prompt.
func rawPrompt(b *testing.B, home, prompt string) time.Duration {
	t0 := time.Now()
	cmd := exec.Command("/bin/bash", "-i")
	cmd.Env = []string{"HOME=" + home, "LANG=C.UTF-8", "TERM=xterm-256color", "PATH=" + os.Getenv("PATH")}
	f, err := pty.Start(cmd)
	if err != nil {
		b.Fatal(err)
	}
	var got []byte
	buf := make([]byte, 4096)
	for !bytes.Contains(got, []byte(prompt)) {
		n, err := f.Read(buf)
		if err != nil {
			b.Fatalf("raw bash ended before its prompt: %v (%q)", err, got)
		}
		got = append(got, buf[:n]...)
	}
	d := time.Since(t0)
	_ = cmd.Process.Kill()
	_ = f.Close()
	_ = cmd.Wait()
	return d
}
