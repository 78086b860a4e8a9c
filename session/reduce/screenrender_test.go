package reduce

import (
	"bytes"
	"fmt"
	"os"
	"slices"
	"strings"
	"testing"
)

// screenRenderTests are transcripts rendered with Renderer.Rows set: the
// lines a terminal of that many rows leaves for them, without losing the
// output a clear screen would erase.
var screenRenderTests = []struct {
	name string
	rows int
	in   string
	want []string
}{
	{
		name: "top repaints in place",
		rows: 4,
		in: "\x1b[?25l\x1b[H\x1b[2Jtop 1\x1b[K\r\nMem 1\x1b[K\r\nPID\x1b[K\r\np1\x1b[K" +
			"\x1b[Htop 2\x1b[K\r\n\r\n\r\np2\x1b[K" +
			"\x1b[Htop 3\x1b[K\r\nMem 3\x1b[K\r\n\r\np3\x1b[K",
		want: []string{"top 3", "Mem 3", "PID", "p3"},
	},
	{name: "clear keeps what was before", rows: 24, in: "before\r\n\x1b[H\x1b[2J\x1b[3Jafter\r\n", want: []string{"before", "after"}},
	{name: "clear in a line keeps it", rows: 24, in: "50%\x1b[H\x1b[2Jafter", want: []string{"50%", "after"}},
	{name: "second clear keeps the first screen", rows: 24, in: "\x1b[H\x1b[2Jx\r\ny\r\n\x1b[H\x1b[2Jz\r\n", want: []string{"x", "y", "z"}},
	{name: "home and erase below is a clear", rows: 24, in: "\x1b[H\x1b[Jx\r\ny\r\n\x1b[H\x1b[Jz\r\n", want: []string{"x", "y", "z"}},
	{name: "erase below elsewhere erases", rows: 24, in: "\x1b[2Jx\r\ny\r\nz\x1b[2;1H\x1b[Jw\r\n", want: []string{"x", "w"}},
	{name: "absolute rows and columns", rows: 24, in: "\x1b[2J\x1b[3;5Hc\x1b[1;1Ha\x1b[2;3fb", want: []string{"a", "  b", "    c"}},
	{name: "row past the screen clamps", rows: 3, in: "\x1b[2J\x1b[9;1Hx", want: []string{"", "", "x"}},
	{name: "output scrolls the screen", rows: 3, in: "\x1b[2J1\r\n2\r\n3\r\n4\r\n5\x1b[HX", want: []string{"1", "2", "X", "4", "5"}},
	{name: "line position keeps the column", rows: 24, in: "\x1b[2Jab\r\ncd\x1b[1dX", want: []string{"abX", "cd"}},
	{name: "home with no screen yet starts one after the output", rows: 24, in: "a\x1b[Hb\x1b[3;2Hc", want: []string{"a", "b", "", " c"}},
	{name: "another row with no screen yet goes after the output", rows: 24, in: "a\x1b[3;2Hb\x1b[24;1H\r\n$ ", want: []string{"a", " b", "", "$ "}},
	{name: "cursor up is still relative", rows: 24, in: "\x1b[2Ja\r\nb\x1b[AX\r\n", want: []string{"aX", "b"}},
	{
		name: "apt status line is still dropped",
		rows: 24,
		in: "Reading\n\n\x1b7\x1b[0;23r\x1b8\x1b[1A" +
			"Unpacking a\n\x1b7\x1b[24;0f\x1b[42m\x1b[30mProgress: [ 20%]\x1b[49m\x1b[39m [###.....] \x1b8" +
			"Unpacking b\n\x1b7\x1b[24;0fProgress: [ 60%] \x1b8Setting up b\n" +
			"\x1b7\x1b[0;24r\x1b8",
		want: []string{"Reading", "Unpacking a", "Unpacking b", "Setting up b"},
	},
	{name: "without rows absolute moves are ignored", rows: 0, in: "\x1b[2Jx\r\ny\x1b[HX", want: []string{"x", "yX"}},
}

func renderRows(rows int, chunks ...[]byte) (lines []string, nums []int64) {
	r := Renderer{Rows: rows}
	for _, c := range chunks {
		r.Write(c)
	}
	r.Flush()
	return r.Lines()
}

// TestRenderRows: with the terminal's height, absolute cursor motions and
// clear screens render as a terminal shows them, wherever the stream is
// split, with nums that never decrease.
func TestRenderRows(t *testing.T) {
	for _, tt := range screenRenderTests {
		t.Run(tt.name, func(t *testing.T) {
			in := []byte(tt.in)
			want, wantNums := RenderRows(in, tt.rows)
			if !slices.Equal(want, tt.want) {
				t.Fatalf("RenderRows(%q, %d)\n got %q\nwant %q", tt.in, tt.rows, want, tt.want)
			}
			if !slices.IsSorted(wantNums) {
				t.Errorf("nums %v decrease", wantNums)
			}
			for i := 0; i <= len(in); i++ {
				got, nums := renderRows(tt.rows, in[:i], in[i:])
				if !slices.Equal(got, want) || !slices.Equal(nums, wantNums) {
					t.Fatalf("split at %d:\n got %q %v\nwant %q %v", i, got, nums, want, wantNums)
				}
			}
			var chunks [][]byte
			for i := range in {
				chunks = append(chunks, in[i:i+1])
			}
			if got, nums := renderRows(tt.rows, chunks...); !slices.Equal(got, want) || !slices.Equal(nums, wantNums) {
				t.Fatalf("byte at a time:\n got %q %v\nwant %q %v", got, nums, want, wantNums)
			}
		})
	}
}

// topRecording is `top -d 1` recorded at 80x24 (TERM=xterm-256color) and
// what tmux shows for it (session/screen's fixture): nine frames on the
// normal screen. The first clears the screen and draws every row; later
// ones move the cursor home and skip, with a bare "\r\n", each row that has
// not changed (Mem, Swap, the blank row, the PID header). The last frame's
// last row has no line ending: the next frame's cursor home follows it.
func topRecording(t *testing.T) (data []byte, want []string) {
	t.Helper()
	data, err := os.ReadFile("../screen/testdata/top-d1.bin")
	if err != nil {
		t.Fatal(err)
	}
	ref, err := os.ReadFile("../screen/testdata/top-d1.tmux")
	if err != nil {
		t.Fatal(err)
	}
	return data, strings.Split(strings.TrimRight(string(ref), "\n"), "\n")
}

func trimRight(lines []string) []string {
	out := make([]string, len(lines))
	for i, l := range lines {
		out[i] = strings.TrimRight(l, " ")
	}
	return out
}

// TestRenderTopReplay pins issue #13 item 8 in the line renderer: top's
// frames rendered one after another, glued (the next frame's first row
// appended to the last row of the one before, since the renderer ignored
// the cursor home) and with the rows each frame skips blank. With the
// terminal's height, the recorded frames render as the screen tmux shows
// for the same bytes, wherever the stream is split (every 31st split point
// under the race detector), and through the Collector (the default read's
// renderer) as well.
func TestRenderTopReplay(t *testing.T) {
	data, want := topRecording(t)
	if got := trimRight(Render(data)); slices.Equal(got, want) {
		t.Fatalf("without Rows the frames render as the screen: the test does not test")
	}
	wantLines, wantNums := RenderRows(data, 24)
	if got := trimRight(wantLines); !slices.Equal(got, want) {
		t.Fatalf("RenderRows: got\n%s\nwant (tmux)\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	step := 1
	if raceEnabled {
		step = 31
	}
	for k := 0; k <= len(data); k += step {
		got, nums := renderRows(24, data[:k], data[k:])
		if !slices.Equal(got, wantLines) || !slices.Equal(nums, wantNums) {
			t.Fatalf("split at %d: got\n%s\nwant\n%s", k, strings.Join(got, "\n"), strings.Join(wantLines, "\n"))
		}
	}
	// Frame by frame, the renderer holding the screen between Writes.
	r := Renderer{Rows: 24}
	frames := bytes.SplitAfter(data, []byte("\x1b[K"))
	for _, f := range frames {
		r.Write(f)
	}
	r.Flush()
	if got, _ := r.Lines(); !slices.Equal(got, wantLines) {
		t.Fatalf("in pieces: got\n%s", strings.Join(got, "\n"))
	}
	for _, step := range []int{1, 7, 4096} {
		c := Collector{Rows: 24}
		for i := 0; i < len(data); i += step {
			c.Write(data[i:min(i+step, len(data))])
		}
		lines, _, gaps := c.Finish(nil, 1, nil)
		if !slices.Equal(lines, wantLines) || len(gaps) != 0 {
			t.Fatalf("Collector in writes of %d bytes: got\n%s", step, strings.Join(lines, "\n"))
		}
	}
}

// TestRenderTopAfterOutput: top started after a command's output keeps
// that output above its screen, and a clear afterwards starts a new screen
// after it, as `clear` does on the next prompt.
func TestRenderTopAfterOutput(t *testing.T) {
	data, want := topRecording(t)
	in := append([]byte("$ ls\r\na b c\r\n$ top\r\n"), data...)
	in = append(in, "\x1b[24;1H\x1b[?12l\x1b[?25h\r\n$ clear\r\n\x1b[H\x1b[2J\x1b[3J$ echo hi\r\nhi\r\n$ "...)
	got := trimRight(render24(in))
	wantAll := append([]string{"$ ls", "a b c", "$ top"}, want...)
	wantAll = append(wantAll, "$ clear", "$ echo hi", "hi", "$")
	if !slices.Equal(got, wantAll) {
		t.Fatalf("got\n%s\nwant\n%s", strings.Join(got, "\n"), strings.Join(wantAll, "\n"))
	}
}

// render24 renders p for a terminal of 24 rows.
func render24(p []byte) []string {
	lines, _ := RenderRows(p, 24)
	return lines
}

func ExampleRenderRows() {
	// A program that redraws the screen in place: the second frame
	// rewrites the first row and skips the second, which did not change.
	out := "\x1b[H\x1b[2Jload 0.5\x1b[K\r\nMem 1G\x1b[K" + "\x1b[Hload 0.7\x1b[K\r\n"
	lines, _ := RenderRows([]byte(out), 24)
	fmt.Println(strings.Join(lines, "\n"))
	// Output:
	// load 0.7
	// Mem 1G
}
