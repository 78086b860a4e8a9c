package main

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/serial"
)

// TestConsoleOwnInChromium: the console of ttymux mcp --http in headless
// Chromium lists the server's own local and serial sessions; a person
// opens the serial console, takes it over and logs in; the keys reach
// the device and the model's next read says a person typed.
func TestConsoleOwnInChromium(t *testing.T) {
	chromium(t) // skips the test early when there is none
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
	})
	t.Cleanup(m.CloseAll)
	r := newOwnRig(t, m)
	var shell OpenOut
	call(t, r.mcp, "open_local", map[string]any{"persistent": false, "name": "build", "env": map[string]string{"HOME": t.TempDir()}}, &shell)
	mustSend(t, r.mcp, map[string]any{"session_id": shell.ID, "text": "PS1='build$ '; clear; make -v | head -1"})
	board := openSerialOK(t, r.mcp, map[string]any{"port": dev.Path, "name": "board"})
	dev.Write(t, "\r\nU-Boot 2024.01\r\nboard login: ")
	r.listed(t, board.ID)

	ctx := browserSized(t, 1280, 860)
	row := chromedp.CSS(`tr[data-id="` + board.ID + `"] a`)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(r.srv.URL+"/?token="+testToken),
		chromedp.WaitVisible(row),
		chromedp.WaitVisible(chromedp.CSS(`tr[data-id="`+shell.ID+`"] a`)),
	); err != nil {
		t.Fatalf("the console's session list: %v", err)
	}
	shot(t, ctx, "console-own-sessions.png")
	if err := chromedp.Do(ctx, chromedp.Click(row), chromedp.WaitVisible(chromedp.CSS(".xterm-screen"))); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, ctx, "board login:")
	got := watch(dev.Master)
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("take")), chromedp.WaitVisible(chromedp.ID("give")), typeInto(textarea, "root\r")); err != nil {
		t.Fatal(err)
	}
	got.waitFor(t, "the device", "root\r")
	dev.Write(t, "root\r\nPassword: ")
	waitScreen(t, ctx, "Password:")
	shot(t, ctx, "console-own-serial.png")
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.ID("give")), chromedp.WaitVisible(chromedp.ID("take"))); err != nil {
		t.Fatal(err)
	}
	rd := r.personNote(t, board.ID)
	if !strings.Contains(rd.Note, "a person typed in this terminal") || !strings.Contains(rd.Note, "Password:") {
		t.Fatalf("the model's read after the person typed: %+v", rd)
	}
}
