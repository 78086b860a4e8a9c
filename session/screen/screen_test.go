package screen

import (
	"bytes"
	"fmt"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"
)

// waitTimeout bounds every wait for something the Screen does on its own.
const waitTimeout = 10 * time.Second

// noQuiet never lets the stream count as quiet, so that only a query (or a
// Snapshot) makes the emulator catch up.
var noQuiet = limits{quiet: time.Hour, maxBacklog: maxBacklog, maxReplay: maxReplay}

func newTestScreen(t *testing.T, rows, cols int, opts Options, lim limits) *Screen {
	t.Helper()
	s := newScreen(rows, cols, opts, lim)
	t.Cleanup(func() { _ = s.Close() })
	return s
}

func writeAll(t *testing.T, s *Screen, chunks ...string) {
	t.Helper()
	for _, c := range chunks {
		if n, err := s.Write([]byte(c)); n != len(c) || err != nil {
			t.Fatalf("Write(%q) = %d, %v", c, n, err)
		}
	}
}

// replyRecorder collects what a Screen writes to Options.Reply.
type replyRecorder struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	notify chan struct{}
}

func newReplyRecorder() *replyRecorder { return &replyRecorder{notify: make(chan struct{}, 1)} }

func (r *replyRecorder) Write(p []byte) (int, error) {
	r.mu.Lock()
	r.buf.Write(p)
	r.mu.Unlock()
	select {
	case r.notify <- struct{}{}:
	default:
	}
	return len(p), nil
}

func (r *replyRecorder) String() string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.buf.String()
}

// waitFor waits until the replies so far equal want.
func (r *replyRecorder) waitFor(t *testing.T, want string) {
	t.Helper()
	timeout := time.After(waitTimeout)
	for {
		got := r.String()
		if got == want {
			return
		}
		if len(got) > len(want) {
			t.Fatalf("replies %q, want %q", got, want)
		}
		select {
		case <-r.notify:
		case <-timeout:
			t.Fatalf("replies %q after %v, want %q", got, waitTimeout, want)
		case <-t.Context().Done():
			t.Fatal(t.Context().Err())
		}
	}
}

func TestSnapshot(t *testing.T) {
	tests := []struct {
		name      string
		rows      int
		cols      int
		in        []string
		want      []string // the first rows; the others must be empty
		row, col  int
		alt       bool
		title     string
		checkGeom bool
	}{
		{
			name: "progress bar ends as its final text",
			in:   []string{"[#    ] 20%", "\r[###  ] 60%", "\r[#####] 100%"},
			want: []string{"[#####] 100%"},
			col:  12,
		},
		{
			name: "progress bar with erase and newline",
			in:   []string{"$ dl\r\nworking... 10%", "\r\x1b[Kdone\r\n$ "},
			want: []string{"$ dl", "done", "$"},
			row:  2, col: 2,
		},
		{
			name: "clear and home",
			in:   []string{"old 1\r\nold 2\r\n", "\x1b[2J\x1b[H", "new text"},
			want: []string{"new text"},
			col:  8,
		},
		{
			name: "alternate screen shows its own content",
			in:   []string{"$ vim\r\n", "\x1b[?1049h\x1b[H\x1b[2J", "~ vim buffer\x1b[3;5H"},
			want: []string{"~ vim buffer"},
			row:  2, col: 4, alt: true,
		},
		{
			name: "leaving the alternate screen restores the normal one",
			in:   []string{"$ ls\r\nfile\r\n$ vim\r\n", "\x1b[?1049h\x1b[H\x1b[2J~ vim buffer\x1b[10;10H", "\x1b[?1049l"},
			want: []string{"$ ls", "file", "$ vim"},
			row:  3,
		},
		{
			name: "mode 47 alternate screen",
			in:   []string{"normal\r\n", "\x1b[?47h", "alt text"},
			want: []string{"alt text"},
			col:  8, alt: true,
		},
		{
			name: "mode 47 back to normal",
			in:   []string{"normal\r\n", "\x1b[?47halt text", "\x1b[?47l"},
			want: []string{"normal"},
			row:  1,
		},
		{
			name:  "title",
			in:    []string{"\x1b]0;first\x07", "$ \x1b]2;build: a;b\x1b\\"},
			want:  []string{"$"},
			col:   2,
			title: "build: a;b",
		},
		{
			name:  "check mark in the title does not leak onto the screen",
			in:    []string{"\x1b]0;✓ done\x07$ "},
			want:  []string{"$"},
			col:   2,
			title: "✓ done",
		},
		{
			name: "wide characters",
			in:   []string{"日本語x"},
			want: []string{"日本語x"},
			col:  7,
		},
		{
			name: "wrap at the width",
			cols: 10,
			in:   []string{"abcdefghijklmno"},
			want: []string{"abcdefghij", "klmno"},
			row:  1, col: 5,
		},
		{
			name: "trailing spaces trimmed, inner kept",
			in:   []string{"a   b    \x1b[41m   \x1b[m"},
			want: []string{"a   b"},
			col:  12,
		},
		{
			name:      "size",
			rows:      5,
			cols:      20,
			in:        []string{"x"},
			want:      []string{"x"},
			col:       1,
			checkGeom: true,
		},
		{
			name: "colours are dropped",
			in:   []string{"\x1b[1;31mred\x1b[0m \x1b[38;5;42mgreen\x1b[m"},
			want: []string{"red green"},
			col:  9,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rows, cols := tt.rows, tt.cols
			if rows == 0 {
				rows = 24
			}
			if cols == 0 {
				cols = 80
			}
			s := newTestScreen(t, rows, cols, Options{}, defaultLimits)
			writeAll(t, s, tt.in...)
			snap := s.Snapshot()
			want := append(slices.Clone(tt.want), make([]string, rows-len(tt.want))...)
			if !slices.Equal(snap.Lines, want) {
				t.Errorf("lines:\n%q\nwant\n%q", snap.Lines, want)
			}
			if snap.CursorRow != tt.row || snap.CursorCol != tt.col {
				t.Errorf("cursor %d,%d, want %d,%d", snap.CursorRow, snap.CursorCol, tt.row, tt.col)
			}
			if snap.AltScreen != tt.alt || s.AltScreen() != tt.alt {
				t.Errorf("alt screen %v (AltScreen() %v), want %v", snap.AltScreen, s.AltScreen(), tt.alt)
			}
			if snap.Title != tt.title {
				t.Errorf("title %q, want %q", snap.Title, tt.title)
			}
			if snap.Rows != rows || snap.Cols != cols {
				t.Errorf("size %dx%d, want %dx%d", snap.Rows, snap.Cols, rows, cols)
			}
		})
	}
}

// TestQueryAnsweredWithoutSnapshot checks that a query is answered on
// Options.Reply promptly, by the scanner's trigger alone: the quiet delay is
// an hour and nobody asks for a snapshot.
func TestQueryAnsweredWithoutSnapshot(t *testing.T) {
	tests := []struct {
		name string
		in   []string
		want string
	}{
		{"cursor position", []string{"abc\r\nde", "\x1b[6n"}, "\x1b[2;3R"},
		{"cursor position split", []string{"abc\x1b[", "6n"}, "\x1b[1;4R"},
		{"cursor position split at ESC", []string{"abc\x1b", "[6", "n"}, "\x1b[1;4R"},
		{"device status", []string{"\x1b[5n"}, "\x1b[0n"},
		{"primary device attributes", []string{"\x1b[c"}, "\x1b[?62;22c"},
		{"primary device attributes 0", []string{"\x1b[0c"}, "\x1b[?62;22c"},
		{"secondary device attributes", []string{"\x1b[>c"}, "\x1b[>1;10;0c"},
		{"secondary device attributes 0", []string{"\x1b[>0c"}, "\x1b[>1;10;0c"},
		{"two queries", []string{"\x1b[6n", "x\x1b[6n"}, "\x1b[1;1R\x1b[1;2R"},
		{"query on the alternate screen", []string{"line\r\n\x1b[?1049h\x1b[5;7H\x1b[6n"}, "\x1b[5;7R"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := newReplyRecorder()
			s := newTestScreen(t, 24, 80, Options{Reply: r}, noQuiet)
			writeAll(t, s, tt.in...)
			r.waitFor(t, tt.want)
		})
	}
}

// TestQuietCatchUp checks that the emulator catches up by itself once the
// output pauses: a DSR answer arrives even when the scanner does not flag
// it (the query is hidden from it behind a DCS introducer, which vt
// abandons at the ESC).
func TestQuietCatchUp(t *testing.T) {
	r := newReplyRecorder()
	s := newTestScreen(t, 24, 80, Options{Reply: r}, defaultLimits)
	writeAll(t, s, "ab\x1bP\x1b[6n")
	// vt takes the ESC after ESC P as data, then "[6n" as data too: no
	// answer. Then a query the scanner sees.
	writeAll(t, s, "\x1b\\\x1b[6n")
	r.waitFor(t, "\x1b[1;3R")
}

// TestEverySplit feeds a transcript with a query, alternate-screen
// switches, a title and text in two Writes split at every byte, and checks
// that the result does not depend on the split.
func TestEverySplit(t *testing.T) {
	transcript := "$ prog\r\n\x1b]0;t1\x07hello \x1b[6n" +
		"\x1b[?1049h\x1b[Hin alt \x1b[1;31mred\x1b[m" +
		"\x1b[?1049lback ✓ 日本\r\n" +
		"\x1b]2;title ✓\x1b\\\x1b[?1047h\x1b[2;3Hagain\x1b[5n"
	const wantReply = "\x1b[2;7R\x1b[0n"

	ref := newTestScreen(t, 10, 40, Options{}, defaultLimits)
	writeAll(t, ref, transcript)
	want := ref.Snapshot()
	if !want.AltScreen || want.Lines[1] != "  again" || want.Title != "title ✓" {
		t.Fatalf("reference snapshot looks wrong: %+v", want)
	}

	for split := range len(transcript) + 1 {
		r := newReplyRecorder()
		s := newScreen(10, 40, Options{Reply: r}, defaultLimits)
		writeAll(t, s, transcript[:split], transcript[split:])
		if !s.AltScreen() {
			t.Errorf("split at %d: AltScreen() false", split)
		}
		got := s.Snapshot()
		if !slices.Equal(got.Lines, want.Lines) || got.CursorRow != want.CursorRow ||
			got.CursorCol != want.CursorCol || got.AltScreen != want.AltScreen || got.Title != want.Title {
			t.Errorf("split at %d:\n%+v\nwant\n%+v", split, got, want)
		}
		r.waitFor(t, wantReply)
		_ = s.Close()
	}
}

func numberedLines(from, to int) []byte {
	var b []byte
	for i := from; i < to; i++ {
		b = strconv.AppendInt(b, int64(i), 10)
		b = append(b, '\r', '\n')
	}
	return b
}

// TestFlood writes 5 MB of numbered lines in PTY-sized chunks: the backlog
// stays bounded while writing, and the snapshot afterwards shows the last
// lines.
func TestFlood(t *testing.T) {
	const rows, n = 24, 700000
	data := numberedLines(0, n)
	if len(data) < 5e6 {
		t.Fatalf("flood is %d bytes", len(data))
	}
	s := newTestScreen(t, rows, 80, Options{Scrollback: 100}, defaultLimits)
	for p := data; len(p) > 0; {
		c := p[:min(len(p), 4096)]
		p = p[len(c):]
		if _, err := s.Write(c); err != nil {
			t.Fatal(err)
		}
		s.mu.Lock()
		backlog := len(s.pend.buf)
		s.mu.Unlock()
		if backlog > maxBacklog {
			t.Fatalf("backlog %d bytes", backlog)
		}
	}
	snap := s.Snapshot()
	for i := range rows - 1 {
		if want := strconv.Itoa(n - rows + 1 + i); snap.Lines[i] != want {
			t.Fatalf("row %d is %q, want %q; screen:\n%s", i, snap.Lines[i], want, snap.Text())
		}
	}
	if snap.Lines[rows-1] != "" || snap.CursorRow != rows-1 || snap.CursorCol != 0 {
		t.Errorf("last row %q, cursor %d,%d", snap.Lines[rows-1], snap.CursorRow, snap.CursorCol)
	}
	sb := s.Scrollback(3)
	want := []string{strconv.Itoa(n - rows - 2), strconv.Itoa(n - rows - 1), strconv.Itoa(n - rows)}
	if !slices.Equal(sb, want) {
		t.Errorf("Scrollback(3) = %q, want %q", sb, want)
	}
	if got := len(s.Scrollback(1000)); got != 100 {
		t.Errorf("scrollback holds %d lines, want 100", got)
	}
}

// TestFloodMatchesFullReplay checks the Screen, with small limits so that
// Write and the catch-up both cut, against an emulator fed every byte.
func TestFloodMatchesFullReplay(t *testing.T) {
	const rows, cols, scrollback = 12, 60, 30
	repaints := func(n int) string {
		var b strings.Builder
		for i := range n {
			for r := range rows {
				fmt.Fprintf(&b, "\x1b[%d;1Hframe %d row %d\x1b[K", r+1, i, r)
			}
		}
		return b.String()
	}
	tests := []struct {
		name string
		in   string
	}{
		{"lines", string(numberedLines(0, 20000))},
		{"alternate screen session in the middle", "$ top\r\n\x1b[?1049h" + repaints(200) + "\x1b[?1049l$ after\r\n"},
		{"ends on the alternate screen", string(numberedLines(0, 5000)) + "\x1b[?1049h" + repaints(200)},
		{"progress bar", "$ get\r\n" + strings.Repeat("\r[#####     ] 50%\r[##########] 100%", 3000) + "\r\n$ "},
	}
	lim := limits{quiet: quietDelay, maxBacklog: 8 << 10, maxReplay: 4 << 10}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := newTestScreen(t, rows, cols, Options{Scrollback: scrollback}, lim)
			ref := newPipeline(t, rows, cols, scrollback)
			ref.write(tt.in)
			ref.flush(false, cut{})
			for in := tt.in; len(in) > 0; {
				n := min(len(in), 1000)
				writeAll(t, s, in[:n])
				in = in[n:]
			}
			snap := s.Snapshot()
			got := emuState{Lines: snap.Lines, Row: snap.CursorRow, Col: snap.CursorCol, Alt: snap.AltScreen}
			if diff := stateDiff(ref.emu.state(), got); diff != "" {
				t.Error(diff)
			}
		})
	}
}

func TestScrollback(t *testing.T) {
	s := newTestScreen(t, 5, 20, Options{Scrollback: 10}, defaultLimits)
	writeAll(t, s, string(numberedLines(1, 31))) // 30 lines on 5 rows
	tests := []struct {
		n    int
		want []string
	}{
		{0, nil},
		{-1, nil},
		{1, []string{"26"}},
		{3, []string{"24", "25", "26"}},
		{100, []string{"17", "18", "19", "20", "21", "22", "23", "24", "25", "26"}},
	}
	for _, tt := range tests {
		if got := s.Scrollback(tt.n); !slices.Equal(got, tt.want) {
			t.Errorf("Scrollback(%d) = %q, want %q", tt.n, got, tt.want)
		}
	}
	// The alternate screen does not add to the normal screen's scrollback.
	writeAll(t, s, "\x1b[?1049h"+string(numberedLines(100, 120)))
	if got := s.Scrollback(1); !slices.Equal(got, []string{"26"}) {
		t.Errorf("after the alternate screen scrolled, Scrollback(1) = %q", got)
	}
}

func TestResize(t *testing.T) {
	s := newTestScreen(t, 24, 80, Options{}, defaultLimits)
	writeAll(t, s, "hello\r\nworld")
	s.Resize(10, 20)
	snap := s.Snapshot()
	if snap.Rows != 10 || snap.Cols != 20 || len(snap.Lines) != 10 {
		t.Fatalf("size %dx%d with %d lines, want 10x20", snap.Rows, snap.Cols, len(snap.Lines))
	}
	if snap.Lines[0] != "hello" || snap.Lines[1] != "world" {
		t.Errorf("content lost: %q", snap.Lines)
	}
	writeAll(t, s, "\r\n"+strings.Repeat("x", 25))
	snap = s.Snapshot()
	if snap.Lines[2] != strings.Repeat("x", 20) || snap.Lines[3] != "xxxxx" {
		t.Errorf("no wrap at the new width: %q", snap.Lines)
	}
	s.Resize(0, 5) // ignored
	if snap := s.Snapshot(); snap.Rows != 10 || snap.Cols != 20 {
		t.Errorf("Resize(0, 5) changed the size to %dx%d", snap.Rows, snap.Cols)
	}
}

// TestResizeAfterPendingOutput checks that output written before Resize is
// laid out at the old width.
func TestResizeAfterPendingOutput(t *testing.T) {
	s := newTestScreen(t, 5, 10, Options{}, noQuiet)
	writeAll(t, s, "abcdefghijklmno")
	s.Resize(5, 20)
	snap := s.Snapshot()
	if snap.Lines[0] != "abcdefghij" || snap.Lines[1] != "klmno" {
		t.Errorf("lines %q", snap.Lines)
	}
}

func TestReset(t *testing.T) {
	s := newTestScreen(t, 5, 20, Options{}, noQuiet)
	writeAll(t, s, "\x1b]0;title\x07"+string(numberedLines(0, 20))+"\x1b[?1049hin alt")
	if !s.Snapshot().AltScreen {
		t.Fatal("not on the alternate screen")
	}
	writeAll(t, s, "pending \x1b[?1049l")
	s.Reset()
	if s.AltScreen() {
		t.Error("AltScreen() after Reset")
	}
	snap := s.Snapshot()
	if !snap.Empty() || snap.AltScreen || snap.Title != "" || snap.CursorRow != 0 || snap.CursorCol != 0 {
		t.Errorf("after Reset: %+v", snap)
	}
	if sb := s.Scrollback(10); len(sb) != 0 {
		t.Errorf("scrollback after Reset: %q", sb)
	}
	writeAll(t, s, "fresh")
	if got := s.Snapshot().Lines[0]; got != "fresh" {
		t.Errorf("after Reset and Write: %q", got)
	}
}

func TestDiff(t *testing.T) {
	snap := func(lines ...string) Snapshot { return Snapshot{Lines: lines} }
	tests := []struct {
		name      string
		prev, cur Snapshot
		want      []LineChange
		text      string
	}{
		{"same", snap("a", "b"), snap("a", "b"), nil, ""},
		{"one row", snap("a", "b", "c"), snap("a", "B", "c"), []LineChange{{1, "B"}}, "@1 B"},
		{"row cleared", snap("a", "b"), snap("a", ""), []LineChange{{1, ""}}, "@1"},
		{
			"from nothing", Snapshot{}, snap("$ ls", "", "x"),
			[]LineChange{{0, "$ ls"}, {2, "x"}}, "@0 $ ls\n@2 x",
		},
		{"fewer rows", snap("a", "b", "c"), snap("a", "x"), []LineChange{{1, "x"}}, "@1 x"},
		{"more rows", snap("a"), snap("a", "b"), []LineChange{{1, "b"}}, "@1 b"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Diff(tt.prev, tt.cur)
			if !slices.Equal(got, tt.want) {
				t.Errorf("Diff = %v, want %v", got, tt.want)
			}
			if text := FormatDiff(got); text != tt.text {
				t.Errorf("FormatDiff = %q, want %q", text, tt.text)
			}
		})
	}
}

func TestSnapshotHelpers(t *testing.T) {
	s := Snapshot{Lines: []string{"a", "", "b", "", ""}}
	if s.Empty() || s.Text() != "a\n\nb" {
		t.Errorf("Empty %v, Text %q", s.Empty(), s.Text())
	}
	if e := (Snapshot{Lines: []string{"", ""}}); !e.Empty() || e.Text() != "" {
		t.Errorf("blank: Empty %v, Text %q", e.Empty(), e.Text())
	}
}

// blockingWriter blocks every Write until released.
type blockingWriter struct{ release chan struct{} }

func (w blockingWriter) Write(p []byte) (int, error) {
	<-w.release
	return len(p), nil
}

// TestStuckReplyDoesNotStallEmulator checks that a Reply that blocks (a
// PTY whose program stopped reading) does not stall the emulator: answers
// beyond the queue are dropped.
func TestStuckReplyDoesNotStallEmulator(t *testing.T) {
	w := blockingWriter{release: make(chan struct{})}
	lim := defaultLimits
	lim.answerBurst = 100 * replyQueue // more answers than the queue holds
	s := newScreen(24, 80, Options{Reply: w}, lim)
	writeAll(t, s, strings.Repeat("\x1b[6n", 10*replyQueue)+"done")
	if got := s.Snapshot().Lines[0]; got != "done" {
		t.Errorf("row 0 %q", got)
	}
	close(w.release)
	_ = s.Close()
}

// TestClose checks that Close stops every goroutine, may be called more
// than once and concurrently, and leaves the Screen usable for reading.
func TestClose(t *testing.T) {
	before := runtime.NumGoroutine()
	screens := make([]*Screen, 10)
	for i := range screens {
		s := New(24, 80, Options{Reply: newReplyRecorder()})
		writeAll(t, s, "text\x1b[6n")
		s.Snapshot()
		screens[i] = s
	}
	var wg sync.WaitGroup
	for _, s := range screens {
		for range 3 {
			wg.Go(func() {
				if err := s.Close(); err != nil {
					t.Error(err)
				}
			})
		}
	}
	wg.Wait()

	s := screens[0]
	if n, err := s.Write([]byte("after")); n != 5 || err != nil {
		t.Errorf("Write after Close = %d, %v", n, err)
	}
	if got := s.Snapshot().Lines[0]; got != "text" {
		t.Errorf("Snapshot after Close: row 0 %q", got)
	}
	s.Resize(10, 10)
	s.Reset()
	_ = s.Scrollback(1)

	// Exited goroutines leave the count shortly after wg.Done.
	waitGoroutines(t, before)
}

// TestCloseDuringUse closes a Screen while other goroutines write, take
// snapshots and resize: everything returns.
func TestCloseDuringUse(t *testing.T) {
	s := New(24, 80, Options{Reply: newReplyRecorder()})
	stop := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		data := numberedLines(0, 1000)
		for {
			select {
			case <-stop:
				return
			default:
			}
			_, _ = s.Write(data)
			_, _ = s.Write([]byte("\x1b[6n\x1b[?1049hx\x1b[?1049l"))
		}
	})
	wg.Go(func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				return
			default:
			}
			s.Snapshot()
			s.AltScreen()
			if i%10 == 0 {
				s.Resize(20+i%10, 70+i%20)
			}
		}
	})
	writeAll(t, s, "x")
	s.Snapshot()
	closed := make(chan struct{})
	go func() {
		_ = s.Close()
		close(closed)
	}()
	select {
	case <-closed:
	case <-time.After(waitTimeout):
		t.Fatal("Close did not return")
	}
	close(stop)
	wg.Wait()
}
