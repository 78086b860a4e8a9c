package screen

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The replay corpus: real programs' output, recorded once in tmux with
// tmux's screen at checkpoints (TestRecordCorpus, corpus_record_test.go),
// replayed into a Screen split at many places and compared row by row.
// docs/testing.md says how to add a case.

// A corpusCase is a program run at a size with keystrokes, or generated
// output.
type corpusCase struct {
	name       string
	rows, cols int
	// cmd is run by sh -c in a tmux pane with TERM=xterm-256color and
	// LANG=C.UTF-8, in a directory holding the files of corpusFiles.
	cmd string
	// gen, if set instead of cmd, makes the output; it is not checked in
	// but made again by the test, and tmux shows it with cat.
	gen func(rows int) []byte
	// steps are the keystrokes after the start; the screen is captured
	// after the start and after each step, once the output settles.
	steps []corpusStep
	// differs lists where tmux is wrong and ttymux is not: not compared.
	differs []corpusDiff
}

// A corpusStep is keys for tmux send-keys, sent once, or until the screen
// holds until.
type corpusStep struct {
	keys  []string
	until string // send again until a row contains it (at most 60 times)
}

// A corpusDiff is a row of a checkpoint where tmux draws otherwise than an
// xterm-class terminal, with the reason.
type corpusDiff struct {
	checkpoint, row int // 0-based; row -1: the whole checkpoint
	reason          string
}

// vttestItems opens vttest's submenu by the choices in menu, then runs each
// of items, pressing Enter through its screens back to the menu.
func vttestItems(menu []string, items ...string) []corpusStep {
	var steps []corpusStep
	for _, m := range menu {
		steps = append(steps, keys(m, "Enter"))
	}
	for _, it := range items {
		steps = append(steps, keys(it, "Enter"), enterUntil("Enter choice number"))
	}
	return steps
}

// Where tmux is wrong.
const (
	pendingWrapBack = "after a character in the last column, BS and CUB 1 move tmux's cursor onto that column " +
		"(tmux keeps it past the edge), where xterm and DEC terminals, whose cursor is on the last column, move it one before"
	stbmHome = "tmux's DECSTBM homes the cursor to the screen's top-left even in origin mode; xterm and DEC terminals " +
		"home it to the region's"
)

func keys(k ...string) corpusStep { return corpusStep{keys: k} }

// enterUntil presses Enter until a row of the screen contains s.
func enterUntil(s string) corpusStep { return corpusStep{keys: []string{"Enter"}, until: s} }

// corpusFiles are written to the directory the programs run in.
var corpusFiles = map[string]string{
	"wide.txt": "Wide characters and emoji, laid out by wcwidth:\n" +
		"❤️ ☺️ ✔️ end\n" +
		"keycap 1️⃣ x, thumbs 👍🏽 x, family 👨‍👩‍👧 x, flag 🇫🇷 x\n" +
		"soft\u00adhyphen, e\u0301 combining, 中文字符 at the margin: " + strings.Repeat("y", 30) + "中文\n" +
		"日本語のテキストがここにあります。" + strings.Repeat("長い行", 30) + "\n" +
		strings.Repeat("line of text for scrolling\n", 60),
	"page.html": "<html><head><title>A page</title></head><body><h1>Heading 中文</h1>" +
		"<p>Some text with a <a href=\"prog.go\">link</a> and emoji ❤️ ✔️.</p><ul>" +
		strings.Repeat("<li>an item of a long list, wide 日本語 text</li>", 40) +
		"</ul><table border=1><tr><td>cell 1</td><td>cell 2</td></tr></table></body></html>\n",
	"prog.go": "package main\n\nimport \"fmt\"\n\n// main says hello.\nfunc main() {\n" +
		strings.Repeat("\tfmt.Println(\"hello, world\") // 你好\n", 50) + "}\n",
}

var corpus = []corpusCase{
	{name: "vim-tiny-24x80", rows: 24, cols: 80, cmd: "vim.tiny -u NONE -i NONE -N wide.txt",
		steps: []corpusStep{keys(":set nu", "Enter"), keys("G"), keys("gg", "3j", "A", " more", "Escape"), keys(":q!", "Enter")}},
	{name: "vim-40x120", rows: 40, cols: 120, cmd: "vim -u NONE -i NONE -N -c 'syntax on' -c 'set laststatus=2 ruler' prog.go",
		steps: []corpusStep{keys("20G"), keys("dd"), keys("O", "// inserted 中文 ❤️ line", "Escape"), keys(":vsplit wide.txt", "Enter"), keys(":qa!", "Enter")}},
	{name: "less-24x80", rows: 24, cols: 80, cmd: "less wide.txt",
		steps: []corpusStep{keys("Space"), keys("/scrolling", "Enter"), keys("g"), keys("q")}},
	{name: "less-chop-40x120", rows: 40, cols: 120, cmd: "less -S prog.go",
		steps: []corpusStep{keys("Right"), keys("G"), keys("q")}},
	{name: "man-24x80", rows: 24, cols: 80, cmd: "MANWIDTH=80 man ls",
		steps: []corpusStep{keys("Space"), keys("Space"), keys("q")}},
	{name: "top-40x120", rows: 40, cols: 120, cmd: "top -d 1 -n 3"},
	{name: "htop-24x80", rows: 24, cols: 80, cmd: "htop -d 10",
		steps: []corpusStep{keys("F1"), keys("Escape"), keys("t"), keys("q")}},
	{name: "dialog-24x80", rows: 24, cols: 80,
		cmd:   "dialog --title 'Pick one' --checklist 'Choose the packages to install:' 15 50 5 a 'Alpha ❤️' on b 'Beta 中文' off c 'Gamma' off",
		steps: []corpusStep{keys("Down"), keys("Space"), keys("Enter")}},
	{name: "whiptail-40x120", rows: 40, cols: 120,
		cmd:   "whiptail --title 'Question' --yesno 'Do you want to continue?' 10 40",
		steps: []corpusStep{keys("Tab"), keys("Enter")}},
	{name: "nano-24x80", rows: 24, cols: 80, cmd: "nano -I wide.txt",
		steps: []corpusStep{keys("End"), keys("C-v"), keys("C-x"), keys("n")}},
	{name: "man-40x120", rows: 40, cols: 120, cmd: "man bash",
		steps: []corpusStep{keys("/READLINE", "Enter"), keys("Space"), keys("q")}},
	{name: "htop-40x120", rows: 40, cols: 120, cmd: "htop -d 10",
		steps: []corpusStep{keys("F2"), keys("Down"), keys("Escape"), keys("F3", "sh", "Enter"), keys("q")}},
	{name: "dialog-gauge-40x120", rows: 40, cols: 120,
		cmd: "for i in 10 40 70 100; do echo $i; sleep 0.1; done | dialog --gauge 'Installing packages' 8 60 0; " +
			"dialog --msgbox 'Done: 中文 ❤️ ✔️' 6 30",
		steps: []corpusStep{keys("Enter")}},
	{name: "nano-40x120", rows: 40, cols: 120, cmd: "nano -I -l prog.go",
		steps: []corpusStep{keys("C-w", "Println", "Enter"), keys("M-u"), keys("C-x")}},
	{name: "vim-tiny-wide-40x120", rows: 40, cols: 120, cmd: "vim.tiny -u NONE -i NONE -N -c 'set nowrap' wide.txt",
		steps: []corpusStep{keys("4G", "$"), keys("0", "30l", "i", "❤️中", "Escape"), keys(":q!", "Enter")}},
	{name: "mc-40x120", rows: 40, cols: 120, cmd: "mc -u --nocolor",
		steps: []corpusStep{keys("Down"), keys("Down"), keys("F3"), keys("F10"), keys("Tab"), keys("F10")}},
	{name: "ncdu-24x80", rows: 24, cols: 80, cmd: "ncdu -x --color off .",
		steps: []corpusStep{keys("Down"), keys("?"), keys("q"), keys("q")}},
	{name: "tig-40x120", rows: 40, cols: 120,
		cmd: "git init -q && git add . && git -c user.name=A -c user.email=a@b commit -qm 'first: 中文 ❤️ wide' && " +
			"git -c user.name=A -c user.email=a@b commit -q --allow-empty -m second && tig",
		steps: []corpusStep{keys("Enter"), keys("j"), keys("q"), keys("q")}},
	{name: "w3m-24x80", rows: 24, cols: 80, cmd: "w3m -no-mouse page.html",
		steps: []corpusStep{keys("Space"), keys("Tab"), keys("q"), keys("y")}},
	{name: "lynx-40x120", rows: 40, cols: 120, cmd: "lynx -nocolor -accept_all_cookies page.html",
		steps: []corpusStep{keys("Space"), keys("Down"), keys("q"), keys("y")}},
	{name: "ranger-24x80", rows: 24, cols: 80, cmd: "ranger",
		steps: []corpusStep{keys("j"), keys("j"), keys("q")}},
	{name: "bash-readline-wide-24x80", rows: 24, cols: 80, cmd: "PS1='$ ' bash --norc --noprofile",
		steps: []corpusStep{
			keys("-l", "echo 中文字符 wide ❤️ text that runs past the right margin of the screen 日本語 and goes on and on 長い行"),
			keys("C-a"), keys("Right", "Right", "Right", "Right", "Right"), keys("-l", "插入"), keys("C-e"),
			keys("BSpace", "BSpace"), keys("Enter"),
		}},
	{name: "top-24x80", rows: 24, cols: 80, cmd: "top -d 1 -n 2"},
	{name: "mc-24x80", rows: 24, cols: 80, cmd: "mc -u",
		steps: []corpusStep{keys("F9"), keys("Escape", "Escape"), keys("F10")}},
	{name: "dialog-menu-40x120", rows: 40, cols: 120,
		cmd:   "dialog --menu 'Pick a 中文 item' 20 60 10 1 'First ❤️' 2 'Second' 3 'Third 日本語' 4 'Fourth'",
		steps: []corpusStep{keys("Down"), keys("Down"), keys("Enter")}},
	{name: "whiptail-gauge-24x80", rows: 24, cols: 80,
		cmd: "for i in 0 30 60 90; do echo $i; sleep 0.2; done | whiptail --gauge 'Working on it' 8 50 0"},
	{name: "apt-progress-24x80", rows: 24, cols: 80, gen: func(rows int) []byte { return []byte(aptFlood(rows, 300<<10)) }},
	{name: "apt-progress-40x120", rows: 40, cols: 120, gen: func(rows int) []byte { return []byte(aptFlood(rows, 100<<10)) }},
	{name: "vttest-1-cursor", rows: 24, cols: 80, cmd: "vttest",
		steps: []corpusStep{keys("1", "Enter"), enterUntil("Enter choice number"), keys("0", "Enter")},
		differs: []corpusDiff{
			{2, -1, pendingWrapBack + "; and this is the 132-column screen, which neither widens"},
			{3, -1, pendingWrapBack + ": vttest's autowrap screen, whose letters come out in order only so"},
			{4, -1, pendingWrapBack + "; and this is the 132-column autowrap screen"},
		}},
	{name: "vttest-2-screen", rows: 24, cols: 80, cmd: "vttest",
		steps: []corpusStep{keys("2", "Enter"), enterUntil("Enter choice number"), keys("0", "Enter")},
		differs: []corpusDiff{
			{11, 1, stbmHome},
			{11, 23, stbmHome + ": vttest says this line should be at the bottom"},
		}},
	{name: "vttest-3-charsets", rows: 24, cols: 80, cmd: "vttest",
		steps: []corpusStep{keys("3", "Enter"), keys("8", "Enter"), enterUntil("Enter choice number"), keys("0", "Enter"), keys("0", "Enter")},
		differs: []corpusDiff{
			{1, 7, "tmux ignores the British set (ESC ( A): # stays #, where the VT220 and xterm show £"},
		}},
	{name: "vttest-8-vt102", rows: 24, cols: 80, cmd: "vttest",
		steps: []corpusStep{keys("8", "Enter"), enterUntil("Enter choice number"), keys("0", "Enter")}},
	{name: "vttest-11-5-ecma-cursor", rows: 24, cols: 80, cmd: "vttest",
		steps: vttestItems([]string{"11", "5"}, "1", "2", "3", "4", "5", "6", "7", "8", "9"),
		differs: []corpusDiff{
			{9, -1, "tmux 3.3a does not implement CHT (CSI I): vttest's two rows of *s should match"},
			{11, -1, "tmux 3.3a does not implement HPR (CSI a): vttest's box of *s comes out as columns"},
			{19, -1, "tmux 3.3a does not implement VPR (CSI e): vttest's box of *s loses its sides"},
		}},
	{name: "vttest-11-6-5-ech", rows: 24, cols: 80, cmd: "vttest",
		steps: vttestItems([]string{"11", "6"}, "4", "5")},
	{name: "vttest-11-7-ecma-misc", rows: 24, cols: 80, cmd: "vttest",
		steps: vttestItems([]string{"11", "7"}, "2", "3", "4", "5", "6")},
}

// exitMark is what the recorder prints when the program has exited; with
// gen it comes after the output raw, without a carriage return.
const exitMark = "\n[exited]"

// sessionScrollback is the scrollback of a session's Screen
// (session/session.go).
const sessionScrollback = 64

// A checkpoint is tmux's screen once the output up to off had settled.
type checkpoint struct {
	off  int
	rows []string
}

// corpusPath returns the path of a case's fixture with extension ext.
func corpusPath(name, ext string) string { return "testdata/corpus/" + name + ext }

// readCheckpoints reads a .tmux fixture: "@ offset" lines, each followed by
// the rows of the screen.
func readCheckpoints(t *testing.T, c corpusCase) []checkpoint {
	t.Helper()
	f, err := os.Open(corpusPath(c.name, ".tmux"))
	if err != nil {
		t.Fatalf("%v (record it: docs/testing.md)", err)
	}
	defer f.Close()
	var cps []checkpoint
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if off, ok := strings.CutPrefix(line, "@ "); ok {
			n, err := strconv.Atoi(off)
			if err != nil {
				t.Fatalf("%s: bad checkpoint %q", f.Name(), line)
			}
			cps = append(cps, checkpoint{off: n})
			continue
		}
		if len(cps) == 0 {
			continue // the header
		}
		cps[len(cps)-1].rows = append(cps[len(cps)-1].rows, line)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	for i, cp := range cps {
		if len(cp.rows) != c.rows {
			t.Fatalf("%s: checkpoint %d has %d rows, want %d", f.Name(), i, len(cp.rows), c.rows)
		}
	}
	return cps
}

// corpusData returns the output of a case.
func corpusData(t *testing.T, c corpusCase) []byte {
	t.Helper()
	if c.gen != nil {
		return append(c.gen(c.rows), exitMark...)
	}
	data, err := os.ReadFile(corpusPath(c.name, ".bin"))
	if err != nil {
		t.Fatalf("%v (record it: docs/testing.md)", err)
	}
	return data
}

// TestCorpus replays each recorded program into a Screen and compares its
// screen with tmux's at every checkpoint, row by row, but for the rows
// where tmux is wrong (corpusCase.differs). The stream is split at several
// places, the screen looked at after the first part (which makes the
// emulator catch up there) and then at each checkpoint.
func TestCorpus(t *testing.T) {
	for _, c := range corpus {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			data := corpusData(t, c)
			cps := readCheckpoints(t, c)
			splits := []int{0}
			nsplits := 5
			if len(data) > maxReplay {
				nsplits = 2 // a flood: each replay costs the emulator a tail
			}
			for k := 1; k < nsplits; k++ {
				splits = append(splits, len(data)*k/nsplits)
			}
			for _, k := range splits {
				if !replayCorpus(t, c, data, cps, k) {
					return
				}
			}
		})
	}
}

// replayCorpus feeds data to a new Screen, looking at it after data[:split]
// and at each checkpoint, and reports whether every screen matched.
func replayCorpus(t *testing.T, c corpusCase, data []byte, cps []checkpoint, split int) (ok bool) {
	ok = true
	t.Helper()
	s := newTestScreen(t, c.rows, c.cols, Options{Scrollback: sessionScrollback}, noQuiet)
	off := 0
	if split > 0 {
		writeAll(t, s, string(data[:split]))
		s.Snapshot()
		off = split
	}
	for i, cp := range cps {
		if cp.off > off {
			writeAll(t, s, string(data[off:cp.off]))
			off = cp.off
		}
		if cp.off < split {
			continue // looked at only after the split
		}
		got := s.Snapshot().Lines
		for r, want := range cp.rows {
			if masked(c, i, r) {
				continue
			}
			g := ""
			if r < len(got) {
				g = got[r]
			}
			if strings.TrimRight(g, " ") != strings.TrimRight(want, " ") {
				t.Errorf("split at %d, checkpoint %d (offset %d), row %d:\n got %q\nwant %q\n%s",
					split, i, cp.off, r, g, want, sideBySide(got, cp.rows))
				ok = false
				break
			}
		}
		if !ok && split > 0 {
			return false
		}
	}
	return ok
}

// masked reports whether row r of checkpoint i is one where tmux is wrong.
func masked(c corpusCase, i, r int) bool {
	for _, d := range c.differs {
		if d.checkpoint == i && (d.row == r || d.row < 0) {
			return true
		}
	}
	return false
}

// sideBySide shows two screens row by row, marking the rows that differ.
func sideBySide(got, want []string) string {
	var b bytes.Buffer
	for r := range max(len(got), len(want)) {
		var g, w string
		if r < len(got) {
			g = got[r]
		}
		if r < len(want) {
			w = want[r]
		}
		mark := " "
		if strings.TrimRight(g, " ") != strings.TrimRight(w, " ") {
			mark = "!"
		}
		fmt.Fprintf(&b, "%s%2d got  |%s|\n   want |%s|\n", mark, r, g, w)
	}
	return b.String()
}
