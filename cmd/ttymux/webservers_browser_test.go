package main

import (
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// TestWebServersInChromium is issue #35's "done when" for a stdio server,
// with the built binaries as a user runs them: ttymux web prints one URL;
// a ttymux mcp server spawned by an MCP client opens an in-process local
// shell, an SSH session (sshd on loopback) and a serial console (a PTY
// pair as the device); each appears on the page (the time from the open's
// result to the row is logged); the model's output appears in the page's
// terminal; a person takes each over in Chromium and types, the keys
// reach the shell or the device, and the model's next read says a person
// typed; the local shell follows the browser's size while driven and
// gets its own back; give back makes the page read-only again.
func TestWebServersInChromium(t *testing.T) {
	ctx := browserSized(t, 1480, 860) // the list has two more columns
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	home := t.TempDir()
	known := filepath.Join(home, ".ssh", "known_hosts")
	if err := os.MkdirAll(filepath.Dir(known), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, ".ssh", "config"), []byte(d.ConfigBlock("box", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	dev := serialtest.New(t, filepath.Join(shortTempDir(t), "ttyUSB0")) // a short path for the screenshot
	r := newWebRig(t, "HOME="+home)
	r.startWeb(t)
	if err := chromedp.Do(ctx, chromedp.Navigate(r.url), chromedp.WaitVisible(chromedp.CSS(`nav.tabs`))); err != nil {
		t.Fatalf("the console: %v\n%s", err, r.webErr.String())
	}
	srv := r.startServer(t, "claude-code")
	pid := srv.cmd.Process.Pid

	// shown opens a session with the model and waits for its row.
	shown := func(tool string, args map[string]any) string {
		t.Helper()
		var open OpenOut
		if res := call(t, srv.cs, tool, args, &open); res.IsError {
			t.Fatalf("%s: %s\n%s\n%s", tool, resultText(res), srv.err.String(), d.Log())
		}
		opened := time.Now()
		id := open.ID + "@" + strconv.Itoa(pid)
		if err := chromedp.Do(ctx, chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+id+`"] a`))); err != nil {
			t.Fatalf("the page never listed %s: %v\n%s", id, err, r.webErr.String())
		}
		t.Logf("%s: on the page %v after its open returned", tool, time.Since(opened).Round(time.Millisecond))
		return open.ID
	}
	shell := shown("open_local", map[string]any{"name": "build", "env": map[string]string{"PS1": "build$ "}})
	mustSend(t, srv.cs, map[string]any{"session_id": shell, "text": "echo model-$((2*3))"})
	box := shown("open_ssh", map[string]any{"host": "box", "name": "web1"})
	mustSend(t, srv.cs, map[string]any{"session_id": box, "text": "PS1='web1$ '"})
	board := shown("open_serial", map[string]any{"port": dev.Path, "name": "board"})
	dev.Write(t, "\r\nU-Boot 2024.01\r\nboard login: ")
	text, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#sessions`)))
	for _, want := range []string{"HELD BY", "ttymux mcp, pid " + strconv.Itoa(pid) + " (claude-code 1.0)", "ssh", "serial"} {
		if !strings.Contains(text, want) {
			t.Fatalf("the list does not say %q:\n%s", want, text)
		}
	}
	shot(t, ctx, "console-web-servers.png")

	// sized waits until id's row satisfies ok.
	sized := func(id string, ok func(console.Session) bool) {
		t.Helper()
		var last console.Session
		testwait.Until(t, "the size of "+id, humanWait, func() bool {
			for _, s := range r.sessions(t) {
				if s.ID == id+"@"+strconv.Itoa(pid) {
					last = s
					return ok(s)
				}
			}
			return false
		})
		t.Logf("%s: %d×%d", id, last.Cols, last.Rows)
	}
	// drive opens id's page, sees want, takes it over, types keys, sees
	// after, gives it back; the model's next read says a person typed,
	// with note.
	drive := func(id, want, keys, after, note string, keysArrived func()) {
		t.Helper()
		row := chromedp.CSS(`tr[data-id="` + id + "@" + strconv.Itoa(pid) + `"] a`)
		if err := chromedp.Do(ctx, chromedp.Navigate(r.base+"/"), chromedp.WaitVisible(row), chromedp.Click(row), chromedp.WaitVisible(chromedp.CSS(".xterm-screen"))); err != nil {
			t.Fatal(err)
		}
		waitScreen(t, ctx, want)
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("take")), chromedp.WaitVisible(chromedp.ID("give")), typeInto(textarea, keys)); err != nil {
			t.Fatal(err)
		}
		if keysArrived != nil {
			keysArrived()
		}
		waitScreen(t, ctx, after)
		if id == shell {
			// The shell follows the browser's size while the person
			// drives, and gets its own back when they give it back.
			sized(id, func(s console.Session) bool { return s.Cols != 120 || s.Rows != 40 })
		}
		if id == box {
			shot(t, ctx, "console-web-ssh.png")
		}
		if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("give")), chromedp.WaitVisible(chromedp.ID("take"))); err != nil {
			t.Fatal(err)
		}
		if id == shell {
			sized(id, func(s console.Session) bool { return s.Cols == 120 && s.Rows == 40 })
		}
		rd := personRead(t, srv.cs, id)
		if !strings.Contains(rd.Note, "a person typed in this terminal") || !strings.Contains(rd.Note, note) {
			t.Fatalf("the model's read after the person typed in %s: %+v", id, rd)
		}
	}
	drive(shell, "model-6", "echo person-$((6*7))\r", "person-42", `ran "echo person-$((6*7))"`, nil)
	drive(box, "web1$", "echo over-ssh-$((6*7))\r", "over-ssh-42", `ran "echo over-ssh-$((6*7))"`, nil)
	got := watch(dev.Master)
	drive(board, "board login:", "root\r", "Password:", "Password:", func() {
		got.waitFor(t, "the device", "root\r")
		dev.Write(t, "root\r\nPassword: ")
	})
}

// personRead reads id through MCP until the note says a person typed (the
// hook's C mark may trail the output) and returns that read.
func personRead(t *testing.T, cs *mcp.ClientSession, id string) session.Result {
	t.Helper()
	var rd session.Result
	var notes []string
	testwait.Until(t, "a read that says a person typed", humanWait, func() bool {
		call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "timeout_ms": 500}, &rd)
		notes = append(notes, rd.Note)
		return strings.Contains(rd.Note, "a person typed")
	})
	return rd
}

// TestWebAgentNoticeInChromium: with an agent that fails to list (its
// socket accepts and hangs up), the built ttymux web's page still shows
// a stdio server's session, under a notice saying the agent's sessions
// are not shown. Before, the page showed the error and no rows.
func TestWebAgentNoticeInChromium(t *testing.T) {
	ctx := browserSized(t, 1280, 720)
	sock := filepath.Join(shortTempDir(t), "agent.sock")
	ln, err := net.Listen("unix", sock)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	r := newWebRig(t)
	r.startWeb(t, "--socket", sock)
	srv := r.startServer(t, "client-a")
	var open OpenOut
	if res := call(t, srv.cs, "open_local", map[string]any{"name": "kept-on"}, &open); res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	id := open.ID + "@" + strconv.Itoa(srv.cmd.Process.Pid)
	err = chromedp.Do(ctx, chromedp.Navigate(r.url),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+id+`"] a`)),
		chromedp.WaitVisible(chromedp.CSS(`#notice`)))
	if err != nil {
		t.Fatalf("the page: %v\n%s", err, r.webErr.String())
	}
	notice, _ := chromedp.Run(ctx, chromedp.Text(chromedp.CSS(`#notice`)))
	if !strings.Contains(notice, "the agent's sessions are not shown") || !strings.Contains(notice, sock) {
		t.Fatalf("the notice: %q", notice)
	}
	shot(t, ctx, "console-agent-notice.png")
}
