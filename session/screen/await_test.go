package screen

import (
	"testing"
	"time"
)

// TestAwaitAnswers: a send waits for the answer to the query the program
// just made, as a terminal would have answered before anything was typed
// (issue #30: BusyBox ash asks for the cursor position after each prompt,
// and an answer that came after the typed command was echoed into its
// output as "^[[6;12R"). The first query also creates the emulator, the
// slowest answer there is. Without a pending query it returns at once.
func TestAwaitAnswers(t *testing.T) {
	for i := range 20 {
		r := newReplyRecorder()
		s := newTestScreen(t, 24, 80, Options{Reply: r}, defaultLimits)
		writeAll(t, s, "\x1b]133;D;0;ttymux=x\a/tmp # ", "\x1b[6n")
		s.AwaitAnswers(t.Context(), 10*time.Second)
		if got := r.String(); got != "\x1b[1;8R" {
			t.Fatalf("run %d: answer %q when AwaitAnswers returned, want it written", i, got)
		}
	}
	r := newReplyRecorder()
	s := newTestScreen(t, 24, 80, Options{Reply: r}, defaultLimits)
	writeAll(t, s, "plain output\r\n$ ")
	start := time.Now()
	s.AwaitAnswers(t.Context(), 10*time.Second)
	if el := time.Since(start); el > time.Second {
		t.Fatalf("AwaitAnswers without a query took %v", el)
	}
}
