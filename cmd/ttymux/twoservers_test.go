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

// TestSecondServerHookedIsNoPerson: as TestSecondServerIsNoPerson, with
// ttymux's hook in the shell, whose C marks show every command line. The
// first server's read after the second server's command says another
// server ran it, not a person; a person's keys typed through the second
// server's console (Session.HumanWrite, sent to the agent as PersonInput)
// and through ttymux attach are a person's on the first server. Before,
// any command line no send of the first server accounted for was "a
// person typed", and the console's keys through a server counted for no
// one.
func TestSecondServerHookedIsNoPerson(t *testing.T) {
	sock := humanAgent(t)
	client := &agentc.Client{Socket: sock}
	m1, cs1 := keptServer(t, client)
	m2, cs2 := keptServer(t, client)
	open := openKept(t, cs1, nil)
	if !open.Integrated {
		t.Fatalf("open_local: %+v", open)
	}
	id := open.ID
	var att OpenOut
	call(t, cs2, "attach", map[string]any{"session_id": id}, &att)
	if r := mustSend(t, cs2, map[string]any{"session_id": id, "text": "echo server-$((2+3))"}); r.Output != "server-5" {
		t.Fatalf("the second server's send: output %q note %q", r.Output, r.Note)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`server-5\r\n(?s:.*)133;B`))
	var rd session.Result
	call(t, cs1, "read", map[string]any{"session_id": id}, &rd)
	if !strings.Contains(rd.Output, "server-5") || strings.Contains(rd.Note, "a person typed") ||
		!strings.Contains(rd.Note, `another ttymux server (a model's, not a person's) ran "echo server-$((2+3))"`) {
		t.Fatalf("the first server's read after the second server's command: output %q note %q", rd.Output, rd.Note)
	}
	t.Logf("note: %s", rd.Note)
	if r := mustSend(t, cs1, map[string]any{"session_id": id, "text": "echo model-one"}); r.Output != "model-one" || r.Note != "" {
		t.Fatalf("the first server's send: output %q note %q", r.Output, r.Note)
	}

	// A person at the second server's console.
	s2, err := m2.Get(t.Context(), id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s2.HumanWrite([]byte("echo console-$((6*7))\r")); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`console-42\r\n(?s:.*)133;B`))
	call(t, cs1, "read", map[string]any{"session_id": id}, &rd)
	if !strings.Contains(rd.Output, "console-42") || strings.Contains(rd.Note, "another ttymux server") ||
		!strings.Contains(rd.Note, `a person typed in this terminal since your last call and ran "echo console-$((6*7))"`) {
		t.Fatalf("the first server's read after a person's command at the second server's console: output %q note %q", rd.Output, rd.Note)
	}

	// A person through ttymux attach, then the second server again: each
	// is told as what it is.
	conn, _, _, err := client.AttachTail(t.Context(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("echo person-$((7*7))\r")); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`person-49\r\n(?s:.*)133;B`))
	call(t, cs1, "read", map[string]any{"session_id": id}, &rd)
	if !strings.Contains(rd.Note, `a person typed in this terminal since your last call and ran "echo person-$((7*7))"`) || strings.Contains(rd.Note, "another ttymux server") {
		t.Fatalf("the first server's read after a person's command through attach: output %q note %q", rd.Output, rd.Note)
	}
	if r := mustSend(t, cs2, map[string]any{"session_id": id, "text": "echo server-again"}); r.Output != "server-again" {
		t.Fatalf("the second server's send: output %q note %q", r.Output, r.Note)
	}
	awaitLog(t, m1, id, regexp.MustCompile(`server-again\r\n(?s:.*)133;B`))
	r := mustSend(t, cs1, map[string]any{"session_id": id, "text": "echo model-two"})
	if r.Output != "model-two" || strings.Contains(r.Note, "a person typed") || !strings.Contains(r.Note, `another ttymux server (a model's, not a person's) ran "echo server-again"`) {
		t.Fatalf("the first server's send after the second server's command: output %q note %q", r.Output, r.Note)
	}
}
