package session

import (
	"fmt"
	"sort"
	"strings"
)

// keyBytes maps key names to what a VT100/xterm terminal sends for them in
// normal cursor-key mode. Names are lower case; "ctrl+x" for every letter is
// handled in encodeKey.
var keyBytes = map[string]string{
	"enter":      "\r",
	"return":     "\r",
	"tab":        "\t",
	"shift+tab":  "\x1b[Z",
	"esc":        "\x1b",
	"escape":     "\x1b",
	"backspace":  "\x7f",
	"space":      " ",
	"up":         "\x1b[A",
	"down":       "\x1b[B",
	"right":      "\x1b[C",
	"left":       "\x1b[D",
	"home":       "\x1b[H",
	"end":        "\x1b[F",
	"pgup":       "\x1b[5~",
	"pageup":     "\x1b[5~",
	"pgdn":       "\x1b[6~",
	"pagedown":   "\x1b[6~",
	"insert":     "\x1b[2~",
	"delete":     "\x1b[3~",
	"f1":         "\x1bOP",
	"f2":         "\x1bOQ",
	"f3":         "\x1bOR",
	"f4":         "\x1bOS",
	"f5":         "\x1b[15~",
	"f6":         "\x1b[17~",
	"f7":         "\x1b[18~",
	"f8":         "\x1b[19~",
	"f9":         "\x1b[20~",
	"f10":        "\x1b[21~",
	"f11":        "\x1b[23~",
	"f12":        "\x1b[24~",
	"ctrl+[":     "\x1b",
	"ctrl+]":     "\x1d",
	"ctrl+\\":    "\x1c",
	"ctrl+^":     "\x1e",
	"ctrl+_":     "\x1f",
	"ctrl+@":     "\x00",
	"ctrl+space": "\x00",
}

// appCursorKeys replaces the arrow, home and end keys when the program has
// switched the terminal to application cursor-key mode (DECCKM), as vim and
// less do.
var appCursorKeys = map[string]string{
	"up":    "\x1bOA",
	"down":  "\x1bOB",
	"right": "\x1bOC",
	"left":  "\x1bOD",
	"home":  "\x1bOH",
	"end":   "\x1bOF",
}

// encodeKey returns the bytes for one key name such as "ctrl+c", "up" or
// "f5". appCursor selects application cursor-key mode.
func encodeKey(name string, appCursor bool) (string, error) {
	k := strings.ToLower(strings.TrimSpace(name))
	k = strings.ReplaceAll(k, "-", "+")
	k = strings.TrimPrefix(k, "<")
	k = strings.TrimSuffix(k, ">")
	if strings.HasPrefix(k, "c+") {
		k = "ctrl+" + k[2:]
	}
	if appCursor {
		if b, ok := appCursorKeys[k]; ok {
			return b, nil
		}
	}
	if b, ok := keyBytes[k]; ok {
		return b, nil
	}
	if rest, ok := strings.CutPrefix(k, "ctrl+"); ok && len(rest) == 1 && rest[0] >= 'a' && rest[0] <= 'z' {
		return string(rune(rest[0] - 'a' + 1)), nil
	}
	if rest, ok := strings.CutPrefix(k, "alt+"); ok && len(rest) == 1 {
		return "\x1b" + rest, nil
	}
	return "", fmt.Errorf("unknown key %q; use one of: %s", name, keyNames())
}

func keyNames() string {
	names := []string{"ctrl+a … ctrl+z", "alt+<char>"}
	for k := range keyBytes {
		names = append(names, k)
	}
	sort.Strings(names[2:])
	return strings.Join(names, ", ")
}
