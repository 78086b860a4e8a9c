package screen

import (
	"math/rand/v2"
	"strings"
	"testing"
)

// binaryWithQueries returns n bytes of made-up binary output that holds
// query-shaped bytes: 8-bit CSI (0x9B) before c and 6n, as random data
// does every few hundred bytes, and 7-bit ones now and then.
func binaryWithQueries(n int) []byte {
	rng := rand.New(rand.NewPCG(5, 14))
	b := make([]byte, 0, n+64)
	for len(b) < n {
		switch k := rng.IntN(400); {
		case k == 0:
			b = append(b, 0x9b, 'c')
		case k == 1:
			b = append(b, 0x9b, '6', 'n')
		case k == 2:
			b = append(b, 0x1b, '[', 'c')
		case k == 3:
			b = append(b, 0x1b, '[', '5', 'n')
		default:
			c := byte(rng.IntN(256))
			if c == 0x1b {
				c = 0
			}
			b = append(b, c)
		}
	}
	return b
}

// TestBinaryOutputIsNotAnswered pins issue #14 item 5: after `cat
// /dev/urandom | head -c 5e7` the emulator's answers to query-shaped bytes
// in the data were typed into the shell, and the next command ran as
// "22cecho". vt takes a lone 0x9B for CSI, which a UTF-8 terminal shows as
// an invalid character instead, and 7-bit queries inside binary data are
// chance, not questions: neither is answered. A query in text after it is.
func TestBinaryOutputIsNotAnswered(t *testing.T) {
	for _, chunk := range []int{1, 7, 4096, 1 << 20} {
		t.Logf("chunk %d", chunk)
		r := newReplyRecorder()
		s := newTestScreen(t, 24, 80, Options{Reply: r}, noQuiet)
		data := binaryWithQueries(200 << 10)
		if chunk == 1 {
			data = data[:20<<10]
		}
		for i := 0; i < len(data); i += chunk {
			s.Write(data[i:min(i+chunk, len(data))])
		}
		s.Snapshot()
		writeAll(t, s, strings.Repeat("text again after the binary data\r\n", 10)+"\x1b[5n")
		r.waitFor(t, "\x1b[0n")
	}
}

// TestQueryFloodIsRateLimited: a burst of queries is answered (a program
// asks a few at startup), a flood of them beyond it is not.
func TestQueryFloodIsRateLimited(t *testing.T) {
	r := newReplyRecorder()
	s := newTestScreen(t, 24, 80, Options{Reply: r}, noQuiet)
	writeAll(t, s, strings.Repeat("\x1b[5n", 1000))
	s.Snapshot()
	_ = s.Close() // waits for the answers in flight
	got := strings.Count(r.String(), "\x1b[0n")
	if got < 16 || got > 100 {
		t.Errorf("%d of 1000 queries answered at once, want the burst (32)", got)
	}
}

// TestHideC1KeepsUTF8: bytes 0x80–0x9F inside UTF-8 characters, even split
// across Writes, are text ("✓" is E2 9C 93); only lone ones are hidden.
func TestHideC1KeepsUTF8(t *testing.T) {
	in := "ok ✓ ✓ \x9b6n \xde\xcf\x9bc end"
	for split := 1; split < len(in); split++ {
		buf := []byte(in[:split])
		hideC1(buf, 0)
		buf = append(buf, in[split:]...)
		hideC1(buf, split)
		want := strings.Replace(strings.Replace(in, "\x9b", "\xff", 1), "\xde", "\xff", 1)
		if string(buf) != want {
			t.Fatalf("split %d: %q, want %q", split, buf, want)
		}
	}
	s := newTestScreen(t, 24, 80, Options{}, noQuiet)
	writeAll(t, s, "a \xe2\x9c", "\x93 b")
	if got := s.Snapshot().Lines[0]; got != "a ✓ b" {
		t.Errorf("row 0 %q, want %q", got, "a ✓ b")
	}
}
