package main

import (
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// TestQATopReadKeepsHeader pins issue #13 item 8 in the default read:
// `read` (mode new) while top redraws the normal screen returned frames
// whose Mem, Swap, blank and PID header rows were blank (collapsed into
// "previous line repeated 3 more times"), frames glued to each other. top
// moves the cursor home for each frame and skips the rows that did not
// change, so the lines of a read that starts after its first frame never
// hold them, and the line renderer ignored the cursor home. A program that
// hides the cursor and addresses it on the normal screen is read as its
// screen, as one on the alternate screen is (and as top's own send result
// already was): one whole frame per read.
func TestQATopReadKeepsHeader(t *testing.T) {
	if _, err := exec.LookPath("top"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("top missing under CI: .ci/run installs procps")
		}
		t.Skip("top not installed")
	}
	cs := newTestClient(t)
	id := openPlain(t, cs, nil)
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "top -d 0.3", "timeout_ms": 20000})
	if r.Complete {
		t.Fatalf("top: %+v", r)
	}
	defer mustSend(t, cs, map[string]any{"session_id": id, "text": "q", "enter": false, "timeout_ms": 20000})
	var frames []string
	testwait.Until(t, "three top frames in reads", 20*time.Second, func() bool {
		var rr session.Result
		if res := call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "timeout_ms": 1000}, &rr); res.IsError {
			t.Fatalf("read: %s", resultText(res))
		}
		if n := strings.Count(rr.Output, "top - "); n > 1 {
			t.Errorf("one read returned %d top frames glued together, want its screen:\n%s", n, rr.Output)
		}
		for _, f := range strings.Split(rr.Output, "top - ")[1:] {
			if strings.Contains(f, "Tasks:") && strings.Contains(f, "%Cpu") {
				frames = append(frames, f)
			}
		}
		return len(frames) >= 3
	})
	for i, f := range frames {
		if !strings.Contains(f, "Mem") || !strings.Contains(f, "PID") {
			head := f
			if len(head) > 600 {
				head = head[:600]
			}
			t.Errorf("frame %d of read's output lacks top's Mem or PID header rows:\ntop - %s", i, head)
		}
	}
}
