package reduce

import (
	"math/rand/v2"
	"testing"
)

// binaryBytesRef is binaryBytes as it was written first, comparisons per
// byte: the reference for the table-driven version (invalid UTF-8 is
// counted the same way by both).
func binaryBytesRef(p []byte) int {
	n, high := 0, false
	for _, b := range p {
		if b < 0x20 && b != '\t' && b != '\n' && b != '\r' && b != '\b' && b != '\a' && b != '\f' && b != 0x1b || b == 0x7f {
			n++
		}
		high = high || b >= 0x80
	}
	if high {
		n += invalidUTF8(p)
	}
	return n
}

// TestBinaryBytes checks binaryBytes against the reference on every single
// byte and on random mixes of text, controls, UTF-8 and invalid bytes.
func TestBinaryBytes(t *testing.T) {
	for b := range 256 {
		p := []byte{byte(b)}
		if got, want := binaryBytes(p), binaryBytesRef(p); got != want {
			t.Errorf("binaryBytes(%#x) = %d, want %d", b, got, want)
		}
	}
	// Each byte among printable ones, at each place of an eight-byte
	// word that binaryBytes may pass over at once.
	for b := range 256 {
		for at := range 8 {
			p := []byte("abcdefgh~ 0123456789")
			p[at] = byte(b)
			if got, want := binaryBytes(p), binaryBytesRef(p); got != want {
				t.Errorf("binaryBytes(%q) = %d, want %d", p, got, want)
			}
		}
	}
	alphabet := []string{"a", "Z", " ", "\t", "\n", "\r", "\x1b[1m", "\x00", "\x07", "\x7f", "é", "→", "\xff", "\xc3", "\x80", "\x01", "flood-flood-flood", "0123456789"}
	r := rand.New(rand.NewPCG(1, 2))
	for range 2000 {
		var p []byte
		for range r.IntN(200) {
			p = append(p, alphabet[r.IntN(len(alphabet))]...)
		}
		if got, want := binaryBytes(p), binaryBytesRef(p); got != want {
			t.Fatalf("binaryBytes(%q) = %d, want %d", p, got, want)
		}
	}
}
