package session

import (
	"strings"
	"testing"
)

func TestEncodeKey(t *testing.T) {
	tests := []struct {
		name, key string
		app       bool
		want      string
	}{
		{"ctrl+c", "ctrl+c", false, "\x03"},
		{"upper case", "Ctrl+D", false, "\x04"},
		{"dash form", "ctrl-z", false, "\x1a"},
		{"ctrl+]", "ctrl+]", false, "\x1d"},
		{"esc", "esc", false, "\x1b"},
		{"enter", "enter", false, "\r"},
		{"up normal", "up", false, "\x1b[A"},
		{"up application", "up", true, "\x1bOA"},
		{"f5", "f5", false, "\x1b[15~"},
		{"shift+tab", "shift+tab", false, "\x1b[Z"},
		{"alt+x", "alt+x", false, "\x1bx"},
		{"pgdn", "pgdn", false, "\x1b[6~"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := encodeKey(tt.key, tt.app)
			if err != nil || got != tt.want {
				t.Fatalf("encodeKey(%q) = %q, %v; want %q", tt.key, got, err, tt.want)
			}
		})
	}
	_, err := encodeKey("ctrl+shift+banana", false)
	if err == nil || !strings.Contains(err.Error(), "ctrl+a") {
		t.Fatalf("unknown key error = %v, want one listing the valid names", err)
	}
}
