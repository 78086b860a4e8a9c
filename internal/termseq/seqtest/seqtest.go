// Package seqtest holds what the tests of termseq's users share: a corpus
// of tricky terminal output and the reference segmentation of a stream, so
// that each user's test can check that it sees the sequences termseq sees.
package seqtest

import (
	"fmt"
	"strings"

	"github.com/ttymux/ttymux/internal/termseq"
)

// A Segment is a run of text or one sequence, as termseq reads it.
type Segment struct {
	Start int64  // offset of its first byte
	Bytes string // its bytes; all segments together are the stream
	Event termseq.Event
	// Text: Event is Text. A sequence: Event is how it ended (Esc, CSI,
	// StringEnd or Cancel), or Part if the stream ended inside it.
	Final, Marker, Inter byte
	Params               string // CSI parameters, e.g. "1;-1"
	Kind                 byte   // control strings
	Term                 termseq.Term
	Controls             string // C0 controls executed inside it
	Payload              string // control string payload
}

// String renders s for a test's failure message.
func (s Segment) String() string {
	switch s.Event {
	case termseq.Text:
		return fmt.Sprintf("text%q", s.Bytes)
	case termseq.CSI:
		return fmt.Sprintf("@%d csi%q(%q %s %q %q)", s.Start, s.Bytes, s.Marker, s.Params, s.Inter, s.Final)
	case termseq.StringEnd:
		return fmt.Sprintf("@%d str%q(%q term %d %q)", s.Start, s.Bytes, s.Kind, s.Term, s.Payload)
	default:
		return fmt.Sprintf("@%d ev%d%q(%q %q)", s.Start, s.Event, s.Bytes, s.Inter, s.Final)
	}
}

// Segments scans the chunks, one Next loop per chunk as a writer would,
// with a scanner configured like sc, and returns the segments of the
// stream they make.
func Segments(sc termseq.Scanner, chunks ...[]byte) []Segment {
	var out []Segment
	var cur *Segment
	var b strings.Builder
	flush := func() {
		if cur != nil {
			cur.Bytes = b.String()
			out = append(out, *cur)
			cur = nil
			b.Reset()
		}
	}
	for _, p := range chunks {
		for len(p) > 0 {
			off := sc.Offset()
			n, ev := sc.Next(p)
			consumed := p[:n]
			p = p[n:]
			if ev == termseq.Text {
				if cur != nil && cur.Event != termseq.Text {
					panic("text inside a sequence")
				}
				if cur == nil {
					cur = &Segment{Start: off, Event: termseq.Text}
				}
				b.Write(consumed)
				continue
			}
			if cur != nil && cur.Event == termseq.Text {
				flush()
			}
			if cur == nil {
				cur = &Segment{Start: sc.Start(), Event: termseq.Part}
			}
			b.Write(consumed)
			switch ev {
			case termseq.Control:
				cur.Controls += string(consumed[n-1:])
			case termseq.StringStart:
				cur.Kind = sc.Kind()
			case termseq.Data:
				cur.Payload += string(consumed)
				cur.Kind = sc.Kind()
			case termseq.Esc:
				cur.Event, cur.Final, cur.Inter = ev, sc.Final(), sc.Inter()
				flush()
			case termseq.CSI:
				cur.Event, cur.Final, cur.Inter, cur.Marker = ev, sc.Final(), sc.Inter(), sc.Marker()
				ps := make([]string, 0, len(sc.Params()))
				for _, v := range sc.Params() {
					ps = append(ps, fmt.Sprint(v))
				}
				cur.Params = strings.Join(ps, ";")
				flush()
			case termseq.StringEnd:
				cur.Event, cur.Kind, cur.Term = ev, sc.Kind(), sc.Term()
				flush()
			case termseq.Cancel:
				cur.Event = ev
				flush()
			}
		}
	}
	flush()
	return out
}

// A Case is an entry of the corpus.
type Case struct {
	Name string
	In   string
}

// Corpus is tricky terminal output: sequences every user of termseq must
// read alike, at every split.
var Corpus = []Case{
	{"sgr", "a\x1b[1;31mred\x1b[0m b\r\n"},
	{"osc title bel", "\x1b]0;my title\x07after"},
	{"osc title st", "\x1b]2;my title\x1b\\after"},
	{"osc esc abort", "\x1b]2;t\x1b[31mx"},
	{"osc 133", "\x1b]133;A;ttymux=n1\x07$ ls\x1b]133;C;ttymux=n1\x07out\r\n\x1b]133;D;0;ttymux=n1\x1b\\"},
	{"osc can", "\x1b]0;abc\x18text"},
	{"osc utf8 9c", "\x1b]0;\xe2\x9c\x93 ok\x07x"},
	{"osc c1 st", "\x1b]0;t\x9cx"},
	{"dcs", "a\x1bP1$r\nq\x1b\\b"},
	{"dcs bel is data", "\x1bPq#0;2\x07data\x1b\\z"},
	{"dcs tmux passthrough", "\x1bPtmux;\x1b\x1b]52;c;QQ==\x07\x1b\\z"},
	{"dcs first esc", "\x1bP\x1b[31m\x1b\\"},
	{"apc pm sos", "\x1b_Gf=24;AAAA\x1b\\\x1b^pm\x9c\x1bXsos\x07more\x1b\\t"},
	{"c1 8-bit", "\x9b31mx\x9d0;t\x07\x90q\x9cy"},
	{"truncated csi", "\x1b[12;3"},
	{"truncated esc", "text\x1b"},
	{"truncated osc", "\x1b]0;never ends"},
	{"csi with controls", "\x1b[1\n2;3\rH"},
	{"csi esc restart", "\x1b[12\x1b[?1049h"},
	{"csi 8-bit abandons", "\x1b[1\xc3\xa9m"},
	{"csi private and inter", "\x1b[?1;2004h\x1b[>c\x1b[2$p\x1b[1 q"},
	{"csi param after inter", "\x1b[1 1qz"},
	{"csi can", "\x1b[31\x18m"},
	{"esc charset", "\x1b(B\x1b)0\x1b7\x1b8\x1bc"},
	{"esc esc", "\x1b\x1b[A"},
	{"esc 8-bit", "\x1b\xc3\xa9"},
	{"del in csi", "\x1b[3\x7f1m"},
	{"alt screen", "\x1b[?1049hfull\x1b[?1049l"},
	{"queries", "\x1b[6n\x1b[c\x1b]11;?\x07"},
	{"utf8", "héllo ✓ 世界\x1b[K"},
}
