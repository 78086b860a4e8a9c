package agentd

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/agentd/agentproto"
)

// TestHello: an agent proves it can read the token file the client names
// (HMAC over the client's nonce), then serves the request on the same
// connection; a token it cannot use (missing, readable by others) gets a
// failed HelloReply, not a proof.
func TestHello(t *testing.T) {
	ta := startAgent(t, Options{})
	dir := t.TempDir()
	tok := filepath.Join(dir, "agent.token")
	if err := os.WriteFile(tok, []byte("0123456789abcdef\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	nonce := []byte("a nonce of 16+ bytes")

	tc := ta.dial(t)
	tc.send(agentproto.Hello{TokenPath: tok, Nonce: nonce})
	rep, ok := tc.readMsg().(agentproto.HelloReply)
	if !ok || rep.Status != agentproto.StatusOK || !agentproto.ProofOK([]byte("0123456789abcdef"), nonce, rep.Proof) {
		t.Fatalf("hello reply %#v, want a proof of the token", rep)
	}
	tc.sendFrame(agentproto.TypeList, nil)
	if _, ok := tc.readMsg().(agentproto.ListReply); !ok {
		t.Fatal("no ListReply after the hello")
	}

	if err := os.Chmod(tok, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{tok, filepath.Join(dir, "missing")} {
		tc := ta.dial(t)
		tc.send(agentproto.Hello{TokenPath: path, Nonce: nonce})
		rep, ok := tc.readMsg().(agentproto.HelloReply)
		if !ok || rep.Status != agentproto.StatusFailed || len(rep.Proof) != 0 || !strings.Contains(rep.Message, "token") {
			t.Fatalf("hello with %s: %#v, want failed without proof", path, rep)
		}
	}
}

// TestRedactMasksReplay: a Redact on a stream masks the ring, so a later
// attach replays '*' where the secret's echo was (issue #14 finding 3).
func TestRedactMasksReplay(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "printf 'pw: hunter2-secret\\nafter\\n'; read x"}})
	tc.waitOutput("after")
	i := strings.Index(string(tc.out), "hunter2-secret")
	tc.send(agentproto.Redact{From: tc.base + int64(i), To: tc.base + int64(i+len("hunter2-secret"))})
	tc.send(agentproto.SetMeta{Meta: []byte("x")}) // answered in order: the Redact is done by then
	for {
		if r, ok := tc.readMsg().(agentproto.Reply); ok && r.Status == agentproto.StatusOK {
			break
		}
	}
	re := ta.attach(t, agentproto.Attach{ID: tc.rep.Session.ID, FromStart: true}, agentproto.StatusAttached)
	re.waitOutput("after")
	if got := string(re.out); strings.Contains(got, "hunter2") || !strings.Contains(got, "pw: **************\r\nafter") {
		t.Fatalf("replay after Redact: %q", got)
	}
}
