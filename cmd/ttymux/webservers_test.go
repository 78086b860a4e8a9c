package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/agent"
)

// offerProbeEnv makes the test binary a client of a server's offer socket
// that tries everything a console may do (list, watch, type) and writes
// what it got to a file: "socket|out|session|mark".
const offerProbeEnv = "TTYMUX_TEST_OFFER_PROBE"

// probeOffer asks the server at sock for its list, to watch id and to
// type "touch mark" into it, one connection each, and returns every byte
// each answered, the three separated by "\n---\n".
func probeOffer(sock, id, mark string) []byte {
	var all [][]byte
	for _, req := range []string{`{"op":"list"}`, `{"op":"watch","id":"` + id + `","tail":65536}`, `{"op":"drive","id":"` + id + `"}`} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			all = append(all, []byte("dial: "+err.Error()))
			continue
		}
		c.Write([]byte(req + "\n"))
		if strings.Contains(req, "drive") {
			keys := []byte("touch " + mark + "\r")
			var h [5]byte
			h[0] = 'i'
			binary.BigEndian.PutUint32(h[1:], uint32(len(keys)))
			c.Write(append(h[:], keys...))
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		c.Close()
		all = append(all, b)
	}
	return append(bytes.Join(all, []byte("\n---\n")), "\n---done\n"...)
}

// runOfferProbe is the test binary as an offer probe (offerProbeEnv).
func runOfferProbe(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		return 2
	}
	if err := os.WriteFile(f[1], probeOffer(f[0], f[2], f[3]), 0o600); err != nil {
		return 1
	}
	return 0
}

// offerRig is a server (this process) offering its sessions on its
// socket, with a session the model drives.
type offerRig struct {
	dir, sock string
	mcp       *mcp.ClientSession
	target    OpenOut
}

func newOfferRig(t *testing.T) *offerRig {
	t.Helper()
	m := newTestManager(t)
	srv := newServer(m, nil)
	dir := filepath.Join(shortTempDir(t), "ttymux")
	sock := console.OfferPath(dir, os.Getpid())
	src := offerSource{managerSource{m}}
	of, err := console.ListenOffer(sock, console.OfferOptions{Source: src, Attached: src.Attached, Client: func() string { return clientName(srv) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { of.Close() })
	r := &offerRig{dir: dir, sock: sock, mcp: connect(t, srv, nil)}
	call(t, r.mcp, "open_local", map[string]any{"name": "target", "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &r.target)
	mustSend(t, r.mcp, map[string]any{"session_id": r.target.ID, "text": "echo secret-$((6*7))"})
	return r
}

// checkProbeRefused: what an untrusted probe got holds no session and no
// output, says why, and the keys it sent typed nothing.
func checkProbeRefused(t *testing.T, r *offerRig, got []byte, mark, why string) {
	t.Helper()
	parts := strings.Split(strings.TrimSuffix(string(got), "\n---done\n"), "\n---\n")
	if len(parts) != 3 {
		t.Fatalf("the probe got %q", got)
	}
	for i, p := range parts {
		if !strings.Contains(p, "not trusted") || !strings.Contains(p, why) {
			t.Errorf("request %d: want a refusal saying %q, got %q", i, why, p)
		}
		for _, leak := range []string{"target", "secret-42", `"sessions"`, `"session"`} {
			if strings.Contains(p, leak) {
				t.Errorf("request %d: an untrusted process got %q: %q", i, leak, p)
			}
		}
	}
	// The keys would have run by now: the model's next command comes after
	// them in the shell's input.
	mustSend(t, r.mcp, map[string]any{"session_id": r.target.ID, "text": "true"})
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("an untrusted process typed into the session")
	}
	var rd session.Result
	call(t, r.mcp, "read", map[string]any{"session_id": r.target.ID}, &rd)
	if strings.Contains(rd.Note, "person typed") {
		t.Fatalf("the model is told a person typed: %+v", rd)
	}
}

// TestOfferUntrusted: a server's sessions go only to the console the human
// started. On the server's offer socket python3 (not ttymux) and the
// ttymux binary started from inside one of the server's sessions (what the
// model could start) each ask to list, to watch and to type (keys that
// Session.HumanWrite would put past the gate): each gets one line saying
// it is not trusted, no session and no output, and nothing is typed. The
// trusted console (this process) lists, and types, through the same
// socket. With CheckPeer removed from Offer.handle both probes list the
// session and type into it.
func TestOfferUntrusted(t *testing.T) {
	r := newOfferRig(t)
	t.Run("python3", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not found")
		}
		mark := filepath.Join(t.TempDir(), "typed")
		out, err := exec.Command(py, "-c", `
import socket, struct, sys
sock, sid, mark = sys.argv[1:4]
res = []
for req in ['{"op":"list"}', '{"op":"watch","id":"%s","tail":65536}' % sid, '{"op":"drive","id":"%s"}' % sid]:
    s = socket.socket(socket.AF_UNIX); s.connect(sock); s.settimeout(5)
    data = b""
    try:
        s.sendall(req.encode() + b"\n")
        if "drive" in req:
            k = ("touch %s\r" % mark).encode()
            s.sendall(b"i" + struct.pack(">I", len(k)) + k)
        while True:
            b = s.recv(65536)
            if not b: break
            data += b
    except Exception as e:
        data += repr(e).encode()
    res.append(data); s.close()
sys.stdout.buffer.write(b"\n---\n".join(res) + b"\n---done\n")
`, r.sock, r.target.ID, mark).Output()
		if err != nil {
			t.Fatalf("python3: %v", err)
		}
		checkProbeRefused(t, r, out, mark, "not this ttymux binary")
	})
	t.Run("inside a session", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		var probe OpenOut
		call(t, r.mcp, "open_local", map[string]any{"name": "probe", "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &probe)
		mark, got := filepath.Join(t.TempDir(), "typed"), filepath.Join(t.TempDir(), "got")
		line := offerProbeEnv + "='" + strings.Join([]string{r.sock, got, r.target.ID, mark}, "|") + "' " + self
		mustSend(t, r.mcp, map[string]any{"session_id": probe.ID, "text": line, "timeout_ms": 30000})
		var b []byte
		testwait.Until(t, "the probe's report", 30*time.Second, func() bool {
			b, _ = os.ReadFile(got)
			return bytes.HasSuffix(b, []byte("---done\n"))
		})
		checkProbeRefused(t, r, b, mark, "runs inside a session")
	})
	t.Run("a fake server", func(t *testing.T) {
		// python3 on a server's socket, offering a session: the console
		// shows nothing of it (and would type nothing into it).
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not found")
		}
		cmd := exec.Command(py, "-c", `
import os, socket, sys
s = socket.socket(socket.AF_UNIX)
s.bind(os.path.join(sys.argv[1], "mcp-%d.sock" % os.getpid())); s.listen(4)
while True:
    c, _ = s.accept()
    c.recv(65536)
    c.sendall(b'{"server":{"pid":1},"sessions":[{"id":"s1","name":"fake","transport":"local","command":"sh","state":"prompt","clients":0,"rows":24,"cols":80,"created":"2026-01-01T00:00:00Z"}]}\n')
    c.close()
`, r.dir)
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
		waitSocket(t, console.OfferPath(r.dir, cmd.Process.Pid))
		v := &console.Servers{Dir: r.dir}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		l, _ := v.List(ctx)
		for _, s := range l {
			if s.Name == "fake" {
				t.Fatalf("the console lists a fake server's session: %+v", s)
			}
		}
		if why := v.Untrusted()[cmd.Process.Pid]; !strings.Contains(why, "not this ttymux binary") {
			t.Fatalf("the fake server is not reported: %q", why)
		}
	})
	t.Run("the console", func(t *testing.T) {
		v := &console.Servers{Dir: r.dir}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var id string
		for _, o := range v.Offers(ctx) {
			for _, s := range o.Sessions {
				if s.Name == "target" {
					id = s.ID
				}
			}
		}
		if id != r.target.ID+"@"+strconv.Itoa(os.Getpid()) {
			t.Fatalf("the trusted console lists %q, want %s@pid", id, r.target.ID)
		}
		st, err := v.Drive(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		mark := filepath.Join(t.TempDir(), "typed")
		if _, err := st.Write([]byte("touch " + mark + "\r")); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "the console's keys to run", humanWait, func() bool { _, err := os.Stat(mark); return err == nil })
	})
}

// webRig is the built ttymux web and the stdio servers a test starts, as
// a user runs them, sharing one private runtime directory.
type webRig struct {
	bin, runtime string
	env          []string
	url          string // the URL ttymux web printed
	base         string // its origin
	token        string
	webErr       *syncBuffer
}

func newWebRig(t *testing.T, env ...string) *webRig {
	t.Helper()
	r := &webRig{bin: ttymuxBinary(t), runtime: shortTempDir(t)}
	r.env = append(append(testEnv(t, r.runtime), "XDG_CONFIG_HOME="+t.TempDir(), "XDG_STATE_HOME="+t.TempDir()), env...)
	return r
}

// startWeb starts ttymux web with args and reads the URL it prints.
func (r *webRig) startWeb(t *testing.T, args ...string) {
	t.Helper()
	web := exec.Command(r.bin, append([]string{"web"}, args...)...)
	web.Env = r.env
	r.webErr = &syncBuffer{}
	web.Stderr = r.webErr
	out, err := web.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { web.Process.Signal(syscall.SIGTERM); web.Wait() })
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil || !strings.HasPrefix(line, "http://127.0.0.1:") {
		t.Fatalf("ttymux web printed %q (%v)\n%s", line, err, r.webErr.String())
	}
	r.url = strings.TrimSpace(line)
	base, tok, _ := strings.Cut(r.url, "/?token=")
	r.base, r.token = base, tok
}

// webServer is one ttymux mcp stdio server and its client.
type webServer struct {
	cmd *exec.Cmd
	cs  *mcp.ClientSession
	err *syncBuffer
}

// startServer starts ttymux mcp -no-agent for a client called client.
func (r *webRig) startServer(t *testing.T, client string) *webServer {
	t.Helper()
	return r.startServerArgs(t, client, "-no-agent")
}

// startServerArgs starts ttymux mcp with args for a client called client.
func (r *webRig) startServerArgs(t *testing.T, client string, args ...string) *webServer {
	t.Helper()
	s := &webServer{cmd: exec.Command(r.bin, append([]string{"mcp"}, args...)...), err: &syncBuffer{}}
	s.cmd.Env = r.env
	s.cmd.Stderr = s.err
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cs, err := mcp.NewClient(&mcp.Implementation{Name: client, Version: "1.0"}, nil).Connect(ctx, &mcp.CommandTransport{Command: s.cmd}, nil)
	if err != nil {
		t.Fatalf("connect: %v\n%s", err, s.err.String())
	}
	s.cs = cs
	t.Cleanup(func() { cs.Close() })
	return s
}

// sessions is ttymux web's list, as a page gets it.
func (r *webRig) sessions(t *testing.T) []console.Session {
	t.Helper()
	req, _ := http.NewRequest("GET", r.base+"/api/sessions", nil)
	req.Header.Set("Authorization", "Bearer "+r.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var l []console.Session
	if err := json.NewDecoder(resp.Body).Decode(&l); err != nil {
		t.Fatalf("the list: %v", err)
	}
	return l
}

// row waits until ttymux web lists a session named name and returns it.
func (r *webRig) row(t *testing.T, name string) console.Session {
	t.Helper()
	var row console.Session
	testwait.Until(t, "ttymux web to list "+name, humanWait, func() bool {
		for _, s := range r.sessions(t) {
			if s.Name == name {
				row = s
				return true
			}
		}
		return false
	})
	return row
}

// TestWebFindsServers: ttymux web lists the sessions of stdio servers,
// whichever started first, and follows them as they come and go: a
// console started after a server finds it; a server started after the
// console appears; a server that exits leaves the list, and its socket
// is gone; a killed one too (the console removes its socket). A server
// with the agent: its persistent session is listed once, as the
// agent's, saying which server uses it.
func TestWebFindsServers(t *testing.T) {
	r := newWebRig(t)
	a := r.startServer(t, "client-a")
	var early OpenOut
	if res := call(t, a.cs, "open_local", map[string]any{"name": "early"}, &early); res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	r.startWeb(t)
	pidA := a.cmd.Process.Pid
	row := r.row(t, "early")
	if row.ID != early.ID+"@"+strconv.Itoa(pidA) || row.Transport != "local" || !strings.Contains(row.Server, "pid "+strconv.Itoa(pidA)+" (client-a 1.0)") || row.LastOutput == "" {
		t.Fatalf("the row of a server started first: %+v", row)
	}
	b := r.startServer(t, "client-b")
	var late OpenOut
	call(t, b.cs, "open_local", map[string]any{"name": "late"}, &late)
	if row := r.row(t, "late"); !strings.Contains(row.Server, "client-b") {
		t.Fatalf("the row of a server started later: %+v", row)
	}
	a.cs.Close() // the client goes: its server exits (Close waits for it)
	testwait.Until(t, "the exited server's session to leave the list", humanWait, func() bool {
		for _, s := range r.sessions(t) {
			if s.Name == "early" {
				return false
			}
		}
		return true
	})
	if _, err := os.Lstat(console.OfferPath(filepath.Join(r.runtime, "ttymux"), pidA)); err == nil {
		t.Fatal("the exited server left its socket")
	}
	if l := r.sessions(t); len(l) != 1 || l[0].Name != "late" {
		t.Fatalf("the list after one server left: %+v", l)
	}
	// Killed, a server leaves its socket behind: the console skips it,
	// and removes it once no process has that pid.
	pidB := b.cmd.Process.Pid
	b.cmd.Process.Kill()
	b.cs.Close() // reaps it: a zombie still has its pid
	testwait.Until(t, "a killed server's session to leave the list, and its socket", humanWait, func() bool {
		_, err := os.Lstat(console.OfferPath(filepath.Join(r.runtime, "ttymux"), pidB))
		return len(r.sessions(t)) == 0 && err != nil
	})

	// A server with the agent: its persistent session is the agent's,
	// listed once, saying which server uses it.
	t.Cleanup(func() {
		stop := exec.Command(filepath.Join(filepath.Dir(r.bin), "ttymux-agent"), "stop", "--force")
		stop.Env = r.env
		_ = stop.Run() // best effort
	})
	c := r.startServerArgs(t, "client-c")
	var kept OpenOut
	if res := call(t, c.cs, "open_local", map[string]any{"name": "kept", "persistent": true}, &kept); res.IsError || !kept.Persistent {
		t.Fatalf("open_local persistent: %s\n%s", resultText(res), c.err.String())
	}
	testwait.Until(t, "the agent's session to say which server uses it", humanWait, func() bool {
		row := r.row(t, "kept")
		return strings.Contains(row.Server, "agent; used by ttymux mcp, pid "+strconv.Itoa(c.cmd.Process.Pid)+" (client-c 1.0)")
	})
	n := 0
	for _, s := range r.sessions(t) {
		if s.Name == "kept" {
			n++
			if s.ID != kept.ID {
				t.Fatalf("the agent's session is listed as %q, want %q", s.ID, kept.ID)
			}
		}
	}
	if n != 1 {
		t.Fatalf("the agent's session is listed %d times", n)
	}
}

// TestDoctorConsole: doctor's console line says whether a console is
// open, whether a server would trust it (python3 on its socket: a
// warning saying why), and how many servers offer it sessions.
func TestDoctorConsole(t *testing.T) {
	r := newWebRig(t)
	console1 := func(want ...string) {
		t.Helper()
		got, out, _ := runDoctor(t, r.bin, r.env)
		wantLines(t, got, out, map[string][]string{"console": want})
	}
	console1(statusOK, "not open", "0 server(s) offer it 0 session(s)")
	srv := r.startServer(t, "client-a")
	call(t, srv.cs, "open_local", map[string]any{"name": "one"}, nil)
	if py, err := exec.LookPath("python3"); err == nil {
		sock := filepath.Join(r.runtime, "ttymux", console.SocketName)
		fake := exec.Command(py, "-c", `
import socket, sys
s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.listen(4)
while True:
    c, _ = s.accept(); c.close()
`, sock)
		if err := fake.Start(); err != nil {
			t.Fatal(err)
		}
		waitSocket(t, sock)
		console1(statusWarn, "not trusted", "not this ttymux binary", "1 server(s) offer it 1 session(s)")
		fake.Process.Kill()
		fake.Wait()
		os.Remove(sock)
	}
	r.startWeb(t)
	waitSocket(t, filepath.Join(r.runtime, "ttymux", console.SocketName))
	console1(statusOK, "ttymux web is open", "trusted", "1 server(s) offer it 1 session(s)")
}

// TestWebRemoteAgentSession: a session a server keeps in a remote agent
// (open_ssh persistent: true; sshd on loopback, the agent deployed over
// it) is listed by ttymux web's source (the servers' offers joined with a
// local agent that is not running) as host/sN@pid, its page shows the
// model's output, and a person takes it over and types into it; the
// model's next read says so.
func TestWebRemoteAgentSession(t *testing.T) {
	h := newRemoteHost(t)
	m := h.manager(t)
	srv := newServer(m, nil)
	dir := filepath.Join(shortTempDir(t), "ttymux")
	src := offerSource{managerSource{m}}
	of, err := console.ListenOffer(console.OfferPath(dir, os.Getpid()), console.OfferOptions{Source: src, Attached: src.Attached, Client: func() string { return clientName(srv) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { of.Close() })
	noAgent := &agent.Client{Socket: filepath.Join(shortTempDir(t), "agent.sock")}
	cons := console.New(console.Options{Source: console.WithServers(agentSource{noAgent}, &console.Servers{Dir: dir}), Token: testToken, Poll: 50 * time.Millisecond})
	hs := httptest.NewServer(cons)
	t.Cleanup(hs.Close)
	t.Cleanup(cons.Close)
	r := &ownRig{consoleRig: &consoleRig{srv: hs, cs: cons}, mcp: connect(t, srv, nil)}
	r.b = r.loggedIn(t)

	var open OpenOut
	if res := call(t, r.mcp, "open_ssh", map[string]any{"host": "box", "persistent": true, "name": "far"}, &open); res.IsError || !open.Persistent || !strings.HasPrefix(open.ID, "box/") {
		t.Fatalf("open_ssh persistent: %s\n%s", resultText(res), h.sshd.Log())
	}
	id := open.ID + "@" + strconv.Itoa(os.Getpid())
	if row := r.listed(t, id); row.Name != "far" || row.Transport != "ssh" || !strings.HasPrefix(row.Server, "ttymux mcp, pid ") {
		t.Fatalf("the remote agent's row: %+v", row)
	}
	page := r.stream(t, id)
	mustSend(t, r.mcp, map[string]any{"session_id": open.ID, "text": "echo model-$((2*3))"})
	page.waitFor(t, "the page", "model-6")
	r.takeOverAndType(t, id, "echo far-$((6*7))\r", "far-42", page)
	if rd := r.personNote(t, open.ID); !strings.Contains(rd.Note, "a person typed") {
		t.Fatalf("the read after the person's command: %+v", rd)
	}
}

// TestOfferFromFirstToolCall: a server listens on its offer socket from
// its first tool call on, not at start-up, where the client waits for its
// tools/list answer (issue #37): no socket after initialize and tools/list,
// the socket once a tool call has returned, and none after the server
// exits.
func TestOfferFromFirstToolCall(t *testing.T) {
	r := newWebRig(t)
	s := r.startServer(t, "client-a")
	sock := console.OfferPath(filepath.Join(r.runtime, "ttymux"), s.cmd.Process.Pid)
	if _, err := s.cs.ListTools(t.Context(), nil); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Lstat(sock); err == nil {
		t.Fatal("the server offers its sessions before any tool call")
	}
	call(t, s.cs, "list", map[string]any{}, nil)
	if fi, err := os.Lstat(sock); err != nil || fi.Mode().Type() != os.ModeSocket {
		t.Fatalf("no offer socket after a tool call: %v", err)
	}
	s.cs.Close() // waits for the server to exit
	if _, err := os.Lstat(sock); err == nil {
		t.Fatal("the exited server left its socket")
	}
}
