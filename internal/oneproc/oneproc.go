// Package oneproc runs a ttymux server on one processor at a time.
//
// ttymux's servers (`ttymux mcp`, `ttymux-agent serve`) answer one call at
// a time in a few hundred microseconds, then wait: for the client, for a
// shell, for a socket. With more than one P, every goroutine a call wakes
// (the reader, go-sdk's dispatcher and handler, the session's waiter)
// starts another thread spinning on an idle P, and each such wake is a
// futex call and a context switch, which on a small VM cost more than the
// call's own work. On one P the same goroutines hand over on one thread.
// Measured through a client process on the project's 2-core VM, in the
// same runs (docs/performance.md, issue #37): echo 1.62-1.64 ms against
// 1.79-1.88 ms in-process and 1.69-1.77 against 2.02-2.19 ms through the
// agent, with a quarter less CPU in the server and the agent; list during
// a wait 0.81-0.84 against 0.83-0.99 ms; `seq 1 1000000` no slower, with
// less CPU. A user's GOMAXPROCS is kept.
package oneproc

import (
	"os"
	"runtime"
)

// Set sets GOMAXPROCS to 1 unless the environment sets it, and reports
// whether it did.
func Set() bool {
	if _, set := os.LookupEnv("GOMAXPROCS"); set {
		return false
	}
	runtime.GOMAXPROCS(1)
	return true
}
