package ring

import (
	"testing"
	"time"
)

func TestTimesAt(t *testing.T) {
	r := New(64)
	ts := NewTimes(r)
	t0 := time.Unix(1000, 0)
	write := func(s string, at time.Duration) {
		r.Write([]byte(s))
		ts.Write([]byte(s), t0.Add(at))
	}
	write("abc\n", 0)
	write("de", 500*time.Microsecond) // within the window: shares the first stamp
	write("f\ng", 10*time.Millisecond)
	write("h\n", 2*time.Second)
	for _, c := range []struct {
		off  int64
		want time.Duration
	}{{0, 0}, {3, 0}, {5, 0}, {6, 10 * time.Millisecond}, {8, 10 * time.Millisecond}, {9, 2 * time.Second}, {10, 2 * time.Second}} {
		got, ok := ts.At(c.off)
		if !ok || !got.Equal(t0.Add(c.want)) {
			t.Errorf("At(%d) = %v, %v; want %v", c.off, got.Sub(t0), ok, c.want)
		}
	}
	if _, ok := ts.At(r.End()); ok {
		t.Errorf("At(End()) is known")
	}
	if ts.Len() != 3 {
		t.Errorf("Len = %d, want 3", ts.Len())
	}
	// Bytes leaving the ring take their stamps with them, but the one
	// covering Start() stays.
	for i := range 40 {
		write("0123456789", 3*time.Second+time.Duration(i)*time.Second)
	}
	if got, ok := ts.At(r.Start()); !ok || got.Before(t0.Add(3*time.Second)) {
		t.Errorf("At(Start()) = %v, %v", got.Sub(t0), ok)
	}
	if ts.Len() > 8 {
		t.Errorf("Len = %d after the ring turned over several times; stamps of dropped bytes are kept", ts.Len())
	}
}

// TestTimesBounded pins the memory bound: a stream that arrives a byte per
// window (the worst case: every chunk a stamp of its own) keeps at most
// max(1024, Size()/64) stamps, and stamps stay within the precision
// reported of the truth, never later.
func TestTimesBounded(t *testing.T) {
	r := New(1 << 20)
	ts := NewTimes(r)
	t0 := time.Unix(0, 0)
	arrival := func(off int64) time.Time { return t0.Add(time.Duration(off) * 1100 * time.Microsecond) }
	for off := int64(0); off < 200_000; off++ {
		p := []byte{byte('a' + off%26)}
		r.Write(p)
		ts.Write(p, arrival(off))
		if ts.Len() > ts.max {
			t.Fatalf("after %d bytes %d stamps are held, over the bound %d", off+1, ts.Len(), ts.max)
		}
	}
	if want := max(minTimes, r.Size()/64); ts.max != want {
		t.Fatalf("max = %d, want %d", ts.max, want)
	}
	prec := ts.Precision()
	if prec <= timesWindow {
		t.Fatalf("precision %v: the window never grew, so the bound was not exercised", prec)
	}
	for off := r.Start(); off < r.End(); off += 997 {
		got, ok := ts.At(off)
		if !ok {
			t.Fatalf("At(%d) unknown", off)
		}
		if d := arrival(off).Sub(got); d < 0 || d >= prec {
			t.Fatalf("At(%d) is %v before the byte's arrival; precision %v", off, d, prec)
		}
	}
}

func TestTimesClockGoesBack(t *testing.T) {
	r := New(64)
	ts := NewTimes(r)
	t0 := time.Unix(1000, 0)
	r.Write([]byte("a"))
	ts.Write([]byte("a"), t0)
	r.Write([]byte("b"))
	ts.Write([]byte("b"), t0.Add(-time.Hour))
	if got, _ := ts.At(1); got.Before(t0) {
		t.Errorf("a later byte is stamped before an earlier one: %v", got.Sub(t0))
	}
}

// TestTimesStamps: a copy of the stamps covering a range answers lookups
// as At does.
func TestTimesStamps(t *testing.T) {
	r := New(1 << 10)
	ts := NewTimes(r)
	t0 := time.Unix(1000, 0)
	for i := range 50 {
		p := []byte("line\n")
		r.Write(p)
		ts.Write(p, t0.Add(time.Duration(i)*10*time.Millisecond))
	}
	offs, ns := ts.Stamps(42, 120)
	if len(offs) == 0 || offs[0] > 42 || offs[len(offs)-1] >= 120 {
		t.Fatalf("Stamps(42, 120) = %v", offs)
	}
	for off := int64(42); off < 120; off++ {
		want, _ := ts.At(off)
		if got, ok := Lookup(offs, ns, off); !ok || !got.Equal(want) {
			t.Fatalf("Lookup(%d) = %v, %v; At says %v", off, got, ok, want)
		}
	}
	if _, ok := Lookup(offs, ns, offs[0]-1); ok {
		t.Error("an offset below the copy is known")
	}
}
