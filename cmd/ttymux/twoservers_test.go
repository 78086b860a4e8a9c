package main

import (
	"regexp"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// TestSecondServerIsNoPerson: two servers on one persistent session (two
// windows of a model) and a person's ttymux attach. The shell has no hook,
// so the agent's count of other clients' input is what tells a person's
// keys. The other server's command gives no note; the person's does.
// Before, the agent counted the second server's keys as a person's and
// the first server's read said "a person typed in this terminal".
func TestSecondServerIsNoPerson(t *testing.T) {
	sock := humanAgent(t)
	client := &agentc.Client{Socket: sock}
	m1, cs1 := keptServer(t, client)
	_, cs2 := keptServer(t, client)
	open := openKept(t, cs1, map[string]any{"command": "/usr/bin/env", "args": []string{"dash", "-i"}})
	id := open.ID
	awaitLog(t, m1, id, regexp.MustCompile(`^\$ $`)) // dash's first prompt
	var att OpenOut
	call(t, cs2, "attach", map[string]any{"session_id": id}, &att)
	if r := mustSend(t, cs2, map[string]any{"session_id": id, "text": "echo server-$((2+3))"}); r.Output != "server-5" {
		t.Fatalf("the second server's send: output %q", r.Output)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`server-5\r\n\$ `))
	var rd session.Result
	call(t, cs1, "read", map[string]any{"session_id": id}, &rd)
	if strings.Contains(rd.Note, "person") {
		t.Fatalf("the first server's read after the second server's command: output %q note %q", rd.Output, rd.Note)
	}
	if r := mustSend(t, cs1, map[string]any{"session_id": id, "text": "echo model-one"}); r.Output != "model-one" || strings.Contains(r.Note, "person") {
		t.Fatalf("the first server's send: output %q note %q", r.Output, r.Note)
	}
	// The person, as ttymux attach does.
	conn, _, _, err := client.AttachTail(t.Context(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("echo person-$((6*7))\r")); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`person-42\r\n\$ `))
	call(t, cs1, "read", map[string]any{"session_id": id}, &rd)
	if !strings.Contains(rd.Output, "person-42") || !strings.Contains(rd.Note, "a person typed in this terminal") {
		t.Fatalf("the read after the person's command: output %q note %q", rd.Output, rd.Note)
	}
}
