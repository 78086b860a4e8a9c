package secretpage

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

func post(t *testing.T, u, host, secret string) (int, string) {
	t.Helper()
	req, err := http.NewRequest("POST", u, strings.NewReader(url.Values{"secret": {secret}}.Encode()))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	if host != "" {
		req.Host = host
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res.StatusCode, string(b)
}

func get(t *testing.T, u, host string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	if host != "" {
		req.Host = host
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer res.Body.Close()
	b, _ := io.ReadAll(res.Body)
	return res, string(b)
}

// TestPage: the form, one use, wrong token, foreign Host, no caching, and
// the secret reaches deliver and nothing else (not the response).
func TestPage(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	var got []string
	var mu sync.Mutex
	p, err := s.Open("Password for sudo on web1", func(secret string) error {
		mu.Lock()
		got = append(got, secret)
		mu.Unlock()
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(p.URL, "http://127.0.0.1:") || len(p.URL[strings.LastIndex(p.URL, "/")+1:]) != 32 {
		t.Fatalf("URL %s", p.URL)
	}
	res, body := get(t, p.URL, "")
	if res.StatusCode != 200 || !strings.Contains(body, `name="secret"`) || !strings.Contains(body, `type="password"`) || !strings.Contains(body, "Password for sudo on web1") {
		t.Fatalf("form: %d %s", res.StatusCode, body)
	}
	if cc := res.Header.Get("Cache-Control"); !strings.Contains(cc, "no-store") {
		t.Fatalf("Cache-Control %q", cc)
	}
	base := p.URL[:strings.LastIndex(p.URL, "/")+1]
	for name, tc := range map[string]struct{ u, host string }{
		"wrong token":    {base + strings.Repeat("0", 32), ""},
		"no token":       {base, ""},
		"foreign host":   {p.URL, "evil.example:80"},
		"rebinding name": {p.URL, "127.0.0.1.nip.io"},
		"other path":     {strings.Replace(p.URL, "/s/", "/x/", 1), ""},
	} {
		if code, _ := post(t, tc.u, tc.host, "nope-"+name); code != 404 {
			t.Errorf("%s: %d, want 404", name, code)
		}
	}
	if res, _ := get(t, p.URL, "evil.example"); res.StatusCode != 404 {
		t.Fatalf("GET with a foreign Host: %d", res.StatusCode)
	}
	code, body := post(t, p.URL, "localhost", "s3cr3t-planted")
	if code != 200 || strings.Contains(body, "s3cr3t-planted") {
		t.Fatalf("post: %d %s", code, body)
	}
	if err := p.Wait(t.Context()); err != nil {
		t.Fatal(err)
	}
	if code, _ := post(t, p.URL, "", "second"); code != 404 {
		t.Fatalf("second use: %d", code)
	}
	if res, _ := get(t, p.URL, ""); res.StatusCode != 404 {
		t.Fatalf("GET after use: %d", res.StatusCode)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(got) != 1 || got[0] != "s3cr3t-planted" {
		t.Fatalf("delivered %q", got)
	}
}

// TestPageExpiry: after its TTL (an injected clock) the page is 404, nothing
// is delivered, and Wait reports ErrExpired.
func TestPageExpiry(t *testing.T) {
	var now atomic.Int64
	now.Store(time.Now().UnixNano())
	s := New(Options{TTL: 5 * time.Minute, Now: func() time.Time { return time.Unix(0, now.Load()) }})
	defer s.Close()
	var delivered atomic.Bool
	p, err := s.Open("x", func(string) error { delivered.Store(true); return nil })
	if err != nil {
		t.Fatal(err)
	}
	now.Add(int64(5*time.Minute + time.Second))
	if code, _ := post(t, p.URL, "", "late"); code != 404 {
		t.Fatalf("expired page: %d", code)
	}
	if err := p.Wait(t.Context()); !errors.Is(err, ErrExpired) {
		t.Fatalf("Wait = %v", err)
	}
	if delivered.Load() {
		t.Fatal("an expired page delivered")
	}
}

// TestPagesConcurrent: two pages for two sessions at once each deliver
// their own secret, and a POST race on one page delivers once.
func TestPagesConcurrent(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	var a, b atomic.Int32
	var ga, gb atomic.Value
	pa, _ := s.Open("a", func(x string) error { a.Add(1); ga.Store(x); return nil })
	pb, _ := s.Open("b", func(x string) error { b.Add(1); gb.Store(x); return nil })
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() { post(t, pa.URL, "", "A"+string(rune('0'+i))) })
		wg.Go(func() { post(t, pb.URL, "", "B") })
	}
	wg.Wait()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	if pa.Wait(ctx) != nil || pb.Wait(ctx) != nil {
		t.Fatal("not answered")
	}
	if a.Load() != 1 || b.Load() != 1 || !strings.HasPrefix(ga.Load().(string), "A") || gb.Load().(string) != "B" {
		t.Fatalf("deliveries a=%d b=%d %v %v", a.Load(), b.Load(), ga.Load(), gb.Load())
	}
}

// TestWaitContext: Wait ends with the context, and Close withdraws the page.
func TestWaitContext(t *testing.T) {
	s := New(Options{})
	p, _ := s.Open("x", func(string) error { return nil })
	ctx, cancel := context.WithTimeout(t.Context(), 50*time.Millisecond)
	defer cancel()
	if err := p.Wait(ctx); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatal(err)
	}
	p.Close()
	if code, _ := post(t, p.URL, "", "x"); code != 404 {
		t.Fatalf("closed page: %d", code)
	}
	s.Close()
	if _, err := s.Open("y", nil); err == nil {
		t.Fatal("open after Close")
	}
}

// TestCrossOriginPostRefused: a POST whose Origin is another site, or
// whose Sec-Fetch-Site says cross-site, is refused (403) and does not use
// the page up: the human's own post from the page then works. Before, any
// origin's form could post a value of its choosing into the terminal.
func TestCrossOriginPostRefused(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	var got atomic.Value
	p, err := s.Open("Password", func(secret string) error { got.Store(secret); return nil })
	if err != nil {
		t.Fatal(err)
	}
	u, _ := url.Parse(p.URL)
	for name, h := range map[string][2]string{
		"foreign origin": {"Origin", "http://evil.example"},
		"null origin":    {"Origin", "null"},
		"other port":     {"Origin", "http://127.0.0.1:1"},
		"cross-site":     {"Sec-Fetch-Site", "cross-site"},
	} {
		req, _ := http.NewRequest("POST", p.URL, strings.NewReader("secret=attacker"))
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		req.Header.Set(h[0], h[1])
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		res.Body.Close()
		if res.StatusCode != http.StatusForbidden {
			t.Errorf("%s: %d, want 403", name, res.StatusCode)
		}
	}
	if got.Load() != nil {
		t.Fatalf("a cross-origin post was delivered: %q", got.Load())
	}
	req, _ := http.NewRequest("POST", p.URL, strings.NewReader("secret=human"))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", "http://"+u.Host)
	req.Header.Set("Sec-Fetch-Site", "same-origin")
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 200 || got.Load() != "human" {
		t.Fatalf("the page's own post: %d, delivered %v", res.StatusCode, got.Load())
	}
}

// TestAskedIsTheAIsWords: the AI's text is shown apart from ttymux's, as
// the AI's, with control characters and bidirectional overrides visible.
func TestAskedIsTheAIsWords(t *testing.T) {
	s := New(Options{})
	defer s.Close()
	p, err := s.OpenAsked("A secret for session t1 on local", "sudo password\x1b[2J\u202egnirts", func(string) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	_, body := get(t, p.URL, "")
	if !strings.Contains(body, "A secret for session t1 on local") || !strings.Contains(body, "The AI asks, in its own words") {
		t.Fatalf("page: %s", body)
	}
	if strings.ContainsAny(body, "\x1b\u202e") || !strings.Contains(body, `sudo password\x1b[2J\u{202e}gnirts`) {
		t.Fatalf("the AI's words are not made visible: %q", body)
	}
}
