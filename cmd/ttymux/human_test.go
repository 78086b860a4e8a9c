package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
)

// humanWait bounds every wait in these tests.
const humanWait = 20 * time.Second

// humanAgent serves an in-process agent on a private socket and returns
// the socket.
func humanAgent(t testing.TB) string {
	t.Helper()
	sock := agentd.SocketPath(shortTempDir(t))
	l, err := agentd.Listen(sock)
	if err != nil {
		t.Fatal(err)
	}
	srv := agentd.NewServer(agentd.Options{})
	served := make(chan error, 1)
	go func() { served <- srv.Serve(l) }()
	t.Cleanup(func() {
		srv.Close()
		select {
		case <-served:
		case <-time.After(humanWait):
			t.Error("agent did not stop")
		}
	})
	return sock
}

// watcher collects what a reader produces and waits for strings in it.
type watcher struct {
	mu      sync.Mutex
	buf     []byte
	err     error
	changed chan struct{}
	done    chan struct{}
}

// watch copies r into a watcher until r fails.
func watch(r io.Reader) *watcher {
	w := &watcher{changed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(w.done)
		p := make([]byte, 4096)
		for {
			n, err := r.Read(p)
			w.mu.Lock()
			w.buf = append(w.buf, p[:n]...)
			if err != nil {
				w.err = err
			}
			close(w.changed)
			w.changed = make(chan struct{})
			w.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	return w
}

// waitFor waits until s has appeared.
func (w *watcher) waitFor(t *testing.T, who, s string) {
	t.Helper()
	timer := time.NewTimer(humanWait)
	defer timer.Stop()
	for {
		w.mu.Lock()
		found, ch, err := bytes.Contains(w.buf, []byte(s)), w.changed, w.err
		out := string(w.buf[max(0, len(w.buf)-400):])
		w.mu.Unlock()
		if found {
			return
		}
		if err != nil {
			t.Fatalf("%s: no %q before %v; saw %q", who, s, err, out)
		}
		select {
		case <-ch:
		case <-timer.C:
			t.Fatalf("%s: no %q within %v; saw %q", who, s, humanWait, out)
		}
	}
}

// humanSession creates a deterministic shell in the agent and returns the
// creating client (the "AI" side, which stays attached) and its output.
func humanSession(t *testing.T, sock string) (*agent.Conn, transport.KeptSession, *watcher) {
	t.Helper()
	c := &agent.Client{Socket: sock}
	ctx, cancel := context.WithTimeout(t.Context(), humanWait)
	defer cancel()
	kc, ks, err := c.Create(ctx, transport.Target{
		Command: "bash",
		Args:    []string{"--norc", "--noprofile", "--noediting"},
		Env:     []string{"PS1=$ ", "PS2=", "HISTFILE=/dev/null"},
		Term:    "dumb",
		Size:    transport.Size{Rows: 24, Cols: 80},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	conn := kc.(*agent.Conn)
	w := watch(conn)
	t.Cleanup(func() {
		conn.Close()
		<-w.done
	})
	w.waitFor(t, "agent client", "$ ")
	return conn, ks, w
}

func listed(t *testing.T, sock, id string) transport.KeptSession {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), humanWait)
	defer cancel()
	ss, err := (&agent.Client{Socket: sock}).List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range ss {
		if s.ID == id {
			return s
		}
	}
	t.Fatalf("session %s not listed", id)
	return transport.KeptSession{}
}

// waitSize polls List until the session has size sz (the agent reports no
// event for a resize).
func waitSize(t *testing.T, sock, id string, sz transport.Size) {
	t.Helper()
	if !testwait.Poll(t.Context(), humanWait, func() bool { return listed(t, sock, id).Size == sz }) {
		t.Fatalf("session %s never got size %dx%d", id, sz.Rows, sz.Cols)
	}
}

// ioctl runs fn on f's descriptor inside SyscallConn().Control, so that f
// stays non-blocking and Close still ends a pending Read (shared/STYLE.md
// §5; (*os.File).Fd and pty.Setsize would make it blocking).
func ioctl(t *testing.T, f *os.File, fn func(fd int) error) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		t.Fatal(err)
	}
	if ferr != nil {
		t.Fatal(ferr)
	}
}

func setWinsize(t *testing.T, ptmx *os.File, rows, cols int) {
	t.Helper()
	ioctl(t, ptmx, func(fd int) error {
		return unix.IoctlSetWinsize(fd, unix.TIOCSWINSZ, &unix.Winsize{Row: uint16(rows), Col: uint16(cols)})
	})
}

func termios(t *testing.T, f *os.File) *unix.Termios {
	t.Helper()
	var tio *unix.Termios
	ioctl(t, f, func(fd int) (err error) {
		tio, err = unix.IoctlGetTermios(fd, unix.TCGETS)
		return err
	})
	return tio
}

// startAttach runs the built "ttymux attach" on a new PTY of 30x100, as
// the session leader with the PTY as its controlling terminal (so it gets
// SIGWINCH), and returns the master and the terminal modes before.
func startAttach(t *testing.T, sock, id string) (*exec.Cmd, *os.File, *watcher, *unix.Termios) {
	t.Helper()
	cmd := exec.Command(ttymuxBinary(t), "attach", "--socket", sock, id)
	cmd.Env = append(os.Environ(), "TERM=xterm")
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	setWinsize(t, ptmx, 30, 100)
	before := termios(t, ptmx)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = tty, tty, tty
	cmd.SysProcAttr = &unix.SysProcAttr{Setsid: true, Setctty: true}
	err = cmd.Start()
	tty.Close()
	if err != nil {
		t.Fatal(err)
	}
	w := watch(ptmx)
	t.Cleanup(func() {
		if cmd.ProcessState == nil {
			cmd.Process.Kill()
			cmd.Wait()
		}
		ptmx.Close()
		<-w.done
	})
	return cmd, ptmx, w, before
}

// waitExit waits for the attach process and returns its exit status.
func waitExit(t *testing.T, cmd *exec.Cmd) int {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		var ee *exec.ExitError
		if err != nil && !errors.As(err, &ee) {
			t.Fatal(err)
		}
		return cmd.ProcessState.ExitCode()
	case <-time.After(humanWait):
		cmd.Process.Kill()
		t.Fatalf("ttymux attach did not exit within %v", humanWait)
		return -1
	}
}

// TestHumanAttach drives "ttymux attach" through a real PTY the way a person
// does: they see what the session printed before, what they type reaches
// the session (the AI's client sees it too), the session follows their
// window size, and ctrl+] detaches with the session still running, its size
// given back and their terminal restored.
func TestHumanAttach(t *testing.T) {
	sock := humanAgent(t)
	ai, ks, aiOut := humanSession(t, sock)
	if _, err := ai.Write([]byte("echo before-''attach\r")); err != nil {
		t.Fatal(err)
	}
	aiOut.waitFor(t, "agent client", "\r\nbefore-attach\r\n")

	cmd, ptmx, human, before := startAttach(t, sock, ks.ID)
	human.waitFor(t, "human", "[attached to "+ks.ID+" — detach with ctrl+]]")
	human.waitFor(t, "human", "before-attach") // the tail replay redraws it
	waitSize(t, sock, ks.ID, transport.Size{Rows: 30, Cols: 100})
	setWinsize(t, ptmx, 35, 110) // the human resizes the window: SIGWINCH
	waitSize(t, sock, ks.ID, transport.Size{Rows: 35, Cols: 110})
	if s := listed(t, sock, ks.ID); s.Clients != 2 {
		t.Errorf("Clients = %d while the human is attached, want 2", s.Clients)
	}

	if _, err := ptmx.Write([]byte("echo from-''human\r")); err != nil {
		t.Fatal(err)
	}
	human.waitFor(t, "human", "\r\nfrom-human\r\n")
	aiOut.waitFor(t, "agent client", "\r\nfrom-human\r\n")

	if _, err := ptmx.Write([]byte{0x1d}); err != nil { // ctrl+]
		t.Fatal(err)
	}
	human.waitFor(t, "human", "[detached from "+ks.ID)
	if code := waitExit(t, cmd); code != 0 {
		t.Errorf("exit status after detach = %d, want 0", code)
	}
	// The session runs on, back at its own size, and still answers the AI.
	// The agent notices the human's client leave when its connection
	// closes, which on a loaded machine can be after attach has exited:
	// poll its list (no event announces it).
	var s transport.KeptSession
	if !testwait.Poll(t.Context(), humanWait, func() bool { s = listed(t, sock, ks.ID); return s.Exited || s.Clients == 1 }) || s.Exited {
		t.Errorf("after detach: %+v, want running with one client", s)
	}
	waitSize(t, sock, ks.ID, transport.Size{Rows: 24, Cols: 80})
	ai.Write([]byte("echo still-''here\r"))
	aiOut.waitFor(t, "agent client", "\r\nstill-here\r\n")

	after := termios(t, ptmx)
	if after.Lflag != before.Lflag || after.Iflag != before.Iflag || after.Oflag != before.Oflag {
		t.Errorf("terminal modes not restored: lflag %#x→%#x iflag %#x→%#x oflag %#x→%#x",
			before.Lflag, after.Lflag, before.Iflag, after.Iflag, before.Oflag, after.Oflag)
	}
}

// TestHumanAttachExit checks that when the session ends while a human is
// attached, attach says so and exits with the session's status.
func TestHumanAttachExit(t *testing.T) {
	sock := humanAgent(t)
	_, ks, _ := humanSession(t, sock)
	cmd, ptmx, human, _ := startAttach(t, sock, ks.ID)
	human.waitFor(t, "human", "[attached to ")
	human.waitFor(t, "human", "$ ")
	if _, err := ptmx.Write([]byte("exit 5\r")); err != nil {
		t.Fatal(err)
	}
	human.waitFor(t, "human", "[session "+ks.ID+" ended: exit status 5]")
	if code := waitExit(t, cmd); code != 5 {
		t.Errorf("exit status = %d, want 5", code)
	}
}

// TestHumanAttachPipe runs cmdAttach in-process with stdin on a pipe (no
// terminal): input reaches the session, and the end of stdin detaches.
func TestHumanAttachPipe(t *testing.T) {
	sock := humanAgent(t)
	_, ks, aiOut := humanSession(t, sock)
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	var out, errb syncBuffer
	code := make(chan int, 1)
	go func() { code <- cmdAttach([]string{"--socket", sock, ks.ID}, r, &out, &errb) }()
	w.Write([]byte("echo via-''pipe\r"))
	aiOut.waitFor(t, "agent client", "\r\nvia-pipe\r\n")
	w.Close()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("cmdAttach = %d, want 0; stderr: %s", c, errb.String())
		}
	case <-time.After(humanWait):
		t.Fatal("cmdAttach did not return after stdin ended")
	}
	if s := errb.String(); !strings.Contains(s, "[attached to "+ks.ID) || !strings.Contains(s, "[detached from "+ks.ID) {
		t.Errorf("stderr = %q, want the attach and detach lines", s)
	}
	if strings.Contains(out.String(), "\x1b[2J") {
		t.Errorf("stdout is not a terminal, yet the screen was cleared: %q", out.String())
	}
}

// TestAttachErrors checks the messages for a missing agent, an unknown
// session and bad usage.
func TestAttachErrors(t *testing.T) {
	sock := humanAgent(t)
	noAgent := shortTempDir(t) + "/agent.sock"
	tests := []struct {
		name string
		args []string
		code int
		want string
	}{
		{"no agent", []string{"--socket", noAgent, "s1"}, 1, "no ttymux agent is running on " + noAgent},
		{"unknown session", []string{"--socket", sock, "s42"}, 1, `session "s42" is not held by the agent (ttymux ls lists the sessions)`},
		{"no id", []string{"--socket", sock}, 2, "Detach with ctrl+]"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			if code := cmdAttach(tt.args, os.Stdin, &out, &errb); code != tt.code || !strings.Contains(errb.String(), tt.want) {
				t.Errorf("cmdAttach(%q) = %d, stderr %q; want %d and %q", tt.args, code, errb.String(), tt.code, tt.want)
			}
		})
	}
}

// TestLs checks "ttymux ls" with sessions, without, and without an agent.
func TestLs(t *testing.T) {
	sock := humanAgent(t)
	var out, errb bytes.Buffer
	if code := cmdLs([]string{"--socket", sock}, &out, &errb); code != 0 || strings.TrimSpace(out.String()) != "no sessions" {
		t.Errorf("ls with no sessions = %d, %q, %q", code, out.String(), errb.String())
	}
	_, ks, _ := humanSession(t, sock)
	out.Reset()
	if code := cmdLs([]string{"--socket", sock}, &out, &errb); code != 0 {
		t.Fatalf("ls = %d, stderr %q", code, errb.String())
	}
	t.Log("\n" + out.String())
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "ID ") || !strings.HasPrefix(lines[1], ks.ID+" ") {
		t.Fatalf("ls output:\n%s", out.String())
	}
	for _, want := range []string{"running", "80x24", "bash"} {
		if !strings.Contains(lines[1], want) {
			t.Errorf("ls line %q lacks %q", lines[1], want)
		}
	}

	noAgent := shortTempDir(t) + "/agent.sock"
	out.Reset()
	errb.Reset()
	if code := cmdLs([]string{"--socket", noAgent}, &out, &errb); code != 1 || !strings.Contains(errb.String(), "no ttymux agent is running on "+noAgent) {
		t.Errorf("ls without agent = %d, stderr %q", code, errb.String())
	}
	if _, err := os.Stat(noAgent); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ls started an agent: %v", err)
	}
}

// syncBuffer is a bytes.Buffer safe for a writer and a reader.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestAttachAltScreen checks that attach knows whether the session left
// the terminal on the alternate screen, wherever the output is split.
func TestAttachAltScreen(t *testing.T) {
	tests := []struct {
		name string
		out  string
		on   bool
	}{
		{"none", "plain text\r\n", false},
		{"vim running", "$ vim\r\n\x1b[?1049h\x1b[22;0;0t\x1b[1;24r", true},
		{"vim quit", "\x1b[?1049hedit\x1b[?1049l$ ", false},
		{"old style", "\x1b[?47hless", true},
		{"1047 off last", "\x1b[?1049h\x1b[?1047l", false},
	}
	for _, tt := range tests {
		for split := 0; split <= len(tt.out); split++ {
			for split2 := split; split2 <= len(tt.out); split2++ {
				var s altScreen
				s.Write([]byte(tt.out[:split]))
				s.Write([]byte(tt.out[split:split2]))
				s.Write([]byte(tt.out[split2:]))
				if s.on != tt.on {
					t.Fatalf("%s split at %d, %d: on = %v, want %v", tt.name, split, split2, s.on, tt.on)
				}
			}
		}
	}
}

// TestAgentCommandUsage: ls, attach and web share their flag handling
// (agentFlags, parseArgs): a stray argument, a missing one or an unknown
// flag exits 2 with the command's usage and its --socket flag.
func TestAgentCommandUsage(t *testing.T) {
	cmds := map[string]func(args []string, stderr io.Writer) int{
		"ls":     func(args []string, stderr io.Writer) int { return cmdLs(args, io.Discard, stderr) },
		"attach": func(args []string, stderr io.Writer) int { return cmdAttach(args, os.Stdin, io.Discard, stderr) },
		"web":    func(args []string, stderr io.Writer) int { return cmdWeb(args, io.Discard, stderr) },
	}
	tests := []struct {
		cmd  string
		args []string
		want string
	}{
		{"ls", []string{"extra"}, "usage: ttymux ls"},
		{"ls", []string{"--nope"}, "flag provided but not defined: -nope"},
		{"attach", nil, "usage: ttymux attach"},
		{"attach", []string{"s1", "s2"}, "usage: ttymux attach"},
		{"web", []string{"extra"}, "usage: ttymux web"},
		{"web", []string{"--nope"}, "flag provided but not defined: -nope"},
	}
	for _, tt := range tests {
		t.Run(tt.cmd+" "+strings.Join(tt.args, " "), func(t *testing.T) {
			var errb bytes.Buffer
			if code := cmds[tt.cmd](tt.args, &errb); code != 2 || !strings.Contains(errb.String(), tt.want) || !strings.Contains(errb.String(), "-socket") {
				t.Errorf("%s %q = %d, stderr %q; want 2, %q and the -socket flag", tt.cmd, tt.args, code, errb.String(), tt.want)
			}
		})
	}
}
