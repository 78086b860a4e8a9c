package reduce

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestCollectorWindow checks the window, a ring of at most collectWindow
// lines and collectWinBytes bytes, against the whole rendering: for streams
// of short lines and of lines long enough that the byte limit, not the
// count, decides what the window holds (also while its slices still grow),
// the lines Finish returns end with exactly the lines the limits allow, in
// order, and every line is either returned or counted by a gap; each
// Write's bytes are overwritten once it returned.
func TestCollectorWindow(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name   string
		lines  int
		maxLen func(i int) int
	}{
		{"short", 3*collectWindow + 17, func(int) int { return 12 }},
		{"fits", collectHead + collectWindow, func(int) int { return 12 }},
		{"bytes decide while growing", collectHead + 3000, func(int) int { return 4000 }},
		{"bytes decide when full", 2*collectWindow + 5, func(int) int { return 300 }},
		{"one line over the limit", collectHead + 40, func(i int) int {
			if i == collectHead+20 {
				return 3 * collectWinBytes / 2
			}
			return 100
		}},
		// Long lines move the ring's start while its slices still grow;
		// short ones then fill and grow them.
		{"long then short", collectHead + 1500 + 3*collectWindow, func(i int) int {
			if i < collectHead+1500 {
				return 3000
			}
			return 10
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b strings.Builder
			for i := range tc.lines {
				n := tc.maxLen(i)
				if n < collectWinBytes {
					n = rng.IntN(n + 1)
				}
				if i%997 == 500 {
					fmt.Fprintf(&b, "x.c:%d: error: bad\r\n", i)
					continue
				}
				fmt.Fprintf(&b, "%d %s\r\n", i, strings.Repeat("x", n))
			}
			data := []byte(b.String())
			all, allNums := RenderNumbered(data)
			var c Collector
			for i := 0; i < len(data); {
				k := min(len(data)-i, 1+rng.IntN(50000))
				// A reused read buffer: nothing the Collector keeps may
				// point into what it was given.
				buf := slices.Clone(data[i : i+k])
				c.Write(buf)
				for j := range buf {
					buf[j] = 'Z'
				}
				i += k
			}
			lines, nums, gaps := c.Finish(nil, 1, fillHint)

			// The window the limits allow: the last lines, at most
			// collectWindow and collectWinBytes of them, and at least one.
			w, bytes := 0, 0
			for k := len(all) - 1; k >= collectHead; k-- {
				if w > 0 && (w == collectWindow || bytes+len(all[k]) > collectWinBytes) {
					break
				}
				w++
				bytes += len(all[k])
			}
			if len(lines) < w {
				t.Fatalf("%d lines returned, want at least the window's %d", len(lines), w)
			}
			got, gotNums := lines[len(lines)-w:], nums[len(nums)-w:]
			want, wantNums := all[len(all)-w:], allNums[len(all)-w:]
			for k := range want {
				if got[k] != want[k] || gotNums[k] != wantNums[k] {
					t.Fatalf("window line %d of %d: %.40q (num %d), want %.40q (num %d)", k, w, got[k], gotNums[k], want[k], wantNums[k])
				}
			}
			// The head is the first lines, whole.
			for k := range len(c.head) {
				if lines[k] != all[k] || nums[k] != allNums[k] {
					t.Fatalf("head line %d: %.40q (num %d), want %.40q (num %d)", k, lines[k], nums[k], all[k], allNums[k])
				}
			}
			// Every error line is returned, the middle's too.
			var errs []string
			for _, l := range lines {
				if strings.Contains(l, ": error: ") {
					errs = append(errs, l)
				}
			}
			for i, k := 500, 0; i < tc.lines; i, k = i+997, k+1 {
				if want := fmt.Sprintf("x.c:%d: error: bad", i); k >= len(errs) || errs[k] != want {
					t.Fatalf("error line %d of the stream missing or out of order (%d returned)", i, len(errs))
				}
			}
			counted := int64(len(lines) - len(gaps))
			for _, g := range gaps {
				counted += g.Lines
			}
			if counted != int64(len(all)) {
				t.Errorf("%d lines returned or counted, want %d", counted, len(all))
			}
			if tc.name == "fits" && (len(gaps) != 0 || len(lines) != len(all)) {
				t.Errorf("output that fits came back with %d gaps, %d of %d lines", len(gaps), len(lines), len(all))
			}
		})
	}
}

// TestRenderBorrow: a borrowing Renderer (what a Collector uses) renders
// every stream of the corpus as the slow path does, cut at the same places
// (a C1 control split by a cut renders differently), although
// the lines Take returns are copied right away and each Write's bytes are
// overwritten once it returned, as a reused read buffer would be: nothing
// it keeps points into them.
func TestRenderBorrow(t *testing.T) {
	rng := rand.New(rand.NewPCG(5, 6))
	for _, in := range renderCorpus() {
		for _, window := range []int{0, 1, 3, 8} {
			for k := range 12 {
				var cuts []int
				for range k % 4 * 3 {
					cuts = append(cuts, rng.IntN(len(in)+1))
				}
				slices.Sort(cuts)
				renderBorrowed(t, in, cuts, window)
			}
		}
	}
}

func FuzzRenderBorrow(f *testing.F) {
	for _, in := range renderCorpus() {
		if len(in) < 2000 {
			f.Add(in, uint16(len(in)/2), uint16(len(in)/3), uint8(0))
		}
	}
	f.Fuzz(func(t *testing.T, in []byte, cut, cut2 uint16, window uint8) {
		cuts := []int{int(cut), int(cut2)}
		slices.Sort(cuts)
		renderBorrowed(t, in, cuts, int(window%6))
	})
}

func renderBorrowed(t *testing.T, in []byte, cuts []int, window int) {
	t.Helper()
	var want []string
	var wantNums []int64
	slow := Renderer{Window: window, slow: true, Emit: func(s string, num int64) {
		want, wantNums = append(want, s), append(wantNums, num)
	}}
	prev := 0
	for _, c := range append(slices.Clone(cuts), len(in)) {
		c = min(max(c, prev), len(in))
		slow.Write(in[prev:c])
		prev = c
	}
	slow.Flush()

	var got []string
	var gotNums []int64
	r := Renderer{Window: window, borrow: true}
	take := func() {
		lines, nums := r.Take()
		for _, l := range lines {
			got = append(got, strings.Clone(l))
		}
		gotNums = append(gotNums, nums...)
	}
	prev = 0
	for _, c := range append(slices.Clone(cuts), len(in)) {
		c = min(max(c, prev), len(in))
		buf := slices.Clone(in[prev:c])
		r.Write(buf)
		take()
		for i := range buf {
			buf[i] = 'Z'
		}
		prev = c
	}
	r.Flush()
	take()
	if !slices.Equal(got, want) || !slices.Equal(gotNums, wantNums) {
		t.Fatalf("%q cut at %v, window %d:\n got %q %v\nwant %q %v", in, cuts, window, got, gotNums, want, wantNums)
	}
}

// TestCollectorDropN: lines leaving the window in one go (dropN, with its
// scan for letters) give what they gave leaving one at a time, for streams
// of numbers, of one repeated line, of errors among them, of empty and of
// long lines, of a repeated line split elsewhere now and then, of more
// errors than the middle keeps, cut anywhere.
func TestCollectorDropN(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	line := func(kind, i int) string {
		switch kind {
		case 0:
			return strconv.Itoa(i) // seq
		case 1:
			return "y" // yes
		case 2:
			if rng.IntN(500) == 0 {
				return fmt.Sprintf("x.c:%d: error: bad", i)
			}
			return strconv.Itoa(i)
		case 3:
			if rng.IntN(3) == 0 {
				return ""
			}
			return strings.Repeat("7", rng.IntN(300))
		case 4:
			// One line, now and then as two lines of its bytes split
			// elsewhere, or an error.
			switch r := rng.IntN(20000); {
			case r < 3:
				return "y\r\nyyy"
			case r == 3:
				return "E: failed"
			}
			return "yy"
		case 5:
			return "npm ERR! x" // more errors than the middle keeps
		default: // runs of numbers, then of one line, then of letters
			switch (i / 7000) % 3 {
			case 0:
				return strconv.Itoa(i)
			case 1:
				return "-- 12 --"
			}
			return "ok " + strconv.Itoa(i)
		}
	}
	for kind := range 7 {
		var b strings.Builder
		n := 5*collectWindow + rng.IntN(1000)
		switch kind {
		case 4:
			n = 40 * collectWindow
		case 5:
			n = 2*collectKeptBytes/len("npm ERR! x") + collectWindow
		}
		for i := range n {
			b.WriteString(line(kind, i))
			b.WriteString("\r\n")
		}
		data := []byte(b.String())
		var fast, slow Collector
		slow.oneByOne = true
		for i := 0; i < len(data); {
			k := min(len(data)-i, 1+rng.IntN(70000))
			fast.Write(data[i : i+k])
			slow.Write(data[i : i+k])
			i += k
		}
		gl, gn, gg := fast.Finish(nil, 1, fillHint)
		wl, wn, wg := slow.Finish(nil, 1, fillHint)
		if !slices.Equal(gl, wl) || !slices.Equal(gn, wn) || !slices.Equal(gg, wg) {
			t.Fatalf("stream %d: %d lines, %d gaps %v; one at a time %d lines, %d gaps %v", kind, len(gl), len(gg), gg, len(wl), len(wg), wg)
		}
		if len(wg) == 0 {
			t.Fatalf("stream %d: no gap: the test did not fold", kind)
		}
	}
}
