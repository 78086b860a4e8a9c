package main

// Secrets of issue #8: a planted password, typed with secret: true or given
// to open_ssh, never appears in a result (text or structured), an error or
// the server's log at debug level. docs/security.md lists these tests.

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/json"
	"encoding/pem"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// planted is the secret the tests look for everywhere.
const planted = "Pl4nted-s3cret-XYZZY"

// leakCheck records every answer a test gets, to search for the secret.
type leakCheck struct {
	t   *testing.T
	cs  *mcp.ClientSession
	log *syncBuffer
	all strings.Builder
}

// debugLogger returns a debug-level logger writing into a buffer.
func debugLogger() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewTextHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// call makes a tool call and keeps its whole answer: text, structured
// content, error text.
func (l *leakCheck) call(tool string, args map[string]any) *mcp.CallToolResult {
	l.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	res, err := l.cs.CallTool(ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
	if err != nil {
		l.t.Fatalf("%s: %v", tool, err)
	}
	b, _ := json.Marshal(res)
	l.all.Write(b)
	l.all.WriteString(resultText(res))
	return res
}

func (l *leakCheck) result(tool string, args map[string]any) session.Result {
	l.t.Helper()
	res := l.call(tool, args)
	if res.IsError {
		l.t.Fatalf("%s %v: %s", tool, args, resultText(res))
	}
	var r session.Result
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &r)
	return r
}

// check fails if the secret appears in any answer or in the log.
func (l *leakCheck) check() {
	l.t.Helper()
	if i := strings.Index(l.all.String(), planted); i >= 0 {
		a := l.all.String()
		l.t.Errorf("the secret appears in an answer: …%s…", a[max(0, i-200):min(len(a), i+100)])
	}
	if strings.Contains(l.log.String(), planted) {
		l.t.Errorf("the secret appears in the log:\n%s", l.log.String())
	}
	if l.log.String() == "" {
		l.t.Error("the debug log is empty: the check proves nothing")
	}
}

// TestSecretSend: a password typed with secret: true into a program that
// echoes it (read without -s) is redacted from the output, from an until
// match on it, from every read mode, and from the gate's error, and never
// logged.
func TestSecretSend(t *testing.T) {
	log, buf := debugLogger()
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		Logger:   log,
	})
	t.Cleanup(m.CloseAll)
	l := &leakCheck{t: t, cs: connect(t, newServer(m, log), nil), log: buf}
	var open OpenOut
	res := l.call("open_local", map[string]any{"cwd": t.TempDir(), "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}})
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &open)
	id := open.ID

	// The prompt comes once read has the terminal (cooked, echoing).
	l.result("send", map[string]any{"session_id": id, "text": "read -r -p 'pw: ' PW", "until": "pw: $"})
	r := l.result("send", map[string]any{"session_id": id, "text": planted, "secret": true, "until": "Pl4nted-s3cret-\\w+"})
	if !r.Complete || r.Via != "until" || r.Match != "********" {
		t.Fatalf("until on the echoed secret: %+v", r)
	}
	r = l.result("send", map[string]any{"session_id": id, "text": `echo "[$PW]"; echo "$PW" > pw.txt`})
	if r.Output != "[********]" {
		t.Fatalf("echo of the secret: %q", r.Output)
	}
	for _, args := range []map[string]any{
		{"mode": "screen"},
		{"mode": "diff"},
		{"mode": "range", "from_line": 1},
		{"mode": "range", "from_line": 1, "raw": true},
		{"wait": true, "raw": true, "timeout_ms": 100},
	} {
		args["session_id"] = id
		l.result("read", args)
	}
	l.result("send", map[string]any{"session_id": id, "text": "cat pw.txt; cat pw.txt", "raw": true})
	l.result("list", map[string]any{})
	// The gate refuses secret text too, without quoting it.
	res = l.call("send", map[string]any{"session_id": id, "text": "rm -rf / " + planted, "secret": true})
	if !res.IsError || !strings.Contains(resultText(res), "secret text looks destructive") {
		t.Fatalf("gate on secret text: %s", resultText(res))
	}
	// Typed without Enter, then a destructive rest: the error quotes the
	// line with the secret redacted.
	l.result("send", map[string]any{"session_id": id, "text": planted + "; rm ", "secret": true, "enter": false, "wait": false})
	res = l.call("send", map[string]any{"session_id": id, "text": "-rf ~"})
	if !res.IsError || !strings.Contains(resultText(res), "********") {
		t.Fatalf("gate after a secret typed without Enter: %s", resultText(res))
	}
	l.call("close", map[string]any{"session_id": id})
	l.check()
}

// TestSecretSSHPassword: the password given to open_ssh unlocks an
// encrypted key on a real sshd; it never appears in results, in the error
// of a failed login, or in the log, and a remote echo of it is redacted.
func TestSecretSSHPassword(t *testing.T) {
	home := t.TempDir()
	key := filepath.Join(home, "id_encrypted")
	pub := writeEncryptedKey(t, key, planted)
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{
		AuthorizedKeys: []string{pub},
		Config:         []string{"PasswordAuthentication yes"},
	})
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	stranger := filepath.Join(home, "id_stranger")
	if _, err := sshdtest.WriteTestKey(stranger, "stranger"); err != nil {
		t.Fatal(err)
	}
	conf := strings.Replace(d.ConfigBlock("box", known), d.ClientKey, key, 1) +
		strings.Replace(d.ConfigBlock("wrong", known), d.ClientKey, stranger, 1)
	cfg := filepath.Join(home, "config")
	if err := os.WriteFile(cfg, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", "") // only the key given here
	log, buf := debugLogger()
	ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}, Logger: log}
	t.Cleanup(func() { _ = ssh.Close() })
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"ssh": ssh}),
		StateDir: t.TempDir(),
		Logger:   log,
	})
	t.Cleanup(m.CloseAll)
	l := &leakCheck{t: t, cs: connect(t, newServer(m, log), nil), log: buf}

	res := l.call("open_ssh", map[string]any{"host": "box", "password": planted})
	if res.IsError {
		t.Fatalf("open_ssh with the key's passphrase: %s\n%s", resultText(res), d.Log())
	}
	var open OpenOut
	b, _ := json.Marshal(res.StructuredContent)
	_ = json.Unmarshal(b, &open)
	r := l.result("send", map[string]any{"session_id": open.ID, "text": "echo '" + planted + "'"})
	if r.Output != "********" {
		t.Fatalf("remote echo of the password: %q", r.Output)
	}
	l.call("close", map[string]any{"session_id": open.ID})

	res = l.call("open_ssh", map[string]any{"host": "wrong", "password": planted})
	if !res.IsError || !strings.Contains(resultText(res), "password") {
		t.Fatalf("failed login: %s", resultText(res))
	}
	t.Logf("failed login: %s", resultText(res))
	l.check()
}

// writeEncryptedKey writes a new Ed25519 private key encrypted with
// passphrase (OpenSSH format, 0600) and returns its authorized_keys line.
func writeEncryptedKey(t *testing.T, path, passphrase string) string {
	t.Helper()
	pk, sk, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := gossh.MarshalPrivateKeyWithPassphrase(sk, "ttymux encrypted test key", []byte(passphrase))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		t.Fatal(err)
	}
	spk, err := gossh.NewPublicKey(pk)
	if err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(string(gossh.MarshalAuthorizedKey(spk)))
}
