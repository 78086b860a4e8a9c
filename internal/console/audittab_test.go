package console

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/audit"
)

// TestTailAudit: the tab shows the log's last records, newest last, with a
// model's control characters made visible and a line that is not a record
// shown as such; a missing log is empty.
func TestTailAudit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "audit.jsonl")
	if rows, err := tailAudit(path); err != nil || len(rows) != 0 {
		t.Fatalf("missing log: %v %v", rows, err)
	}
	l, err := audit.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	for i := range auditTailMax + 5 {
		l.Write(audit.Event{Event: audit.KindSend, Session: "s1", Command: strings.Repeat("x", i%3) + "echo \x1b[2J", Decision: audit.Ran})
	}
	l.Write(audit.Event{Event: audit.KindApprovalAnswered, Command: "git clean -fdx", Decision: audit.ApprovedByHuman, Via: audit.ViaConsole})
	l.Close()
	f, _ := os.OpenFile(path, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString("not json \x07\n")
	f.Close()
	rows, err := tailAudit(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(rows) != auditTailMax {
		t.Fatalf("%d rows, want %d", len(rows), auditTailMax)
	}
	last, before := rows[len(rows)-1], rows[len(rows)-2]
	if last.Bad != `not json \a` && last.Bad != `not json \x07` {
		t.Fatalf("the bad line: %+v", last)
	}
	if before.Decision != "approved_by_human" || before.Via != "console" || before.Seq != auditTailMax+6 {
		t.Fatalf("the last record: %+v", before)
	}
	if c := rows[0].Command; strings.ContainsRune(c, 0x1b) || !strings.Contains(c, `\x1b[2J`) {
		t.Fatalf("a command not made visible: %q", c)
	}
}
