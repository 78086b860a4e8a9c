package console

import (
	"io"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
)

// TestPagesShareHead: every page is made from the shared head and tabs:
// the style sheet, csrf.js and its own scripts, all files of /static/
// that are served (no inline script: the CSP allows none), and the tab it
// shows as current.
func TestPagesShareHead(t *testing.T) {
	cs := New(Options{Source: &scripted{}, Token: "tok"})
	defer cs.Close()
	srv := httptest.NewServer(cs)
	defer srv.Close()
	get := func(path string) (*http.Response, string) {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp, string(b)
	}
	script := regexp.MustCompile(`<script[^>]*>`)
	ref := regexp.MustCompile(`(?:src|href)="(/static/[^"]+)"`)
	for _, tt := range []struct{ path, own, tab string }{
		{"/", "console.js", "/"},
		{"/approvals", "approvals.js", "/approvals"},
		{"/audit", "audit.js", "/audit"},
		{"/s/s1", "terminal.js", ""},
	} {
		resp, page := get(tt.path)
		if resp.StatusCode != 200 || !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") {
			t.Fatalf("%s: %s, CSP %q", tt.path, resp.Status, resp.Header.Get("Content-Security-Policy"))
		}
		if !strings.HasPrefix(page, "<!doctype html>\n") || strings.Count(page, "<head>") != 1 || strings.Contains(page, "{{") {
			t.Fatalf("%s: not one whole page:\n%s", tt.path, page)
		}
		for _, want := range []string{`<link rel="stylesheet" href="/static/style.css">`, `<script src="/static/csrf.js"></script>`, `<script src="/static/` + tt.own + `" defer></script>`, `id="status"`} {
			if !strings.Contains(page, want) {
				t.Errorf("%s: no %s", tt.path, want)
			}
		}
		for _, s := range script.FindAllString(page, -1) {
			if !strings.Contains(s, ` src="/static/`) {
				t.Errorf("%s: an inline script: %s", tt.path, s)
			}
		}
		for _, m := range ref.FindAllStringSubmatch(page, -1) {
			if r, _ := get(m[1]); r.StatusCode != 200 {
				t.Errorf("%s: %s is %s", tt.path, m[1], r.Status)
			}
		}
		on := regexp.MustCompile(`<a href="([^"]*)" class="on">`).FindAllStringSubmatch(page, -1)
		if tt.tab == "" && len(on) != 0 || tt.tab != "" && (len(on) != 1 || on[0][1] != tt.tab) {
			t.Errorf("%s: the current tab: %q", tt.path, on)
		}
	}
}
