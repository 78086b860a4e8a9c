package screen

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/termseq"
	"github.com/ttymux/ttymux/internal/termseq/seqtest"
)

// scanAll runs a fresh scanner over chunks, as successive Writes would.
func scanAll(chunks ...string) (sc scanner, b backlog, queries int) {
	b.reset(&sc)
	for _, c := range chunks {
		base := len(b.buf)
		b.buf = append(b.buf, c...)
		if sc.scan(&b, []byte(c), base) {
			queries++
		}
	}
	return sc, b, queries
}

func TestScanQueries(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		query bool
	}{
		{"cursor position report", "\x1b[6n", true},
		{"device status", "\x1b[5n", true},
		{"extended cursor position", "\x1b[?6n", true},
		{"primary DA", "\x1b[c", true},
		{"primary DA 0", "\x1b[0c", true},
		{"secondary DA", "\x1b[>c", true},
		{"secondary DA 0", "\x1b[>0c", true},
		{"DECRQM", "\x1b[?2004$p", true},
		{"OSC 11 background query", "\x1b]11;?\x07", true},
		{"OSC 10 query with ST", "\x1b]10;?\x1b\\", true},
		{"in-band resize on", "\x1b[?2048h", true},
		{"text", "hello 6n [c", false},
		{"cursor position", "\x1b[6;1H", false},
		{"alt screen", "\x1b[?1049h", false},
		{"OSC 11 set", "\x1b]11;#000000\x07", false},
		{"DA with parameter", "\x1b[1c", false},
		{"tertiary DA", "\x1b[=c", false},
		{"query inside a DCS string", "\x1bPq\x1b[6n", true}, // ESC ends the string: vt answers it
		{"query after DCS passthrough ESC", "\x1bP\x1b[6n", false},
		{"cancelled", "\x1b[6\x18n", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for split := range len(tt.in) + 1 {
				_, _, q := scanAll(tt.in[:split], tt.in[split:])
				if got := q > 0; got != tt.query {
					t.Errorf("split at %d: query = %v, want %v", split, got, tt.query)
				}
			}
		})
	}
}

func TestScanAltScreen(t *testing.T) {
	tests := []struct {
		name  string
		in    string
		alt   bool
		modes []int // modes of the recorded switches; 0 for RIS
	}{
		{"1049 on", "\x1b[?1049h", true, []int{1049}},
		{"1049 on off", "a\x1b[?1049hb\x1b[?1049lc", false, []int{1049, 1049}},
		{"1047", "\x1b[?1047h", true, []int{1047}},
		{"47", "\x1b[?47h", true, []int{47}},
		{"47 off by 1049", "\x1b[?47h\x1b[?1049l", false, []int{47, 1049}},
		{"repeated on is not a switch", "\x1b[?1049h\x1b[?1049h", true, []int{1049}},
		{"combined with other modes", "\x1b[?1;1049;25h", true, []int{1049}},
		{"1049 wins over 47", "\x1b[?47;1049h", true, []int{1049}},
		{"not private", "\x1b[1049h", false, nil},
		{"RIS leaves alt", "\x1b[?1049h\x1bc", false, []int{1049, 0}},
		{"RIS on normal screen is recorded", "\x1bc", false, []int{0}},
		{"inside a string", "\x1b]0;\x07\x1b]2;title\x07", false, nil},
		{"C0 inside CSI", "\x1b[?10\n49h", true, []int{1049}},
		{"intermediate then digit drops it", "\x1b[ 1049h", false, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for split := range len(tt.in) + 1 {
				sc, b, _ := scanAll(tt.in[:split], tt.in[split:])
				var modes []int
				for _, tr := range b.trans {
					modes = append(modes, tr.mode)
				}
				if sc.alt != tt.alt || !slices.Equal(modes, tt.modes) {
					t.Errorf("split at %d: alt %v, modes %v; want %v, %v", split, sc.alt, modes, tt.alt, tt.modes)
				}
			}
		})
	}
}

func TestScanTitle(t *testing.T) {
	tests := []struct {
		name, in, title string
	}{
		{"OSC 0 BEL", "\x1b]0;hello\x07", "hello"},
		{"OSC 2 ST", "\x1b]2;hello world\x1b\\", "hello world"},
		{"semicolon in title", "\x1b]2;a;b\x07", "a;b"},
		{"UTF-8", "\x1b]0;héllo ✓\x07", "héllo ✓"},
		{"last wins", "\x1b]0;one\x07text\x1b]2;two\x07", "two"},
		{"icon name only", "\x1b]1;icon\x07", ""},
		{"cancelled", "\x1b]0;nope\x18", ""},
		{"unterminated", "\x1b]0;not yet", ""},
		{"empty", "\x1b]0;x\x07\x1b]0;\x07", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			for split := range len(tt.in) + 1 {
				sc, _, _ := scanAll(tt.in[:split], tt.in[split:])
				if sc.title != tt.title {
					t.Errorf("split at %d: title %q, want %q", split, sc.title, tt.title)
				}
			}
		})
	}
}

func TestScanHoles(t *testing.T) {
	in := "ab\x1b]52;c;AAAA\x07cd\x1bP1$r\nq\x1b\\ef"
	for split := range len(in) + 1 {
		_, b, _ := scanAll(in[:split], in[split:])
		want := []span{{2, 14}, {16, 23}}
		if !slices.Equal(b.holes, want) {
			t.Errorf("split at %d: holes %v, want %v", split, b.holes, want)
		}
	}
}

func BenchmarkScan(b *testing.B) {
	var data []byte
	for i := 0; len(data) < 1<<20; i++ {
		data = fmt.Appendf(data, "\x1b[01;34m%d\x1b[0m  file%d.go\r\n", i, i)
	}
	b.SetBytes(int64(len(data)))
	for b.Loop() {
		var sc scanner
		var bl backlog
		sc.scan(&bl, data, 0)
	}
}

// TestScanAgreesWithTermseq checks the screen's scanner against the
// reference segmentation of the shared corpus at every split: its holes are
// termseq's control strings, its title the last OSC 0 or 2, its
// alternate-screen flag that of the last CSI ? 1049 h/l (issue #15).
func TestScanAgreesWithTermseq(t *testing.T) {
	for _, c := range seqtest.Corpus {
		var holes []span
		title, alt := "", false
		for _, s := range seqtest.Segments(termseq.Scanner{}, []byte(c.In)) {
			switch s.Event {
			case termseq.StringEnd:
				holes = append(holes, span{int(s.Start), int(s.Start) + len(s.Bytes)})
				if num, rest, ok := strings.Cut(s.Payload, ";"); ok && s.Kind == ']' && s.Term.Dispatched() && (num == "0" || num == "2") {
					title = rest
				}
			case termseq.CSI:
				if s.Marker == '?' && s.Inter == 0 && s.Params == "1049" {
					alt = s.Final == 'h'
				}
			}
		}
		for split := range len(c.In) + 1 {
			sc, b, _ := scanAll(c.In[:split], c.In[split:])
			if !slices.Equal(b.holes, holes) || sc.title != title || sc.alt != alt {
				t.Fatalf("%s, split at %d: holes %v title %q alt %v; want %v %q %v", c.Name, split, b.holes, sc.title, sc.alt, holes, title, alt)
			}
		}
	}
}
