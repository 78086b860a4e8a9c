package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// ownRig is what ttymux mcp --http serves: the MCP endpoint and, at every
// other path, the console over the server's own sessions, behind one
// token. The model is an MCP client of the same server.
type ownRig struct {
	*consoleRig
	mcp *mcp.ClientSession
	b   *http.Client
}

func newOwnRig(t *testing.T, m *session.Manager) *ownRig {
	t.Helper()
	srv := newServer(m, nil)
	cons := console.New(console.Options{Source: managerSource{m}, Token: testToken, Poll: 50 * time.Millisecond})
	hs := httptest.NewServer(withConsole(httpHandler(srv, testToken, false, nil), cons))
	t.Cleanup(hs.Close)
	t.Cleanup(cons.Close)
	cs, err := httpClient(t, hs, testToken)
	if err != nil {
		t.Fatal(err)
	}
	r := &ownRig{consoleRig: &consoleRig{srv: hs, cs: cons}, mcp: cs}
	r.b = r.loggedIn(t)
	return r
}

// loggedIn is a browser that has traded the console's token for its
// cookie.
func (r *consoleRig) loggedIn(t *testing.T) *http.Client {
	t.Helper()
	b := r.browser(t)
	if resp, err := b.Get(r.srv.URL + "/?token=" + r.cs.Token()); err != nil || resp.StatusCode != 200 {
		t.Fatalf("console login: %v %v", err, resp)
	}
	return b
}

// listed waits until the console lists id and returns its row.
func (r *ownRig) listed(t *testing.T, id string) console.Session {
	t.Helper()
	var row console.Session
	testwait.Until(t, "the console lists "+id, humanWait, func() bool {
		var l []console.Session
		getJSON(t, r.b, r.srv.URL+"/api/sessions", &l)
		for _, s := range l {
			if s.ID == id {
				row = s
				return true
			}
		}
		return false
	})
	return row
}

// stream opens the page's output stream of id.
func (r *ownRig) stream(t *testing.T, id string) sseReader {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	req, _ := http.NewRequestWithContext(ctx, "GET", r.srv.URL+"/api/s/"+url.PathEscape(id)+"/output", nil)
	resp, err := r.b.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("output stream: %v %v", err, resp)
	}
	t.Cleanup(func() { resp.Body.Close() })
	return newSSEReader(resp.Body)
}

// takeOverAndType takes id over, types text, waits for want on the page,
// and gives it back; typing after that is refused.
func (r *ownRig) takeOverAndType(t *testing.T, id, text, want string, page sseReader) {
	t.Helper()
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/input", "own", text); got.StatusCode != http.StatusConflict {
		t.Fatalf("typing before taking over: %d, want 409", got.StatusCode)
	}
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/takeover", "own", ""); got.StatusCode != 200 {
		t.Fatalf("take over: %d", got.StatusCode)
	}
	if row := r.listed(t, id); !row.Driven {
		t.Fatalf("the row while driven: %+v", row)
	}
	// The page sends its size on taking over; a serial port has none,
	// which must not end the take-over.
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/resize", "own", `{"rows":30,"cols":100}`); got.StatusCode != http.StatusNoContent {
		t.Fatalf("resize while driving: %d", got.StatusCode)
	}
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/input", "own", text); got.StatusCode != http.StatusNoContent {
		t.Fatalf("typing after taking over: %d", got.StatusCode)
	}
	if want != "" {
		page.waitFor(t, "the page", want)
	}
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/giveback", "own", ""); got.StatusCode != 200 {
		t.Fatalf("give back: %d", got.StatusCode)
	}
	if got := r.post(t, r.b, "/api/s/"+url.PathEscape(id)+"/input", "own", text); got.StatusCode != http.StatusConflict {
		t.Fatalf("typing after giving back: %d, want 409", got.StatusCode)
	}
}

// personNote reads id through MCP until the note says a person typed
// (the hook's C mark may trail the output) and returns it.
func (r *ownRig) personNote(t *testing.T, id string) session.Result {
	t.Helper()
	var rd, last session.Result
	var notes []string
	testwait.Until(t, "a read that says a person typed", humanWait, func() bool {
		call(t, r.mcp, "read", map[string]any{"session_id": id, "wait": true, "timeout_ms": 500}, &rd)
		last.Output += rd.Output
		notes = append(notes, rd.Note)
		return strings.Contains(rd.Note, "a person typed")
	})
	last.Note = strings.Join(notes, " | ")
	return last
}

// TestConsoleOwnLocal: ttymux mcp --http's console lists the server's own
// local session, shows its output, and a person takes it over, types a
// command and resizes it; the model's next read says a person ran it.
func TestConsoleOwnLocal(t *testing.T) {
	r := newOwnRig(t, newTestManager(t))
	var open OpenOut
	call(t, r.mcp, "open_local", map[string]any{"persistent": false, "name": "mine", "env": map[string]string{"PS1": "own$ ", "HOME": t.TempDir()}}, &open)
	if open.Persistent || !open.Integrated {
		t.Fatalf("open_local: %+v", open)
	}
	if row := r.listed(t, open.ID); row.Name != "mine" || row.Transport != "local" {
		t.Fatalf("row = %+v", row)
	}
	page := r.stream(t, open.ID)
	mustSend(t, r.mcp, map[string]any{"session_id": open.ID, "text": "echo model-$((2*3))"})
	page.waitFor(t, "the page", "model-6")
	if got := r.post(t, r.b, "/api/s/"+open.ID+"/takeover", "own", ""); got.StatusCode != 200 {
		t.Fatalf("take over: %d", got.StatusCode)
	}
	if got := r.post(t, r.b, "/api/s/"+open.ID+"/resize", "own", `{"rows":31,"cols":101}`); got.StatusCode != http.StatusNoContent {
		t.Fatalf("resize while driving: %d", got.StatusCode)
	}
	if row := r.listed(t, open.ID); row.Rows != 31 || row.Cols != 101 {
		t.Fatalf("the size after the page resized: %+v", row)
	}
	r.post(t, r.b, "/api/s/"+open.ID+"/giveback", "own", "")
	r.takeOverAndType(t, open.ID, "echo person-$((6*7))\r", "person-42", page)
	rd := r.personNote(t, open.ID)
	if !strings.Contains(rd.Note, `"echo person-$((6*7))"`) || !strings.Contains(rd.Output, "person-42") {
		t.Fatalf("the read after the person's command: %+v", rd)
	}
}

// TestConsoleOwnSSH: the same over a real sshd on loopback.
func TestConsoleOwnSSH(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	cfg, home := sshClientHome(t, []*sshdtest.SSHD{d}, func(known string) string { return d.ConfigBlock("box", known) })
	m := session.NewManager(session.Options{Kinds: sshKinds(cfg, home), StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	r := newOwnRig(t, m)
	var open OpenOut
	if res := call(t, r.mcp, "open_ssh", map[string]any{"host": "box", "persistent": false}, &open); res.IsError {
		t.Fatalf("open_ssh: %s\n%s", resultText(res), d.Log())
	}
	if row := r.listed(t, open.ID); row.Transport != "ssh" || row.Host == "" {
		t.Fatalf("row = %+v", row)
	}
	page := r.stream(t, open.ID)
	r.takeOverAndType(t, open.ID, "echo over-ssh-$((6*7))\r", "over-ssh-42", page)
	rd := r.personNote(t, open.ID)
	if !strings.Contains(rd.Note, `"echo over-ssh-$((6*7))"`) {
		t.Fatalf("the read after the person's command: %+v", rd)
	}
	if r := mustSend(t, r.mcp, map[string]any{"session_id": open.ID, "text": "echo model-after"}); r.Output != "model-after" || strings.Contains(r.Note, "person") {
		t.Fatalf("the model's send after: %+v", r)
	}
}

// TestConsoleOwnSerial: a serial console (a PTY pair standing for the
// device): the person's keys reach the device, the device's answer the
// page, and with no shell hook to report commands, the model's next read
// still says a person typed.
func TestConsoleOwnSerial(t *testing.T) {
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	r := newOwnRig(t, m)
	open := openSerialOK(t, r.mcp, map[string]any{"port": dev.Path})
	if row := r.listed(t, open.ID); row.Transport != "serial" {
		t.Fatalf("row = %+v", row)
	}
	page := r.stream(t, open.ID)
	dev.Write(t, "login: ")
	page.waitFor(t, "the page", "login: ")
	got := watch(dev.Master)
	r.takeOverAndType(t, open.ID, "root\r", "", page)
	got.waitFor(t, "the device", "root\r")
	dev.Write(t, "root\r\n# ")
	page.waitFor(t, "the page", "root\r\n# ")
	rd := r.personNote(t, open.ID)
	if !strings.Contains(rd.Note, "a person typed in this terminal") || !strings.Contains(rd.Note, "login: root") {
		t.Fatalf("the read after the person typed: %+v", rd)
	}
	// Keys left without Enter on a device whose line nobody can clear
	// for sure: the model's text is refused, naming them (issue #35).
	r.takeOverAndType(t, open.ID, "reboo", "", page)
	got.waitFor(t, "the device", "reboo")
	msg := wantError(t, r.mcp, "send", map[string]any{"session_id": open.ID, "text": "uname -a"}, `a person left "reboo"`, "nothing of this send was typed")
	t.Logf("send after a person's keys without Enter: %s", msg)
	got.mu.Lock()
	typed := string(got.buf)
	got.mu.Unlock()
	if strings.Contains(typed, "uname") {
		t.Fatalf("the refused text reached the device: %q", typed)
	}
	// Told, the model clears the line as the error says, and its
	// command follows.
	call(t, r.mcp, "send", map[string]any{"session_id": open.ID, "keys": []string{"ctrl+e", "ctrl+u"}, "wait": false}, nil)
	got.waitFor(t, "the device", "reboo\x05\x15")
	call(t, r.mcp, "send", map[string]any{"session_id": open.ID, "text": "uname -a", "wait": false}, nil)
	got.waitFor(t, "the device", "reboo\x05\x15uname -a\r")
}
