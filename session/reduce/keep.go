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

func hasKeyword(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		lc := c | 0x20
		if lc < 'a' || lc > 'z' || c&0xc0 != 0x40 {
			continue // not an ASCII letter
		}
		if i > 0 {
			p := s[i-1]
			camel := p >= 'a' && p <= 'z' && c >= 'A' && c <= 'Z'
			if isAlnum(p) && !camel {
				continue
			}
		}
		for _, kw := range keywords[lc-'a'] {
			if len(s)-i >= len(kw) && strings.EqualFold(s[i:i+len(kw)], kw) {
				return true
			}
		}
	}
	return false
}

func isAlnum(c byte) bool {
	return c >= '0' && c <= '9' || c|0x20 >= 'a' && c|0x20 <= 'z'
}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// isLocation reports whether s starts, after indentation, with
// "path:line:" or "path:line:col:" followed by a space or the end of the
// line, where path holds a letter and no space or colon; or is a Python
// traceback frame.
func isLocation(s string) bool {
	s = strings.TrimLeft(s, " \t")
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
