package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// TestReadOnlyRemoteAgentIsConfined: a persistent session on a host the
// policy makes read-only runs its shell, in the agent deployed over a real
// sshd, under Landlock: with every line allowed through the checks, touch
// fails with Permission denied and the file does not exist; list says
// kernel: landlock. Before, the agent started the shell unconfined and the
// file was created.
func TestReadOnlyRemoteAgentIsConfined(t *testing.T) {
	if ptyproc.ConfineLevel() == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no Landlock; CI's must")
		}
		t.Skip("the kernel has no Landlock")
	}
	h := newRemoteHost(t)
	p, err := policy.Parse("p.toml", []byte("[[rule]]\nhosts = [\"box\"]\nread_only = true\nallow = ['.*']\n"))
	if err != nil {
		t.Fatal(err)
	}
	op := &sshconn.Opener{Config: sshconf.Options{ConfigFile: h.cfg, Home: h.home}}
	rs := &remotes{ssh: op, localAgent: h.exe, dir: h.dir, socketDir: h.socketDir, agents: t.TempDir()}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": op}),
		StateDir: t.TempDir(),
		Remote:   rs.keeper,
		Policy:   p,
	})
	t.Cleanup(func() {
		m.CloseAll()
		_ = op.Close()
	})
	cs := connect(t, newServer(m, nil), nil)
	var open OpenOut
	if res := call(t, cs, "open_ssh", map[string]any{"host": "box", "persistent": true}, &open); res.IsError {
		t.Fatalf("open_ssh: %s\nsshd log:\n%s", resultText(res), h.sshd.Log())
	}
	if !open.Persistent {
		t.Fatalf("not kept by the agent: %+v", open)
	}
	f := filepath.Join(t.TempDir(), "F")
	var r session.Result
	if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "touch " + f}, &r); res.IsError {
		t.Fatalf("send: %s", resultText(res))
	}
	if _, err := os.Stat(f); err == nil {
		t.Fatalf("a read-only session held by the agent created %s (%+v)", f, r)
	}
	if !strings.Contains(r.Output, "Permission denied") {
		t.Errorf("touch: %+v, want Permission denied", r)
	}
	var list ListOut
	call(t, cs, "list", map[string]any{}, &list)
	if len(list.Sessions) != 1 || list.Sessions[0].Kernel != "landlock" {
		t.Errorf("list: %+v, want kernel landlock", list.Sessions)
	}
}
