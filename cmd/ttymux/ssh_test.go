package main

import (
	"fmt"
	"testing"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
)

// TestSSHThroughJumpHost follows the SSH issue's acceptance test against
// two real OpenSSH sshd on 127.0.0.1: open_ssh by an ssh_config alias whose
// ProxyJump is the other sshd, then 20 commands over exactly one TCP
// connection and one authentication per server, with cd and export
// persisting and exit codes coming back.
func TestSSHThroughJumpHost(t *testing.T) {
	jump := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	target := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	cfg, home := sshClientHome(t, []*sshdtest.SSHD{jump, target}, func(known string) string {
		return jump.ConfigBlock("bastion", known) + target.ConfigBlock("inner", known, "ProxyJump bastion")
	})
	m := session.NewManager(session.Options{Kinds: sshKinds(cfg, home), StateDir: t.TempDir()})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)

	var open OpenOut
	if res := call(t, cs, "open_ssh", map[string]any{"host": "inner"}, &open); res.IsError {
		t.Fatalf("open_ssh: %s\njump log:\n%s\ntarget log:\n%s", resultText(res), jump.Log(), target.Log())
	}
	if !open.Integrated {
		t.Fatalf("remote shell not integrated: %+v", open)
	}
	type step struct{ text, out, code string }
	steps := []step{
		{"cd /tmp", "", "0"},
		{"pwd", "/tmp", "0"},
		{"export TTYMUX_SSH_TEST=kept", "", "0"},
		{"echo $TTYMUX_SSH_TEST", "kept", "0"},
		{"false", "", "1"},
		{"(exit 7)", "", "7"},
	}
	for i := len(steps); i < 20; i++ {
		steps = append(steps, step{fmt.Sprintf("echo n-%d-$TTYMUX_SSH_TEST", i), fmt.Sprintf("n-%d-kept", i), "0"})
	}
	for _, st := range steps {
		var r session.Result
		if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": st.text}, &r); res.IsError {
			t.Fatalf("%q: %s", st.text, resultText(res))
		}
		if !r.Complete || r.Via != "exit-code" || r.Output != st.out || r.ExitCode == nil || fmt.Sprint(*r.ExitCode) != st.code {
			t.Fatalf("%q: complete=%v via=%q exit=%v output=%q", st.text, r.Complete, r.Via, r.ExitCode, r.Output)
		}
	}
	for name, d := range map[string]*sshdtest.SSHD{"jump host": jump, "target": target} {
		if n := d.Count("Accepted publickey"); n != 1 {
			t.Errorf("%s saw %d authentications, want exactly 1:\n%s", name, n, d.Log())
		}
		if n := d.Count("Connection from"); n > 1 {
			t.Errorf("%s saw %d connections, want 1", name, n)
		}
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
}
