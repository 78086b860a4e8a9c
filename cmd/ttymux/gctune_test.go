package main

import (
	"os"
	"runtime/debug"
	"testing"
)

// TestTuneGC: `ttymux mcp` collects at GOGC=50 (a smaller heap peak during
// a flood, docs/performance.md), unless the user set GOGC. The code before
// left Go's default of 100 and fails.
func TestTuneGC(t *testing.T) {
	old := debug.SetGCPercent(100)
	defer debug.SetGCPercent(old)
	t.Setenv("GOGC", "")
	tuneGC() // GOGC set, even empty: the user's choice stands
	if got := debug.SetGCPercent(100); got != 100 {
		t.Errorf("with GOGC set, GC percent %d, want it left at 100", got)
	}
	if err := os.Unsetenv("GOGC"); err != nil { // t.Setenv restores it
		t.Fatal(err)
	}
	tuneGC()
	if got := debug.SetGCPercent(100); got != serverGCPercent {
		t.Errorf("GC percent %d, want %d", got, serverGCPercent)
	}
}
