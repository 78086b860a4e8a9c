package session_test

import (
	"slices"
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
