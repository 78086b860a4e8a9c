package main

import (
	"os"
	"runtime/debug"
	"sync"
)

// floodGCPercent is the garbage collector's GOGC while a session floods.
// A server's live heap during `seq 1 1000000` is 2–3 MB (the screen's
// backlog, the pre-renderer's window), so at Go's default of 100 the
// heap's 4 MB floor, not the live heap, set when it collected, and the
// heap peaked at 4–6 MB: at 50 it peaks near 3 MB, 0.7–1.6 MB less peak
// RSS (DESIGN.md: ≤ 32 MB). Only during a flood: at 50 all the time, the
// collections of go-sdk's per-call garbage cost an echo a quarter more
// server CPU (docs/performance.md).
const floodGCPercent = 50

// floodGC is session.Options.Flood: it holds GOGC at floodGCPercent while
// any session floods, then restores what it was.
type floodGC struct {
	mu   sync.Mutex
	n    int // floods under way
	prev int // GOGC before the first of them
	set  func(int) int
}

func (g *floodGC) flood(on bool) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch {
	case on:
		if g.n++; g.n == 1 {
			g.prev = g.set(floodGCPercent)
		}
	case g.n > 0:
		if g.n--; g.n == 0 {
			g.set(g.prev)
		}
	}
}

// floodHook returns the session.Options.Flood of a server: nil when the
// user chose GOGC.
func floodHook() func(bool) {
	if _, set := os.LookupEnv("GOGC"); set {
		return nil
	}
	g := &floodGC{set: debug.SetGCPercent}
	return g.flood
}
