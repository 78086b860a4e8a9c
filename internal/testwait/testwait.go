// Package testwait is the one polling helper of ttymux's tests: wait, with
// a bound, for a condition that no event announces (kernel state, a query
// of an agent, a file appearing). Where an event or a channel exists, a
// test waits on that instead; where time itself is the subject, it uses
// testing/synctest. It is imported only by tests.
package testwait

import (
	"context"
	"testing"
	"time"
)

// Interval is how often Until checks its condition.
const Interval = 5 * time.Millisecond

// Until polls cond every Interval until it holds, and fails t (Fatalf,
// naming what) if it does not within timeout or before t's context ends.
// cond runs on the calling goroutine. t's context has ended by the time
// cleanups run: a cleanup calls Poll with another context.
func Until(t testing.TB, what string, timeout time.Duration, cond func() bool) {
	t.Helper()
	if !Poll(t.Context(), timeout, cond) {
		t.Fatalf("timed out after %v waiting for %s", timeout, what)
	}
}

// Poll polls cond every Interval until it holds, and reports whether it did
// within timeout and before ctx ended; for a test that says more than
// Until does when the wait fails.
func Poll(ctx context.Context, timeout time.Duration, cond func() bool) bool {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tick := time.NewTicker(Interval)
	defer tick.Stop()
	for !cond() {
		select {
		case <-tick.C:
		case <-ctx.Done():
			return cond()
		}
	}
	return true
}
