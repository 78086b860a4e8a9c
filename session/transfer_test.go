package session

import (
	"strings"
	"testing"
)

// TestCwdTrackerEverySplit feeds OSC 7 sequences (BEL and ST ends, a
// percent-encoded path, noise and an unterminated one) split at every
// point: the directory never depends on where the stream was cut.
func TestCwdTrackerEverySplit(t *testing.T) {
	for _, tc := range []struct {
		name, in, want string
	}{
		{"bel", "x\x1b]7;file://host/srv/app\x07$ ", "/srv/app"},
		{"st", "\x1b]7;file:///home/me\x1b\\", "/home/me"},
		{"percent", "\x1b]7;file://h/tmp/a%25b%20c\x07", "/tmp/a%b c"},
		{"last wins", "\x1b]7;file://h/one\x07out\x1b]7;file://h/two\x07", "/two"},
		{"other osc", "\x1b]0;title\x07\x1b]133;D;0\x07", ""},
		{"unterminated", "\x1b]7;file://h/x\nmore", ""},
		{"not a file url", "\x1b]7;http://h/x\x07", ""},
		{"esc esc", "\x1b\x1b]7;file://h/e\x07", "/e"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for i := 0; i <= len(tc.in); i++ {
				var c cwdTracker
				c.Write([]byte(tc.in[:i]))
				c.Write([]byte(tc.in[i:]))
				if c.dir != tc.want {
					t.Fatalf("split at %d: dir %q, want %q", i, c.dir, tc.want)
				}
			}
		})
	}
}

// BenchmarkCwdTrackerFlood: what following OSC 7 costs per MiB of text
// without escapes (a flood): issue #37 (skips to ESC with IndexByte; the
// loop a byte at a time before it took ~0.9 ms per MiB here).
func BenchmarkCwdTrackerFlood(b *testing.B) {
	p := []byte(strings.Repeat("flood-flood-flood-flood-flood\r\n", 1<<20/32))
	b.SetBytes(int64(len(p)))
	var c cwdTracker
	for b.Loop() {
		c.Write(p)
	}
}
