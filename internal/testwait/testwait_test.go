package testwait

import (
	"context"
	"testing"
	"testing/synctest"
	"time"
)

// TestPoll: Poll returns as soon as the condition holds, and gives up at
// the timeout, in a bubble's fake time.
func TestPoll(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		start := time.Now()
		n := 0
		if !Poll(t.Context(), time.Second, func() bool { n++; return n == 3 }) {
			t.Fatal("Poll gave up on a condition that came true")
		}
		if got := time.Since(start); got != 2*Interval {
			t.Errorf("took %v, want %v", got, 2*Interval)
		}
		start = time.Now()
		if Poll(t.Context(), time.Second, func() bool { return false }) {
			t.Fatal("Poll reported a condition that never held")
		}
		if got := time.Since(start); got != time.Second {
			t.Errorf("gave up after %v, want 1s", got)
		}
		ctx, cancel := context.WithCancel(t.Context())
		cancel()
		if Poll(ctx, time.Second, func() bool { return false }) {
			t.Fatal("Poll reported a condition that never held")
		}
	})
}
