package verdict

import (
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/termseq"
	"github.com/ttymux/ttymux/internal/termseq/seqtest"
)

// detectorTranscript is a bash session with ttymux's marks, a foreign shell's
// OSC 133 marks (no nonce: must not count), a title OSC ended by ST, colour
// CSI, bracketed paste and application cursor mode toggles.
const detectorTranscript = "\x1b]133;D;0;ttymux=abc\x07$ \x1b[?2004hecho hi\r\n\x1b[?2004l\r" +
	"\x1b]133;C;ttymux=abc\x07hi\r\n\x1b]0;title\x1b\\" +
	"\x1b]133;D;0\x07\x1b]133;D;7;ttymux=zzz\x07" + // foreign marks
	"\x1b[1;31mred\x1b[0m\x1b[?1h\x1b]133;D;130;ttymux=abc\x07$ "

type detState struct {
	Marks          []Mark
	BracketedPaste bool
	AppCursor      bool
}

func runDetector(chunks ...string) detState {
	d := NewDetector("abc", 0)
	for _, c := range chunks {
		d.Write([]byte(c))
	}
	return detState{d.marks, d.bracketedPaste, d.appCursor}
}

func TestDetectorMarks(t *testing.T) {
	got := runDetector(detectorTranscript)
	if len(got.Marks) != 3 {
		t.Fatalf("marks = %+v, want 3 (foreign marks must not count)", got.Marks)
	}
	want := []MarkKind{MarkDone, MarkCommand, MarkDone}
	for i, m := range got.Marks {
		if m.Kind != want[i] {
			t.Errorf("mark %d kind %c, want %c", i, m.Kind, want[i])
		}
	}
	if got.Marks[2].Status != 130 {
		t.Errorf("last status = %d, want 130", got.Marks[2].Status)
	}
	if got.Marks[0].Off != 0 || got.Marks[0].End != int64(len("\x1b]133;D;0;ttymux=abc\x07")) {
		t.Errorf("first mark spans %d..%d", got.Marks[0].Off, got.Marks[0].End)
	}
	if got.BracketedPaste || !got.AppCursor {
		t.Errorf("bracketed=%v appCursor=%v, want false true", got.BracketedPaste, got.AppCursor)
	}
}

// TestDetectorEverySplit feeds the transcript split at every byte position
// (and byte by byte): the answer must not depend on where the stream was
// split (STYLE.md, "Every split").
func TestDetectorEverySplit(t *testing.T) {
	want := runDetector(detectorTranscript)
	for i := 0; i <= len(detectorTranscript); i++ {
		got := runDetector(detectorTranscript[:i], detectorTranscript[i:])
		if !reflect.DeepEqual(got, want) {
			t.Fatalf("split at %d: %+v, want %+v", i, got, want)
		}
	}
	var bytewise []string
	for i := range len(detectorTranscript) {
		bytewise = append(bytewise, detectorTranscript[i:i+1])
	}
	if got := runDetector(bytewise...); !reflect.DeepEqual(got, want) {
		t.Fatalf("byte by byte: %+v, want %+v", got, want)
	}
}

func TestDetectorNoNonceIgnoresMarks(t *testing.T) {
	d := NewDetector("", 0)
	d.Write([]byte(detectorTranscript))
	if len(d.marks) != 0 {
		t.Fatalf("marks = %v, want none without a nonce", d.marks)
	}
}

func TestDetectorLongOSCIgnored(t *testing.T) {
	long := "\x1b]133;D;0;ttymux=abc" + string(make([]byte, 500)) + "\x07"
	got := runDetector(long + "\x1b]133;D;5;ttymux=abc\x07")
	if len(got.Marks) != 1 || got.Marks[0].Status != 5 {
		t.Fatalf("marks = %+v, want only the well-formed one", got.Marks)
	}
}

func TestDetectorMarkHistoryBounded(t *testing.T) {
	d := NewDetector("abc", 0)
	for range 3 * maxMarks {
		d.Write([]byte("\x1b]133;D;0;ttymux=abc\x07"))
	}
	if len(d.marks) > maxMarks {
		t.Fatalf("kept %d marks, want at most %d", len(d.marks), maxMarks)
	}
	last, _ := d.Last()
	if last.End != d.off {
		t.Fatalf("last mark ends at %d, want %d", last.End, d.off)
	}
}

func FuzzDetector(f *testing.F) {
	f.Add([]byte(detectorTranscript), 5)
	f.Add([]byte("\x1b]133;D;1;ttymux=abc\x1b\\\x1b[?2004h"), 3)
	f.Fuzz(func(t *testing.T, data []byte, split int) {
		if split < 0 || split > len(data) {
			split = len(data) / 2
		}
		a := runDetector(string(data))
		b := runDetector(string(data[:split]), string(data[split:]))
		if !reflect.DeepEqual(a, b) {
			t.Fatalf("split at %d changed the result: %+v vs %+v", split, a, b)
		}
		for _, m := range a.Marks {
			if m.Off < 0 || m.End > int64(len(data)) || m.Off >= m.End {
				t.Fatalf("mark out of range: %+v (len %d)", m, len(data))
			}
		}
	})
}

func BenchmarkDetector(b *testing.B) {
	chunk := make([]byte, 64<<10)
	for i := range chunk {
		chunk[i] = "0123456789\n"[i%11]
	}
	d := NewDetector("abc", 0)
	b.SetBytes(int64(len(chunk)))
	for b.Loop() {
		d.Write(chunk)
	}
}

// TestDetectorAgreesWithTermseq checks the detector against the reference
// segmentation of the shared corpus at every split: it finds a mark exactly
// where termseq ends an OSC 133 string with the nonce, and the modes of the
// last CSI ? h/l that sets them (issue #15: the detector, the screen, the
// renderer and the gate once had a scanner each, and they disagreed).
func TestDetectorAgreesWithTermseq(t *testing.T) {
	found := 0
	for _, c := range seqtest.Corpus {
		var want []Mark
		var wantStarts []int64
		wantPaste, wantCursor := false, false
		segs := seqtest.Segments(termseq.Scanner{}, []byte(c.In))
		for k, s := range segs {
			switch s.Event {
			case termseq.StringEnd:
				f := strings.Split(s.Payload, ";")
				if s.Kind != ']' || !s.Term.Dispatched() || len(f) < 3 || f[0] != "133" || f[len(f)-1] != "ttymux=n1" {
					continue
				}
				m := Mark{Kind: MarkKind(f[1][0]), Off: s.Start, End: s.Start + int64(len(s.Bytes))}
				if m.Kind == MarkDone {
					m.Status, _ = strconv.Atoi(f[2])
				}
				if k+1 < len(segs) && segs[k+1].Bytes == "\x1b\\" {
					m.End += 2
				}
				if m.Kind == MarkPromptStart {
					// Kept apart, where it starts (PromptSpans).
					wantStarts = append(wantStarts, m.Off)
					continue
				}
				want = append(want, m)
			case termseq.CSI:
				if s.Marker != '?' || s.Inter != 0 || s.Final != 'h' && s.Final != 'l' {
					continue
				}
				for _, p := range strings.Split(s.Params, ";") {
					switch p {
					case "1":
						wantCursor = s.Final == 'h'
					case "2004":
						wantPaste = s.Final == 'h'
					}
				}
			}
		}
		for split := range len(c.In) + 1 {
			d := NewDetector("n1", 0)
			d.Write([]byte(c.In[:split]))
			d.Write([]byte(c.In[split:]))
			if !slices.Equal(d.marks, want) || !slices.Equal(d.promptStarts, wantStarts) || d.bracketedPaste != wantPaste || d.appCursor != wantCursor {
				t.Fatalf("%s, split at %d: marks %+v paste %v cursor %v; want %+v %v %v", c.Name, split, d.marks, d.bracketedPaste, d.appCursor, want, wantPaste, wantCursor)
			}
		}
		found += len(want) + len(wantStarts)
	}
	if found < 3 {
		t.Fatalf("the corpus has %d marks; the test needs some", found)
	}
}

// TestPromptSpans: the prompts the hook marked in a range, each from its
// A mark (or -1 without one) to past its B; an A before a C or D mark, or
// before the range, belongs to nothing later.
func TestPromptSpans(t *testing.T) {
	mark := func(s string) string { return "\x1b]133;" + s + ";ttymux=n1\x07" }
	var b strings.Builder
	at := func() int64 { return int64(b.Len()) }
	b.WriteString("out\r\n" + mark("D;0"))
	a1 := at()
	b.WriteString(mark("A") + "$ " + mark("B"))
	e1 := at()
	b.WriteString("job\r\n")
	a2 := at()
	b.WriteString("\r" + mark("A") + "$ " + mark("B")) // a redraw
	e2 := at()
	b.WriteString(mark("A") + "x\r\n" + mark("C") + "last line " + mark("B")) // an A before a C: not this B's
	e3 := at()
	d := NewDetector("n1", 0)
	d.Write([]byte(b.String()))
	got := d.PromptSpans(0, at())
	want := []PromptSpan{{a1, e1}, {a2 + 1, e2}, {-1, e3}}
	if !slices.Equal(got, want) {
		t.Fatalf("spans %+v, want %+v", got, want)
	}
	if got := d.PromptSpans(a1+1, e2); !slices.Equal(got, []PromptSpan{{-1, e1}, {a2 + 1, e2}}) {
		t.Fatalf("from inside the first prompt: %+v", got)
	}
	// A redraw still being drawn where the range ends.
	if got := d.PromptSpans(e1, e2-3); !slices.Equal(got, []PromptSpan{{a2 + 1, e2 - 3}}) {
		t.Fatalf("to inside a redraw: %+v", got)
	}
}
