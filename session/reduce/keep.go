package reduce

import (
	"encoding/binary"
	"math/bits"
	"strings"
)

// keywords are the words that make a line look like an error or a warning,
// lower case, grouped by first letter. A keyword matches case-insensitively
// at the start of a word, as a prefix ("fail" matches FAILED, failure,
// fails), and also at a lower-to-upper case change, so that Python's
// ValueError and ModuleNotFoundError and Java's NullPointerException match
// "error" and "exception".
var keywords = [26][]string{
	'a' - 'a': {"abort"},
	'c' - 'a': {"cannot", "core dumped"},
	'd' - 'a': {"denied"},
	'e' - 'a': {"error", "err!", "exception"}, // "npm ERR!"
	'f' - 'a': {"fail", "fatal"},
	'n' - 'a': {"not found", "no such file"},
	'p' - 'a': {"panic"},
	'r' - 'a': {"refused"},
	's' - 'a': {"segmentation fault"},
	't' - 'a': {"traceback", "timed out"},
	'u' - 'a': {"unable to", "undefined reference", "undefined symbol"},
	'w' - 'a': {"warn"},
}

// looksLikeError is the default keep pattern. It is true for a line holding
// one of keywords, and for a compiler- or test-style location
// ("main.go:12:5: undefined: x", "    x_test.go:40: got 1, want 2",
// "Makefile:3: *** missing separator", `  File "a.py", line 3, in f`), whose
// message may hold no keyword at all. It is hand-written rather than a
// regexp because it runs over every line in the elided middle of a fold,
// which can be millions.
func looksLikeError(s string) bool {
	_, keep := lineInfo(s)
	return keep
}

// LooksLikeError reports whether the fold would keep line s from the middle
// of long output when Options.KeepPattern is nil: the built-in test for
// errors and warnings described there.
func LooksLikeError(s string) bool { return looksLikeError(s) }

// lineInfo returns progressLike(s) and looksLikeError(s), reading s once.
func lineInfo(s string) (progress, keep bool) {
	if len(s) < 16 {
		// Short lines are often numbers (seq, a column of data), with no
		// letter and so no keyword, location or progress.
		i := 0
		for i < len(s) && !isLetter[s[i]] {
			i++
		}
		if i == len(s) {
			return false, false
		}
	}
	progress, kw, letter := scanLine(s)
	// A location has a letter in its path, or is `File "`.
	return progress, kw || letter && isLocation(s)
}

// kwNext[c], for the first letter c of keywords in either case, has bit
// k-'a' set for the second letter k of each keyword that starts with c.
var kwNext = func() (t [256]uint32) {
	for c := 'a'; c <= 'z'; c++ {
		for _, kw := range keywords[c-'a'] {
			t[c] |= 1 << (kw[1] - 'a')
			t[c-0x20] |= 1 << (kw[1] - 'a')
		}
	}
	return t
}()

// isLetter[c] says c is an ASCII letter or not ASCII, for progressLike.
var isLetter = func() (t [256]bool) {
	for c := range t {
		t[c] = c >= 0x80 || c|0x20 >= 'a' && c|0x20 <= 'z'
	}
	return t
}()

// Constants for working on the eight bytes of a uint64 at once.
const (
	lo8 = 0x0101010101010101
	hi8 = 0x8080808080808080
	m7  = 0x7f7f7f7f7f7f7f7f
)

// scanLine reports whether s holds an ASCII digit and a letter (as
// progressLike tests), whether it holds one of keywords where keywords
// says they match (at an ASCII letter that starts the line, follows a byte
// that is not an ASCII letter or digit, or is upper case after a lower-case
// one), and whether it holds an ASCII letter or a non-ASCII byte. It looks
// at eight bytes at a time: it runs over every line of output that may be
// folded, which can be millions.
func scanLine(s string) (progress, keyword, letter bool) {
	var dig, let, prevA, prevLower uint64
	for i := 0; i < len(s); i += 8 {
		x := word(s, i)
		// Each byte's top bit in d, l and u says whether it is a digit, a
		// letter or an upper-case letter: (lo8*(127+n) - b) & (b +
		// lo8*(127-m)) has the top bit set for a 7-bit b when m < b < n,
		// with no carry between bytes, and ^x clears it for b >= 0x80.
		xm := x & m7
		d := (lo8*(127+':') - xm) & ^x & (xm + lo8*(127-'/')) & hi8
		y := x | lo8*0x20 // fold case
		ym := y & m7
		l := (lo8*(127+'{') - ym) & ^y & (ym + lo8*(127-'`')) & hi8
		u := (lo8*(127+'[') - xm) & ^x & (xm + lo8*(127-'@')) & hi8
		dig |= d
		let |= l | x&hi8
		a, lower := d|l, l&^u
		// Letters that start a word or a CamelCase hump.
		cand := l&^(a<<8|prevA) | u&(lower<<8|prevLower)
		prevA, prevLower = a>>56, lower>>56
		for ; cand != 0 && !keyword; cand &= cand - 1 {
			// keywordAt, with its first test inline: most words are
			// not keywords.
			k := i + bits.TrailingZeros64(cand)>>3
			keyword = k+3 < len(s) && kwNext[s[k]]>>((s[k+1]|0x20)-'a')&1 != 0 && keywordAt(s, k) && !nameAt(s, k)
		}
	}
	return dig != 0 && let != 0, keyword, let != 0
}

// word returns s[i:i+8] as a little-endian uint64, with zero bytes past the
// end of s.
func word(s string, i int) uint64 {
	if i+8 <= len(s) {
		return binary.LittleEndian.Uint64([]byte(s[i : i+8]))
	}
	return tail(s, i)
}

// tail is word for the last, short word of s.
func tail(s string, i int) uint64 {
	n := len(s) - i
	switch {
	case len(s) >= 8: // the last 8 bytes, shifted to drop those before i
		return binary.LittleEndian.Uint64([]byte(s[len(s)-8:])) >> (8 * (8 - n))
	case n >= 4: // two loads that overlap
		a := uint64(binary.LittleEndian.Uint32([]byte(s[i : i+4])))
		b := uint64(binary.LittleEndian.Uint32([]byte(s[len(s)-4:])))
		return a | b<<(8*(n-4))
	case n >= 2:
		a := uint64(binary.LittleEndian.Uint16([]byte(s[i : i+2])))
		b := uint64(binary.LittleEndian.Uint16([]byte(s[len(s)-2:])))
		return a | b<<(8*(n-2))
	case n == 1:
		return uint64(s[i])
	}
	return 0
}

// nameAt reports whether the keyword at s[i] is part of a name rather
// than a message: of a CamelCase identifier that goes on after it
// (ErrorHandler, FailoverConfig; but ValueError and ERRORS are messages), or
// of a path or URL (a word holding '/': ./src/errors/x.go, /usr/lib/libfail.so).
// find, ls and grep -l print such names by the thousand (issue #13 item 11).
func nameAt(s string, i int) bool {
	// The word around i: from the last space before it to the next after.
	a, b := i, i
	for a > 0 && s[a-1] != ' ' && s[a-1] != '\t' {
		a--
	}
	for b < len(s) && s[b] != ' ' && s[b] != '\t' {
		b++
	}
	if strings.IndexByte(s[a:b], '/') >= 0 {
		return true
	}
	// A lower-case letter followed by an upper-case one after the keyword
	// starts another hump of the same identifier.
	for j := i + 1; j+1 < b; j++ {
		c, d := s[j], s[j+1]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
		if c >= 'a' && c <= 'z' && d >= 'A' && d <= 'Z' {
			return true
		}
	}
	return false
}

// keywordAt reports whether one of keywords starts at s[i], an ASCII letter.
func keywordAt(s string, i int) bool {
	// Every keyword has at least 4 bytes; kwNext rules out most letters.
	if len(s)-i < 4 || kwNext[s[i]]>>((s[i+1]|0x20)-'a')&1 == 0 {
		return false
	}
	for _, kw := range keywords[s[i]|0x20-'a'] {
		if len(s)-i >= len(kw) && s[i+1]|0x20 == kw[1] && strings.EqualFold(s[i:i+len(kw)], kw) {
			return true
		}
	}
	return false
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isLocation reports whether s starts, after indentation, with
// "path:line:" or "path:line:col:" followed by a space or the end of the
// line, where path holds a letter and no space or colon; or is a Python
// traceback frame.
func isLocation(s string) bool {
	for len(s) > 0 && (s[0] == ' ' || s[0] == '\t') {
		s = s[1:]
	}
	if strings.HasPrefix(s, `File "`) {
		return strings.Contains(s, `", line `)
	}
	i, letter := 0, false
	for ; i < len(s) && s[i] != ':' && s[i] != ' ' && s[i] != '\t'; i++ {
		letter = letter || s[i]|0x20 >= 'a' && s[i]|0x20 <= 'z'
	}
	if !letter || i == len(s) || s[i] != ':' {
		return false
	}
	for nums := 0; nums < 2; nums++ {
		j := i + 1
		for j < len(s) && isDigit(s[j]) {
			j++
		}
		if j == i+1 || j == len(s) || s[j] != ':' {
			return false
		}
		if j+1 == len(s) || s[j+1] == ' ' || s[j+1] == '\t' {
			return true
		}
		i = j
	}
	return false
}
