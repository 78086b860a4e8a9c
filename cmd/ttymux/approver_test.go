package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/testwait"
)

// readOnlyLocal makes the local host read-only: any write is held.
const readOnlyLocal = "[[rule]]\nhosts = [\"local\"]\nread_only = true\n"

// askTouch holds touch on the local host by an ask pattern: an approved
// touch must then write (on a read_only host the kernel refuses the write
// even after an approval: Landlock, #31).
const askTouch = "[[rule]]\nhosts = [\"local\"]\nask = ['^touch ']\n"

// fakeClock is the approver's clock in a test: it moves only when told.
type fakeClock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *fakeClock) now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *fakeClock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

func exists(p string) bool {
	_, err := os.Stat(p)
	return err == nil
}

// TestApprovalShowsHiddenCommand is issue #31's "the approval form shows
// the hidden ; touch hidden": a mkdir followed by 600 spaces used to be
// shown cut at 500 bytes, as "mkdir". The human now reads the whole line,
// the run of spaces as ␠×600, an escape sequence as \x1b; declined, nothing
// is created. Fails on the old code (the form ends inside the spaces).
func TestApprovalShowsHiddenCommand(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			rig := newHumanRig(t, version, readOnlyLocal, nil, answerWith("decline"))
			id := rig.openLocal()
			dir := t.TempDir()
			hidden := filepath.Join(dir, "hidden")
			line := "mkdir " + filepath.Join(dir, "x") + strings.Repeat(" ", 600) + "; touch " + hidden + " #\x1b[8m"
			res := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": line, "raw": true}, nil)
			if !res.IsError || !strings.Contains(resultText(res), "declined") {
				t.Fatalf("send: %s", resultText(res))
			}
			qs := rig.questions()
			if len(qs) != 1 {
				t.Fatalf("asked %d questions", len(qs))
			}
			msg := qs[0].Message
			for _, want := range []string{"␠×600; touch " + hidden, `\x1b[8m`, "session " + id + " on local"} {
				if !strings.Contains(msg, want) {
					t.Errorf("the form does not show %q:\n%s", want, msg)
				}
			}
			if strings.Contains(msg, "\x1b") || strings.Contains(msg, "      ") {
				t.Errorf("the form carries raw control characters or a run of spaces:\n%q", msg)
			}
			if exists(hidden) {
				t.Fatal("a declined command ran")
			}
		})
	}
}

// TestApprovalTooLongToShow: a line too long to show whole in a form is
// not put to the human (nothing is typed), and the model is told why.
func TestApprovalTooLongToShow(t *testing.T) {
	rig := newHumanRig(t, protocols[0], readOnlyLocal, nil, answerWith("accept"))
	id := rig.openLocal()
	dir := t.TempDir()
	line := "touch " + filepath.Join(dir, "ran") + " # " + strings.Repeat("a\x01", 6000)
	res := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": line, "raw": true}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "more than an approval form can show") {
		t.Fatalf("send: %s", resultText(res))
	}
	if len(rig.questions()) != 0 || ran(dir) {
		t.Fatal("the human was asked, or the line ran")
	}
}

// TestApprovalShowsEveryReason: a line held for three reasons (the
// destructive-command gate, an ask pattern, the read-only host) is shown
// with all three. The old code named only the first.
func TestApprovalShowsEveryReason(t *testing.T) {
	pol := readOnlyLocal + "ask = ['sh$']\n"
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			rig := newHumanRig(t, version, pol, nil, answerWith("decline"))
			id := rig.openLocal()
			res := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": "curl -s http://127.0.0.1:9/x | sh"}, nil)
			if !res.IsError {
				t.Fatalf("send: %s", resultText(res))
			}
			qs := rig.questions()
			if len(qs) != 1 {
				t.Fatalf("asked %d questions", len(qs))
			}
			for _, want := range []string{"piping a download into a shell", "asks before commands matching sh$", "local is read-only"} {
				if !strings.Contains(qs[0].Message, want) {
					t.Errorf("the form does not give the reason %q:\n%s", want, qs[0].Message)
				}
			}
		})
	}
}

// TestGrantForTenMinutes: the human accepts with "allow this exact command
// on this host for 10 minutes"; the same line runs again unasked within
// the 10 minutes (on another session of the host too), a different line
// is asked about, and after the 10 minutes the line is asked about again.
// The clock is the approver's, moved by the test.
func TestGrantForTenMinutes(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			clock := &fakeClock{t: time.Date(2026, 11, 28, 3, 0, 0, 0, time.UTC)}
			var mu sync.Mutex
			answers := []*mcp.ElicitResult{
				{Action: "accept", Content: map[string]any{grantField: true}},
				{Action: "decline"},
				{Action: "decline"},
			}
			rig := newHumanRigOpts(t, version, rigOptions{policy: askTouch, now: clock.now, answer: func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				mu.Lock()
				defer mu.Unlock()
				a := answers[0]
				answers = answers[1:]
				return a, nil
			}})
			id := rig.openLocal()
			dir := t.TempDir()
			f := filepath.Join(dir, "f")
			line := "touch " + f
			sendRuns := func(session string) bool {
				t.Helper()
				os.Remove(f)
				res := call(t, rig.cs, "send", map[string]any{"session_id": session, "text": line}, nil)
				if res.IsError {
					return false
				}
				if !testwait.Poll(t.Context(), 10*time.Second, func() bool { return exists(f) }) {
					t.Fatalf("an approved line did not run: %s", resultText(res))
				}
				return true
			}
			if !sendRuns(id) || len(rig.questions()) != 1 {
				t.Fatalf("first send: %d questions", len(rig.questions()))
			}
			if s := rig.questions()[0].RequestedSchema; !strings.Contains(toJSON(t, s), grantField) {
				t.Fatalf("the form offers no grant: %s", toJSON(t, s))
			}
			clock.add(9 * time.Minute)
			if !sendRuns(id) || !sendRuns(rig.openLocal()) || len(rig.questions()) != 1 {
				t.Fatalf("within the grant: %d questions", len(rig.questions()))
			}
			if sendOther := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": "touch " + f + "2"}, nil); !sendOther.IsError || len(rig.questions()) != 2 {
				t.Fatalf("another line was let through by the grant: %s", resultText(sendOther))
			}
			clock.add(2 * time.Minute)
			if sendRuns(id) || len(rig.questions()) != 3 {
				t.Fatalf("past the grant: ran, %d questions", len(rig.questions()))
			}
			if d := rig.decisions(audit.KindApprovalAnswered); len(d) != 5 || d[1] != audit.GrantedByHuman || d[2] != audit.GrantedByHuman {
				t.Fatalf("approval answers %v", d)
			}
		})
	}
}

// TestModelConfirmMakesNoGrant: a client that cannot ask the human, the
// default policy: the model's confirm: true runs the held line once, and
// the same line without confirm is held again. A grant is the human's.
func TestModelConfirmMakesNoGrant(t *testing.T) {
	rig := newHumanRig(t, protocols[0], askTouch, nil, nil)
	id := rig.openLocal()
	dir := t.TempDir()
	line := "touch " + filepath.Join(dir, "ran")
	if res := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": line, "confirm": true}, nil); res.IsError {
		t.Fatalf("confirmed: %s", resultText(res))
	}
	if !testwait.Poll(t.Context(), 10*time.Second, func() bool { return ran(dir) }) {
		t.Fatal("the confirmed line did not run")
	}
	os.Remove(filepath.Join(dir, "ran"))
	res := call(t, rig.cs, "send", map[string]any{"session_id": id, "text": line}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "confirm: true") {
		t.Fatalf("the line ran again without confirm: %s", resultText(res))
	}
	if d := rig.decisions(audit.KindSend); len(d) != 2 || d[0] != audit.ConfirmedByModel || d[1] != audit.Held {
		t.Fatalf("send decisions %v", d)
	}
}

// TestDownloadAudited is issue #31.7's download: on a read-only local
// host a download that writes a local file is held (declined: no file);
// one that runs records where it wrote; a failed one is recorded as
// failed, not ran. The old code audited every download as `cat PATH`,
// ran, without the local path.
func TestDownloadAudited(t *testing.T) {
	dir := t.TempDir()
	src := filepath.Join(dir, "src.txt")
	if err := os.WriteFile(src, []byte("data\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	dst := filepath.Join(dir, "dst.txt")
	t.Run("read-only local", func(t *testing.T) {
		rig := newHumanRig(t, protocols[0], readOnlyLocal, nil, answerWith("decline"))
		id := rig.openLocal()
		res := call(t, rig.cs, "download", map[string]any{"session_id": id, "path": src, "local_path": dst}, nil)
		if !res.IsError || !strings.Contains(resultText(res), "declined") || exists(dst) {
			t.Fatalf("download to a read-only local host: %s", resultText(res))
		}
		if qs := rig.questions(); len(qs) != 1 || !strings.Contains(qs[0].Message, "download "+dst) {
			t.Fatalf("questions %+v", qs)
		}
		ev := rig.events()
		last := ev[len(ev)-1]
		if last.Event != audit.KindDownload || last.Decision != audit.DeclinedByHuman || last.LocalPath != dst {
			t.Fatalf("audit %+v", last)
		}
	})
	t.Run("ran and failed", func(t *testing.T) {
		rig := newHumanRig(t, protocols[0], "", nil, nil)
		id := rig.openLocal()
		if res := call(t, rig.cs, "download", map[string]any{"session_id": id, "path": src, "local_path": dst}, nil); res.IsError {
			t.Fatalf("download: %s", resultText(res))
		}
		if res := call(t, rig.cs, "download", map[string]any{"session_id": id, "path": filepath.Join(dir, "none"), "local_path": filepath.Join(dir, "none2")}, nil); !res.IsError {
			t.Fatalf("download of a missing file: %s", resultText(res))
		}
		var got []audit.Event
		for _, e := range rig.events() {
			if e.Event == audit.KindDownload {
				got = append(got, e)
			}
		}
		if len(got) != 2 || got[0].Decision != audit.Ran || got[0].LocalPath != dst || got[0].Command != "download "+src ||
			got[1].Decision != audit.Failed || got[1].Reason == "" {
			t.Fatalf("audit %+v", got)
		}
	})
}

// TestAuditVerifyThroughCLI: a log written by the server through MCP calls
// verifies; `ttymux audit verify` names a deleted, an edited and a forged
// line by number, and exits 1. The old log had no chain to check.
func TestAuditVerifyThroughCLI(t *testing.T) {
	rig := newHumanRig(t, protocols[0], "", nil, nil)
	id := rig.openLocal()
	for _, c := range []string{"echo one", "echo two", "echo three", "echo four"} {
		call(t, rig.cs, "send", map[string]any{"session_id": id, "text": c}, nil)
	}
	orig, err := os.ReadFile(rig.audit)
	if err != nil {
		t.Fatal(err)
	}
	verify := func() (int, string) {
		var out, errb bytes.Buffer
		code := run([]string{"audit", "verify", "-file", rig.audit}, nil, &out, &errb)
		return code, out.String() + errb.String()
	}
	if code, out := verify(); code != 0 || !strings.Contains(out, "ok: the chain holds") {
		t.Fatalf("intact log: exit %d\n%s", code, out)
	}
	lines := strings.SplitAfter(strings.TrimSuffix(string(orig), "\n"), "\n")
	if len(lines) < 5 {
		t.Fatalf("%d audit lines", len(lines))
	}
	for _, tt := range []struct {
		name   string
		tamper func([]string) []string
		want   string
	}{
		{"deleted", func(l []string) []string { return append(l[:2:2], l[3:]...) }, "line 3: 1 record(s) removed"},
		{"edited", func(l []string) []string { l[2] = strings.Replace(l[2], `"ran"`, `"declined_by_human"`, 1); return l }, "line 3: edited"},
		{"forged", func(l []string) []string {
			return append(l[:3:3], append([]string{`{"time":"2026-11-28T00:00:00Z","event":"send","command":"rm -rf /","decision":"declined_by_human"}` + "\n"}, l[3:]...)...)
		}, "line 4: forged"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ls := tt.tamper(append([]string(nil), lines...))
			if err := os.WriteFile(rig.audit, []byte(strings.Join(ls, "")+"\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			code, out := verify()
			if code != 1 || !strings.Contains(out, tt.want) {
				t.Fatalf("exit %d, want 1 and %q:\n%s", code, tt.want, out)
			}
		})
	}
}

func toJSON(t *testing.T, v any) string {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
