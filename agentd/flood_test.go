package agentd

import (
	"bytes"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
)

// TestFloodWritesPerBurst: during a flood the agent sends what it read in
// bursts, one write per floodHold, rather than one write (and one wake-up
// of the client's reader) per PTY read, which the kernel limits to 4 KiB
// (issue #37). The hold is 20 ms here so that the count does not depend on
// the machine's speed: at any rate above 1 MB/s (seq's is several), a
// burst holds five reads or more. Nothing is lost or reordered (tconn
// checks every Output's offset). The code before the hold made about one
// write per read and fails.
func TestFloodWritesPerBurst(t *testing.T) {
	ta := startAgent(t, Options{floodHold: 20 * time.Millisecond})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	sess := ta.session(t, tc.rep.Session.ID)
	reads0, frames0 := sess.readCount(), len(tc.frames)
	tc.input("seq 1 200000; echo FLOOD-$((6*7))\r")
	tc.waitOutput("FLOOD-42\r\n")
	reads := sess.readCount() - reads0
	outputs := 0
	for _, f := range tc.frames[frames0:] {
		if f == agentproto.TypeOutput {
			outputs++
		}
	}
	if !bytes.Contains(tc.out, []byte("\r\n199999\r\n200000\r\n")) {
		t.Fatalf("the flood's last lines are missing: %q", tail(tc.out))
	}
	t.Logf("%d PTY reads, %d Output frames", reads, outputs)
	if outputs*3 > int(reads) {
		t.Errorf("%d Output frames for %d PTY reads: want at most one per three reads during a flood", outputs, reads)
	}
}

// session returns the agent's session id.
func (ta *testAgent) session(t testing.TB, id string) *session {
	t.Helper()
	ta.srv.mu.Lock()
	defer ta.srv.mu.Unlock()
	sess := ta.srv.sessions[id]
	if sess == nil {
		t.Fatalf("no session %s", id)
	}
	return sess
}

// readCount returns how many reads of the device returned output.
func (sess *session) readCount() int64 {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.reads
}
