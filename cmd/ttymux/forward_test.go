package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// fwdRig is a server with an SSH opener reaching one real sshd as "box"
// (and as "prod-box", read-only), a policy, an audit log and a client
// whose human answers with answer.
type fwdRig struct {
	cs     *mcp.ClientSession
	audit  string
	mu     sync.Mutex
	asked  []string
	answer string
}

const fwdPolicy = `
[[rule]]
hosts = ["prod-*"]
read_only = true
`

func newFwdRig(t *testing.T) *fwdRig {
	t.Helper()
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	home := t.TempDir()
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config")
	if err := os.WriteFile(cfg, []byte(d.ConfigBlock("box", known)+d.ConfigBlock("prod-box", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	pol, err := policy.Parse("policy.toml", []byte(fwdPolicy))
	if err != nil {
		t.Fatal(err)
	}
	ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": ssh}),
		StateDir: t.TempDir(), Shell: "/bin/bash", NoRC: true, Policy: pol,
	})
	rig := &fwdRig{audit: filepath.Join(t.TempDir(), "audit.jsonl"), answer: "decline"}
	al, err := audit.Open(rig.audit)
	if err != nil {
		t.Fatal(err)
	}
	fwd := newForwardTool(ssh, nil)
	// Teardown in the server's order: forwards, sessions, connections.
	t.Cleanup(func() { fwd.Close(); m.CloseAll(); ssh.Close(); al.Close() })
	srv := newServerWith(m, nil, humanConfig{audit: al}, nil, fwd)
	rig.cs = connectAt(t, srv, &mcp.ClientOptions{
		Capabilities: &mcp.ClientCapabilities{Elicitation: &mcp.ElicitationCapabilities{Form: &mcp.FormElicitationCapabilities{}}},
		ElicitationHandler: func(_ context.Context, req *mcp.ElicitRequest) (*mcp.ElicitResult, error) {
			rig.mu.Lock()
			defer rig.mu.Unlock()
			rig.asked = append(rig.asked, req.Params.Message)
			return &mcp.ElicitResult{Action: rig.answer}, nil
		},
	}, "2025-06-18")
	return rig
}

func (r *fwdRig) questions() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.asked...)
}

func pageServer(t *testing.T, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	return srv.Listener.Addr().String()
}

var fwdHTTP = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}

func getPage(url string) (string, error) {
	resp, err := fwdHTTP.Get(url)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// TestForwardTool follows #36 through the MCP surface against a real
// sshd: -L returns the "remote" page, -R reaches a listener here, SOCKS5
// through curl, list shows each, close {forward_id} ends one, closing a
// session ends its forwards, and the audit log has every open and close.
func TestForwardTool(t *testing.T) {
	rig := newFwdRig(t)
	remote := pageServer(t, "served on the host")
	here := pageServer(t, "served here")

	var lf ForwardOut
	if res := call(t, rig.cs, "forward", map[string]any{"host": "box", "remote": remote}, &lf); res.IsError {
		t.Fatalf("forward -L: %s", resultText(res))
	}
	if lf.ForwardID == "" || lf.Remote != remote || strings.HasSuffix(lf.Local, ":0") || !strings.HasPrefix(lf.Local, "127.0.0.1:") {
		t.Fatalf("forward -L result = %+v", lf)
	}
	if got, err := getPage("http://" + lf.Local + "/"); err != nil || got != "served on the host" {
		t.Fatalf("page through -L: %q, %v", got, err)
	}

	// A reverse forward is held for the human (it lets the host reach
	// this machine); this one accepts.
	rig.mu.Lock()
	rig.answer = "accept"
	rig.mu.Unlock()
	var rf ForwardOut
	if res := call(t, rig.cs, "forward", map[string]any{"host": "box", "reverse": true, "local": here}, &rf); res.IsError {
		t.Fatalf("forward -R: %s", resultText(res))
	}
	if got, err := getPage("http://" + rf.Remote + "/"); err != nil || got != "served here" {
		t.Fatalf("page through -R (%+v): %q, %v", rf, got, err)
	}
	if q := rig.questions(); len(q) != 1 || !strings.Contains(q[0], "ssh -R 127.0.0.1:0:"+here+" box") {
		t.Fatalf("the human was asked %q, want the -R forward once (and never the -L to the host's loopback)", q)
	}

	curl, err := exec.LookPath("curl")
	if err == nil {
		var sf ForwardOut
		if res := call(t, rig.cs, "forward", map[string]any{"host": "box", "socks": true}, &sf); res.IsError {
			t.Fatalf("forward -D: %s", resultText(res))
		}
		out, err := exec.Command(curl, "-sS", "--max-time", "20", "--socks5-hostname", sf.Local, "http://"+remote+"/").CombinedOutput()
		if err != nil || string(out) != "served on the host" {
			t.Fatalf("curl through -D: %v %q", err, out)
		}
	} else if os.Getenv("CI") != "" {
		t.Fatal("curl not found, but CI is set")
	}

	var list ListOut
	call(t, rig.cs, "list", map[string]any{}, &list)
	found := false
	for _, f := range list.Forwards {
		if f.ForwardID == lf.ForwardID {
			found = f.Connections == 1 && f.Bytes > 0 && f.State == "up" && f.Host == "box"
		}
	}
	if !found {
		t.Fatalf("list does not show the -L forward with its connection: %+v", list.Forwards)
	}

	var co CloseOut
	if res := call(t, rig.cs, "close", map[string]any{"forward_id": lf.ForwardID}, &co); res.IsError || !co.Closed {
		t.Fatalf("close forward: %s", resultText(res))
	}
	if _, err := getPage("http://" + lf.Local + "/"); err == nil {
		t.Fatal("the -L forward still serves after close")
	}
	if res := call(t, rig.cs, "close", map[string]any{"forward_id": lf.ForwardID}, nil); !res.IsError || !strings.Contains(resultText(res), "list") {
		t.Fatalf("closing it again: %s", resultText(res))
	}

	// A forward made for a session closes with it.
	var open OpenOut
	if res := call(t, rig.cs, "open_ssh", map[string]any{"host": "box"}, &open); res.IsError {
		t.Fatalf("open_ssh: %s", resultText(res))
	}
	var sfw ForwardOut
	if res := call(t, rig.cs, "forward", map[string]any{"session_id": open.ID, "remote": remote}, &sfw); res.IsError {
		t.Fatalf("forward {session_id}: %s", resultText(res))
	}
	if got, err := getPage("http://" + sfw.Local + "/"); err != nil || got != "served on the host" {
		t.Fatalf("page through the session's forward: %q, %v", got, err)
	}
	if res := call(t, rig.cs, "close", map[string]any{"session_id": open.ID}, nil); res.IsError || !strings.Contains(resultText(res), sfw.ForwardID) {
		t.Fatalf("close session: %s", resultText(res))
	}
	if _, err := getPage("http://" + sfw.Local + "/"); err == nil {
		t.Fatal("the session's forward still serves after the session closed")
	}

	b, err := os.ReadFile(rig.audit)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`"event":"forward"`, "ssh -L 127.0.0.1:0:" + remote + " box", "ssh -R", "ssh -D", `"event":"forward_close"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("audit log lacks %s:\n%s", want, b)
		}
	}
}

// TestForwardPolicy: a reverse forward on a read-only host is refused
// without asking; a held one the human declines opens nothing; a local
// session and bad parameters get errors that say what to do.
func TestForwardPolicy(t *testing.T) {
	rig := newFwdRig(t)
	here := pageServer(t, "x")
	res := call(t, rig.cs, "forward", map[string]any{"host": "prod-box", "reverse": true, "local": here}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "read-only") {
		t.Fatalf("reverse on a read-only host: %s", resultText(res))
	}
	if n := len(rig.questions()); n != 0 {
		t.Fatalf("a refused forward asked the human %d times", n)
	}
	res = call(t, rig.cs, "forward", map[string]any{"host": "box", "socks": true}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "declined") {
		t.Fatalf("socks declined by the human: %s", resultText(res))
	}
	if q := rig.questions(); len(q) != 1 || !strings.Contains(q[0], "ssh -D 127.0.0.1:0 box") {
		t.Fatalf("the human was asked %q", q)
	}
	var list ListOut
	call(t, rig.cs, "list", map[string]any{}, &list)
	if len(list.Forwards) != 0 {
		t.Fatalf("a declined forward is open: %+v", list.Forwards)
	}
	res = call(t, rig.cs, "forward", map[string]any{"host": "box", "remote": "127.0.0.1:1", "local": "0.0.0.0:0"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "loopback") {
		t.Fatalf("a listener open to the network: %s", resultText(res))
	}

	var open OpenOut
	if res := call(t, rig.cs, "open_local", map[string]any{}, &open); res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	res = call(t, rig.cs, "forward", map[string]any{"session_id": open.ID, "remote": "127.0.0.1:80"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "directly") {
		t.Fatalf("forward on a local session: %s", resultText(res))
	}
	for _, args := range []map[string]any{
		{"host": "box"},                  // no remote
		{"host": "box", "reverse": true}, // no local
		{"host": "box", "socks": true, "remote": "127.0.0.1:1"},
		{"remote": "127.0.0.1:1"}, // no host
		{"host": "box", "remote": "nonsense"},
	} {
		res := call(t, rig.cs, "forward", args, nil)
		if !res.IsError || len(resultText(res)) < 20 {
			t.Errorf("forward %v: %s", args, resultText(res))
		}
	}
	if _, err := net.Dial("tcp", "127.0.0.1:1"); err == nil {
		t.Log("something listens on 127.0.0.1:1")
	}
}

// TestForwardThroughDropbear: -L and -R over an OpenWrt-like Dropbear (an
// Ed25519-only host key, BusyBox ash, no SFTP), through the MCP surface.
func TestForwardThroughDropbear(t *testing.T) {
	r := newRouter(t)
	ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: r.cfg, Home: r.home}}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": ssh}),
		StateDir: t.TempDir(),
	})
	al, err := audit.Open(filepath.Join(t.TempDir(), "audit.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	fwd := newForwardTool(ssh, nil)
	t.Cleanup(func() { fwd.Close(); m.CloseAll(); ssh.Close(); al.Close() })
	cs := connect(t, newServerWith(m, nil, humanConfig{audit: al}, nil, fwd), nil)
	remote := pageServer(t, "served on the router")
	var lf ForwardOut
	if res := call(t, cs, "forward", map[string]any{"host": "router", "remote": remote}, &lf); res.IsError {
		t.Fatalf("forward -L: %s\n%s", resultText(res), r.d.Log())
	}
	if got, err := getPage("http://" + lf.Local + "/"); err != nil || got != "served on the router" {
		t.Fatalf("page through -L: %q, %v\n%s", got, err, r.d.Log())
	}
	here := pageServer(t, "served here")
	var rf ForwardOut
	res := call(t, cs, "forward", map[string]any{"host": "router", "reverse": true, "local": here, "confirm": true}, &rf)
	if res.IsError {
		t.Fatalf("forward -R: %s\n%s", resultText(res), r.d.Log())
	}
	if got, err := getPage("http://" + rf.Remote + "/"); err != nil || got != "served here" {
		t.Fatalf("page through -R (%+v): %q, %v\n%s", rf, got, err, r.d.Log())
	}
}
