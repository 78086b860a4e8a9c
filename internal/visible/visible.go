// Package visible renders text a model wrote for a human to read, so that
// nothing in it can hide: control characters, escape sequences, invalid
// UTF-8, invisible and direction-changing characters are shown as escapes
// (`\x1b`, `\n`, `\u202e`), and a long run of spaces as `␠×600` instead of
// a stretch of blank screen that pushes the rest of a line out of view.
// What the human approves or audits is then what they see, whole.
//
// It owns only that rendering; it is pure and safe for concurrent use.
package visible

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// MinRun is the shortest run of spaces shown as `␠×N`: shorter runs are
// ordinary spacing between words and stay as they are.
const MinRun = 4

// String returns s with every character a terminal or a form would not
// show faithfully made visible. The result is a single line.
func String(s string) string {
	if plain(s) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		if s[i] == ' ' {
			n := 1
			for i+n < len(s) && s[i+n] == ' ' {
				n++
			}
			if n >= MinRun {
				fmt.Fprintf(&b, "␠×%d", n)
			} else {
				b.WriteString(s[i : i+n])
			}
			i += n
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size <= 1 {
			fmt.Fprintf(&b, `\x%02x`, s[i])
			i++
			continue
		}
		writeRune(&b, r)
		i += size
	}
	return b.String()
}

func writeRune(b *strings.Builder, r rune) {
	switch {
	case r == '\n':
		b.WriteString(`\n`)
	case r == '\r':
		b.WriteString(`\r`)
	case r == '\t':
		b.WriteString(`\t`)
	case r == '\\':
		// A literal backslash stays one: only a real control character
		// becomes `\x1b`, and a typed `\x1b` reads as typed.
		b.WriteByte('\\')
	case r < 0x20 || r == 0x7f:
		fmt.Fprintf(b, `\x%02x`, r)
	case hidden(r):
		fmt.Fprintf(b, `\u%04x`, r)
	default:
		b.WriteRune(r)
	}
}

// hidden reports runes that a terminal or a browser draws as nothing or
// that reorder what follows: C1 controls (0x9b is CSI to some terminals),
// zero-width characters, bidirectional overrides and isolates (the
// "Trojan Source" reordering, CVE-2021-42574), line and paragraph
// separators, the byte-order mark, and the `␠` this package itself writes
// for runs of spaces, so that a typed one cannot pass for a run.
func hidden(r rune) bool {
	switch {
	case r >= 0x80 && r <= 0x9f:
		return true
	case r >= 0x200b && r <= 0x200f, r >= 0x202a && r <= 0x202e, r >= 0x2060 && r <= 0x2069:
		return true
	case r == 0x2028 || r == 0x2029 || r == 0xfeff || r == 0x00ad || r == 0x2420:
		return true
	}
	return false
}

// plain reports whether s needs no change (the common case, no allocation).
func plain(s string) bool {
	run := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c == ' ' {
			if run++; run >= MinRun {
				return false
			}
			continue
		}
		run = 0
		if c < 0x20 || c == 0x7f || c >= 0x80 {
			return false
		}
	}
	return true
}

// JSON returns a JSON text with the bytes encoding/json leaves raw escaped
// as well: DEL and C1 controls, so that printing a stored line cannot move
// a terminal's cursor or start an escape sequence. Invalid UTF-8 is shown
// as `\x` escapes (not valid JSON, but the line was not either).
func JSON(line []byte) string {
	var b strings.Builder
	b.Grow(len(line))
	for i := 0; i < len(line); {
		r, size := utf8.DecodeRune(line[i:])
		switch {
		case r == utf8.RuneError && size <= 1:
			fmt.Fprintf(&b, `\x%02x`, line[i])
		case r < 0x20 || r == 0x7f || hidden(r) && r != 0x2420:
			fmt.Fprintf(&b, `\u%04x`, r)
		default:
			b.WriteRune(r)
		}
		i += size
	}
	return b.String()
}
