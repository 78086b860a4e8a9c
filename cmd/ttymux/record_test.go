package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/creack/pty"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/serial"
)

// recEvent is one event of an asciicast v2 recording.
type recEvent struct {
	At   float64
	Code string
	Data string
}

// readRecording parses a recording strictly (valid UTF-8, a v2 header, then
// [number, string, string] lines) and returns its header and events.
func readRecording(t *testing.T, path string) (map[string]any, []recEvent) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) || len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("%s: not valid UTF-8 lines", path)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var h map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h["version"] != float64(2) {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	var evs []recEvent
	for i, l := range lines[1:] {
		var raw []json.RawMessage
		var ev recEvent
		if json.Unmarshal([]byte(l), &raw) != nil || len(raw) != 3 ||
			json.Unmarshal(raw[0], &ev.At) != nil || json.Unmarshal(raw[1], &ev.Code) != nil || json.Unmarshal(raw[2], &ev.Data) != nil {
			t.Fatalf("line %d of %s is not an event: %q", i+2, path, l)
		}
		if len(evs) > 0 && ev.At < evs[len(evs)-1].At {
			t.Fatalf("line %d of %s: time %v goes back from %v", i+2, path, ev.At, evs[len(evs)-1].At)
		}
		evs = append(evs, ev)
	}
	return h, evs
}

func recOutput(evs []recEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Code == "o" {
			b.WriteString(ev.Data)
		}
	}
	return b.String()
}

// asciinemaCat plays a recording with asciinema cat and returns what it
// printed; it skips when asciinema is missing and CI is unset.
func asciinemaCat(t *testing.T, path string) string {
	t.Helper()
	bin, err := exec.LookPath("asciinema")
	if err != nil {
		if os.Getenv("CI") == "" {
			t.Skip("asciinema is not installed (apt-get install asciinema); CI runs this test")
		}
		t.Fatal("asciinema is not installed; CI must install it (.ci/run)")
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, "cat", path)
	home := t.TempDir() // asciinema keeps its config under HOME
	cmd.Env = append(os.Environ(), "HOME="+home, "XDG_CONFIG_HOME="+filepath.Join(home, ".config"))
	// asciinema cat opens /dev/tty: give it a terminal. Reading the master
	// ends (EIO) when it exits, or is killed at the deadline.
	master, err := pty.Start(cmd)
	if err != nil {
		t.Fatalf("start asciinema cat: %v", err)
	}
	defer master.Close()
	out, _ := io.ReadAll(master) // ends with EIO once asciinema has exited
	if err := cmd.Wait(); err != nil {
		t.Fatalf("asciinema cat %s: %v\n%s", path, err, out)
	}
	return string(out)
}

// TestRecordThroughMCP is the recording issue's acceptance test: a session
// opened with record runs the python3 REPL and a carriage-return progress
// bar, takes a secret at a silent prompt and has the far end print it
// back; asciinema cat plays the file with the right text, and the secret is
// nowhere in the file, neither as input nor as echoed output.
func TestRecordThroughMCP(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 is not installed")
	}
	const secret = "hunter2-planted"
	cs := newTestClient(t)
	var open OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}, "record": true}, &open)
	if res.IsError || open.Recording == "" {
		t.Fatalf("open_local with record: %s", resultText(res))
	}
	if filepath.Ext(open.Recording) != ".cast" || filepath.Base(filepath.Dir(open.Recording)) != "recordings" ||
		!strings.Contains(resultText(res), "recording to "+open.Recording) {
		t.Fatalf("recording %q; text %q", open.Recording, resultText(res))
	}
	id := open.ID
	var r session.Result
	send := func(args map[string]any) {
		t.Helper()
		args["session_id"] = id
		r = session.Result{}
		if res := call(t, cs, "send", args, &r); res.IsError {
			t.Fatalf("send %v: %s", args, resultText(res))
		}
	}
	send(map[string]any{"text": "python3 -q", "until": ">>> $"})
	send(map[string]any{"text": "6*7", "until": ">>> $"})
	if !strings.Contains(r.Output, "42") {
		t.Fatalf("6*7 in python3: %q", r.Output)
	}
	send(map[string]any{"text": "exit()"})
	send(map[string]any{"text": `for i in 1 2 3; do printf '\rprogress %d%%' $((i*33)); sleep 0.05; done; echo`})
	if r.Output != "progress 99%" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("progress bar: %+v", r)
	}
	send(map[string]any{"text": "read -rs X", "wait": false})
	send(map[string]any{"text": secret, "secret": true})
	send(map[string]any{"text": `echo "got-${#X} [$X]"`})
	if r.Output != "got-15 [********]" {
		t.Fatalf("secret echoed: %+v", r)
	}
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].Recording != open.Recording {
		t.Fatalf("list: %+v", l.Sessions)
	}
	call(t, cs, "close", map[string]any{"session_id": id}, nil)

	raw, err := os.ReadFile(open.Recording)
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(raw, []byte(secret)) || bytes.Contains(raw, []byte("hunter2")) {
		t.Fatalf("the secret is in the recording:\n%s", raw)
	}
	if fi, _ := os.Stat(open.Recording); fi.Mode().Perm() != 0o600 {
		t.Errorf("recording mode %v, want 0600", fi.Mode().Perm())
	}
	h, evs := readRecording(t, open.Recording)
	if h["width"] != float64(120) || h["height"] != float64(40) {
		t.Errorf("header %v: want the session's 120x40", h)
	}
	if env, _ := h["env"].(map[string]any); env["TERM"] == nil || env["SHELL"] != "/bin/bash" {
		t.Errorf("header env %v", h["env"])
	}
	var input strings.Builder
	for _, ev := range evs {
		if ev.Code == "i" {
			input.WriteString(ev.Data)
		}
	}
	if !strings.Contains(input.String(), "6*7\r") || !strings.Contains(input.String(), "read -rs X\r") {
		t.Errorf("typed input not recorded: %q", input.String())
	}
	if !strings.Contains(recOutput(evs), "got-15 [********]") {
		t.Errorf("recorded output lacks the redacted echo: %q", recOutput(evs))
	}

	played := asciinemaCat(t, open.Recording)
	for _, want := range []string{"42", "progress 99%", "got-15 [********]"} {
		if !strings.Contains(played, want) {
			t.Errorf("asciinema cat output lacks %q:\n%s", want, played)
		}
	}
	if strings.Contains(played, secret) {
		t.Errorf("asciinema cat shows the secret:\n%s", played)
	}
}

// TestRecordFullDiskThroughMCP follows the hardening issue: a recording
// whose file cannot be written (/dev/full: ENOSPC) stops with a note that
// open and list show, and the session keeps working; nothing hangs.
func TestRecordFullDiskThroughMCP(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	cs := newTestClient(t)
	var open OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}, "record_path": "/dev/full"}, &open)
	if res.IsError {
		t.Fatalf("open_local: %s", resultText(res))
	}
	if open.Recording != "/dev/full" || !strings.Contains(open.RecordingNote, "no space left on device") ||
		!strings.Contains(resultText(res), "recording stopped") {
		t.Fatalf("open: recording %q note %q text %q", open.Recording, open.RecordingNote, resultText(res))
	}
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "seq 1 20000 | tail -1"}, &r)
	if r.Output != "20000" || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("session after the recording stopped: %+v", r)
	}
	var l ListOut
	res = call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || !strings.Contains(l.Sessions[0].RecordingNote, "no space left") ||
		!strings.Contains(resultText(res), "recording stopped") {
		t.Fatalf("list: %+v\n%s", l.Sessions, resultText(res))
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
}

// TestRecordTinyFilesystem fills a 64 KiB file system while recording:
// the write that hits ENOSPC is cut back so the file still plays, the
// recording stops with a note (in list, and once in the next result), and
// the session goes on.
func TestRecordTinyFilesystem(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mount("tmpfs", dir, "tmpfs", 0, "size=64k,mode=0700"); err != nil {
		t.Skipf("cannot mount a tiny tmpfs here (%v): needs root with CAP_SYS_ADMIN; TestRecordFullDiskThroughMCP covers ENOSPC with /dev/full", err)
	}
	t.Cleanup(func() {
		if err := syscall.Unmount(dir, 0); err != nil {
			t.Errorf("unmount %s: %v", dir, err)
		}
	})
	cs := newTestClient(t)
	path := filepath.Join(dir, "full.cast")
	var open OpenOut
	res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}, "record_path": path}, &open)
	if res.IsError || open.Recording != path || open.RecordingNote != "" {
		t.Fatalf("open_local: %s", resultText(res))
	}
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "seq 1 40000 | tail -1"}, &r)
	// Let that reach the file (at most about 100 ms later) before the flood.
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	for {
		if b, _ := os.ReadFile(path); bytes.Contains(b, []byte(`40000\r\n`)) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the first output never reached the file")
		case <-time.After(20 * time.Millisecond): // the writer's progress is only visible in the file
		}
	}
	r = session.Result{}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "seq 1 40000"}, &r)
	if !r.Complete || r.ExitCode == nil || *r.ExitCode != 0 {
		t.Fatalf("seq: %+v", r)
	}
	notes := r.Note
	// The writer hits the full disk within about 100 ms of the output.
	for {
		var l ListOut
		call(t, cs, "list", map[string]any{}, &l)
		if len(l.Sessions) == 1 && strings.Contains(l.Sessions[0].RecordingNote, "no space left on device") {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatalf("no note about the full disk: %+v", l.Sessions)
		case <-time.After(20 * time.Millisecond): // the writer's state is only visible through list
		}
	}
	r = session.Result{}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo still-$((6*7))"}, &r)
	if r.Output != "still-42" {
		t.Fatalf("send after the disk filled: %+v", r)
	}
	// The note is in the first result after the recording stopped, and
	// only there.
	if notes += " | " + r.Note; strings.Count(notes, "recording stopped") != 1 {
		t.Fatalf("notes of the two results: %q", notes)
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
	_, evs := readRecording(t, path) // whole lines only: the cut write left no half line
	if out := recOutput(evs); !strings.Contains(out, "40000\r\n") || strings.Contains(out, "still-42") {
		t.Fatalf("recording holds %d bytes of output; want the start and nothing after the disk filled", len(out))
	}
	if out := asciinemaCat(t, path); !strings.Contains(out, "40000") {
		t.Fatalf("asciinema cat: %q", out)
	}
}

// TestRecordPathErrors: a record_path that cannot be used is an error that
// says what to do, and no session is left behind.
func TestRecordPathErrors(t *testing.T) {
	cs := newTestClient(t)
	existing := filepath.Join(t.TempDir(), "old.cast")
	if err := os.WriteFile(existing, []byte("{}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ name, path, want string }{
		{name: "no directory", path: filepath.Join(t.TempDir(), "missing", "x.cast"), want: "existing directory"},
		{name: "existing file", path: existing, want: "new file name"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			res := call(t, cs, "open_local", map[string]any{"command": "cat", "record_path": tt.path}, nil)
			if !res.IsError || !strings.Contains(resultText(res), tt.want) {
				t.Fatalf("isError=%v %q, want an error about %q", res.IsError, resultText(res), tt.want)
			}
		})
	}
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 0 {
		t.Fatalf("sessions left behind: %+v", l.Sessions)
	}
}

// startRecordAgent runs an agent server in-process on a private socket.
func startRecordAgent(t *testing.T) *agent.Client {
	t.Helper()
	dir := shortTempDir(t) // socket paths are limited to 108 bytes
	sock := filepath.Join(dir, "run", "agent.sock")
	l, err := agentd.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := agentd.NewServer(agentd.Options{Shell: "/bin/bash"})
	done := make(chan error, 1)
	go func() { done <- srv.Serve(l) }()
	t.Cleanup(func() {
		_ = srv.Close()
		<-done
	})
	return &agent.Client{Socket: sock, AgentPath: "/nonexistent/ttymux-agent"}
}

// checkTicks checks that the recording's output holds tick-1 … tick-n,
// each exactly once and in order.
func checkTicks(t *testing.T, path string, n int) {
	t.Helper()
	_, evs := readRecording(t, path)
	out := recOutput(evs)
	var got []string
	for _, m := range regexp.MustCompile(`tick-(\d+)\r\n`).FindAllStringSubmatch(out, -1) {
		got = append(got, m[1])
	}
	want := make([]string, n)
	for i := range want {
		want[i] = fmt.Sprint(i + 1)
	}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Fatalf("ticks in the recording: %v, want 1…%d exactly once\n%q", got, n, out)
	}
}

// TestRecordPersistentRestart: a persistent session records while a loop
// prints ticks; the server goes away mid-loop, the loop goes on with no
// server attached, a second server attaches (by session_id alone) and the
// session is closed. The one file holds every tick exactly once, with the
// output made while detached, and times that never go back.
func TestRecordPersistentRestart(t *testing.T) {
	k := startRecordAgent(t)
	state := t.TempDir()
	newMgr := func() *session.Manager {
		m := session.NewManager(session.Options{
			Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
			StateDir: state, Shell: "/bin/bash", NoRC: true, Keeper: k,
		})
		t.Cleanup(m.CloseAll)
		return m
	}
	m1 := newMgr()
	cs1 := connect(t, newServer(m1, nil), nil)
	var open OpenOut
	res := call(t, cs1, "open_local", map[string]any{"env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}, "record": true}, &open)
	if res.IsError || !open.Persistent || open.Recording == "" {
		t.Fatalf("open_local: %s", resultText(res))
	}
	var r session.Result
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "for i in $(seq 1 40); do echo tick-$i; sleep 0.03; done", "timeout_ms": 400}, &r)
	if r.Complete {
		t.Fatalf("loop finished early: %+v", r)
	}
	m1.CloseAll() // the first server goes away mid-loop

	// Output made while no server is attached.
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	for {
		kept, err := k.List(ctx)
		if err != nil {
			t.Fatal(err)
		}
		if len(kept) == 1 && bytes.Contains(mustAttachTail(t, k, kept[0]), []byte("tick-40")) {
			break
		}
		select {
		case <-ctx.Done():
			t.Fatal("the loop never finished in the agent")
		case <-time.After(20 * time.Millisecond): // polling another server's state
		}
	}

	m2 := newMgr()
	cs2 := connect(t, newServer(m2, nil), nil)
	var l ListOut
	call(t, cs2, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].State != "detached" || l.Sessions[0].Recording != open.Recording {
		t.Fatalf("list while detached: %+v", l.Sessions)
	}
	call(t, cs2, "read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 20000}, &r)
	if !r.Complete {
		t.Fatalf("read after restart: %+v", r)
	}
	call(t, cs2, "send", map[string]any{"session_id": open.ID, "text": "echo after-$((40+2))"}, &r)
	if r.Output != "after-42" {
		t.Fatalf("send after restart: %+v", r)
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
	checkTicks(t, open.Recording, 40)
	_, evs := readRecording(t, open.Recording)
	if out := recOutput(evs); strings.Count(out, "after-42\r\n") != 1 {
		t.Fatalf("output after the restart recorded %d times:\n%q", strings.Count(out, "after-42\r\n"), out)
	}
}

// mustAttachTail returns the last bytes of a kept session's output,
// attaching briefly at the end (as ttymux attach does) without replaying
// it into any server.
func mustAttachTail(t *testing.T, k *agent.Client, ks transport.KeptSession) []byte {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Second)
	defer cancel()
	conn, _, _, err := k.Attach(ctx, ks.ID, max(ks.End-512, 0))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	var buf []byte
	b := make([]byte, 4096)
	for int64(len(buf)) < ks.End-max(ks.End-512, 0) {
		n, err := conn.Read(b)
		buf = append(buf, b[:n]...)
		if err != nil {
			break
		}
	}
	return buf
}

// TestRecordKillNine is the restart case with the built binaries: the
// server is killed with SIGKILL while a loop prints ticks (so the progress
// stored with the agent lags the file); a second server resumes the same
// recording; every tick is in it exactly once.
func TestRecordKillNine(t *testing.T) {
	start := persistentServers(t, shortTempDir(t))
	startServer := func() (*exec.Cmd, *mcp.ClientSession) {
		cmd, cs, _ := start()
		return cmd, cs
	}
	cmd1, cs1 := startServer()
	var open OpenOut
	call(t, cs1, "open_local", map[string]any{"env": map[string]string{"PS1": "$ "}, "record": true}, &open)
	if !open.Persistent || open.Recording == "" {
		t.Fatalf("open_local: %+v", open)
	}
	var r session.Result
	call(t, cs1, "send", map[string]any{"session_id": open.ID, "text": "for i in $(seq 1 60); do echo tick-$i; sleep 0.02; done", "timeout_ms": 700}, &r)
	if r.Complete {
		t.Fatalf("loop finished early: %+v", r)
	}
	if err := cmd1.Process.Kill(); err != nil {
		t.Fatal(err)
	}
	_ = cs1.Close()
	_ = cmd1.Wait()

	_, cs2 := startServer()
	defer cs2.Close()
	call(t, cs2, "read", map[string]any{"session_id": open.ID, "wait": true, "timeout_ms": 20000}, &r)
	if !r.Complete {
		t.Fatalf("read after restart: %+v", r)
	}
	call(t, cs2, "close", map[string]any{"session_id": open.ID}, nil)
	checkTicks(t, open.Recording, 60)
	if out := asciinemaCat(t, open.Recording); !strings.Contains(out, "tick-60") {
		t.Fatalf("asciinema cat: %q", out)
	}
}

// TestRecordSerial records a serial console: the boot log that arrives
// before any command, the login and a command's answer.
func TestRecordSerial(t *testing.T) {
	link := filepath.Join(t.TempDir(), "ttyUSB-router")
	router := startRouter(t, link, true)
	defer router.unplug()
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)
	path := filepath.Join(t.TempDir(), "console.cast")
	var open OpenOut
	res := call(t, cs, "open_serial", map[string]any{"port": link, "record_path": path}, &open)
	if res.IsError || open.Recording != path {
		t.Fatalf("open_serial: %s", resultText(res))
	}
	var r session.Result
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "login: $", "timeout_ms": 10000}, &r)
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "root"}, &r)
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "uname -a"}, &r)
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
	h, evs := readRecording(t, path)
	if _, ok := h["env"]; ok {
		t.Errorf("a serial console has no TERM, header %v", h)
	}
	out := recOutput(evs)
	if n := strings.Count(out, "boot: probing device"); n != bootLines {
		t.Errorf("%d boot lines recorded, want %d", n, bootLines)
	}
	if !strings.Contains(out, "Linux router 5.15.150") {
		t.Errorf("command output not recorded")
	}
}
