package screen

import (
	"bytes"
	"slices"
	"strconv"

	"github.com/ttymux/ttymux/internal/termseq"
)

// This file carries the terminal state that later output depends on across
// the part of a flood that a replay skips. The tail of a flood is replayed
// from a line boundary, but the sequences that set a scroll region, origin
// mode, insert mode, character sets and the like may have come long before
// it: apt and dpkg set a scroll region once and then print hundreds of
// kilobytes in it, keeping the bottom row for their progress bar. Without
// the region the tail scrolls the whole screen, the progress row is lost
// and everything is one row off.
//
// So the skipped bytes are scanned for those sequences, and the state they
// leave is replayed, as a few sequences, before the tail. Only state that
// the sequences set on their own is carried: tab stops set with HTS depend
// on the cursor column, which only an emulator knows, and colours do not
// change the text of the screen.

// carried is the state gathered from skipped output.
type carried struct {
	// modes holds the DEC private (private) and ANSI modes last set or
	// reset, in the order of their last change.
	modes []modeSetting
	// region is the last DECSTBM's parameters; hasRegion says there was
	// one since the start or the last reset of the margins.
	region    [2]int
	hasRegion bool
	// charsets holds the final byte of the last designation of G0–G3
	// (0: none seen).
	charsets [4]byte
	// shift is the last locking shift: 0 none seen, SO, SI, or the final
	// byte of ESC n, o, |, } or ~.
	shift byte
}

type modeSetting struct {
	mode    int
	private bool
	on      bool
}

// skipMode reports whether a DEC private mode is left out of the carried
// state: the alternate-screen modes (compact handles those), in-band
// resize (setting it makes the emulator answer into the program's input),
// and column mode (it clears the screen).
func skipMode(mode int) bool {
	switch mode {
	case 47, 1047, 1048, 1049, 2048, 3:
		return true
	}
	return false
}

// scanSkipped gathers the state set in buf[sp.start:sp.end] for each of
// spans, which are in stream order and each begin outside any sequence.
func scanSkipped(buf []byte, spans []span) carried {
	var c carried
	var sc termseq.Scanner
	for _, sp := range spans {
		sc.Reset()
		p := buf[sp.start:sp.end]
		for i := 0; i < len(p); {
			n, ev := sc.Next(p[i:])
			switch ev {
			case termseq.Text:
				c.text(p[i : i+n])
			case termseq.Esc:
				c.esc(sc.Inter(), sc.Final())
			case termseq.CSI:
				c.csi(&sc)
			}
			i += n
		}
	}
	return c
}

// text notes the locking shifts SO and SI in text.
func (c *carried) text(t []byte) {
	// Both are rare: look for either at IndexByte's speed first, since
	// LastIndexAny goes a byte at a time over a flood's skipped text.
	if bytes.IndexByte(t, 0x0e) < 0 && bytes.IndexByte(t, 0x0f) < 0 {
		return
	}
	if k := bytes.LastIndexAny(t, "\x0e\x0f"); k >= 0 {
		c.shift = t[k]
	}
}

// esc notes designations, locking shifts and what resets the margins.
func (c *carried) esc(inter, final byte) {
	switch {
	case inter >= '(' && inter <= '+':
		c.charsets[inter-'('] = final
	case inter == '#' && final == '8': // DECALN resets the margins
		c.hasRegion = false
	case inter == 0 && (final == 'n' || final == 'o' || final == '|' || final == '}' || final == '~'):
		c.shift = final
	}
}

// csi notes mode changes and scroll regions.
func (c *carried) csi(sc *termseq.Scanner) {
	if sc.Inter() != 0 {
		return
	}
	marker := sc.Marker()
	switch sc.Final() {
	case 'h', 'l':
		if marker != 0 && marker != '?' {
			return
		}
		for _, m := range sc.Params() {
			if m < 0 {
				continue
			}
			if marker == '?' && m == 3 {
				c.hasRegion = false // DECCOLM resets the margins
			}
			if marker == '?' && skipMode(m) {
				continue
			}
			c.setMode(modeSetting{mode: m, private: marker == '?', on: sc.Final() == 'h'})
		}
	case 'r':
		if marker == 0 {
			c.region = [2]int{sc.Param(0, 0), sc.Param(1, 0)}
			c.hasRegion = true
		}
	}
}

// setMode records m as the latest change of its mode.
func (c *carried) setMode(m modeSetting) {
	c.modes = slices.DeleteFunc(c.modes, func(o modeSetting) bool {
		return o.mode == m.mode && o.private == m.private
	})
	c.modes = append(c.modes, m)
}

// appendTo appends sequences that set the carried state. The scroll region
// comes after the modes, so that it homes the cursor as origin mode says.
func (c *carried) appendTo(out []byte) []byte {
	for _, m := range c.modes {
		out = append(out, "\x1b["...)
		if m.private {
			out = append(out, '?')
		}
		out = strconv.AppendInt(out, int64(m.mode), 10)
		if m.on {
			out = append(out, 'h')
		} else {
			out = append(out, 'l')
		}
	}
	for g, f := range c.charsets {
		if f != 0 {
			out = append(out, esc, byte('('+g), f)
		}
	}
	switch c.shift {
	case 0:
	case 0x0e, 0x0f:
		out = append(out, c.shift)
	default:
		out = append(out, esc, c.shift)
	}
	if c.hasRegion {
		out = append(out, "\x1b["...)
		if c.region[0] > 0 {
			out = strconv.AppendInt(out, int64(c.region[0]), 10)
		}
		if c.region[1] > 0 {
			out = append(out, ';')
			out = strconv.AppendInt(out, int64(c.region[1]), 10)
		}
		out = append(out, 'r')
	}
	return out
}
