package screen

import (
	"runtime"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
)

// hasEmulator reports whether s has created its emulator.
func (s *Screen) hasEmulator() bool {
	s.emuMu.Lock()
	defer s.emuMu.Unlock()
	return s.emu != nil
}

// settle gives the Screen's goroutine time to act on what was written, for
// tests that check that it did nothing.
func settle() { time.Sleep(5 * quietDelay) }

// waitUntil polls cond until it holds.
func waitUntil(t *testing.T, what string, cond func() bool) {
	t.Helper()
	testwait.Until(t, what, waitTimeout, cond)
}

// waitGoroutines waits until no more goroutines run than before: exited
// goroutines leave the count shortly after they end.
func waitGoroutines(t *testing.T, before int) {
	t.Helper()
	if !testwait.Poll(t.Context(), waitTimeout, func() bool { return runtime.NumGoroutine() <= before }) {
		buf := make([]byte, 1<<20)
		t.Fatalf("%d goroutines, %d before:\n%s", runtime.NumGoroutine(), before, buf[:runtime.Stack(buf, true)])
	}
}

const bashPrompt = "\x1b]0;user@host: ~\x07\x1b[?2004huser@host:~$ "

// TestLazyLinesNeedNoEmulator checks that a shell prompt and command output
// do not create the emulator, even after the quiet delay, and that the
// first Snapshot replays them.
func TestLazyLinesNeedNoEmulator(t *testing.T) {
	r := newReplyRecorder()
	s := newTestScreen(t, 40, 120, Options{Reply: r}, defaultLimits)
	writeAll(t, s, bashPrompt, "ls\r\n", "\x1b[?2004l\rMakefile  \x1b[01;34mcmd\x1b[0m\r\n", "go.mod\r\n", bashPrompt)
	settle()
	if s.hasEmulator() {
		t.Fatal("emulator created for plain output")
	}
	snap := s.Snapshot()
	want := append([]string{"user@host:~$ ls", "Makefile  cmd", "go.mod", "user@host:~$"}, make([]string, 36)...)
	if !slices.Equal(snap.Lines, want) {
		t.Errorf("lines:\n%q\nwant\n%q", snap.Lines, want)
	}
	if snap.CursorRow != 3 || snap.CursorCol != 13 || snap.Rows != 40 || snap.Cols != 120 ||
		snap.AltScreen || snap.Title != "user@host: ~" {
		t.Errorf("snapshot %+v", snap)
	}
	if !s.hasEmulator() {
		t.Error("no emulator after Snapshot")
	}
	if got := r.String(); got != "" {
		t.Errorf("replies %q", got)
	}
	// From now on the emulator follows the output by itself.
	writeAll(t, s, "echo hi\r\n")
	waitUntil(t, "catch-up", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return len(s.pend.buf) == 0
	})
}

// TestLazyQueryCreatesEmulator checks that a query creates the emulator
// and is answered at once, after the output that came before it.
func TestLazyQueryCreatesEmulator(t *testing.T) {
	r := newReplyRecorder()
	s := newTestScreen(t, 40, 120, Options{Reply: r}, noQuiet)
	writeAll(t, s, bashPrompt, "vim\r\n")
	settle()
	if s.hasEmulator() {
		t.Fatal("emulator created before the query")
	}
	writeAll(t, s, "abc\x1b[6n")
	r.waitFor(t, "\x1b[2;4R")
	if !s.hasEmulator() {
		t.Error("query answered without an emulator")
	}
	if got := s.Snapshot().Lines[:2]; !slices.Equal(got, []string{"user@host:~$ vim", "abc"}) {
		t.Errorf("lines %q", got)
	}
}

// TestLazyAltScreenCreatesEmulator checks that output on the alternate
// screen creates the emulator once it pauses, and that a visit to the
// alternate screen that is over at the pause does not.
func TestLazyAltScreenCreatesEmulator(t *testing.T) {
	s := newTestScreen(t, 24, 80, Options{}, defaultLimits)
	writeAll(t, s, "$ vim -c q\r\n\x1b[?1049h\x1b[H\x1b[2J~ vim\x1b[?1049l$ ")
	settle()
	if s.hasEmulator() {
		t.Fatal("emulator created for a visit to the alternate screen that is over")
	}
	writeAll(t, s, "less f\r\n\x1b[?1049h\x1b[H\x1b[2J", "page 1\x1b[24;1H:")
	waitUntil(t, "emulator", s.hasEmulator)
	snap := s.Snapshot()
	if !snap.AltScreen || snap.Lines[0] != "page 1" || snap.Lines[23] != ":" {
		t.Errorf("alternate screen %v:\n%s", snap.AltScreen, snap.Text())
	}
	writeAll(t, s, "\x1b[?1049l")
	if snap := s.Snapshot(); snap.AltScreen || snap.Lines[0] != "$ vim -c q" || snap.Lines[1] != "$ less f" {
		t.Errorf("normal screen %v:\n%s", snap.AltScreen, snap.Text())
	}
}

// TestLazyResize checks that resizes before the emulator exists lay the
// output out as an emulator that existed all along does.
func TestLazyResize(t *testing.T) {
	steps := []struct {
		out        string
		rows, cols int // a Resize after out, if not 0
	}{
		{out: "abcdefghijklmnopqrstuvwxy\r\n", rows: 6, cols: 10},
		{out: "0123456789abcdef\r\nline\r\n", rows: 6, cols: 10}, // same size
		{rows: 8, cols: 30},
		{rows: 4, cols: 12}, // two resizes in a row
		{out: "\x1b[?47hin alt \x1b[?4", rows: 5, cols: 20}, // inside a mode 47 switch
		{out: "7l" + strings.Repeat("wide 日本語 ", 4) + "\r\n$ "},
	}
	lazy := newTestScreen(t, 5, 20, Options{Scrollback: 10}, noQuiet)
	eager := newTestScreen(t, 5, 20, Options{Scrollback: 10}, noQuiet)
	eager.Snapshot() // creates the emulator
	for i, st := range steps {
		for _, s := range []*Screen{lazy, eager} {
			writeAll(t, s, st.out)
			if st.rows != 0 {
				s.Resize(st.rows, st.cols)
			}
		}
		if got := lazy.hasEmulator(); got {
			t.Fatalf("step %d: emulator created", i)
		}
	}
	want, got := eager.Snapshot(), lazy.Snapshot()
	if !slices.Equal(got.Lines, want.Lines) || got.CursorRow != want.CursorRow || got.CursorCol != want.CursorCol ||
		got.Rows != want.Rows || got.Cols != want.Cols || got.AltScreen != want.AltScreen {
		t.Errorf("lazy:\n%+v\neager:\n%+v", got, want)
	}
	if w, g := eager.Scrollback(10), lazy.Scrollback(10); !slices.Equal(g, w) {
		t.Errorf("scrollback %q, want %q", g, w)
	}

	// Before any output, Resize only sets the size to start with.
	s := newTestScreen(t, 24, 80, Options{}, noQuiet)
	s.Resize(10, 20)
	writeAll(t, s, strings.Repeat("x", 25))
	if s.hasEmulator() {
		t.Fatal("emulator created")
	}
	if snap := s.Snapshot(); snap.Rows != 10 || snap.Cols != 20 || snap.Lines[1] != "xxxxx" {
		t.Errorf("size %dx%d, lines %q", snap.Rows, snap.Cols, snap.Lines[:2])
	}
}

// TestLazyFloodStaysBounded writes a flood to a Screen nobody looks at:
// the backlog stays bounded, the flood's buffers go once it is over, and
// a Snapshot afterwards still shows its end, at the size set before it.
func TestLazyFloodStaysBounded(t *testing.T) {
	const rows, cols, n = 24, 80, 150000
	s := newTestScreen(t, 30, 100, Options{Scrollback: 64}, defaultLimits)
	writeAll(t, s, "$ seq\r\n")
	s.Resize(rows, cols)
	data := numberedLines(0, n)
	for p := data; len(p) > 0; {
		c := p[:min(len(p), 4096)]
		p = p[len(c):]
		writeAll(t, s, string(c))
	}
	waitUntil(t, "trim", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.cbuf == nil && !s.armed
	})
	s.mu.Lock()
	size, capacity := len(s.pend.buf), cap(s.pend.buf)
	s.mu.Unlock()
	if size > maxBacklog || capacity > 2*size+4096 {
		t.Errorf("backlog %d bytes in %d", size, capacity)
	}
	if s.hasEmulator() {
		t.Fatal("emulator created")
	}
	snap := s.Snapshot()
	if snap.Rows != rows || snap.Cols != cols {
		t.Errorf("size %dx%d", snap.Rows, snap.Cols)
	}
	for i := range rows - 1 {
		if want := strconv.Itoa(n - rows + 1 + i); snap.Lines[i] != want {
			t.Fatalf("row %d is %q, want %q; screen:\n%s", i, snap.Lines[i], want, snap.Text())
		}
	}
}

// TestLazyReset checks that Reset without an emulator does not create one
// and forgets everything.
func TestLazyReset(t *testing.T) {
	s := newTestScreen(t, 5, 20, Options{}, noQuiet)
	writeAll(t, s, "\x1b]0;title\x07"+string(numberedLines(0, 20))+"\x1b[?1049hin alt")
	s.Resize(6, 30)
	s.Reset()
	if s.hasEmulator() {
		t.Error("emulator created by Reset")
	}
	if s.AltScreen() {
		t.Error("AltScreen() after Reset")
	}
	writeAll(t, s, "fresh")
	snap := s.Snapshot()
	if snap.Lines[0] != "fresh" || snap.Title != "" || snap.AltScreen || snap.Rows != 6 || snap.Cols != 30 {
		t.Errorf("after Reset: %+v", snap)
	}
	if sb := s.Scrollback(10); len(sb) != 0 {
		t.Errorf("scrollback after Reset: %q", sb)
	}
}

// TestLazyClose checks that Screens that never created their emulator
// leave no goroutine behind, and that one created after Close (by a read,
// or by a catch-up that Close overtook) neither blocks on a query nor
// starts goroutines.
func TestLazyClose(t *testing.T) {
	before := runtime.NumGoroutine()
	screens := make([]*Screen, 10)
	for i := range screens {
		screens[i] = New(40, 120, Options{Reply: newReplyRecorder()})
		writeAll(t, screens[i], bashPrompt)
	}
	settle()
	for _, s := range screens {
		if s.hasEmulator() {
			t.Fatal("emulator created")
		}
		if err := s.Close(); err != nil {
			t.Fatal(err)
		}
	}
	if got := screens[0].Snapshot().Lines[0]; got != "user@host:~$" {
		t.Errorf("Snapshot after Close: row 0 %q", got)
	}

	// A query whose catch-up runs after Close.
	r := newReplyRecorder()
	s := newScreen(24, 80, Options{Reply: r}, noQuiet)
	s.emuMu.Lock() // holds the catch-up back
	writeAll(t, s, "text\x1b[6n")
	closed := make(chan struct{})
	go func() {
		_ = s.Close()
		close(closed)
	}()
	waitUntil(t, "Close", func() bool {
		s.mu.Lock()
		defer s.mu.Unlock()
		return s.closed
	})
	s.emuMu.Unlock()
	select {
	case <-closed:
	case <-time.After(waitTimeout):
		t.Fatal("Close did not return")
	}
	if got := s.Snapshot().Lines[0]; got != "text" {
		t.Errorf("Snapshot after Close: row 0 %q", got)
	}
	if got := r.String(); got != "" {
		t.Errorf("answered after Close: %q", got)
	}

	waitGoroutines(t, before)
}
