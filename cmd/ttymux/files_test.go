package main

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

func sha(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

func randomBytes(n int) []byte {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return b
}

// sendOK sends text and fails unless it completed.
func sendOK(t *testing.T, cs *mcp.ClientSession, id, text string) session.Result {
	t.Helper()
	var r session.Result
	if res := call(t, cs, "send", map[string]any{"session_id": id, "text": text}, &r); res.IsError {
		t.Fatalf("send %q: %s", text, resultText(res))
	}
	if !r.Complete {
		t.Fatalf("send %q did not complete: %+v", text, r)
	}
	return r
}

// cdSync changes the session's directory and waits until pwd shows it: on
// a loaded machine a remote shell's late first prompt can end a send early.
func cdSync(t *testing.T, cs *mcp.ClientSession, id, dir string) {
	t.Helper()
	sendOK(t, cs, id, "cd "+dir)
	for i := 0; ; i++ {
		if r := sendOK(t, cs, id, "pwd"); r.Output == dir {
			return
		}
		if i == 10 {
			t.Fatalf("pwd never showed %s", dir)
		}
	}
}

// TestFilesLocal drives upload and download through MCP into a local
// session: relative paths land in the shell's directory after cd (reported
// by the hook's OSC 7), overwrite is enforced, a missing file is a clear
// error, content comes back for small text only, and the bytes of a
// local_path transfer are never in a result.
func TestFilesLocal(t *testing.T) {
	cs := newTestClient(t)
	id := openLocal(t, cs)
	dir := t.TempDir()
	work := filepath.Join(dir, "work")
	if err := os.Mkdir(work, 0o755); err != nil {
		t.Fatal(err)
	}
	sendOK(t, cs, id, "cd "+work)

	var out FileOut
	res := call(t, cs, "upload", map[string]any{"session_id": id, "path": "notes.txt", "content": "hello files\n"}, &out)
	if res.IsError {
		t.Fatalf("upload content: %s", resultText(res))
	}
	if out.Via != "local" || out.Path != filepath.Join(work, "notes.txt") || out.Bytes != 12 || out.SHA256 != sha([]byte("hello files\n")) {
		t.Fatalf("upload result %+v", out)
	}
	if b, _ := os.ReadFile(filepath.Join(work, "notes.txt")); string(b) != "hello files\n" {
		t.Fatalf("file holds %q", b)
	}
	// The shell sees it where it is.
	if r := sendOK(t, cs, id, "cat notes.txt"); r.Output != "hello files" {
		t.Fatalf("cat: %q", r.Output)
	}

	// Overwrite is enforced.
	res = call(t, cs, "upload", map[string]any{"session_id": id, "path": "notes.txt", "content": "other\n"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "overwrite") {
		t.Fatalf("upload over a file without overwrite: %s", resultText(res))
	}
	res = call(t, cs, "upload", map[string]any{"session_id": id, "path": "notes.txt", "content": "other\n", "overwrite": true, "mode": "0600"}, &out)
	if res.IsError {
		t.Fatalf("upload with overwrite: %s", resultText(res))
	}
	if fi, _ := os.Stat(filepath.Join(work, "notes.txt")); fi.Mode().Perm() != 0o600 {
		t.Errorf("mode %v", fi.Mode())
	}

	// A binary file by local_path, up and back: never in a result.
	data := randomBytes(300 << 10)
	marker := []byte("TTYMUX-SECRET-MARKER")
	copy(data[1000:], marker)
	src := filepath.Join(dir, "blob.bin")
	if err := os.WriteFile(src, data, 0o755); err != nil {
		t.Fatal(err)
	}
	res = call(t, cs, "upload", map[string]any{"session_id": id, "path": "blob.bin", "local_path": src}, &out)
	if res.IsError || out.SHA256 != sha(data) {
		t.Fatalf("upload local_path: %s %+v", resultText(res), out)
	}
	noContent(t, res, marker)
	back := filepath.Join(dir, "back.bin")
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "blob.bin", "local_path": back}, &out)
	if res.IsError || out.SHA256 != sha(data) {
		t.Fatalf("download local_path: %s %+v", resultText(res), out)
	}
	noContent(t, res, marker)
	if b, _ := os.ReadFile(back); !bytes.Equal(b, data) {
		t.Fatal("downloaded bytes differ")
	}
	if fi, _ := os.Stat(back); fi.Mode().Perm() != 0o755 {
		t.Errorf("downloaded mode %v, want 0755", fi.Mode())
	}

	// Content downloads: text only.
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "notes.txt"}, &out)
	if res.IsError || out.Content != "other\n" {
		t.Fatalf("download content: %s %+v", resultText(res), out)
	}
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "blob.bin"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "local_path") {
		t.Fatalf("download of a binary file as content: %s", resultText(res))
	}
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "missing.txt", "local_path": filepath.Join(dir, "m")}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "no such file") || !strings.Contains(resultText(res), filepath.Join(work, "missing.txt")) {
		t.Fatalf("download of a missing file: %s", resultText(res))
	}
	t.Logf("missing: %s", resultText(res))
	if _, err := os.Stat(filepath.Join(dir, "m")); err == nil {
		t.Error("a failed download left a file")
	}
	// The session is undisturbed.
	if r := sendOK(t, cs, id, "echo ok"); r.Output != "ok" {
		t.Fatalf("echo ok: %q", r.Output)
	}
}

func noContent(t *testing.T, res *mcp.CallToolResult, marker []byte) {
	t.Helper()
	b, _ := json.Marshal(res)
	if bytes.Contains(b, marker) || len(b) > 2000 {
		t.Fatalf("a local_path result carries the file (%d bytes): %.300s", len(b), b)
	}
}

// sshFixture is a loopback OpenSSH sshd with an sftp subsystem reachable as
// "target" (directly) and as "inner" through the jump host "bastion", and an
// MCP client whose server has the SSH transport.
type sshFixture struct {
	cs     *mcp.ClientSession
	mu     sync.Mutex
	prog   []string // progress messages
	onProg func()
	target *sshdtest.SSHD
	cfg    string
	home   string
}

func newSSHFixture(t testing.TB, sshdConfig ...string) *sshFixture {
	t.Helper()
	conf := append([]string{"Subsystem sftp /usr/lib/openssh/sftp-server"}, sshdConfig...)
	if len(sshdConfig) > 0 && sshdConfig[0] == "nosftp" {
		conf = nil
	}
	jump := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	target := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: conf})
	cfg, home := sshClientHome(t, []*sshdtest.SSHD{jump, target}, func(known string) string {
		return jump.ConfigBlock("bastion", known) + target.ConfigBlock("target", known) + target.ConfigBlock("inner", known, "ProxyJump bastion")
	})
	m := session.NewManager(session.Options{
		Kinds:    sshKinds(cfg, home),
		StateDir: t.TempDir(),
		Shell:    "/bin/bash",
		NoRC:     true,
		// A slow ~/.bashrc on the test machine must not leave the remote
		// shell without its hook.
		ReadyTimeout: 30 * time.Second,
	})
	t.Cleanup(m.CloseAll)
	f := &sshFixture{target: target, cfg: cfg, home: home}
	f.cs = connect(t, newServer(m, nil), &mcp.ClientOptions{
		ProgressNotificationHandler: func(_ context.Context, req *mcp.ProgressNotificationClientRequest) {
			f.mu.Lock()
			f.prog = append(f.prog, req.Params.Message)
			fn := f.onProg
			f.mu.Unlock()
			if fn != nil {
				fn()
			}
		},
	})
	return f
}

// nestedSSH types `ssh target` into the local session id, to a bash in
// dir on the far side, and waits for its prompt. ssh's own log (-v -E) is
// shown when it does not get there.
func (f *sshFixture) nestedSSH(t *testing.T, id, dir string) {
	t.Helper()
	log := filepath.Join(t.TempDir(), "ssh.log")
	var r session.Result
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(log)
			t.Logf("ssh's log:\n%s\nsshd's log:\n%s", b, f.target.Log())
		}
	})
	res := call(t, f.cs, "send", map[string]any{"session_id": id,
		"text":       "ssh -v -E " + log + " -F " + f.cfg + " -t target \"cd " + dir + " && PS1='far\\$ ' exec bash --norc --noprofile\"",
		"until":      `far\$ $`,
		"timeout_ms": 60000}, &r)
	if res.IsError || !r.Complete {
		b, _ := os.ReadFile(log)
		t.Fatalf("ssh: %s\nssh's log:\n%s\nsshd's log:\n%s", resultText(res), b, f.target.Log())
	}
}

func (f *sshFixture) progress() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.prog...)
}

// TestFilesSSH: 50 MB up and down over SFTP on the session's own pooled
// connection (no second login), directly and through a ProxyJump, with
// progress notifications; a relative path lands in the remote shell's
// directory after cd; a cancelled upload leaves nothing behind.
func TestFilesSSH(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB transfers")
	}
	f := newSSHFixture(t)
	dir := t.TempDir()
	data := randomBytes(50 << 20)
	src := filepath.Join(dir, "big.bin")
	if err := os.WriteFile(src, data, 0o640); err != nil {
		t.Fatal(err)
	}
	for _, host := range []string{"target", "inner"} {
		t.Run(host, func(t *testing.T) {
			var open OpenOut
			if res := call(t, f.cs, "open_ssh", map[string]any{"host": host}, &open); res.IsError {
				t.Fatalf("open_ssh: %s", resultText(res))
			}
			logins := f.target.Count("Accepted publickey")
			remote := t.TempDir()
			cdSync(t, f.cs, open.ID, remote)

			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			params := &mcp.CallToolParams{Name: "upload", Arguments: map[string]any{
				"session_id": open.ID, "path": "big.bin", "local_path": src,
			}}
			params.SetProgressToken("up-" + host)
			res, err := f.cs.CallTool(ctx, params)
			if err != nil || res.IsError {
				t.Fatalf("upload: %v %s", err, resultText(res))
			}
			var out FileOut
			b, _ := json.Marshal(res.StructuredContent)
			_ = json.Unmarshal(b, &out)
			if out.Via != "sftp" || out.Path != filepath.Join(remote, "big.bin") || out.SHA256 != sha(data) {
				t.Fatalf("upload result %+v", out)
			}
			t.Logf("upload 50 MB via %s: %d ms", out.Via, out.ElapsedMS)
			if p := f.progress(); len(p) == 0 || !strings.Contains(p[len(p)-1], "of 52.4 MB") {
				t.Errorf("progress notifications: %q", p)
			}
			got, _ := os.ReadFile(filepath.Join(remote, "big.bin"))
			if sha(got) != sha(data) {
				t.Fatal("uploaded file differs")
			}
			back := filepath.Join(dir, "back-"+host)
			res = call(t, f.cs, "download", map[string]any{"session_id": open.ID, "path": "big.bin", "local_path": back}, &out)
			if res.IsError || out.SHA256 != sha(data) {
				t.Fatalf("download: %s", resultText(res))
			}
			t.Logf("download 50 MB via %s: %d ms", out.Via, out.ElapsedMS)
			if got, _ := os.ReadFile(back); !bytes.Equal(got, data) {
				t.Fatal("downloaded file differs")
			}
			if n := f.target.Count("Accepted publickey"); n != logins {
				t.Errorf("transfers logged in again: %d logins, were %d", n, logins)
			}
			// A host without a session uses the same pool.
			res = call(t, f.cs, "download", map[string]any{"host": host, "path": filepath.Join(remote, "big.bin"), "local_path": back + ".2"}, &out)
			if res.IsError || out.SHA256 != sha(data) {
				t.Fatalf("download by host: %s", resultText(res))
			}
			if n := f.target.Count("Accepted publickey"); n != logins {
				t.Errorf("a host transfer logged in again: %d logins, were %d", n, logins)
			}
		})
	}
}

// TestFilesInbandNestedSSH: `ssh` typed into a local session reaches a bash
// on the loopback sshd; a 1 MB binary file goes up and back through the
// terminal (the session's foreground program is ssh, so auto picks inband),
// sha256 equal, and the next send returns only its own output.
func TestFilesInbandNestedSSH(t *testing.T) {
	f := newSSHFixture(t)
	cs := f.cs
	id := openLocal(t, cs)
	far := t.TempDir()
	f.nestedSSH(t, id, far)
	var r session.Result
	var res *mcp.CallToolResult
	var info session.Info
	var list ListOut
	call(t, cs, "list", map[string]any{}, &list)
	for _, i := range list.Sessions {
		if i.ID == id {
			info = i
		}
	}
	t.Logf("session: state %s, foreground %s", info.State, info.Foreground)

	dir := t.TempDir()
	data := randomBytes(1 << 20)
	src := filepath.Join(dir, "up.bin")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out FileOut
	res = call(t, cs, "upload", map[string]any{"session_id": id, "path": "up.bin", "local_path": src}, &out)
	if res.IsError {
		t.Fatalf("upload: %s", resultText(res))
	}
	t.Logf("upload: %+v", out)
	if out.Via != "inband" || out.SHA256 != sha(data) || out.Path != filepath.Join(far, "up.bin") {
		t.Fatalf("upload result %+v", out)
	}
	if got, _ := os.ReadFile(filepath.Join(far, "up.bin")); !bytes.Equal(got, data) {
		t.Fatal("uploaded file differs")
	}
	back := filepath.Join(dir, "back.bin")
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "up.bin", "local_path": back}, &out)
	if res.IsError {
		t.Fatalf("download: %s", resultText(res))
	}
	t.Logf("download: %+v", out)
	if got, _ := os.ReadFile(back); !bytes.Equal(got, data) || out.Path != filepath.Join(far, "up.bin") {
		t.Fatalf("downloaded file differs, or path %q", out.Path)
	}
	res = call(t, cs, "send", map[string]any{"session_id": id, "text": "echo ok"}, &r)
	if res.IsError || r.Output != "ok" {
		t.Fatalf("echo ok after the transfers: %q (%s)", r.Output, resultText(res))
	}
	// Overwrite is enforced inband too; a missing file is a clear error.
	res = call(t, cs, "upload", map[string]any{"session_id": id, "path": "up.bin", "content": "x"}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "overwrite") {
		t.Fatalf("inband upload over a file: %s", resultText(res))
	}
	res = call(t, cs, "download", map[string]any{"session_id": id, "path": "nope.bin", "local_path": filepath.Join(dir, "n")}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "no such file") {
		t.Fatalf("inband download of a missing file: %s", resultText(res))
	}
	res = call(t, cs, "send", map[string]any{"session_id": id, "text": "echo ok"}, &r)
	if res.IsError || r.Output != "ok" {
		t.Fatalf("echo ok after the errors: %q (%s)", r.Output, resultText(res))
	}
}

// TestFilesInbandFarSSHDStalls: an inband upload through `ssh` typed into
// a local session while the far sshd stalls, again and again, as on a busy
// host. Each stall lets a chunk pile up in the far sshd, which then writes
// it to the far terminal in one go and, echo being off, answers with an
// ignore packet of that size: a chunk typed as more than 256 KiB made a
// packet the ssh client refuses ("Bad packet length"), and ssh exited 255
// mid-upload. The file arrives whole and ssh lives on.
func TestFilesInbandFarSSHDStalls(t *testing.T) {
	f := newSSHFixture(t)
	id := openLocal(t, f.cs)
	far := t.TempDir()
	f.nestedSSH(t, id, far)
	data := randomBytes(1 << 20)
	src := filepath.Join(t.TempDir(), "up.bin")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	pids := f.farSSHDPids(t)
	signal := func(sig syscall.Signal) {
		for _, p := range pids {
			_ = syscall.Kill(p, sig)
		}
	}
	done := make(chan struct{})
	stalled := make(chan struct{})
	go func() {
		defer close(stalled)
		defer signal(syscall.SIGCONT)
		for {
			signal(syscall.SIGSTOP)
			select { // the stall: input piles up in the far sshd's socket
			case <-done:
				return
			case <-time.After(300 * time.Millisecond):
			}
			signal(syscall.SIGCONT)
			select {
			case <-done:
				return
			case <-time.After(50 * time.Millisecond):
			}
		}
	}()
	var out FileOut
	res := call(t, f.cs, "upload", map[string]any{"session_id": id, "path": "up.bin", "local_path": src}, &out)
	close(done)
	<-stalled
	if res.IsError || out.Via != "inband" || out.SHA256 != sha(data) {
		t.Fatalf("upload while the far sshd stalls: %s", resultText(res))
	}
	if got, _ := os.ReadFile(filepath.Join(far, "up.bin")); !bytes.Equal(got, data) {
		t.Fatal("uploaded file differs")
	}
	var r session.Result
	res = call(t, f.cs, "send", map[string]any{"session_id": id, "text": "echo $PS1"}, &r)
	if res.IsError || r.Output != "far$" {
		t.Fatalf("the far shell after the upload: %q (%s)", r.Output, resultText(res))
	}
}

// farSSHDPids returns the per-connection sshd processes of the nested
// ssh: the listener's children and, where privilege separation forked
// one, theirs that are sshd (the far shell goes on).
func (f *sshFixture) farSSHDPids(t *testing.T) []int {
	t.Helper()
	var pids []int
	for _, p := range f.target.ConnectionPids() {
		pids = append(pids, p)
		for _, c := range sshdtest.ChildPids(p) {
			if b, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(c), "comm")); strings.TrimSpace(string(b)) == "sshd" {
				pids = append(pids, c)
			}
		}
	}
	if len(pids) == 0 {
		t.Fatal("no far sshd process for the nested ssh's connection")
	}
	return pids
}

// TestFilesInbandNestedSSHDies: the nested ssh an inband upload goes
// through dies mid-upload (its far sshd killed). The upload fails as soon
// as the session's shell prints its prompt, saying so (not after the
// 30 s wait for an answer); the data typed ahead that the shell then
// reads runs nothing there (comment lines) and stays out of the session's
// output; the session's verdict sees ssh's end: the next send runs in the
// session's own shell.
func TestFilesInbandNestedSSHDies(t *testing.T) {
	f := newSSHFixture(t)
	id := openLocal(t, f.cs)
	far := t.TempDir()
	f.nestedSSH(t, id, far)
	pids := f.farSSHDPids(t)
	src := filepath.Join(t.TempDir(), "up.bin")
	if err := os.WriteFile(src, randomBytes(16<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	type answer struct {
		res *mcp.CallToolResult
		err error
	}
	got := make(chan answer, 1)
	go func() {
		res, err := f.cs.CallTool(t.Context(), &mcp.CallToolParams{Name: "upload",
			Arguments: map[string]any{"session_id": id, "path": "up.bin", "local_path": src}})
		got <- answer{res, err}
	}()
	// The far side has answered, and the upload is under way, once its
	// partial file has data.
	deadline := time.Now().Add(60 * time.Second)
	for {
		m, _ := filepath.Glob(filepath.Join(far, ".up.bin.ttymux-*.part"))
		if fi, err := os.Stat(strings.Join(m, "")); len(m) == 1 && err == nil && fi.Size() > 0 {
			break
		}
		select {
		case a := <-got:
			t.Fatalf("upload ended before its partial file was seen: %v %s", a.err, resultText(a.res))
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatal("no data in a partial file on the far side within 60 s")
		}
	}
	for _, p := range pids {
		_ = syscall.Kill(p, syscall.SIGKILL)
	}
	var a answer
	select {
	case a = <-got:
	case <-time.After(90 * time.Second):
		t.Fatal("upload still running 90 s after the far sshd was killed")
	}
	if a.err != nil {
		t.Fatal(a.err)
	}
	if text := resultText(a.res); !a.res.IsError || !strings.Contains(text, "came back to a shell prompt mid-transfer") || !strings.Contains(text, "exited 255") {
		t.Fatalf("upload through a dead nested ssh: %s", text)
	}
	t.Logf("upload: %s", resultText(a.res))
	var r session.Result
	res := call(t, f.cs, "send", map[string]any{"session_id": id, "text": "echo near-$((6*7))"}, &r)
	t.Logf("send: %s", resultText(res))
	if res.IsError || !r.Complete || r.Output != "near-42" {
		t.Fatalf("the session's shell after the upload failed: %+v (%s)", r, resultText(res))
	}
	if r.Earlier != nil && strings.Contains(r.Earlier.Output, " #") {
		t.Fatalf("the lines the upload typed ahead reached the session's output: %s", r.Earlier.Output)
	}
}

// TestFilesModem sends 64 KiB to lrzsz receivers on the far side of a
// fake serial device (a socat PTY pair): rb --ymodem, rx -c (XMODEM-1K with
// CRC-16) and rx (classic XMODEM with 8-bit checksums).
func TestFilesModem(t *testing.T) {
	for _, tool := range []string{"socat", "rb", "rx"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s missing: CI installs socat and lrzsz", tool)
			}
			t.Skipf("%s missing: apt-get install socat lrzsz", tool)
		}
	}
	data := randomBytes(64 << 10)
	src := filepath.Join(t.TempDir(), "fw.bin")
	if err := os.WriteFile(src, data, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, protocol, recv string
	}{
		{"ymodem", "ymodem", "rb --ymodem -q"},
		{"xmodem-1k-crc", "xmodem", "rx -q -c fw.bin"},
		{"xmodem-checksum", "xmodem", "rx -q fw.bin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := session.NewManager(session.Options{
				Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
				StateDir: t.TempDir(),
			})
			t.Cleanup(m.CloseAll)
			cs := connect(t, newServer(m, nil), nil)
			dir := t.TempDir()
			dev := filepath.Join(dir, "ttyFAKE")
			cmd := exec.Command("socat", "pty,rawer,echo=0,link="+dev, "exec:"+tc.recv+",pty,rawer,echo=0")
			cmd.Dir = dir
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			done := make(chan error, 1)
			go func() { done <- cmd.Wait() }()
			t.Cleanup(func() {
				_ = cmd.Process.Kill()
				<-done
			})
			for i := 0; ; i++ {
				if _, err := os.Stat(dev); err == nil {
					break
				}
				if i > 500 {
					t.Fatal("socat made no device")
				}
				time.Sleep(10 * time.Millisecond)
			}
			var open OpenOut
			if res := call(t, cs, "open_serial", map[string]any{"port": dev, "reconnect": false}, &open); res.IsError {
				t.Fatalf("open_serial: %s", resultText(res))
			}
			var out FileOut
			res := call(t, cs, "upload", map[string]any{"session_id": open.ID, "path": "fw.bin", "local_path": src, "protocol": tc.protocol}, &out)
			if res.IsError {
				t.Fatalf("upload: %s", resultText(res))
			}
			t.Logf("%s: %+v", tc.name, out)
			if out.Via != tc.protocol || out.Bytes != int64(len(data)) || out.SHA256 != sha(data) {
				t.Fatalf("result %+v", out)
			}
			select {
			case <-done:
				done <- nil
			case <-time.After(20 * time.Second):
				t.Fatal("the receiver did not finish")
			}
			got, err := os.ReadFile(filepath.Join(dir, "fw.bin"))
			if err != nil || !bytes.Equal(got, data) {
				t.Fatalf("received %d bytes (%v), want the %d sent", len(got), err, len(data))
			}
		})
	}
}

// TestFilesCwdByPwd: a shell without ttymux's hook (sh) reports no OSC 7;
// at its prompt the session asks it with pwd, so a relative path still
// lands in the directory it was cd'ed to.
func TestFilesCwdByPwd(t *testing.T) {
	cs := newTestClient(t)
	var open OpenOut
	if res := call(t, cs, "open_local", map[string]any{"command": "/bin/sh", "env": map[string]string{"PS1": "$ "}}, &open); res.IsError {
		t.Fatalf("open_local sh: %s", resultText(res))
	}
	dir := t.TempDir()
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "cd " + dir}, &r)
	var out FileOut
	res := call(t, cs, "upload", map[string]any{"session_id": open.ID, "path": "a.txt", "content": "A\n"}, &out)
	if res.IsError || out.Path != filepath.Join(dir, "a.txt") {
		t.Fatalf("upload: %s %+v", resultText(res), out)
	}
	if b, _ := os.ReadFile(filepath.Join(dir, "a.txt")); string(b) != "A\n" {
		t.Fatalf("file holds %q", b)
	}
}

// TestFilesInbandSerialShell: a shell on a serial console (a socat PTY
// pair whose far side runs sh): a file up and back through the console.
func TestFilesInbandSerialShell(t *testing.T) {
	if _, err := exec.LookPath("socat"); err != nil {
		t.Skip("socat missing")
	}
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	dir := t.TempDir()
	dev := filepath.Join(dir, "ttyCONSOLE")
	cmd := exec.Command("socat", "pty,rawer,echo=0,link="+dev, "exec:sh -i,pty,stderr,setsid,sigint,sane")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "PS1=# ", "ENV=")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	for i := 0; ; i++ {
		if _, err := os.Stat(dev); err == nil {
			break
		}
		if i > 500 {
			t.Fatal("socat made no device")
		}
		time.Sleep(10 * time.Millisecond)
	}
	var open OpenOut
	if res := call(t, cs, "open_serial", map[string]any{"port": dev, "reconnect": false}, &open); res.IsError {
		t.Fatalf("open_serial: %s", resultText(res))
	}
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "cd " + dir, "until": `# $`}, &r)
	data := randomBytes(100 << 10)
	src := filepath.Join(t.TempDir(), "up.bin")
	if err := os.WriteFile(src, data, 0o600); err != nil {
		t.Fatal(err)
	}
	var out FileOut
	res := call(t, cs, "upload", map[string]any{"session_id": open.ID, "path": "up.bin", "local_path": src}, &out)
	if res.IsError || out.Via != "inband" || out.SHA256 != sha(data) {
		t.Fatalf("upload: %s %+v", resultText(res), out)
	}
	t.Logf("upload: %+v", out)
	if got, _ := os.ReadFile(filepath.Join(dir, "up.bin")); !bytes.Equal(got, data) {
		t.Fatal("uploaded file differs")
	}
	back := filepath.Join(t.TempDir(), "back.bin")
	res = call(t, cs, "download", map[string]any{"session_id": open.ID, "path": "up.bin", "local_path": back}, &out)
	if res.IsError {
		t.Fatalf("download: %s", resultText(res))
	}
	if got, _ := os.ReadFile(back); !bytes.Equal(got, data) {
		t.Fatal("downloaded file differs")
	}
	// The shell's prompt after the download can reach the server after the
	// transfer returned (a loaded machine): take it first if it comes, so
	// that it is not the next command's output.
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": `# $`, "timeout_ms": 2000}, nil)
	res = call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo ok", "until": `# $`}, &r)
	if res.IsError || strings.TrimSpace(strings.TrimSuffix(r.Output, "# ")) != "ok" {
		t.Fatalf("echo ok after the transfers: %q", r.Output)
	}
}

// TestFilesSSHCancelled: a 50 MB upload cancelled by the client (at its
// first progress notification) leaves no partial file on the host.
func TestFilesSSHCancelled(t *testing.T) {
	if testing.Short() {
		t.Skip("50 MB transfer")
	}
	f := newSSHFixture(t)
	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, randomBytes(50<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	remote := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.mu.Lock()
	f.onProg = cancel
	f.mu.Unlock()
	params := &mcp.CallToolParams{Name: "upload", Arguments: map[string]any{"host": "target", "path": filepath.Join(remote, "big.bin"), "local_path": src}}
	params.SetProgressToken("cancel-me")
	_, err := f.cs.CallTool(ctx, params)
	if err == nil {
		t.Fatal("the cancelled upload returned a result")
	}
	// The server removes the partial file as the call unwinds.
	var ents []os.DirEntry
	if !testwait.Poll(t.Context(), 60*time.Second, func() bool { ents, _ = os.ReadDir(remote); return len(ents) == 0 }) {
		t.Fatalf("a cancelled upload left %v", ents)
	}
	// And the next transfer on the same connection works.
	var out FileOut
	if res := call(t, f.cs, "upload", map[string]any{"host": "target", "path": filepath.Join(remote, "small.txt"), "content": "ok\n"}, &out); res.IsError {
		t.Fatalf("upload after the cancel: %s", resultText(res))
	}
}

// TestFilesPersistentRemote: a persistent SSH session (held by the agent
// deployed on the host) moves files over its host's pooled connection,
// with no second login, and relative paths follow the shell's cd.
func TestFilesPersistentRemote(t *testing.T) {
	h := newRemoteHost(t)
	_, do := h.server(t)
	var open OpenOut
	do("open_ssh", map[string]any{"host": "box", "persistent": true}, &open)
	if !open.Persistent {
		t.Fatalf("not persistent: %+v", open)
	}
	logins := h.sshd.Count("Accepted publickey")
	remote := t.TempDir()
	var r session.Result
	do("send", map[string]any{"session_id": open.ID, "text": "cd " + remote}, &r)
	// On a loaded machine the first prompt of the remote shell may come
	// late and end the first send early: wait until pwd shows the cd.
	for i := 0; ; i++ {
		do("send", map[string]any{"session_id": open.ID, "text": "pwd"}, &r)
		if r.Output == remote {
			break
		}
		if i == 10 {
			t.Fatalf("pwd: %+v", r)
		}
	}
	var out FileOut
	do("upload", map[string]any{"session_id": open.ID, "path": "p.txt", "content": "persistent\n"}, &out)
	if out.Via != "sftp" || out.Path != filepath.Join(remote, "p.txt") {
		t.Fatalf("upload: %+v", out)
	}
	do("download", map[string]any{"session_id": open.ID, "path": "p.txt"}, &out)
	if out.Content != "persistent\n" {
		t.Fatalf("download: %+v", out)
	}
	if n := h.sshd.Count("Accepted publickey"); n != logins {
		t.Errorf("transfers logged in again: %d logins, were %d", n, logins)
	}
}

// TestFilesInbandCancelled: an inband upload cancelled by the client types
// ctrl+c; the far side's trap removes the partial file and restores the
// terminal, and the shell then answers as before.
func TestFilesInbandCancelled(t *testing.T) {
	f := newSSHFixture(t)
	cs := f.cs
	id := openLocal(t, cs)
	far := t.TempDir()
	f.nestedSSH(t, id, far)
	var r session.Result
	var res *mcp.CallToolResult
	src := filepath.Join(t.TempDir(), "big.bin")
	if err := os.WriteFile(src, randomBytes(20<<20), 0o600); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	f.mu.Lock()
	f.onProg = cancel
	f.mu.Unlock()
	params := &mcp.CallToolParams{Name: "upload", Arguments: map[string]any{"session_id": id, "path": "big.bin", "local_path": src}}
	params.SetProgressToken("cancel-inband")
	if _, err := cs.CallTool(ctx, params); err == nil {
		t.Fatal("the cancelled upload returned a result")
	}
	f.mu.Lock()
	f.onProg = nil
	f.mu.Unlock()
	// The next send waits for the terminal to come back.
	for i := 0; ; i++ {
		res = call(t, cs, "send", map[string]any{"session_id": id, "text": "echo ok"}, &r)
		if !res.IsError && r.Output == "ok" {
			t.Logf("echo ok after %d tries", i+1)
			break
		}
		t.Logf("echo ok: %q", r.Output)
		if i == 5 {
			t.Fatalf("echo ok after the cancel: %q (%s)", r.Output, resultText(res))
		}
	}
	if ents, _ := os.ReadDir(far); len(ents) != 0 {
		t.Fatalf("the cancelled upload left %v", ents)
	}
}
