package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// fleet is a set of real sshd processes on loopback, each listening on
// several 127.0.0.x addresses, aliased in a scratch ssh_config as
// node01, node02, …: every alias is its own address and port, so its own
// pooled connection.
type fleet struct {
	home, config, known string
	sshds               []*sshdtest.SSHD
	aliases             []string
	server              map[string]*sshdtest.SSHD // alias -> its sshd
}

// startFleet starts servers sshds listening on perServer addresses each
// and writes hosts aliases for them (hosts <= servers*perServer), spread
// over the servers in turn.
func startFleet(t testing.TB, servers, perServer, hosts int) *fleet {
	t.Helper()
	var listen []string
	for i := 2; i <= perServer; i++ {
		listen = append(listen, fmt.Sprintf("ListenAddress 127.0.0.%d", i))
	}
	// Many connections arrive at once: sshd's default MaxStartups
	// (10:30:100) would drop some before they authenticate.
	// LogLevel VERBOSE logs each command start ("Starting session").
	cfg := append([]string{"MaxStartups 1000", "LogLevel VERBOSE"}, listen...)
	fl := &fleet{home: t.TempDir(), server: map[string]*sshdtest.SSHD{}}
	for range servers {
		fl.sshds = append(fl.sshds, sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: cfg, StartTimeout: 60 * time.Second}))
	}
	fl.config = filepath.Join(fl.home, "ssh_config")
	fl.known = filepath.Join(fl.home, "known_hosts")
	var conf, known strings.Builder
	for i, d := range fl.sshds {
		fmt.Fprintf(&known, "fanout-sshd-%d %s", i, gossh.MarshalAuthorizedKey(d.HostKey))
	}
	for n := range hosts {
		alias := fmt.Sprintf("node%02d", n+1)
		si := n % servers
		d := fl.sshds[si]
		fl.aliases = append(fl.aliases, alias)
		fl.server[alias] = d
		fl.block(&conf, alias, fmt.Sprintf("127.0.0.%d", 1+n/servers), d.Port, d, fmt.Sprintf("fanout-sshd-%d", si))
	}
	fl.write(t, conf.String(), known.String())
	return fl
}

// block writes one Host block.
func (fl *fleet) block(b *strings.Builder, alias, addr string, port int, d *sshdtest.SSHD, keyAlias string) {
	fmt.Fprintf(b, "Host %s\n  HostName %s\n  Port %d\n  User %s\n  IdentityFile %s\n  IdentitiesOnly yes\n  UserKnownHostsFile %s\n  GlobalKnownHostsFile none\n  HostKeyAlias %s\n",
		alias, addr, port, d.User, d.ClientKey, fl.known, keyAlias)
}

func (fl *fleet) write(t testing.TB, conf, known string) {
	t.Helper()
	if err := os.WriteFile(fl.config, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(fl.known, []byte(known), 0o600); err != nil {
		t.Fatal(err)
	}
}

// accepted counts authentications over every sshd of the fleet.
func (fl *fleet) accepted() int {
	n := 0
	for _, d := range fl.sshds {
		n += d.Count("Accepted publickey")
	}
	return n
}

// serve starts an MCP server with the fanout tool over the fleet's
// ssh_config and returns the client, the opener and the tool.
func (fl *fleet) serve(t testing.TB, opts *mcp.ClientOptions) (*mcp.ClientSession, *fanoutTool) {
	t.Helper()
	opener := &sshconn.Opener{Config: sshconf.Options{ConfigFile: fl.config, Home: fl.home}, HandshakeTimeout: 60 * time.Second}
	t.Cleanup(func() { _ = opener.Close() })
	ft := newFanoutTool(opener, time.Hour, filepath.Join(fl.home, "hosts.toml"), nil)
	t.Cleanup(func() { _ = ft.Close() }) // before the opener's
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}, "ssh": opener}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	return connect(t, newServerWith(m, nil, humanConfig{}, ft), opts), ft
}

// callFanout calls fanout with a bound of two minutes (the machine may be
// busy; the calls are event-driven, this only stops a hang).
func callFanout(t testing.TB, cs *mcp.ClientSession, args map[string]any, progress bool) (*mcp.CallToolResult, fanout.Report) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	p := &mcp.CallToolParams{Name: "fanout", Arguments: args}
	if progress {
		p.SetProgressToken("fanout")
	}
	res, err := cs.CallTool(ctx, p)
	if err != nil {
		t.Fatalf("fanout: %v", err)
	}
	var rep fanout.Report
	if !res.IsError {
		decode(t, res, &rep)
	}
	return res, rep
}

func decode(t testing.TB, res *mcp.CallToolResult, out any) {
	t.Helper()
	b, err := json.Marshal(res.StructuredContent)
	if err == nil {
		err = json.Unmarshal(b, out)
	}
	if err != nil {
		t.Fatalf("decode %v: %v", res.StructuredContent, err)
	}
}

// TestFanoutThirtyHosts is issue #19's acceptance test, through an MCP
// client: 30 aliases of three real sshd on loopback, one a stopped port and
// one whose known_hosts entry holds another key. One call answers for all,
// identical outputs grouped; a second fanout opens no connection (one
// Accepted per host in the sshd logs); the gate applies per host.
func TestFanoutThirtyHosts(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	fl := startFleet(t, 3, 11, 28)
	// node29: a known_hosts entry with a different key for its address.
	other, err := sshdtest.WriteTestKey(filepath.Join(fl.home, "other_key"), "not the server's key")
	if err != nil {
		t.Fatal(err)
	}
	conf, _ := os.ReadFile(fl.config)
	known, _ := os.ReadFile(fl.known)
	var b strings.Builder
	b.Write(conf)
	d := fl.sshds[0]
	fl.block(&b, "node29", "127.0.0.11", d.Port, d, "fanout-changed")
	known = fmt.Appendf(known, "fanout-changed %s", gossh.MarshalAuthorizedKey(other))
	// node30: a port nothing listens on any more.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	stopped := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	fl.block(&b, "node30", "127.0.0.1", stopped, d, "fanout-stopped")
	fl.write(t, b.String(), string(known))
	if err := os.WriteFile(filepath.Join(fl.home, "hosts.toml"), []byte("[groups]\nfirst = [\"node0?\", \"!node09\"]\nboth = [\"first\", \"node10\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}

	var mu sync.Mutex
	var progress []string
	cs, _ := fl.serve(t, &mcp.ClientOptions{ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
		mu.Lock()
		progress = append(progress, req.Params.Message)
		mu.Unlock()
	}})
	hostname, _ := os.Hostname()
	const command = "uptime >/dev/null; hostname; exit $((RANDOM%1))"

	res, rep := callFanout(t, cs, map[string]any{"hosts": []string{"node*"}, "command": command}, true)
	if res.IsError {
		t.Fatalf("fanout: %s", resultText(res))
	}
	if rep.Summary != "30 hosts: 28 exit 0, 1 unreachable, 1 host_key_changed" {
		t.Fatalf("summary %q\n%s", rep.Summary, resultText(res))
	}
	if len(rep.Groups) != 1 || rep.Groups[0].Count != 28 || rep.Groups[0].Hosts != "node[01-28]" || rep.Groups[0].Output != hostname || rep.Groups[0].ExitCode != 0 {
		t.Fatalf("groups %+v, want one of 28 hosts printing %q", rep.Groups, hostname)
	}
	if len(rep.Errors) != 2 || rep.Errors[0].Hosts != "node30" || rep.Errors[0].Kind != "unreachable" || !strings.Contains(rep.Errors[0].Error, "refused") ||
		rep.Errors[1].Hosts != "node29" || rep.Errors[1].Kind != "host_key_changed" || !strings.Contains(rep.Errors[1].Error, "HOST KEY CHANGED") {
		t.Fatalf("errors %+v", rep.Errors)
	}
	// The client handles notifications on goroutines of its own: the last
	// one may arrive just after the result.
	waitUntil(t, "a progress notification per host", 30*time.Second, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(progress) >= 30
	})
	mu.Lock()
	all := strings.Join(progress, "\n")
	if len(progress) != 30 || !strings.Contains(all, "node29: host_key_changed") || !strings.Contains(all, "(30/30)") {
		t.Errorf("progress %q, want one per host", progress)
	}
	mu.Unlock()
	if n := fl.accepted(); n != 28 {
		t.Fatalf("%d authentications after the first fanout, want 28", n)
	}

	// The second fanout reuses the 28 connections.
	_, rep2 := callFanout(t, cs, map[string]any{"hosts": []string{"node*", "!node29", "!node30"}, "command": command}, false)
	if rep2.Summary != "28 hosts: 28 exit 0" {
		t.Fatalf("second fanout: %+v", rep2)
	}
	for _, d := range fl.sshds {
		want := 0
		for _, a := range fl.aliases {
			if fl.server[a] == d {
				want++
			}
		}
		if n := d.Count("Accepted publickey"); n != want {
			t.Errorf("sshd on port %d logged %d authentications, want %d (one per host):\n%s", d.Port, n, want, d.Log())
		}
	}

	// Full output per host, and the host table.
	var rr *mcp.ReadResourceResult
	if rr, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "ttymux://fanout/" + rep.FanoutID + "/node07"}); err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; got != hostname+"\n[exit 0]" {
		t.Errorf("node07 resource %q", got)
	}
	if rr, err = cs.ReadResource(t.Context(), &mcp.ReadResourceParams{URI: "ttymux://fanout/" + rep.FanoutID}); err != nil {
		t.Fatal(err)
	}
	if got := rr.Contents[0].Text; !strings.Contains(got, `{"host":"node29","kind":"host_key_changed"`) {
		t.Errorf("fanout resource %s", got)
	}

	// Groups from hosts.toml.
	_, rep3 := callFanout(t, cs, map[string]any{"hosts": []string{"both"}, "command": "echo x"}, false)
	if rep3.Summary != "9 hosts: 9 exit 0" || rep3.Groups[0].Hosts != "node[01-08],node10" {
		t.Errorf("groups: %+v", rep3)
	}

	// The gate: a command it refuses runs nowhere without confirm (and
	// "true ||" keeps it harmless should it ever run).
	res, _ = callFanout(t, cs, map[string]any{"hosts": []string{"node*"}, "command": "true || mkfs.ext4 /dev/sda1"}, false)
	if !res.IsError || !strings.Contains(resultText(res), "confirm: true") || !strings.Contains(resultText(res), "nothing ran on any of the 30 hosts") {
		t.Fatalf("gate: %s", resultText(res))
	}
	_, rep4 := callFanout(t, cs, map[string]any{"hosts": []string{"node0*"}, "command": "true || mkfs.ext4 /dev/sda1", "confirm": true}, false)
	if rep4.Summary != "9 hosts: 9 exit 0" {
		t.Fatalf("confirmed: %+v", rep4)
	}
	// What send's gate lets through, fanout's does too.
	_, rep5 := callFanout(t, cs, map[string]any{"hosts": []string{"node0*"}, "command": "rm -rf " + filepath.Join(t.TempDir(), "x")}, false)
	if rep5.Summary != "9 hosts: 9 exit 0" {
		t.Fatalf("rm -rf of a scratch path: %+v", rep5)
	}

	if n := fl.accepted(); n != 28 {
		t.Errorf("%d authentications after six fanouts, want 28", n)
	}
}

// TestFanoutErrors: what the model gets wrong comes back as an error it can
// act on.
func TestFanoutErrors(t *testing.T) {
	home := t.TempDir()
	cfg := filepath.Join(home, "ssh_config")
	if err := os.WriteFile(cfg, []byte("Host web1 web2\n  HostName 127.0.0.1\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(home, "hosts.toml"), []byte("[groups]\na = [\"b\"]\nb = [\"a\"]\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	opener := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
	defer opener.Close()
	ft := newFanoutTool(opener, time.Minute, filepath.Join(home, "hosts.toml"), nil)
	defer ft.Close()
	cs := connect(t, newServerWith(newTestManager(t), nil, humanConfig{}, ft), nil)
	tests := []struct {
		name string
		args map[string]any
		want string
	}{
		{"no hosts", map[string]any{"hosts": []string{}, "command": "x"}, "hosts"},
		{"no command", map[string]any{"hosts": []string{"web1"}, "command": ""}, "command is required"},
		{"pattern matching nothing", map[string]any{"hosts": []string{"db*"}, "command": "x"}, "its aliases: web1 web2; groups (hosts.toml): a b"},
		{"group cycle", map[string]any{"hosts": []string{"a"}, "command": "x"}, "cycle: a → b → a"},
		{"bad timeout", map[string]any{"hosts": []string{"web1"}, "command": "x", "timeout_ms": 700000}, "timeout_ms"},
		{"bad parallel", map[string]any{"hosts": []string{"web1"}, "command": "x", "max_parallel": 2000}, "max_parallel"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res, _ := callFanout(t, cs, tt.args, false)
			if !res.IsError || !strings.Contains(resultText(res), tt.want) {
				t.Fatalf("got isError=%v %q, want an error containing %q", res.IsError, resultText(res), tt.want)
			}
		})
	}
	// Without an SSH transport the tool says so.
	cs2 := newTestClient(t)
	res, _ := callFanout(t, cs2, map[string]any{"hosts": []string{"web1"}, "command": "x"}, false)
	if !res.IsError || !strings.Contains(resultText(res), "not available") {
		t.Fatalf("no runner: %q", resultText(res))
	}
}

// TestFanoutTimeoutAndCancel: a host past timeout_ms is reported timeout
// while the others answer; cancelling the call stops every host it
// started, and the kept fanout says they were killed.
func TestFanoutTimeoutAndCancel(t *testing.T) {
	t.Setenv("SSH_AUTH_SOCK", "")
	fl := startFleet(t, 1, 3, 3)
	d := fl.sshds[0]
	cs, ft := fl.serve(t, nil)
	// node01 (127.0.0.1) sleeps past its timeout; the others answer.
	cmd := `case "$SSH_CONNECTION" in *" 127.0.0.1 "*) sleep 20;; esac; echo done`
	_, rep := callFanout(t, cs, map[string]any{"hosts": []string{"node*"}, "command": cmd, "timeout_ms": 3000}, false)
	if rep.Summary != "3 hosts: 2 exit 0, 1 timeout" || len(rep.Errors) != 1 || rep.Errors[0].Hosts != "node01" || !strings.Contains(rep.Errors[0].Error, "timeout_ms 3000") {
		t.Fatalf("report %+v", rep)
	}
	if rep.Groups[0].Hosts != "node02,node03" || rep.Groups[0].Output != "done" {
		t.Fatalf("groups %+v", rep.Groups)
	}

	// Cancel once every host runs its command (sshd logs each start).
	before := d.Count("Starting session: command")
	ctx, cancel := context.WithCancel(t.Context())
	defer cancel()
	done := make(chan error, 1)
	go func() {
		_, err := cs.CallTool(ctx, &mcp.CallToolParams{Name: "fanout", Arguments: map[string]any{"hosts": []string{"node*"}, "command": "sleep 20"}})
		done <- err
	}()
	d.WaitCount(t, "Starting session: command", before+3, time.Minute)
	cancel()
	select {
	case <-done:
	case <-time.After(time.Minute):
		t.Fatal("the cancelled fanout did not return")
	}
	ids := ft.runner.Recent()
	f, _ := ft.runner.Get(ids[len(ids)-1])
	select {
	case <-f.Finished():
	case <-time.After(time.Minute):
		t.Fatal("the cancelled fanout's run did not end")
	}
	if got := f.Report().Summary; got != "3 hosts: 3 killed" {
		t.Fatalf("after cancel: %s", got)
	}
	// Its connections are still good for the next call.
	if _, rep := callFanout(t, cs, map[string]any{"hosts": []string{"node02"}, "command": "echo ok"}, false); rep.Summary != "1 host: 1 exit 0" {
		t.Fatalf("after cancel: %+v", rep)
	}
	if n := d.Count("Accepted publickey"); n != 3 {
		t.Errorf("%d authentications, want 3", n)
	}
}
