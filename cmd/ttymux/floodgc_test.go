package main

import (
	"slices"
	"testing"
)

// TestFloodGC: GOGC goes to floodGCPercent when the first flood begins and
// back to what it was when the last one ends, however floods overlap; an
// end without a beginning changes nothing.
func TestFloodGC(t *testing.T) {
	gogc := 100
	var sets []int
	g := &floodGC{set: func(v int) int { sets = append(sets, v); old := gogc; gogc = v; return old }}
	g.flood(false)
	g.flood(true)
	g.flood(true)
	if gogc != floodGCPercent {
		t.Fatalf("during two floods GOGC=%d, want %d", gogc, floodGCPercent)
	}
	g.flood(false)
	if gogc != floodGCPercent {
		t.Fatalf("with one flood left GOGC=%d, want %d", gogc, floodGCPercent)
	}
	g.flood(false)
	g.flood(false)
	if gogc != 100 || !slices.Equal(sets, []int{floodGCPercent, 100}) {
		t.Fatalf("after the floods GOGC=%d, set %v; want 100, [%d 100]", gogc, sets, floodGCPercent)
	}
	t.Setenv("GOGC", "200")
	if floodHook() != nil {
		t.Error("with GOGC set the server still lowers it during floods")
	}
}
