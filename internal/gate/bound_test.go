package gate

import (
	"encoding/base64"
	"runtime"
	"strings"
	"testing"
)

// bigLines are 1 MiB lines of the shapes that cost the gate most: a long
// pipeline (issue #31: a|a|… of 16 KB took 45 s and 9 GB), long lists,
// many words, many substitutions, rm after rm in text the parser refuses,
// and a here-document paste, which must still be read (not held for its
// size).
func bigLines() map[string]string {
	const n = 1 << 20
	rep := func(s string) string { return strings.Repeat(s, n/len(s)) }
	b64 := base64.StdEncoding.EncodeToString([]byte(rep("binary\x00\xff")[:n*3/4-4096]))
	var paste strings.Builder
	paste.WriteString("cat > f.b64 <<'EOF'\n")
	for len(b64) > 76 {
		paste.WriteString(b64[:76] + "\n")
		b64 = b64[76:]
	}
	paste.WriteString("EOF\n")
	return map[string]string{
		"pipeline":     rep("a|") + "a",
		"list":         rep("a;"),
		"and-list":     rep("a&&") + "a",
		"words":        "echo " + rep("a "),
		"substitution": "echo " + rep("$(a)"),
		"rm-in-text":   rep(`"rm `) + ")",
		"raw-keys":     rep("ls\x15"),
		"paste":        paste.String(),
	}
}

// TestGateBounded (issue #31): every 1 MiB shape is judged with bounded
// allocations (measured in bytes, not time), and the paste is still read,
// not held for its size.
func TestGateBounded(t *testing.T) {
	for name, line := range bigLines() {
		t.Run(name, func(t *testing.T) {
			var m0, m1 runtime.MemStats
			runtime.GC()
			runtime.ReadMemStats(&m0)
			f := Check(line)
			ReadOnly(line)
			Commands(line)
			runtime.ReadMemStats(&m1)
			got := m1.TotalAlloc - m0.TotalAlloc
			t.Logf("%d bytes allocated, held: %v", got, f != nil)
			if got > 80<<20 {
				t.Fatalf("judging 1 MiB allocated %d MiB; want under 80", got>>20)
			}
			if name == "paste" && f != nil {
				t.Fatalf("a here-document paste was held: %v", f)
			}
		})
	}
}

// BenchmarkGate1MiB judges each 1 MiB shape as a send does (issue #31).
func BenchmarkGate1MiB(b *testing.B) {
	for name, line := range bigLines() {
		b.Run(name, func(b *testing.B) {
			b.ReportAllocs()
			b.SetBytes(int64(len(line)))
			for b.Loop() {
				Check(line)
				ReadOnly(line)
			}
		})
	}
}
