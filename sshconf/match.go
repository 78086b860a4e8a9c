package sshconf

import "strings"

// matchPattern is match.c match_pattern: '*' matches any run of bytes and
// '?' exactly one byte; everything else matches itself, case-sensitively.
// It backtracks only to the last '*', so it is linear in practice where
// the recursive original is exponential in the number of stars.
func matchPattern(s, pattern string) bool {
	var si, pi int
	star, mark := -1, 0
	for si < len(s) {
		switch {
		case pi < len(pattern) && (pattern[pi] == '?' || pattern[pi] == s[si]):
			si++
			pi++
		case pi < len(pattern) && pattern[pi] == '*':
			star, mark = pi, si
			pi++
		case star >= 0:
			pi = star + 1
			mark++
			si = mark
		default:
			return false
		}
	}
	for pi < len(pattern) && pattern[pi] == '*' {
		pi++
	}
	return pi == len(pattern)
}

// matchPatternList is match.c match_pattern_list: a comma-separated list
// of patterns, each optionally negated with '!'. It returns 1 for a
// positive match, -1 when a negated pattern matches and 0 otherwise.
// With lower set the patterns (not s) are lower-cased first, as
// match_hostname does.
func matchPatternList(s, list string, lower bool) int {
	got := 0
	for sub := range strings.SplitSeq(list, ",") {
		negated := strings.HasPrefix(sub, "!")
		if negated {
			sub = sub[1:]
		}
		// OpenSSH copies each pattern into a 1024-byte buffer and fails
		// the whole list when one does not fit.
		if len(sub) >= 1023 {
			return 0
		}
		if lower {
			sub = asciiLower(sub)
		}
		if matchPattern(s, sub) {
			if negated {
				return -1
			}
			got = 1
		}
	}
	return got
}

// matchHostname is match.c match_hostname: a pattern list compared with
// host and patterns both lower-cased.
func matchHostname(host, list string) bool {
	return matchPatternList(asciiLower(host), list, true) == 1
}

// matchHostLine is readconf.c's Host keyword: the block applies when a
// pattern matches and no negated pattern does. Unlike Match, Host patterns
// are not comma lists and are compared case-sensitively.
func matchHostLine(host string, patterns []string) bool {
	active := false
	for _, p := range patterns {
		if neg, ok := strings.CutPrefix(p, "!"); ok {
			if matchPattern(host, neg) {
				return false
			}
			continue
		}
		if matchPattern(host, p) {
			active = true
		}
	}
	return active
}

// asciiLower lower-cases ASCII letters only, as C's tolower does in the
// byte-wise loops of OpenSSH.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'A' <= c && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
