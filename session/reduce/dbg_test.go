package reduce

import (
	"testing"
)

func BenchmarkDbgCmd(b *testing.B) {
	lines := buildLog(1_000_000, map[int]string{1000: "x.c:1:1: error: e", 500_000: "x.c:1:1: error: e"})
	for b.Loop() {
		Reduce(lines, Options{ReadHint: hint, Command: "git log"})
	}
}
