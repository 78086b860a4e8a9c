package main

import (
	"os"
	"runtime/debug"
)

// serverGCPercent is the garbage collector's GOGC for `ttymux mcp`, unless
// the environment sets GOGC. A server's live heap is small (2–3 MB during
// `seq 1 1000000`: the screen's backlog, the pre-renderer's window), so at
// Go's default of 100 the heap's floor of 4 MB, not the live heap, sets
// when it collects, and the heap peaked at 4–6 MB. At 50 it peaks at
// about 3 MB: 0.7–1.6 MB less peak RSS during a flood (DESIGN.md: ≤ 32
// MB), for a few more collections of a small heap (a collection costs
// 1–3 ms of CPU here; a flood of a million lines makes about four).
const serverGCPercent = 50

// tuneGC applies serverGCPercent unless GOGC is set.
func tuneGC() {
	if _, set := os.LookupEnv("GOGC"); !set {
		debug.SetGCPercent(serverGCPercent)
	}
}
