package visible

import (
	"strings"
	"testing"
)

func TestString(t *testing.T) {
	tests := []struct{ name, in, want string }{
		{"plain", "ls -l /tmp", "ls -l /tmp"},
		{"short spacing kept", "a   b", "a   b"},
		{"hidden after spaces", "mkdir x" + strings.Repeat(" ", 600) + "; touch hidden", "mkdir x␠×600; touch hidden"},
		{"escape", "echo \x1b[2Jhi", `echo \x1b[2Jhi`},
		{"newline", "a\nb\r\tc", `a\nb\r\tc`},
		{"bidi override", "echo \u202eabc", `echo \u202eabc`},
		{"zero width", "r\u200bm", `r\u200bm`},
		{"C1 CSI", "x\u009b2J", `x\u009b2J`},
		{"invalid utf8", "a\xffb", `a\xffb`},
		{"typed run marker", "␠×600", `\u2420×600`},
		{"del", "a\x7fb", `a\x7fb`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := String(tt.in); got != tt.want {
				t.Fatalf("String(%q) = %q, want %q", tt.in, got, tt.want)
			}
		})
	}
}

func TestJSON(t *testing.T) {
	in := []byte("{\"c\":\"a\x7fb\u009bc\x1bd\"}")
	want := `{"c":"a\u007fb\u009bc\u001bd"}`
	if got := JSON(in); got != want {
		t.Fatalf("JSON = %q, want %q", got, want)
	}
}

func BenchmarkStringPlain(b *testing.B) {
	s := strings.Repeat("ls -l /tmp | grep x; ", 50)
	for b.Loop() {
		_ = String(s)
	}
}

// BenchmarkStringMiB: a 1 MiB line of words, runs of spaces and control
// characters is made visible in linear time.
func BenchmarkStringMiB(b *testing.B) {
	s := strings.Repeat("rm -rf x"+strings.Repeat(" ", 40)+"\x1b[8m;", 1<<20/54)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		_ = String(s)
	}
}
