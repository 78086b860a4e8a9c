package secretpage

import (
	"context"
	"os"
	"os/exec"
	"sync/atomic"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
)

// TestBrowserPosts: a real browser (headless Chromium) that opens the page,
// types and submits gets its secret delivered: the Origin it sends for the
// form's POST passes the same-origin check (with Referrer-Policy
// no-referrer it would send "Origin: null").
func TestBrowserPosts(t *testing.T) {
	path, err := exec.LookPath("chromium")
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatal("chromium missing under CI")
		}
		t.Skip("no chromium")
	}
	s := New(Options{})
	defer s.Close()
	var got atomic.Value
	p, err := s.Open("Password", func(secret string) error { got.Store(secret); return nil })
	if err != nil {
		t.Fatal(err)
	}
	opts := append(chromedp.DefaultExecAllocatorOptions[:], chromedp.ExecPath(path), chromedp.NoSandbox,
		chromedp.UserDataDir(t.TempDir()))
	actx, cancel := chromedp.NewExecAllocator(context.Background(), opts...)
	defer cancel()
	ctx, cancel := chromedp.NewContext(actx)
	defer cancel()
	ctx, cancel = context.WithTimeout(ctx, 60*time.Second)
	defer cancel()
	if err := chromedp.Do(ctx,
		chromedp.Navigate(p.URL),
		chromedp.SendKeys(`input[name="secret"]`, "typed-by-human"),
		chromedp.Submit(`input[name="secret"]`),
	); err != nil {
		t.Fatalf("browser: %v", err)
	}
	wctx, wcancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer wcancel()
	if err := p.Wait(wctx); err != nil || got.Load() != "typed-by-human" {
		t.Fatalf("the browser's post: %v, delivered %v", err, got.Load())
	}
}
