package screen

import (
	"fmt"
	"io"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/charmbracelet/x/vt"
)

// testEmu is a bare vt emulator with its answers drained.
type testEmu struct{ *vt.Emulator }

func newTestEmu(t testing.TB, rows, cols, scrollback int) testEmu {
	t.Helper()
	e := vt.NewEmulator(cols, rows)
	e.SetScrollbackSize(scrollback)
	var wg sync.WaitGroup
	wg.Go(func() { _, _ = io.Copy(io.Discard, e) })
	t.Cleanup(func() {
		_ = e.InputPipe().(io.Closer).Close()
		wg.Wait()
	})
	return testEmu{e}
}

// emuState is what a user of the screen can see.
type emuState struct {
	Lines    []string
	Row, Col int
	Alt      bool
}

func (e testEmu) state() emuState {
	pos := e.CursorPosition()
	return emuState{Lines: screenLines(e.Emulator), Row: pos.Y, Col: pos.X, Alt: e.IsAltScreen()}
}

func (e testEmu) scrollback() []string {
	var lines []string
	for _, l := range e.Scrollback().Lines() {
		lines = append(lines, strings.TrimRight(l.String(), " "))
	}
	return lines
}

// pipeline is a scanner and backlog feeding one emulator, as Screen does.
type pipeline struct {
	sc  scanner
	b   backlog
	emu testEmu
}

func newPipeline(t *testing.T, rows, cols, scrollback int) *pipeline {
	p := &pipeline{emu: newTestEmu(t, rows, cols, scrollback)}
	p.b.reset(&p.sc)
	return p
}

// write scans s in chunks of 4 KiB, as PTY reads would come.
func (p *pipeline) write(s string) {
	for len(s) > 0 {
		n := min(len(s), 4096)
		base := len(p.b.buf)
		p.b.buf = append(p.b.buf, s[:n]...)
		p.sc.scan(&p.b, []byte(s[:n]), base)
		s = s[n:]
	}
}

// flush feeds the backlog to the emulator, compacted first if compact is
// set, starts a new backlog, and returns the number of bytes fed.
func (p *pipeline) flush(compacted bool, c cut) int {
	b := p.b
	if compacted {
		b, p.sc = compact(nil, &p.b, &p.sc, c)
	}
	feed(p.emu.Emulator, &b)
	p.b = backlog{}
	p.b.reset(&p.sc)
	p.sc.rebase(len(b.buf))
	return len(b.buf)
}

// TestCompactMatchesFullReplay checks that the tail replayed after a flood
// leaves the emulator where replaying everything would: the visible screen,
// the cursor, the alternate-screen state, and the normal screen after the
// program leaves the alternate screen.
func TestCompactMatchesFullReplay(t *testing.T) {
	const rows, cols, scrollback = 24, 80, 100
	c := cut{rows: rows, cols: cols, lines: rows + scrollback, maxBytes: 64 << 10}

	numbered := func(from, to int) string {
		var b strings.Builder
		for i := from; i < to; i++ {
			fmt.Fprintf(&b, "line %d\r\n", i)
		}
		return b.String()
	}
	colored := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\x1b[01;34mdir%d\x1b[0m  \x1b[32mfile%d.go\x1b[m\r\n", i, i)
		}
		return b.String()
	}
	repaints := func(n int) string {
		var b strings.Builder
		for i := range n {
			b.WriteString("\x1b[H")
			for r := range rows {
				fmt.Fprintf(&b, "\x1b[%d;1H\x1b[7mframe %d row %d\x1b[m\x1b[K", r+1, i, r)
			}
			fmt.Fprintf(&b, "\x1b[%d;%dH", i%rows+1, i%cols+1)
		}
		return b.String()
	}
	progress := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, "\r[%-20s] %d%%", strings.Repeat("#", i%21), i%101)
		}
		return b.String()
	}
	base64ish := strings.Repeat("QUJDREVGR0hJSktMTU5PUA==", 300<<10/24)
	longLine := strings.Repeat("0123456789abcdefghijklmnopqrstuvwxyz", 100<<10/36)

	tests := []struct {
		name       string
		prefix     string // fed in full to both emulators first
		body       string // fed in full to one, compacted to the other
		suffix     string // fed in full to both afterwards
		sameScroll bool   // the scrollback must match too
	}{
		{name: "numbered lines", body: numbered(0, 10000), sameScroll: true},
		{name: "colored ls", prefix: "$ ls\r\n", body: colored(3000), suffix: "$ ", sameScroll: true},
		{name: "few lines", body: numbered(0, 10), sameScroll: true},
		{
			name:   "alternate screen session in the middle",
			prefix: numbered(0, 30) + "$ vim\r\n",
			body:   "\x1b[?1049h" + repaints(300) + "\x1b[?1049l" + "$ after vim\r\n",
			suffix: "$ ",
		},
		{
			name:   "ends on the alternate screen",
			prefix: "$ make\r\n",
			body:   numbered(0, 5000) + "$ vim\r\n\x1b[?1049h" + repaints(100),
			suffix: "\x1b[?1049l$ back\r\n",
		},
		{
			name:   "long alternate screen session",
			prefix: "$ make\r\n",
			body:   numbered(0, 2000) + "$ top\r\n\x1b[?1049h" + repaints(200),
			suffix: "\x1b[?1049l$ back\r\n",
		},
		{
			name:   "alternate screen since before",
			prefix: numbered(0, 50) + "$ htop\r\n\x1b[?1049h",
			body:   repaints(200),
			suffix: "\x1b[?1049l$ ",
		},
		{
			name:   "mode 47",
			prefix: "$ old\r\n",
			body:   numbered(0, 1000) + "\x1b[?47h" + repaints(500) + "\x1b[?47l" + numbered(0, 5),
			suffix: "\x1b[?47hsecond\x1b[?47l",
		},
		{
			name:   "1047 with leave in the skipped part",
			prefix: "$ x\r\n",
			body:   "\x1b[?1047h" + repaints(500) + "\x1b[?1047l" + numbered(0, 5000),
		},
		{name: "progress bar", prefix: "$ pip install\r\n", body: progress(5000) + "\r\ndone\r\n", suffix: "$ "},
		{name: "progress bar unfinished", body: progress(5000)},
		{
			name:   "progress bar with its command in the flood",
			body:   "$ pip install x\r\nCollecting x\r\n" + progress(5000) + "\r\ndone\r\n",
			suffix: "$ ",
		},
		{
			name: "progress bar between lines",
			body: numbered(0, 50) + progress(5000) + "\r\n" + numbered(50, 60),
		},
		{
			name: "long line between lines",
			body: numbered(0, 50) + longLine + "\r\n" + numbered(50, 60),
		},
		{
			name: "big OSC 52 string",
			body: numbered(0, 100) + "\x1b]52;c;" + base64ish + "\x07" + numbered(100, 110),
		},
		{
			name:   "unterminated string at the end",
			body:   numbered(0, 100) + "\x1b]52;c;" + base64ish,
			suffix: "QUJD\x07after the string\r\n",
		},
		{
			name:   "body continues a string",
			prefix: "x\x1b]52;c;AAAA",
			body:   base64ish + "\x07" + numbered(0, 200),
		},
		{
			name:   "body is inside a string",
			prefix: "before\r\n\x1b]52;c;AAAA",
			body:   base64ish,
			suffix: "\x07after\r\n",
		},
		{name: "long line", prefix: "$ cat app.min.js\r\n", body: longLine, suffix: "\r\n$ "},
		{name: "long line from the start", body: longLine},
		{
			name:   "full-screen repaints on the normal screen",
			body:   strings.Repeat("\x1b[H\x1b[2J"+numbered(0, rows-1), 400),
			suffix: "x",
		},
		{name: "reset in the middle", body: numbered(0, 1000) + "\x1bc" + numbered(5, 10)},
		{name: "UTF-8 and wide characters", body: strings.Repeat("héllo wörld 日本語 ✓\r\n", 3000)},
		{
			name: "check mark in titles",
			body: strings.Repeat("\x1b]0;✓ done\x07$ ok\r\n", 5000),
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			full := newPipeline(t, rows, cols, scrollback)
			cut := newPipeline(t, rows, cols, scrollback)
			for _, p := range []*pipeline{full, cut} {
				p.write(tt.prefix)
				p.flush(false, c)
				p.write(tt.body)
			}
			full.flush(false, c)
			n := cut.flush(true, c)
			t.Logf("body %d bytes, replayed %d", len(tt.body), n)
			if len(tt.body) > 2*c.maxBytes && n > c.maxBytes+c.maxBytes/4+1024 {
				t.Errorf("replayed %d bytes of %d", n, len(tt.body))
			}

			want, got := full.emu.state(), cut.emu.state()
			if diff := stateDiff(want, got); diff != "" {
				t.Fatalf("after the body:\n%s", diff)
			}
			if full.sc.alt != want.Alt || cut.sc.alt != got.Alt {
				t.Errorf("scanner alt %v/%v, emulator %v/%v", full.sc.alt, cut.sc.alt, want.Alt, got.Alt)
			}
			if full.sc.title != cut.sc.title {
				t.Errorf("title %q, want %q", cut.sc.title, full.sc.title)
			}
			if tt.sameScroll && !slices.Equal(full.emu.scrollback(), cut.emu.scrollback()) {
				t.Errorf("scrollback differs:\nfull %q\ncut  %q", last(full.emu.scrollback(), 5), last(cut.emu.scrollback(), 5))
			}

			for _, p := range []*pipeline{full, cut} {
				p.write(tt.suffix)
				p.flush(false, c)
			}
			if diff := stateDiff(full.emu.state(), cut.emu.state()); diff != "" {
				t.Fatalf("after the suffix:\n%s", diff)
			}
		})
	}
}

func last(s []string, n int) []string { return s[max(len(s)-n, 0):] }

// stateDiff describes how got differs from want, or returns "".
func stateDiff(want, got emuState) string {
	var b strings.Builder
	if want.Row != got.Row || want.Col != got.Col || want.Alt != got.Alt {
		fmt.Fprintf(&b, "cursor %d,%d alt %v; want %d,%d alt %v\n", got.Row, got.Col, got.Alt, want.Row, want.Col, want.Alt)
	}
	for i := range max(len(want.Lines), len(got.Lines)) {
		var w, g string
		if i < len(want.Lines) {
			w = want.Lines[i]
		}
		if i < len(got.Lines) {
			g = got.Lines[i]
		}
		if w != g {
			fmt.Fprintf(&b, "row %d: %q\n   want %q\n", i, g, w)
		}
	}
	return b.String()
}

func TestSafeStart(t *testing.T) {
	tests := []struct {
		name      string
		buf       string
		spanStart int
		a         int
		cols      int
		want      int
	}{
		{"line start", "abcdef\nghij", 0, 2, 80, 7},
		{"carriage return", "abc\rdef\nx", 0, 1, 80, 3},
		{"row of a long line", "x\n0123456789012345", 0, 5, 4, 6},
		{"long line not plain text", "x\nab\x1b[1mcdefghij", 0, 3, 4, 4},
		{"UTF-8 continuation", "é\xa9ab", 0, 1, 80, 3},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got, _ := safeStart([]byte(tt.buf), tt.spanStart, tt.a, len(tt.buf), tt.cols); got != tt.want {
				t.Errorf("safeStart = %d, want %d", got, tt.want)
			}
		})
	}
}
