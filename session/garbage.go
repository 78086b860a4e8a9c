package session

import (
	"fmt"
	"unicode"
	"unicode/utf8"
)

// A serial console at the wrong baud rate (or parity) prints garbage: each
// character the device sends is sampled at the wrong times, which gives
// bytes with the high bit set, NULs and 0xFF from framing errors, stray
// control characters, and runs that are not UTF-8. That is the most common
// first-day mistake with a serial console, and a model reading "���" can
// only guess; the note says what to try.

// garbageMin is the fewest bytes judged: a few stray bytes (line noise when
// a board powers up) say nothing.
const garbageMin = 32

// garbageShare is the share of bad bytes above which output is called
// garbage: "most of what arrives". Random bytes score about 0.6, text 0.
const garbageShare = 0.5

// commonBauds are the rates to try, most common first.
const commonBauds = "115200, 9600, 57600, 38400, 19200, 230400, 460800, 921600 (74880 for an ESP8266 boot ROM)"

// badShare returns the share of b that is not text: invalid UTF-8, C0
// controls other than tab, CR, LF, backspace, bell and ESC, DEL, C1
// controls, and U+FFFD.
func badShare(b []byte) float64 {
	if len(b) == 0 {
		return 0
	}
	bad := 0
	for i := 0; i < len(b); {
		r, n := utf8.DecodeRune(b[i:])
		switch {
		case r == utf8.RuneError:
			bad += n
		case r < 0x20:
			switch r {
			case '\t', '\r', '\n', '\b', '\a', 0x1b, 0x0e, 0x0f:
			default:
				bad++
			}
		case r == 0x7f || r >= 0x80 && r < 0xa0:
			bad += n
		case r >= 0x80 && !unicode.IsPrint(r) && !unicode.IsSpace(r):
			bad += n
		}
		i += n
	}
	return float64(bad) / float64(len(b))
}

// garbageNote returns the note for a serial session whose output b, read
// from offset from, is mostly not text, and "" otherwise. The read call it
// names shows those bytes again: a plain read {mode: "hex"} would show only
// what is unread, none of them.
func (s *Session) garbageNote(b []byte, from int64) string {
	if s.port == "" || len(b) < garbageMin {
		return ""
	}
	share := badShare(b)
	if share <= garbageShare {
		return ""
	}
	at := ""
	if line, _ := s.target.Serial(); line.Baud > 0 {
		at = fmt.Sprintf(" at %d baud", line.Baud)
	}
	where := fmt.Sprintf(`"from_offset":%d`, from)
	if from <= 0 { // from_offset 0 means "not given": the first line is the same place
		where = `"from_line":1`
	}
	return fmt.Sprintf(`%.0f%% of this output is not text%s: the baud rate (or parity) is probably wrong; close the session and open_serial again with another baud, the usual ones being %s; read {"session_id":%q,"mode":"hex",%s} shows the bytes`, share*100, at, commonBauds, s.id, where)
}
