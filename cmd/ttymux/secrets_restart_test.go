package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// leaks reports the secret, or a piece of it of 5 bytes or more, in s.
func leaks(s, secret string) string {
	for n := len(secret); n >= 5; n-- {
		for i := 0; i+n <= len(secret); i++ {
			if strings.Contains(s, secret[i:i+n]) {
				return secret[i : i+n]
			}
		}
	}
	return ""
}

// TestSecretAfterRestart is issue #14 finding 3 as reproduced: a secret
// answered at a prompt that echoes it (read without -s), and a secret typed
// ahead while a command ran (the terminal echoes it, then readline redraws
// it: "********tBeta55" came back), are redacted while the first server
// runs; after that server is killed, a new server attached to the same
// agent session showed them in clear in range and screen reads. The echoes
// are now masked in the agent's ring, where the session lives.
func TestSecretAfterRestart(t *testing.T) {
	const (
		answered = "Answ3red-s3cretAlpha77"
		typed    = "Typ3dAhead-s3cretBeta55"
	)
	start := persistentServers(t, shortTempDir(t))
	cmd1, cs1, _ := start()
	var open OpenOut
	call(t, cs1, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}}, &open)
	var r struct {
		Output   string `json:"output"`
		Complete bool   `json:"complete"`
		Match    string `json:"match"`
	}
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "read -r -p 'pw: ' PW", "until": "pw: $"}, &r)
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": answered, "secret": true, "until": "\\$ $"}, &r)
	// Typed ahead: the shell is busy, the terminal echoes what arrives,
	// then readline takes it over and draws it again.
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "sleep 1", "wait": false}, &r)
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "true " + typed, "secret": true, "timeout_ms": 5000}, &r)
	if p := leaks(r.Output, typed); p != "" {
		t.Fatalf("the first server shows %q of the typed-ahead secret: %q", p, r.Output)
	}
	reads := []map[string]any{
		{"mode": "screen"},
		{"mode": "range", "from_line": 1},
		{"mode": "range", "from_line": 1, "raw": true},
	}
	for _, args := range reads {
		args["session_id"] = open.ID
		res := call(t, cs1, "read", args, nil)
		b, _ := json.Marshal(res.StructuredContent)
		for _, sec := range []string{answered, typed} {
			if p := leaks(string(b), sec); p != "" {
				t.Fatalf("first server, read %v shows %q: %s", args, p, b)
			}
		}
	}
	// The masks reach the agent as the first server reads the echoes. Wait
	// until its log holds the prompt after the typed-ahead command (the
	// fourth end-of-command mark: so the readline redraw came before), then
	// read once more: a read stores the session's state, which sends every
	// mask still due before it returns.
	for i := 0; ; i++ {
		res := call(t, cs1, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": 1, "raw": true}, nil)
		b, _ := json.Marshal(res.StructuredContent)
		if strings.Count(string(b), "133;D") >= 4 {
			break
		}
		if i == 100 {
			t.Fatalf("the first server never saw the readline redraw: %s", b)
		}
		call(t, cs1, "read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 100}, nil)
	}
	call(t, cs1, "read", map[string]any{"session_id": open.ID}, nil)
	if err := cmd1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cs1.Close()
	_ = cmd1.Wait()

	_, cs2, _ := start()
	defer cs2.Close()
	for _, args := range reads {
		res := call(t, cs2, "read", args, nil)
		b, _ := json.Marshal(res.StructuredContent)
		for _, sec := range []string{answered, typed} {
			if p := leaks(string(b), sec); p != "" {
				raw := call(t, cs2, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": 1, "raw": true}, nil)
				rb, _ := json.Marshal(raw.StructuredContent)
				t.Fatalf("after a restart, read %v shows %q: %s\nraw: %s", args, p, b, rb)
			}
		}
		if !strings.Contains(string(b), "pw: ") {
			t.Fatalf("read %v after a restart lacks the session's output: %s", args, b)
		}
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
}
