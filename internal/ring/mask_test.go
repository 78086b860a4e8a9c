package ring

import "testing"

// TestMask: only held bytes are overwritten, line ends are kept, across the
// ring's wrap.
func TestMask(t *testing.T) {
	r := New(16)
	r.Write([]byte("0123456789"))
	r.Write([]byte("ab\ncdefgh")) // wraps: holds offsets 3..18
	if n := r.Mask(0, 6, '*'); n != 3 {
		t.Fatalf("masked %d below Start, want only the 3 held", n)
	}
	if n := r.Mask(9, 14, '*'); n != 4 {
		t.Fatalf("masked %d, want 4 (the newline kept)", n)
	}
	got, _ := r.AppendRange(nil, r.Start(), r.End())
	if want := "***678***\n*defgh"; string(got) != want {
		t.Fatalf("ring holds %q, want %q", got, want)
	}
	if r.Mask(5, 5, '*') != 0 || r.Mask(30, 40, '*') != 0 {
		t.Fatal("an empty or unheld range was masked")
	}
}
