package reduce

import "strings"

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
	return hasKeyword(s) || isLocation(s)
}

// Byte classes for hasKeyword.
const (
	clAlnum   = 1 << iota // ASCII letter or digit
	clLower               // ASCII lower-case letter
	clUpper               // ASCII upper-case letter
	clKwStart             // starts a keyword, in either case
)

var class = func() (t [256]uint8) {
	for c := '0'; c <= '9'; c++ {
		t[c] = clAlnum
	}
	for c := 'a'; c <= 'z'; c++ {
		t[c], t[c-0x20] = clAlnum|clLower, clAlnum|clUpper
		if len(keywords[c-'a']) > 0 {
			t[c] |= clKwStart
			t[c-0x20] |= clKwStart
		}
	}
	return t
}()

func hasKeyword(s string) bool {
	p := uint8(0) // the class of the byte before s[i]
	for i := 0; i < len(s); i++ {
		c := class[s[i]]
		if c&clKwStart != 0 && (p&clAlnum == 0 || p&clLower != 0 && c&clUpper != 0) && keywordAt(s, i) {
			return true // at the start of a word or of a CamelCase hump
		}
		p = c
	}
	return false
}

// keywordAt reports whether one of keywords starts at s[i], a letter.
func keywordAt(s string, i int) bool {
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
