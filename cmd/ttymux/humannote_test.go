package main

import (
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	agentc "github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
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
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		Keeper:   client,
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &open)
	if !open.Persistent || !open.Integrated {
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
	b := rig.browser(t)
	if resp, err := b.Get(srv.URL + "/?token=" + cons.Token()); err != nil || resp.StatusCode != 200 {
		t.Fatalf("login: %v %v", err, resp)
	}
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
