package main

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/session"
)

// postSecret plays the human's browser: it posts the form at u, as the
// page's form does.
func postSecret(t *testing.T, u, secret string) {
	t.Helper()
	res, err := http.PostForm(u, url.Values{"secret": {secret}})
	if err != nil {
		t.Errorf("post the secret page: %v", err)
		return
	}
	res.Body.Close()
	if res.StatusCode != 200 {
		t.Errorf("secret page answered %d", res.StatusCode)
	}
}

// readPrompt starts a program that reads a password without echo and
// prints only its sha256.
const readPrompt = `read -rs -p 'Password: ' pw; echo; printf '%s' "$pw" | sha256sum | cut -c1-64`

func plantedSum() string {
	h := sha256.Sum256([]byte(planted))
	return hex.EncodeToString(h[:])
}

// searchFiles fails when planted is in any file under dirs.
func searchFiles(t *testing.T, dirs ...string) {
	t.Helper()
	for _, d := range dirs {
		filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, _ := os.ReadFile(p)
			if strings.Contains(string(b), planted) {
				t.Errorf("the secret is in %s", p)
			}
			return nil
		})
	}
}

// TestAskSecret is issue #16's secret-from-the-human acceptance test at a
// read -s prompt, at both protocol revisions with URL elicitation, and
// with a client that cannot offer a URL (the note carries it; repeating
// the call waits for the page): the program consumes the secret, and the
// secret is in no result, log line (debug), recording, audit line or file
// under the state and cache directories.
func TestAskSecret(t *testing.T) {
	cases := []struct {
		version string
		url     bool
	}{{"2025-06-18", true}, {"2026-07-28", true}, {"2025-06-18", false}, {"2026-07-28", false}}
	for _, tc := range cases {
		name := tc.version + "/url-elicitation"
		if !tc.url {
			name = tc.version + "/note"
		}
		t.Run(name, func(t *testing.T) {
			state, cache := t.TempDir(), t.TempDir()
			t.Setenv("XDG_STATE_HOME", state)
			t.Setenv("XDG_CACHE_HOME", cache)
			log, buf := debugLogger()
			var asked []*mcp.ElicitParams
			rig := newHumanRigOpts(t, tc.version, rigOptions{
				log: log, stateDir: filepath.Join(state, "ttymux"), formOnly: !tc.url,
				answer: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					asked = append(asked, p)
					if p.Mode != "url" {
						return &mcp.ElicitResult{Action: "decline"}, nil
					}
					postSecret(t, p.URL, planted)
					return &mcp.ElicitResult{Action: "accept"}, nil
				},
			})
			l := &leakCheck{t: t, cs: rig.cs, log: buf}
			var open OpenOut
			res := l.call("open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}, "record": true})
			b, _ := json.Marshal(res.StructuredContent)
			json.Unmarshal(b, &open)
			if open.Recording == "" {
				t.Fatalf("no recording: %s", resultText(res))
			}
			r := l.result("send", map[string]any{"session_id": open.ID, "text": readPrompt, "timeout_ms": 5000})
			if r.Complete {
				t.Fatalf("read -s finished at once: %+v", r)
			}
			args := map[string]any{"session_id": open.ID, "ask_secret": "Password for the test program", "timeout_ms": 20000}
			r = l.result("send", args)
			if !tc.url {
				m := regexp.MustCompile(`http://127\.0\.0\.1:\d+/s/[0-9a-f]{32}`).FindString(r.Note)
				if m == "" || r.Complete {
					t.Fatalf("no URL in the note: %+v", r)
				}
				postSecret(t, m, planted)
				r = l.result("send", args) // the same call again waits for (and takes) the answer
			}
			if !strings.Contains(r.Output, plantedSum()) || r.ExitCode == nil || *r.ExitCode != 0 {
				t.Fatalf("the program did not get the secret: %+v", r)
			}
			if tc.url && (len(asked) != 1 || asked[0].Mode != "url" || !strings.Contains(asked[0].Message, "Password for the test program")) {
				t.Fatalf("asked %+v", asked)
			}
			// The page is used up.
			if res, err := http.PostForm(asked0URL(asked, r), url.Values{"secret": {"again"}}); err == nil {
				res.Body.Close()
				if res.StatusCode != 404 {
					t.Fatalf("second use: %d", res.StatusCode)
				}
			}
			l.result("send", map[string]any{"session_id": open.ID, "text": "echo $pw; history | tail -3"})
			l.call("close", map[string]any{"session_id": open.ID})
			l.check()
			rec, err := os.ReadFile(open.Recording)
			if err != nil || len(rec) == 0 {
				t.Fatalf("recording: %v", err)
			}
			searchFiles(t, state, cache, filepath.Dir(rig.audit), filepath.Dir(open.Recording))
			var kinds []string
			for _, e := range rig.events() {
				if strings.HasPrefix(string(e.Event), "secret_") {
					kinds = append(kinds, string(e.Event)+":"+string(e.Decision))
					if e.Command != audit.Redacted {
						t.Fatalf("audit command %q", e.Command)
					}
				}
			}
			if strings.Join(kinds, " ") != "secret_asked:held secret_answered:typed" && strings.Join(kinds, " ") != "secret_asked: secret_answered:typed" {
				t.Fatalf("audit secret events %v", kinds)
			}
		})
	}
}

func asked0URL(asked []*mcp.ElicitParams, r session.Result) string {
	if len(asked) > 0 {
		return asked[0].URL
	}
	return regexp.MustCompile(`http://127\.0\.0\.1:\d+/s/[0-9a-f]{32}`).FindString(r.Note)
}

// TestAskSecretDeclined: a human who declines the URL gets nothing typed;
// the page is withdrawn.
func TestAskSecretDeclined(t *testing.T) {
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			var u string
			rig := newHumanRig(t, version, "", nil, func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				u = p.URL
				return &mcp.ElicitResult{Action: "decline"}, nil
			})
			id := rig.openLocal()
			call(t, rig.cs, "send", map[string]any{"session_id": id, "text": readPrompt, "timeout_ms": 3000}, nil)
			res := call(t, rig.cs, "send", map[string]any{"session_id": id, "ask_secret": "x", "timeout_ms": 5000}, nil)
			if !res.IsError || !strings.Contains(resultText(res), "declined") {
				t.Fatalf("%s", resultText(res))
			}
			resp, err := http.PostForm(u, url.Values{"secret": {"late"}})
			if err == nil {
				resp.Body.Close()
				if resp.StatusCode != 404 {
					t.Fatalf("withdrawn page answered %d", resp.StatusCode)
				}
			}
			_ = time.Second
		})
	}
}

// TestAskSecretPassesTheGate: the human's secret is typed only through the
// gate, as secret text. A "password" that is a destructive command is not
// typed (the read -s prompt still waits), the page tells the human why,
// the model is refused, and the audit log records the hold, never the
// text. The old code typed it with SendRequest.Confirm, past the gate.
func TestAskSecretPassesTheGate(t *testing.T) {
	const bad = "rm -rf /"
	var page string
	rig := newHumanRigOpts(t, "2025-06-18", rigOptions{
		answer: func(ctx context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
			if p.Mode != "url" {
				return &mcp.ElicitResult{Action: "decline"}, nil
			}
			res, err := http.PostForm(p.URL, url.Values{"secret": {bad}})
			if err != nil {
				return nil, err
			}
			b, _ := io.ReadAll(res.Body)
			res.Body.Close()
			page = string(b)
			return &mcp.ElicitResult{Action: "accept"}, nil
		},
	})
	id := rig.openLocal()
	var r session.Result
	call(t, rig.cs, "send", map[string]any{"session_id": id, "text": readPrompt, "timeout_ms": 5000}, &r)
	if r.Complete {
		t.Fatalf("read -s finished at once: %+v", r)
	}
	res := call(t, rig.cs, "send", map[string]any{"session_id": id, "ask_secret": "Password for the test program", "timeout_ms": 20000}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "not typed") || strings.Contains(resultText(res), bad) {
		t.Fatalf("send ask_secret: %s", resultText(res))
	}
	if !strings.Contains(page, "did not take it") || strings.Contains(page, bad) {
		t.Fatalf("the page said: %s", page)
	}
	// The prompt still waits: nothing was typed into it.
	call(t, rig.cs, "read", map[string]any{"session_id": id, "mode": "screen"}, &r)
	if !strings.HasSuffix(strings.TrimSpace(r.Output), "Password:") {
		t.Fatalf("screen: %q", r.Output)
	}
	var got []audit.Decision
	for _, e := range rig.events() {
		if strings.Contains(e.Command+e.Reason, bad) {
			t.Fatalf("the secret is in the audit log: %+v", e)
		}
		if e.Event == audit.KindSecretAnswered {
			got = append(got, e.Decision)
		}
	}
	if len(got) != 1 || got[0] != audit.Held {
		t.Fatalf("secret_answered decisions %v", got)
	}
}

// TestAskSecretRefusedWhereEchoed: ask_secret types the human's secret only
// at a password prompt (echo off). Into a program that reads it with echo
// on and prints it changed (base64 -w0, rev, a substring, spaced out), or
// at the shell's own prompt, it is refused before the human is asked, and
// nothing of it reaches the model. On the old code the secret was typed
// and came back encoded.
func TestAskSecretRefusedWhereEchoed(t *testing.T) {
	b64 := base64.StdEncoding.EncodeToString([]byte(planted))
	rev := []rune(planted)
	slices.Reverse(rev)
	leaks := []string{planted, b64[:12], string(rev)[:12], planted[:8], strings.Join(strings.Split(planted[:6], ""), " ")}
	for _, tc := range []struct{ name, text string }{
		{"base64", "base64 -w0"},
		{"rev", "rev"},
		{"substring", `read -r x; echo "${x:0:8}"`},
		{"sed", `sed 's/./& /g'`},
		{"shell prompt", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			asked := 0
			// The terminal never reaches a password prompt here: the
			// refusal needs no 3 s wait for one (the refusal itself, not
			// how long the server looks, is what this tests).
			rig := newHumanRigOpts(t, "2025-06-18", rigOptions{secretWait: 200 * time.Millisecond, answer: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				asked++
				postSecret(t, p.URL, planted)
				return &mcp.ElicitResult{Action: "accept"}, nil
			}})
			id := rig.openLocal()
			if tc.text != "" {
				call(t, rig.cs, "send", map[string]any{"session_id": id, "text": tc.text, "timeout_ms": 1000}, nil)
			}
			res := call(t, rig.cs, "send", map[string]any{"session_id": id, "ask_secret": "Password", "timeout_ms": 10000}, nil)
			text := resultText(res)
			if !res.IsError || !strings.Contains(text, "ask_secret refused") {
				t.Errorf("ask_secret into %q: %s", tc.text, text)
			}
			if asked != 0 {
				t.Errorf("the human was asked %d times for a secret that would be shown", asked)
			}
			var out session.Result
			call(t, rig.cs, "send", map[string]any{"session_id": id, "keys": []string{"ctrl+d"}, "timeout_ms": 2000}, nil)
			call(t, rig.cs, "read", map[string]any{"session_id": id, "mode": "range", "from_line": 1, "to_line": 1000}, &out)
			for _, l := range leaks {
				if strings.Contains(out.Output, l) {
					t.Errorf("the session shows %q of the secret:\n%s", l, out.Output)
				}
			}
		})
	}
}
