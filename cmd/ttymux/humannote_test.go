package main

import (
	"maps"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	agentc "github.com/ttymux/ttymux/transport/agent"
)

// TestHumanTypedNoteThroughAgent: a person takes over a persistent
// session in the console (a client of the agent of its own, as ttymux web
// is) and runs a command; the model's next read says a person ran it and
// what the screen shows, once; the model's own commands never get the
// note. Before, the read returned the person's output as if it were the
// model's, without a word.
func TestHumanTypedNoteThroughAgent(t *testing.T) {
	sock := humanAgent(t)
	client := &agentc.Client{Socket: sock}
	m, cs := keptServer(t, client)
	open := openKept(t, cs, nil)
	if !open.Integrated {
		t.Fatalf("open_local: %+v", open)
	}
	id := open.ID
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-one"})
	if r.Output != "model-one" || strings.Contains(r.Note, "person") {
		t.Fatalf("the model's own send: output %q note %q", r.Output, r.Note)
	}

	cons := console.New(console.Options{Source: agentSource{client}})
	srv := httptest.NewServer(cons)
	t.Cleanup(srv.Close)
	t.Cleanup(cons.Close)
	rig := &consoleRig{srv: srv, cs: cons}
	b := rig.loggedIn(t)
	if got := rig.post(t, b, "/api/s/"+id+"/takeover", "p1", ""); got.StatusCode != 200 {
		t.Fatalf("take over: %d", got.StatusCode)
	}
	if got := rig.post(t, b, "/api/s/"+id+"/input", "p1", "echo person-$((6*7))\r"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing: %d", got.StatusCode)
	}
	// Once the server's session has the person's command and the prompt
	// after it, the model's next read returns both the output and the note.
	awaitLog(t, m, id, regexp.MustCompile(`person-42\r\n(?s:.*)133;B`))
	var rd session.Result
	call(t, cs, "read", map[string]any{"session_id": id}, &rd)
	note := rd.Note
	if !strings.Contains(rd.Output, "person-42") || !strings.Contains(note, "a person typed in this terminal") || !strings.Contains(note, `ran "echo person-$((6*7))"`) || !strings.Contains(note, "person-42") {
		t.Fatalf("the read after a person's command: output %q note %q", rd.Output, note)
	}
	t.Logf("note: %s", note)
	// A person's command before the model's next send: that send's result
	// says so, with the person's output in earlier.
	// Watched from another attachment: a read here would carry the note.
	conn, _, _, err := client.AttachTail(t.Context(), id, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	w := watch(conn)
	if got := rig.post(t, b, "/api/s/"+id+"/input", "p1", "echo again-$((7*7))\r"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing: %d", got.StatusCode)
	}
	w.waitFor(t, "the person's command", "again-49\r\n")
	awaitLog(t, m, id, regexp.MustCompile(`again-49\r\n(?s:.*)133;B`))
	rig.post(t, b, "/api/s/"+id+"/giveback", "p1", "")
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-between"})
	if r.Output != "model-between" || !strings.Contains(r.Note, `"echo again-$((7*7))"`) || r.Earlier == nil || !strings.Contains(r.Earlier.Output, "again-49") {
		t.Fatalf("the model's send after a person's command: output %q note %q earlier %s", r.Output, r.Note, earlierText(r.Earlier))
	}
	t.Logf("send note: %s", r.Note)
	// The model sends while the person's command still runs: its text is
	// typed ahead, and the person's command's end is not taken for its own.
	rig.post(t, b, "/api/s/"+id+"/takeover", "p1", "")
	if got := rig.post(t, b, "/api/s/"+id+"/input", "p1", "sleep 1; echo person-slow\r"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing: %d", got.StatusCode)
	}
	awaitLog(t, m, id, regexp.MustCompile(`echo person-slow\r\n(?s:.*)133;C`))
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-after"})
	if r.Output != "model-after" || r.Earlier == nil || !strings.Contains(r.Earlier.Output, "person-slow") || !strings.Contains(r.Note, `ran "sleep 1; echo person-slow" (not`) {
		t.Fatalf("a send while the person's command runs: output %q earlier %s note %q", r.Output, earlierText(r.Earlier), r.Note)
	}
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-two"})
	if r.Output != "model-two" || strings.Contains(r.Note, "person") {
		t.Fatalf("the model's send after: output %q note %q", r.Output, r.Note)
	}
	// Keys left without Enter: the hooked shell says its line, which is
	// cleared before the model's command (issue #35).
	if got := rig.post(t, b, "/api/s/"+id+"/input", "p1", "echo left-behind"); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing: %d", got.StatusCode)
	}
	w.waitFor(t, "the person's keys", "echo left-behind")
	awaitLog(t, m, id, regexp.MustCompile(`echo left-behind`))
	rig.post(t, b, "/api/s/"+id+"/giveback", "p1", "")
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-last"})
	if r.Output != "model-last" || !strings.Contains(r.Note, `a person left "echo left-behind" on the shell's line`) {
		t.Fatalf("the model's send after a person's keys without Enter: output %q note %q", r.Output, r.Note)
	}
}

// keptServer is a server whose local sessions (bash without rc files) the
// agent of client keeps, and an MCP client connected to it.
func keptServer(t *testing.T, client *agentc.Client) (*session.Manager, *mcp.ClientSession) {
	t.Helper()
	m := newTestManager(t, client)
	return m, connect(t, newServer(m, nil), nil)
}

// openKept opens a persistent local session (open_local's arguments in
// args, PS1 "$ " and a scratch HOME added) and fails unless it is kept.
func openKept(t *testing.T, cs *mcp.ClientSession, args map[string]any) OpenOut {
	t.Helper()
	a := map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}
	maps.Copy(a, args)
	var open OpenOut
	call(t, cs, "open_local", a, &open)
	if !open.Persistent {
		t.Fatalf("not persistent: %+v", open)
	}
	return open
}

// TestHumanTypedNoteWithoutHook (issue #35): in a kept session whose shell
// has no ttymux hook, a person typing through another client of the agent
// (ttymux attach) is told by the model's next result, from the input the
// agent counts for other clients; the model's own sends never are. Keys
// the person left without Enter are cleared (ctrl+e ctrl+u: the agent
// says dash is in the foreground) before the model's command, and the
// note says what the screen showed of them. Before, no note came and the
// person's keys joined the model's command.
func TestHumanTypedNoteWithoutHook(t *testing.T) {
	sock := humanAgent(t)
	client := &agentc.Client{Socket: sock}
	m, cs := keptServer(t, client)
	cast := filepath.Join(t.TempDir(), "s.cast")
	open := openKept(t, cs, map[string]any{"command": "/usr/bin/env", "args": []string{"dash", "-i"}, "record_path": cast})
	if open.Integrated {
		t.Fatalf("dash under env is integrated: %+v", open)
	}
	id := open.ID
	awaitLog(t, m, id, regexp.MustCompile(`^\$ $`)) // dash's first prompt
	dir := t.TempDir()
	r := mustSend(t, cs, map[string]any{"session_id": id, "text": "cd " + dir + "; echo model-one"})
	if r.Output != "model-one" || strings.Contains(r.Note, "person") {
		t.Fatalf("the model's own send: output %q note %q", r.Output, r.Note)
	}
	var rd session.Result
	call(t, cs, "read", map[string]any{"session_id": id}, &rd)
	if strings.Contains(rd.Note, "person") {
		t.Fatalf("a read after the model's own send: note %q", rd.Note)
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
	awaitLog(t, m, id, regexp.MustCompile(`person-42\r\n\$ `))
	call(t, cs, "read", map[string]any{"session_id": id}, &rd)
	if !strings.Contains(rd.Output, "person-42") || !strings.Contains(rd.Note, "a person typed in this terminal") || !strings.Contains(rd.Note, "person-42") {
		t.Fatalf("the read after a person's command: output %q note %q", rd.Output, rd.Note)
	}
	t.Logf("note: %s", rd.Note)
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-two"})
	if r.Output != "model-two" || strings.Contains(r.Note, "person") {
		t.Fatalf("the model's send after the note: output %q note %q", r.Output, r.Note)
	}
	// Keys without Enter.
	if _, err := conn.Write([]byte("touch person-file ")); err != nil {
		t.Fatal(err)
	}
	awaitLog(t, m, id, regexp.MustCompile(`\$ touch person-file $`))
	r = mustSend(t, cs, map[string]any{"session_id": id, "text": "echo model-three"})
	if r.Output != "model-three" || !strings.Contains(r.Note, `a person left "touch person-file"`) || !strings.Contains(r.Note, "cleared it") {
		t.Fatalf("the model's send after a person's keys without Enter: output %q note %q", r.Output, r.Note)
	}
	t.Logf("note: %s", r.Note)
	if _, err := os.Stat(filepath.Join(dir, "person-file")); err == nil {
		t.Fatal("the person's line ran")
	}
	// The recording marks where the person's keys start, ahead of their
	// echo, once a run.
	call(t, cs, "close", map[string]any{"session_id": id}, nil)
	b, err := os.ReadFile(cast)
	if err != nil {
		t.Fatal(err)
	}
	rec := string(b)
	marker := `"m", "a person typed"`
	if strings.Count(rec, marker) != 2 || strings.Index(rec, marker) > strings.Index(rec, "person-$((6*7))") {
		t.Fatalf("recording: want 2 markers, the first before the person's echo:\n%s", rec)
	}
}

// awaitLog waits until the output log of the server's session id matches
// re (the server's own view, which trails another client's).
func awaitLog(t *testing.T, m *session.Manager, id string, re *regexp.Regexp) {
	t.Helper()
	var s *session.Session
	for _, x := range m.Sessions() {
		if x.ID() == id {
			s = x
		}
	}
	if s == nil {
		t.Fatalf("no session %s", id)
	}
	testwait.Until(t, "the session's log to match "+re.String(), humanWait, func() bool {
		b, _, _, _ := s.OutputFrom(0, 1<<20)
		return re.Match(b)
	})
}
