package session

import (
	"bytes"
	"log/slog"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
	"github.com/ttymux/ttymux/transport"
)

// TestResultReadsPastThePromptOnly pins where a finished command's result
// leaves the read cursor: past the prompt drawn after its D mark (the
// hook's B mark ends it), not past everything the log holds when the
// result is built. A background job that printed right after the prompt,
// while the result was being built (a busy machine), is news for the next
// result; the old cursor (the log's end) dropped it.
func TestResultReadsPastThePromptOnly(t *testing.T) {
	const nonce = "n0nce"
	mark := func(s string) string { return "\x1b]133;" + s + ";ttymux=" + nonce + "\x07" }
	prompt := "$ " + mark("B")
	for _, tt := range []struct {
		name  string
		after string // the output after the command's D mark
		want  string // where the cursor must end: after this text
	}{
		{name: "job after the prompt", after: prompt + "BG-42\r\n", want: prompt},
		{name: "prompt without a B mark", after: "$ BG-42\r\n", want: "BG-42\r\n"},
		// A D before the first B: that B ends a later prompt, not this
		// command's.
		{name: "B of a later prompt", after: "$ x\r\n" + mark("C") + mark("D;0") + prompt + "BG\r\n", want: "BG\r\n"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			conn := newReplayConn()
			s := newSession(sessionConfig{
				id: "pe", transport: "local", command: "/bin/bash", conn: conn, size: transport.Size{Rows: 24, Cols: 80},
				ringSize: 1 << 20, nonce: nonce, shell: true, log: slog.New(slog.DiscardHandler),
			})
			t.Cleanup(func() { _ = s.Close() })
			conn.feed([]byte(mark("D;0") + prompt))
			s.mu.Lock()
			c := newCommand(s.ring.End(), s.now(), "true\n", nil)
			c.AtPrompt, c.Prompt, c.owes, c.NeedC = true, verdict.LearnPrompt(s.ring), 1, true
			s.cmd = c
			s.mu.Unlock()
			// Everything arrives before the result is built.
			out := "true\r\n" + mark("C") + "out\r\n" + mark("D;0") + tt.after
			conn.feed([]byte(out))
			v, _, _, _ := s.evaluate(c)
			if !v.Complete || v.Via != ViaExitCode {
				t.Fatalf("verdict %+v; want complete via exit-code", v)
			}
			r := s.result(c, v, time.Now(), false, true)
			if r.Output != "out" {
				t.Fatalf("output %q, want out", r.Output)
			}
			s.mu.Lock()
			got, end := s.readOff, s.ring.End()
			s.mu.Unlock()
			want := c.SendOff + int64(bytes.LastIndex([]byte(out), []byte(tt.want))+len(tt.want))
			if got != want {
				t.Fatalf("read cursor at %d (log end %d), want %d: after %q", got, end, want, tt.want)
			}
		})
	}
}
