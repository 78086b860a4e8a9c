package session_test

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// TestFloodHook: Options.Flood hears of a flood (a command whose output a
// waiting call renders while it runs) once when it begins and once when
// the call's result is built, and never of a short command: cmd/ttymux
// lowers the garbage collector's target in between (issue #37). The code
// before had no hook and fails.
func TestFloodHook(t *testing.T) {
	var mu sync.Mutex
	var calls []bool
	m := newManager(t, session.Options{Flood: func(on bool) {
		mu.Lock()
		calls = append(calls, on)
		mu.Unlock()
	}})
	s := openShell(t, m)
	got := func() []bool {
		mu.Lock()
		defer mu.Unlock()
		return slices.Clone(calls)
	}
	if r := send(t, s, session.SendRequest{Text: "echo short"}); !r.Complete {
		t.Fatalf("echo: %+v", r)
	}
	if c := got(); len(c) != 0 {
		t.Fatalf("a short command told Flood %v", c)
	}
	r := send(t, s, session.SendRequest{Text: "seq 1 200000", Timeout: time.Minute})
	if !r.Complete || r.Reduction == nil || r.Reduction.RawLines != 200000 {
		t.Fatalf("seq: complete=%v reduction=%+v", r.Complete, r.Reduction)
	}
	if c := got(); !slices.Equal(c, []bool{true, false}) {
		t.Fatalf("a flood told Flood %v, want [true false]", c)
	}
}

// TestFloodEvaluationsSpaced: while output keeps coming, the waiting send
// evaluates the command ever less often (coalesceFor: a 32nd of the wait,
// at most 20 ms apart), not every 2 ms: each evaluation costs the server
// two wake-ups, which during `seq 1 1000000` cost more than the
// evaluations. A line every few milliseconds for about a second was
// evaluated once per line before; the bound is what the spacing allows
// plus the marks' and timers' wake-ups.
func TestFloodEvaluationsSpaced(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	start := time.Now()
	r := send(t, s, session.SendRequest{Text: "for i in $(seq 1 300); do echo line $i; sleep 0.002; done", Timeout: time.Minute})
	took := time.Since(start)
	if !r.Complete || !strings.Contains(r.Output, "line 300") {
		t.Fatalf("loop: complete=%v output ends %q", r.Complete, r.Output[max(0, len(r.Output)-40):])
	}
	// Spaced 2 ms for the first 64 ms, a 32nd of the wait up to 640 ms,
	// then 20 ms: 32 + 32·ln 10 + (took−640 ms)/20 ms; 20 more for marks
	// and timers.
	bound := 32 + 74 + 20
	if took > 640*time.Millisecond {
		bound += int((took - 640*time.Millisecond) / (20 * time.Millisecond))
	}
	n := session.EvaluationsOfLast(s)
	if n > bound {
		t.Fatalf("300 lines in %v were evaluated %d times, want ≤ %d", took, n, bound)
	}
	t.Logf("300 lines in %v, evaluated %d times (bound %d)", took, n, bound)
}
