package main

import (
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// TestTimestampsAfterRestart: read {timestamps} after a server restart
// stamps each line with when it arrived, which the agent kept (Stamps
// frames), not with when the new server attached. Before, every line
// replayed to the second server carried its attach time.
func TestTimestampsAfterRestart(t *testing.T) {
	start := persistentServers(t, shortTempDir(t))
	cmd1, cs1, _ := start()
	var open OpenOut
	// No history file: a shell hung up when the test's agent stops would
	// write one into HOME while the test removes it.
	call(t, cs1, "open_local", map[string]any{"env": map[string]string{"HISTFILE": "/dev/null"}}, &open)
	var r session.Result
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "echo early-$((6*7))"}, &r)
	if !strings.Contains(r.Output, "early-42") {
		t.Fatalf("send: %+v", r)
	}
	arrived := time.Now() // the line is in the agent by now
	_ = cs1.Close()
	_ = cmd1.Wait()

	_, cs2, _ := start()
	defer cs2.Close()
	call(t, cs2, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": 1, "timestamps": "iso"}, &r)
	m := regexp.MustCompile(`\[([0-9T:.\-]+Z)\] early-42`).FindStringSubmatch(r.Output)
	if m == nil {
		t.Fatalf("no stamped early-42 line in %q", r.Output)
	}
	at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", m[1])
	if err != nil {
		t.Fatal(err)
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
	if at.After(arrived) {
		t.Fatalf("early-42 is stamped %s, after it had arrived (%s): the second server's attach time", at.Format(time.RFC3339Nano), arrived.UTC().Format(time.RFC3339Nano))
	}
}
