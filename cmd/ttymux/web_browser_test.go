package main

import (
	"context"
	"flag"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/input"
	"github.com/chromedp/chromedp"
	"github.com/chromedp/chromedp/kb"
)

var screenshots = flag.String("screenshots", "", "write the console's screenshots into this directory (docs/img)")

// chromium finds Debian's chromium, skipping (or failing under CI) without it.
func chromium(t *testing.T) string {
	for _, name := range []string{"chromium", "chromium-browser", "google-chrome"} {
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatal("chromium not found, but CI is set: apt-get install chromium")
	}
	t.Skip("chromium not found: apt-get install chromium to run the browser tests")
	return ""
}

// TestConsoleInChromium drives the console as a person would, in headless
// Chromium: the session list shows the agent's session, its page draws the
// terminal (xterm.js, served from the binary), typing is ignored until
// "Take over", then reaches the shell; "Give back" makes it read-only again.
func TestConsoleInChromium(t *testing.T) {
	chromium(t) // skips the test early when there is none
	r := newConsoleRig(t)
	ctx := browserSized(t, 1280, 860)

	row := chromedp.CSS(`tr[data-id="` + r.id + `"] a`)
	if err := chromedp.Do(ctx,
		chromedp.Navigate(r.srv.URL+"/?token="+r.cs.Token()),
		chromedp.WaitVisible(row),
	); err != nil {
		t.Fatalf("the console's session list: %v", err)
	}
	url, err := chromedp.Run(ctx, chromedp.Location())
	if err != nil || strings.Contains(url, "token=") {
		t.Fatalf("the token stayed in the address bar: %s", url)
	}
	shot(t, ctx, "console-sessions.png")

	if err := chromedp.Do(ctx, chromedp.Click(row), chromedp.WaitVisible(chromedp.CSS(".xterm-screen"))); err != nil {
		t.Fatal(err)
	}
	waitScreen(t, ctx, "web$")
	// Read-only: keys typed now go nowhere.
	if err := chromedp.Do(ctx, typeInto(textarea, "echo ignored\r")); err != nil {
		t.Fatal(err)
	}
	step, cancelStep := context.WithTimeout(ctx, 20*time.Second)
	err = chromedp.Do(step, chromedp.Click(chromedp.ID("take")), chromedp.WaitVisible(chromedp.ID("give")))
	cancelStep()
	if err != nil {
		st, _ := chromedp.Run(ctx, chromedp.Evaluate[string](`document.getElementById("status").textContent + " | " + document.body.innerHTML.slice(0, 600)`))
		t.Fatalf("take over: %v (status %q)", err, st)
	}
	if err := chromedp.Do(ctx, typeInto(textarea, "echo from-the-$((2*21))-browser\r")); err != nil {
		t.Fatal(err)
	}
	r.out.waitFor(t, "the session", "from-the-42-browser")
	waitScreen(t, ctx, "from-the-42-browser")
	if strings.Contains(string(r.out.bytes()), "ignored") {
		t.Fatal("keys typed while watching reached the session")
	}
	shot(t, ctx, "console-terminal.png")
	if err := chromedp.Do(ctx,
		chromedp.Click(chromedp.ID("give")),
		chromedp.WaitVisible(chromedp.ID("take")),
		typeInto(textarea, "echo after-give-back\r"),
		chromedp.Click(chromedp.ID("take")), // a round trip: the keys before it were handled
		chromedp.WaitVisible(chromedp.ID("give")),
	); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(r.out.bytes()), "after-give-back") {
		t.Fatal("keys typed after giving back reached the session")
	}
}

// textarea is where xterm.js takes keyboard input.
var textarea = chromedp.CSS(".xterm-helper-textarea")

// screenJS returns the text of the page's terminal.
const screenJS = `(() => { const b = window.ttymuxTerm && window.ttymuxTerm.buffer.active; if (!b) return ""; let o = []; for (let i = 0; i < b.length; i++) { const l = b.getLine(i); if (l) o.push(l.translateToString(true)); } return o.join("\n"); })()`

// waitScreen waits until the page's terminal shows s (the browser polls on
// each animation frame).
func waitScreen(t *testing.T, ctx context.Context, s string) {
	t.Helper()
	_, err := chromedp.Run(ctx, chromedp.PollFunction[bool](`(s) => `+screenJS+`.includes(s)`,
		chromedp.WithPollingArgs(s), chromedp.WithPollingTimeout(30*time.Second)))
	if err != nil {
		text, _ := chromedp.Run(ctx, chromedp.Evaluate[string](screenJS))
		t.Fatalf("the page's terminal never showed %q (%v); it shows:\n%s", s, err, text)
	}
}

// shot saves a screenshot for the docs when -screenshots is given.
func shot(t *testing.T, ctx context.Context, name string) {
	if *screenshots == "" {
		return
	}
	b, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(*screenshots+"/"+name, b, 0o644); err != nil {
		t.Fatal(err)
	}
}

// typeInto types keys into the element sel as a keyboard does: a keyDown
// carrying the text, then a keyUp. (chromedp's SendKeys adds a separate
// char event, which xterm.js takes as a second keystroke: every character
// would arrive twice.)
func typeInto(sel chromedp.CSS, keys string) chromedp.Action[chromedp.Void] {
	return chromedp.Steps(chromedp.Focus(sel), chromedp.Func(func(ctx context.Context, t *chromedp.Target) error {
		for _, r := range keys {
			evs := kb.Encode(r)
			var text, unmod string
			for _, k := range evs {
				if k.Type == kb.KeyChar {
					text, unmod = k.Text, k.UnmodifiedText
				}
			}
			for _, k := range evs {
				switch k.Type {
				case kb.KeyChar:
					continue
				case kb.KeyDown:
					k.Text, k.UnmodifiedText = text, unmod
				}
				if _, err := cdp.Call(ctx, t, input.DispatchKeyEvent, *k); err != nil {
					return err
				}
			}
		}
		return nil
	}))
}
