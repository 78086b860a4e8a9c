package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/cmd/ttymux/internal/boxkind"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// TestBoxKindThroughMCP: a transport kind from one package (boxkind) and
// one registration line is used with every tool that takes a session,
// through MCP: list shows its name and command, send and read drive it,
// the policy matches it by its own host name (box:NAME), resize reaches
// it, upload and download move files through its terminal (the way a kind
// without direct file ways gets), forward and detach refuse it with what
// to do instead, attach finds it, and close ends it. Its open is the
// Manager's (an open_box tool would be the third step of "Adding a
// transport"); nothing else in cmd, session or the policy knows it.
func TestBoxKindThroughMCP(t *testing.T) {
	pol, err := policy.Parse("policy.toml", []byte("[[rule]]\nhosts = [\"box:*\"]\ndeny = ['^shutdown\\b']\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := session.NewManager(session.Options{
		Kinds: append(testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
			boxkind.Kind()), // the registration line
		StateDir: t.TempDir(), Policy: pol,
	})
	ssh := &sshconn.Opener{}
	fwd := newForwardTool(ssh, nil)
	t.Cleanup(func() { fwd.Close(); m.CloseAll(); ssh.Close() })
	cs := connect(t, newServerWith(m, nil, humanConfig{}, nil, fwd), nil)

	ctx, cancel := context.WithTimeout(context.Background(), session.DefaultTimeout)
	defer cancel()
	dir := t.TempDir()
	bt := boxkind.Target("b1")
	bt.Dir = dir
	s, err := m.Open(ctx, session.OpenRequest{Transport: boxkind.Name, Target: bt})
	if err != nil {
		t.Fatalf("open a box: %v", err)
	}
	id := s.ID()
	prompt := `\$ $`

	var list ListOut
	call(t, cs, "list", map[string]any{}, &list)
	i := slices.IndexFunc(list.Sessions, func(in session.Info) bool { return in.ID == id })
	if i < 0 || list.Sessions[i].Transport != boxkind.Name || list.Sessions[i].Command != "box b1" {
		t.Fatalf("list: %+v, want %s of transport box running \"box b1\"", list.Sessions, id)
	}

	var r session.Result
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "echo hello-$BOX", "until": prompt}, &r); res.IsError || !strings.Contains(r.Output, "hello-b1") {
		t.Fatalf("send: %s %q", resultText(res), r.Output)
	}
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "shutdown -h now"}, nil); !res.IsError || !strings.Contains(resultText(res), "box:b1") {
		t.Fatalf("send shutdown on box:b1, which the policy denies: %s", resultText(res))
	}
	if res := call(t, cs, "resize", map[string]any{"session_id": id, "rows": 33, "cols": 101}, nil); res.IsError {
		t.Fatalf("resize: %s", resultText(res))
	}
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "stty size", "until": prompt}, &r); res.IsError || !strings.Contains(r.Output, "33 101") {
		t.Fatalf("stty size after resize: %s %q", resultText(res), r.Output)
	}
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": "echo read-me", "wait": false}, nil); res.IsError {
		t.Fatalf("send without wait: %s", resultText(res))
	}
	var rd session.Result
	if res := call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "until": "read-me", "timeout_ms": 10000}, &rd); res.IsError || !strings.Contains(rd.Output, "read-me") {
		t.Fatalf("read: %s %q", resultText(res), rd.Output)
	}
	call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "until": prompt, "timeout_ms": 2000}, nil)

	var out FileOut
	up := filepath.Join(dir, "up.txt")
	if res := call(t, cs, "upload", map[string]any{"session_id": id, "path": up, "content": "in a box\n"}, &out); res.IsError || out.Via != "inband" {
		t.Fatalf("upload: %s %+v", resultText(res), out)
	}
	if got, _ := os.ReadFile(up); string(got) != "in a box\n" {
		t.Fatalf("uploaded file holds %q", got)
	}
	if err := os.WriteFile(filepath.Join(dir, "down.txt"), []byte("out of a box\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if res := call(t, cs, "download", map[string]any{"session_id": id, "path": filepath.Join(dir, "down.txt")}, &out); res.IsError || out.Content != "out of a box\n" {
		t.Fatalf("download: %s %+v", resultText(res), out)
	}
	call(t, cs, "read", map[string]any{"session_id": id, "wait": true, "until": prompt, "timeout_ms": 2000}, nil)

	if res := call(t, cs, "forward", map[string]any{"session_id": id, "remote": "127.0.0.1:1"}, nil); !res.IsError || !strings.Contains(resultText(res), "carries no TCP connections") {
		t.Fatalf("forward over a box: %s", resultText(res))
	}
	if res := call(t, cs, "detach", map[string]any{"session_id": id}, nil); !res.IsError {
		t.Fatalf("detach of a box this process holds: %s", resultText(res))
	}
	var info OpenOut
	if res := call(t, cs, "attach", map[string]any{"session_id": id}, &info); res.IsError || info.ID != id || info.Transport != boxkind.Name {
		t.Fatalf("attach: %s %+v", resultText(res), info)
	}
	if res := call(t, cs, "close", map[string]any{"session_id": id}, nil); res.IsError {
		t.Fatalf("close: %s", resultText(res))
	}
	call(t, cs, "list", map[string]any{}, &list)
	if slices.ContainsFunc(list.Sessions, func(in session.Info) bool { return in.ID == id && in.State != "exited" }) {
		t.Fatalf("%s still listed after close: %+v", id, list.Sessions)
	}
}
