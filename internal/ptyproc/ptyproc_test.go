package ptyproc_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/ptyproc"
)

func TestEchoRoundTrip(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	// The arithmetic makes the output differ from the echoed input.
	write(t, p, "echo round-$((20+22))-trip\n")
	out.Expect(t, "round-42-trip")
}

func TestWaitStatus(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		script     string
		wantStatus int // 0: Wait returns nil
		wantSignal string
	}{
		{name: "exit 0", script: "exit 0"},
		{name: "exit 3", script: "exit 3", wantStatus: 3},
		{name: "killed", script: "kill -KILL $$", wantStatus: 128 + 9, wantSignal: "KILL"},
		{name: "terminated", script: "kill -TERM $$", wantStatus: 128 + 15, wantSignal: "TERM"},
		{name: "interrupted", script: "kill -INT $$", wantStatus: 128 + 2, wantSignal: "INT"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			p := start(t, scriptSpec(t, tt.script))
			if _, err := pump(t, p).Wait(t); err != nil {
				t.Fatalf("read: %v", err)
			}
			// Several goroutines, several times: all see the same result.
			var wg sync.WaitGroup
			errs := make([]error, 4)
			for i := range errs {
				wg.Go(func() { errs[i] = waitErr(t, p) })
			}
			wg.Wait()
			for _, err := range append(errs, waitErr(t, p)) {
				if err != errs[0] {
					t.Fatalf("Wait results differ: %v vs %v", err, errs[0])
				}
			}
			err := errs[0]
			if tt.wantStatus == 0 {
				if err != nil {
					t.Fatalf("Wait = %v, want nil", err)
				}
				return
			}
			ee := exitError(t, err)
			if ee.Status != tt.wantStatus || string(ee.Signal) != tt.wantSignal {
				t.Errorf("Wait = %+v, want status %d signal %q", *ee, tt.wantStatus, tt.wantSignal)
			}
			want := fmt.Sprintf("exit status %d", tt.wantStatus)
			if tt.wantSignal != "" {
				want = "killed by signal " + tt.wantSignal
			}
			if ee.Error() != want {
				t.Errorf("Error() = %q, want %q", ee.Error(), want)
			}
		})
	}
}

func TestWaitInteractiveExit(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	write(t, p, "exit 3\n")
	if _, err := out.Wait(t); err != nil {
		t.Fatalf("read: %v", err)
	}
	if ee := exitError(t, waitErr(t, p)); ee.Status != 3 || ee.Signal != "" {
		t.Errorf("Wait = %+v, want exit status 3", *ee)
	}
}

func TestCloseUnblocksWrite(t *testing.T) {
	t.Parallel()
	// The child never reads, so the terminal's input queue fills up and
	// Write blocks (or fails once Close has run).
	p := start(t, scriptSpec(t, "exec sleep 100"))
	pump(t, p) // drain echoes so only input can fill up
	wrote := make(chan struct{}, 1)
	writeErr := make(chan error, 1)
	go func() {
		line := []byte(strings.Repeat("x", 511) + "\n")
		for {
			if _, err := p.Write(line); err != nil {
				writeErr <- err
				return
			}
			select {
			case wrote <- struct{}{}:
			default:
			}
		}
	}()
	select {
	case <-wrote:
	case <-time.After(testTimeout):
		t.Fatal("no Write succeeded")
	}
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	select {
	case err := <-writeErr:
		if !errors.Is(err, os.ErrClosed) {
			t.Errorf("Write = %v, want os.ErrClosed", err)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Close did not unblock a pending Write within 5s")
	}
}

func TestCloseConcurrentAndIdempotent(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	var wg sync.WaitGroup
	for range 4 {
		wg.Go(func() {
			if err := p.Close(); err != nil {
				t.Errorf("Close: %v", err)
			}
		})
	}
	wg.Wait()
	if err := p.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
	// Close waits for the child, so Wait must not block now.
	done := make(chan struct{})
	go func() { _ = p.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatal("Wait blocked after Close returned")
	}
	for name, f := range map[string]func() error{
		"Resize":     func() error { return p.Resize(10, 10) },
		"Echo":       func() error { _, err := p.Echo(); return err },
		"Foreground": func() error { _, _, err := p.Foreground(); return err },
	} {
		if err := f(); !errors.Is(err, os.ErrClosed) {
			t.Errorf("%s after Close = %v, want os.ErrClosed", name, err)
		}
	}
}

// TestCloseKillsHangupIgnoringChild checks that Close does not leave a
// child behind when it ignores SIGHUP (a nohup'd program, a shell with
// `trap "" HUP`).
func TestCloseKillsHangupIgnoringChild(t *testing.T) {
	t.Parallel()
	// Ignored signals stay ignored across exec (signal(7)).
	p := start(t, scriptSpec(t, `trap "" HUP; echo ready; exec sleep 100`))
	out := pump(t, p)
	out.Expect(t, "ready")
	if err := p.Close(); err != nil {
		t.Fatalf("Close: %v", err)
	}
	if ee := exitError(t, waitErr(t, p)); ee.Signal != "KILL" {
		t.Errorf("Wait = %+v, want killed by KILL", *ee)
	}
}

func TestResize(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t)) // 24x80
	out := pump(t, p)
	out.Expect(t, "$ ")
	write(t, p, "stty size\n")
	out.Expect(t, "24 80\r\n")
	if err := p.Resize(50, 132); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	write(t, p, "stty size\n")
	out.Expect(t, "50 132\r\n")

	for _, sz := range [][2]int{{0, 80}, {24, 0}, {-1, 80}, {70000, 80}} {
		if err := p.Resize(sz[0], sz[1]); err == nil {
			t.Errorf("Resize(%d, %d) = nil, want an error", sz[0], sz[1])
		}
	}
}

func TestResizeSendsSIGWINCH(t *testing.T) {
	t.Parallel()
	// bash runs a trap once the current command ends. Not `read`: a signal
	// that arrives just before bash blocks in read(2) waits for the read to
	// end, so the loop of short sleeps bounds the delay instead.
	p := start(t, scriptSpec(t, `trap 'echo winch $(stty size); exit 0' WINCH; echo ready; while :; do sleep 0.05; done`))
	out := pump(t, p)
	out.Expect(t, "ready")
	if err := p.Resize(30, 100); err != nil {
		t.Fatalf("Resize: %v", err)
	}
	out.Expect(t, "winch 30 100")
}

func TestForeground(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	pgid, name, err := p.Foreground()
	if err != nil || pgid != p.Pid() || name != "bash" {
		t.Fatalf("idle Foreground() = %d, %q, %v; want %d, bash", pgid, name, err, p.Pid())
	}
	write(t, p, "sleep 5\n")
	var last string
	waitFor(t, "sleep in the foreground", func() bool {
		pgid, name, err = p.Foreground()
		last = fmt.Sprint(pgid, name, err)
		return err == nil && pgid != p.Pid() && name == "sleep"
	})
	t.Logf("while sleeping: %s", last)
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	waitFor(t, "the shell back in the foreground", func() bool {
		pgid, name, err = p.Foreground()
		return err == nil && pgid == p.Pid() && name == "bash"
	})
}

func TestSignalInterruptsForeground(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	write(t, p, "sleep 100\n")
	waitFor(t, "sleep in the foreground", func() bool {
		_, name, err := p.Foreground()
		return err == nil && name == "sleep"
	})
	if err := p.Signal(syscall.SIGINT); err != nil {
		t.Fatalf("Signal: %v", err)
	}
	write(t, p, "echo status-$?-end\n")
	out.Expect(t, "status-130-end")
}

func TestEcho(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	if on, err := p.Echo(); err != nil || !on {
		t.Fatalf("Echo() at the prompt = %v, %v; want true", on, err)
	}
	write(t, p, "stty -echo; echo off-$((1+1))\n")
	out.Expect(t, "off-2")
	if on, err := p.Echo(); err != nil || on {
		t.Fatalf("Echo() after stty -echo = %v, %v; want false", on, err)
	}
	write(t, p, "stty echo; echo on-$((1+2))\n")
	out.Expect(t, "on-3")
	if on, err := p.Echo(); err != nil || !on {
		t.Fatalf("Echo() after stty echo = %v, %v; want true", on, err)
	}
}

// TestEchoOffUnderReadline records why Echo alone does not detect password
// prompts: readline clears ECHO while it edits a line (it echoes by itself),
// so an idle interactive bash with line editing reports false.
func TestEchoOffUnderReadline(t *testing.T) {
	t.Parallel()
	spec := shellSpec(t)
	spec.Args = []string{"--norc", "--noprofile"}
	p := start(t, spec)
	out := pump(t, p)
	write(t, p, "echo ready-$((4+4))\n")
	out.Expect(t, "ready-8")
	waitFor(t, "readline to clear ECHO", func() bool {
		on, err := p.Echo()
		return err == nil && !on
	})
	write(t, p, "cat\n")
	waitFor(t, "cat to run with ECHO restored", func() bool {
		_, name, err := p.Foreground()
		if err != nil || name != "cat" {
			return false
		}
		on, err := p.Echo()
		return err == nil && on
	})
}

// TestEOFWithBackgroundGrandchild pins the quiet-grace rule: a background
// job that outlives the shell keeps the slave open, so the master never
// returns EIO; Read must still end with io.EOF soon after the shell exits.
func TestEOFWithBackgroundGrandchild(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	// Not redirected: sleep holds the terminal as stdin, stdout and stderr.
	write(t, p, "sleep 30 & echo bg-$!-pid; echo last-$((3*3))-line; exit 0\n")
	start := time.Now()
	all, err := out.Wait(t)
	if err != nil {
		t.Fatalf("read ended with %v, want io.EOF", err)
	}
	t.Logf("EOF %v after the exit command", time.Since(start))
	m := regexp.MustCompile(`bg-(\d+)-pid`).FindStringSubmatch(all)
	if m == nil {
		t.Fatalf("no background pid in %q", all)
	}
	bg, _ := strconv.Atoi(m[1])
	defer syscall.Kill(bg, syscall.SIGKILL)
	if !strings.Contains(all, "last-9-line") {
		t.Errorf("output before exit lost: %q", all)
	}
	if err := syscall.Kill(bg, 0); err != nil {
		t.Errorf("background sleep %d is gone (%v): the test did not exercise a held slave", bg, err)
	}
	if err := waitErr(t, p); err != nil {
		t.Errorf("Wait = %v", err)
	}
	// EOF is sticky.
	if n, err := p.Read(make([]byte, 16)); n != 0 || err != io.EOF {
		t.Errorf("Read after EOF = %d, %v; want 0, io.EOF", n, err)
	}
}

// TestReadDrainsEverything checks that no output written before the child
// exits is lost, with and without a grandchild holding the slave open.
func TestReadDrainsEverything(t *testing.T) {
	t.Parallel()
	const n = 20000
	var want strings.Builder
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&want, "%d\n", i)
	}
	tests := []struct {
		name   string
		script string // for bash -c; empty: type it into an interactive shell
		typed  string
	}{
		{name: "exit", script: "seq 1 20000; exit 0"},
		{name: "background holder", script: "sleep 30 & echo bg-$!-pid; seq 1 20000; exit 0"},
		{name: "interactive", typed: "seq 1 20000; exit 0\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			spec := shellSpec(t)
			if tt.script != "" {
				spec = scriptSpec(t, tt.script)
			}
			p := start(t, spec)
			out := pump(t, p)
			if tt.typed != "" {
				out.Expect(t, "$ ")
				write(t, p, tt.typed)
			}
			all, err := out.Wait(t)
			if m := regexp.MustCompile(`bg-(\d+)-pid`).FindStringSubmatch(all); m != nil {
				bg, _ := strconv.Atoi(m[1])
				_ = syscall.Kill(bg, syscall.SIGKILL)
			}
			if err != nil {
				t.Fatalf("read ended with %v, want io.EOF", err)
			}
			if !strings.Contains(crlf(all), want.String()) {
				t.Errorf("output of seq incomplete: %d bytes, ends %q", len(all), all[max(0, len(all)-60):])
			}
			if err := waitErr(t, p); err != nil {
				t.Errorf("Wait = %v", err)
			}
		})
	}
}

// openFds returns the targets of the descriptors the test process has open.
func openFds(t *testing.T) map[string]string {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Fatal(err)
	}
	fds := make(map[string]string)
	for _, e := range ents {
		target, _ := os.Readlink(filepath.Join("/proc/self/fd", e.Name()))
		fds[e.Name()] = target
	}
	return fds
}

// TestNoFdLeak starts and closes many children and checks that every
// descriptor is released, and that the parent never keeps the slave open.
// Not parallel: it counts the whole process's descriptors.
func TestNoFdLeak(t *testing.T) {
	before := openFds(t)
	for i := range 40 {
		script := "exit 0"
		if i%2 == 1 {
			script = "echo ready; exec sleep 100" // closed while running
		}
		p, err := ptyproc.Start(scriptSpec(t, script))
		if err != nil {
			t.Fatal(err)
		}
		pts, err := p.PtsName()
		if err != nil {
			t.Fatal(err)
		}
		for fd, target := range openFds(t) {
			if target == pts {
				t.Fatalf("parent holds the slave %s as fd %s", pts, fd)
			}
		}
		out := pump(t, p)
		if i%2 == 1 {
			out.Expect(t, "ready")
		} else if _, err := out.Wait(t); err != nil {
			t.Fatal(err)
		}
		if err := p.Close(); err != nil {
			t.Fatal(err)
		}
		<-out.Done()
		_ = p.Wait()
	}
	after := openFds(t)
	if len(after) != len(before) {
		t.Errorf("open descriptors: %d before, %d after\nbefore: %v\nafter:  %v", len(before), len(after), before, after)
	}
}

// TestChildDoesNotInheritMaster checks the master is close-on-exec.
func TestChildDoesNotInheritMaster(t *testing.T) {
	t.Parallel()
	p := start(t, ptyproc.Spec{Path: "ls", Args: []string{"-l", "/proc/self/fd/"}, Env: testEnv(t)})
	all, err := pump(t, p).Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(all, "/dev/pts/") {
		t.Fatalf("ls output does not show the slave: %q", all)
	}
	if strings.Contains(all, "ptmx") {
		t.Errorf("child inherited the master: %q", all)
	}
}

func TestStartErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "file")
	if err := os.WriteFile(file, []byte("#!/bin/sh\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name    string
		spec    ptyproc.Spec
		wantMsg string
		wantIs  error
	}{
		{
			name:    "missing dir",
			spec:    ptyproc.Spec{Path: "/bin/sh", Dir: "/nonexistent-ttymux-dir"},
			wantMsg: `working directory "/nonexistent-ttymux-dir": no such file or directory`,
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "dir is a file",
			spec:    ptyproc.Spec{Path: "/bin/sh", Dir: file},
			wantMsg: fmt.Sprintf("working directory %q: not a directory", file),
		},
		{
			name:    "not in PATH",
			spec:    ptyproc.Spec{Path: "no-such-program-ttymux"},
			wantMsg: `program "no-such-program-ttymux" not found in PATH`,
			wantIs:  exec.ErrNotFound,
		},
		{
			name:    "not in the PATH of Env",
			spec:    ptyproc.Spec{Path: "sh", Env: []string{"PATH=" + dir}},
			wantMsg: `program "sh" not found in PATH`,
			wantIs:  exec.ErrNotFound,
		},
		{
			name:    "missing path",
			spec:    ptyproc.Spec{Path: "/no/such/program"},
			wantMsg: `program "/no/such/program": no such file or directory`,
			wantIs:  fs.ErrNotExist,
		},
		{
			name:    "directory",
			spec:    ptyproc.Spec{Path: dir},
			wantMsg: fmt.Sprintf("program %q: is a directory", dir),
		},
		{
			name:    "not executable",
			spec:    ptyproc.Spec{Path: file},
			wantMsg: fmt.Sprintf("program %q: permission denied", file),
			wantIs:  fs.ErrPermission,
		},
		{
			name:    "relative to missing file in Dir",
			spec:    ptyproc.Spec{Path: "./nothing", Dir: dir},
			wantMsg: `program "./nothing": no such file or directory`,
		},
		{
			name:    "empty",
			spec:    ptyproc.Spec{},
			wantMsg: "no program to run",
		},
		{
			name:    "bad size",
			spec:    ptyproc.Spec{Path: "/bin/sh", Rows: -1, Cols: 80},
			wantMsg: "invalid window size -1x80",
		},
		{
			name:    "half a size",
			spec:    ptyproc.Spec{Path: "/bin/sh", Rows: 24},
			wantMsg: "invalid window size 24x0",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ptyproc.Start(tt.spec)
			if err == nil {
				_ = p.Close()
				t.Fatal("Start succeeded, want an error")
			}
			if err.Error() != tt.wantMsg {
				t.Errorf("error = %q, want %q", err, tt.wantMsg)
			}
			if tt.wantIs != nil && !errors.Is(err, tt.wantIs) {
				t.Errorf("errors.Is(%v, %v) = false", err, tt.wantIs)
			}
		})
	}
}

func TestStartResolvesAgainstSpecEnv(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	tool := filepath.Join(dir, "ttymux-test-tool")
	if err := os.WriteFile(tool, []byte("#!/bin/sh\necho tool ran in \"$PWD\" as \"$0\"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	work := t.TempDir()
	p := start(t, ptyproc.Spec{
		Path: "ttymux-test-tool",
		Dir:  work,
		Env:  []string{"PATH=/nonexistent:relative/dir:" + dir + ":/usr/bin:/bin"},
	})
	all, err := pump(t, p).Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if want := fmt.Sprintf("tool ran in %s as %s", work, tool); !strings.Contains(all, want) {
		t.Errorf("output %q does not contain %q", all, want)
	}
}

func TestArgv0(t *testing.T) {
	t.Parallel()
	// bash treats a leading '-' in argv[0] as a login shell (bash(1), INVOCATION).
	spec := scriptSpec(t, `shopt -q login_shell && echo login-yes || echo login-no`)
	spec.Argv0 = "-bash"
	p := start(t, spec)
	all, err := pump(t, p).Wait(t)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(all, "login-yes") {
		t.Errorf("Argv0 not passed: output %q", all)
	}
}

func TestAfterExit(t *testing.T) {
	t.Parallel()
	p := start(t, scriptSpec(t, "exit 0"))
	if _, err := pump(t, p).Wait(t); err != nil {
		t.Fatal(err)
	}
	if err := waitErr(t, p); err != nil {
		t.Fatal(err)
	}
	// No session leader, so no foreground group.
	if pgid, name, err := p.Foreground(); err != nil || pgid != 0 || name != "" {
		t.Errorf("Foreground() after exit = %d, %q, %v; want 0, \"\", nil", pgid, name, err)
	}
	if err := p.Signal(syscall.SIGINT); !errors.Is(err, os.ErrProcessDone) {
		t.Errorf("Signal after exit = %v, want os.ErrProcessDone", err)
	}
}

func TestSignalByName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		want syscall.Signal
		ok   bool
	}{
		{"INT", syscall.SIGINT, true},
		{"SIGINT", syscall.SIGINT, true},
		{"int", syscall.SIGINT, true},
		{"sigint", syscall.SIGINT, true},
		{" KILL ", syscall.SIGKILL, true},
		{"TERM", syscall.SIGTERM, true},
		{"HUP", syscall.SIGHUP, true},
		{"QUIT", syscall.SIGQUIT, true},
		{"TSTP", syscall.SIGTSTP, true},
		{"CONT", syscall.SIGCONT, true},
		{"USR1", syscall.SIGUSR1, true},
		{"USR2", syscall.SIGUSR2, true},
		{"WINCH", syscall.SIGWINCH, true},
		{"IOT", syscall.SIGABRT, true},
		{"", 0, false},
		{"SIG", 0, false},
		{"FOO", 0, false},
		{"9", 0, false},
	}
	for _, tt := range tests {
		got, ok := ptyproc.SignalByName(tt.name)
		if got != tt.want || ok != tt.ok {
			t.Errorf("SignalByName(%q) = %v, %v; want %v, %v", tt.name, got, ok, tt.want, tt.ok)
		}
	}
}

func TestSignalName(t *testing.T) {
	t.Parallel()
	tests := []struct {
		sig  syscall.Signal
		want string
	}{
		{syscall.SIGKILL, "KILL"},
		{syscall.SIGINT, "INT"},
		{syscall.SIGWINCH, "WINCH"},
		{syscall.Signal(34), "34"},
	}
	for _, tt := range tests {
		if got := ptyproc.SignalName(tt.sig); got != tt.want {
			t.Errorf("SignalName(%d) = %q, want %q", tt.sig, got, tt.want)
		}
		if tt.want[0] < '0' || tt.want[0] > '9' {
			if back, ok := ptyproc.SignalByName(tt.want); !ok || back != tt.sig {
				t.Errorf("SignalByName(SignalName(%d)) = %v, %v", tt.sig, back, ok)
			}
		}
	}
}

// TestChildSignalsDefaultWhenIgnoredHere: a server started by nohup (HUP
// ignored) or in a script's background (INT and QUIT ignored) still gives
// its shells HUP and INT with their default action; an ignored signal is
// inherited across exec, and an interactive shell cannot reset it, so
// closing the session would not hang it up and Ctrl-C would do nothing.
// The test binary runs again with the three ignored, as such a server is.
func TestChildSignalsDefaultWhenIgnoredHere(t *testing.T) {
	if os.Getenv(signalsHelperEV) == "1" {
		childSignalsHelper(t)
		return
	}
	t.Parallel()
	cmd := exec.Command("sh", "-c", `trap '' HUP INT QUIT; exec "$0" -test.run='^TestChildSignalsDefaultWhenIgnoredHere$' -test.v`, os.Args[0])
	cmd.Env = append(os.Environ(), signalsHelperEV+"=1")
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "--- PASS") {
		t.Fatalf("with HUP, INT and QUIT ignored in the parent: %v\n%s", err, out)
	}
}

const signalsHelperEV = "TTYMUX_PTYPROC_SIGNALS_HELPER"

// childSignalsHelper runs in a process that ignores HUP, INT and QUIT.
func childSignalsHelper(t *testing.T) {
	// The Go runtime keeps only HUP and INT ignored; QUIT gets its
	// handler anyway, and so the default in children.
	for _, sig := range []os.Signal{syscall.SIGHUP, syscall.SIGINT} {
		if !signal.Ignored(sig) {
			t.Fatalf("the helper does not ignore %v", sig)
		}
	}
	// SigIgn's lowest bits are HUP and INT (signals 1 and 2); read by the
	// shell itself, not in a $(...), during which bash ignores QUIT.
	p := start(t, scriptSpec(t, `while read -r k v; do [ "$k" = SigIgn: ] && echo "ignored-$(( 0x$v & 3 ))-"; done < /proc/$$/status; exec sleep 100`))
	out := pump(t, p)
	out.Expect(t, "ignored-0-")
	write(t, p, "\x03") // Ctrl-C reaches sleep
	if ee := exitError(t, waitErr(t, p)); ee.Signal != "INT" {
		t.Errorf("Wait after Ctrl-C = %+v, want killed by INT", *ee)
	}
}

// TestWaitsForInputUnderReadline: bash's readline waits for keys in
// poll(2), whose wait channel Linux 6 names
// "poll_schedule_timeout.constprop.0". The exact-name match said such a
// bash never waited for input, so the session could not tell its shell was
// back at its prompt (issue #30: a broken hook was found only after the
// 5 s ready timeout).
func TestWaitsForInputUnderReadline(t *testing.T) {
	t.Parallel()
	spec := shellSpec(t)
	spec.Args = []string{"--norc", "--noprofile"}
	p := start(t, spec)
	out := pump(t, p)
	write(t, p, "echo ready-$((4+4))\n")
	out.Expect(t, "ready-8")
	waitFor(t, "readline to wait for keys", func() bool {
		w, err := p.WaitsForInput()
		if err != nil {
			t.Skipf("wait channel not readable here: %v", err)
		}
		return w
	})
	write(t, p, "sleep 5\n")
	waitFor(t, "sleep to run", func() bool {
		_, name, err := p.Foreground()
		return err == nil && name == "sleep"
	})
	if w, err := p.WaitsForInput(); err != nil || w {
		t.Fatalf("WaitsForInput while the shell waits for sleep = %v, %v; want false", w, err)
	}
}

// TestForegroundLeaderFile: with the shell in the foreground, Foreground
// reads its name through a file it keeps open (one pread per call, not
// open, read and close: issue #37), which follows the shell through an
// exec; Close closes it. Fails on the old code, which kept nothing open.
func TestForegroundLeaderFile(t *testing.T) {
	t.Parallel()
	p := start(t, shellSpec(t))
	out := pump(t, p)
	out.Expect(t, "$ ")
	comm := "/proc/" + strconv.Itoa(p.Pid()) + "/comm"
	for range 3 {
		if _, name, err := p.Foreground(); err != nil || name != "bash" {
			t.Fatalf("Foreground() = %q, %v; want bash", name, err)
		}
	}
	if n := openCount(t, comm); n != 1 {
		t.Errorf("%d descriptors of %s open after three Foreground calls, want 1", n, comm)
	}
	write(t, p, "exec sleep 30\n")
	waitFor(t, "sleep as the leader, same pid", func() bool {
		pgid, name, err := p.Foreground()
		return err == nil && pgid == p.Pid() && name == "sleep"
	})
	if err := p.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		t.Logf("Close: %v", err)
	}
	if n := openCount(t, comm); n != 0 {
		t.Errorf("%d descriptors of %s open after Close, want 0", n, comm)
	}
}

// openCount is how many of this process's descriptors are open on path.
func openCount(t *testing.T, path string) int {
	t.Helper()
	ents, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		t.Skipf("no /proc/self/fd: %v", err)
	}
	n := 0
	for _, e := range ents {
		if target, err := os.Readlink("/proc/self/fd/" + e.Name()); err == nil && target == path {
			n++
		}
	}
	return n
}
