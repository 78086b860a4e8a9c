package session_test

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// newManager returns a Manager whose shells are deterministic: bash without
// the user's startup files, a scratch HOME, a fixed TERM.
func newManager(t testing.TB, opts session.Options) *session.Manager {
	t.Helper()
	opts.Kinds = []session.Kind{session.LocalKind(&local.Opener{})}
	if opts.StateDir == "" {
		opts.StateDir = t.TempDir()
	}
	if opts.Shell == "" {
		opts.Shell = "/bin/bash"
		opts.NoRC = true
	}
	m := session.NewManager(opts)
	t.Cleanup(m.CloseAll)
	return m
}

func openShell(t testing.TB, m *session.Manager, env ...string) *session.Session {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	home := t.TempDir()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
		Env: append([]string{"HOME=" + home, "PS1=$ ", "LANG=C.UTF-8"}, env...),
	}})
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	return s
}

// logOnFailure logs the session's raw output, marks and all, when the
// test fails: a verdict that failed on a loaded machine is explained by
// the bytes the terminal wrote and in what order.
func logOnFailure(t testing.TB, s *session.Session) {
	t.Cleanup(func() {
		if !t.Failed() {
			return
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		r, err := s.Read(ctx, session.ReadRequest{Mode: "range", Raw: true, FromLine: 1, ToLine: 100000})
		t.Logf("the session's output (%v): %q", err, r.Output)
	})
}

func send(t testing.TB, s *session.Session, req session.SendRequest) session.Result {
	t.Helper()
	req.Wait = true
	req.Enter = true
	if req.Timeout == 0 {
		req.Timeout = 20 * time.Second
	}
	ctx, cancel := context.WithTimeout(context.Background(), req.Timeout+10*time.Second)
	defer cancel()
	r, err := s.Send(ctx, req)
	if err != nil {
		t.Fatalf("send %q: %v", req.Text, err)
	}
	return r
}

func exitCode(r session.Result) string {
	if r.ExitCode == nil {
		return "<nil>"
	}
	return strconv.Itoa(*r.ExitCode)
}

func TestSendExitCodes(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	if !s.Info().Integrated {
		t.Fatalf("bash integration not ready: %+v", s.Info())
	}
	tests := []struct {
		name, text, output, code string
	}{
		{"echo", "echo hello", "hello", "0"},
		{"false", "false", "", "1"},
		{"exit status 3 in a subshell", "(exit 3)", "", "3"},
		{"cd then pwd", "cd /tmp", "", "0"},
		{"pwd keeps state", "pwd", "/tmp", "0"},
		{"pipeline", "printf 'a\\nb\\nc\\n' | wc -l", "3", "0"},
		{"not found", "no-such-command-ttymux", "bash: no-such-command-ttymux: command not found", "127"},
		{"multi-line", "echo one\necho two", "one\ntwo", "0"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := send(t, s, session.SendRequest{Text: tt.text})
			if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != tt.code || r.Output != tt.output {
				t.Fatalf("got complete=%v via=%q exit=%s output=%q; want exit-code %s output %q (state %s, note %q)",
					r.Complete, r.Via, exitCode(r), r.Output, tt.code, tt.output, r.State, r.Note)
			}
			if r.State != "prompt" {
				t.Errorf("state = %q, want prompt", r.State)
			}
		})
	}
}

// TestQuietCommandNotCompleteEarly pins the failure seen in other servers: a
// command that is quiet for a while (sleep) must not be reported complete
// before it prints its last line.
func TestQuietCommandNotCompleteEarly(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "sleep 1; echo done"})
	if !r.Complete || r.Output != "done" || r.Via != session.ViaExitCode {
		t.Fatalf("got complete=%v via=%q output=%q, want complete with done", r.Complete, r.Via, r.Output)
	}
}

func TestTimeoutThenReadWait(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "echo start; sleep 1.5; echo finished", Timeout: 300 * time.Millisecond})
	if r.Complete || r.Via != session.ViaTimeout || r.State != "running" || r.Foreground != "sleep" {
		t.Fatalf("got complete=%v via=%q state=%q fg=%q, want a running sleep", r.Complete, r.Via, r.State, r.Foreground)
	}
	if r.Output != "start" {
		t.Errorf("partial output = %q, want start", r.Output)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	r2, err := s.Read(ctx, session.ReadRequest{Wait: true, Timeout: 15 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r2.Complete || r2.Output != "finished" || exitCode(r2) != "0" {
		t.Fatalf("read wait: complete=%v via=%q exit=%s output=%q", r2.Complete, r2.Via, exitCode(r2), r2.Output)
	}
}

// TestUntilNeverMatchesEcho pins the rule that until is anchored after the
// echo of the typed text: the pattern appears in the command line itself.
func TestUntilNeverMatchesEcho(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "sleep 0.5; echo until-marker; sleep 5", Until: "until-marker"})
	if !r.Complete || r.Via != session.ViaUntil || r.Output != "until-marker" {
		t.Fatalf("got complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
	// Interrupt the rest and check the shell answers. ctrl+c must reach
	// sleep, not the shell between two commands of the list.
	waitForeground(t, s, "sleep")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	r = send(t, s, session.SendRequest{Text: "echo after"})
	if r.Output != "after" {
		t.Fatalf("after ctrl+c: %q", r.Output)
	}
}

func TestCtrlCInterrupts(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	r := send(t, s, session.SendRequest{Text: "sleep 100", Timeout: 200 * time.Millisecond})
	if r.Complete {
		t.Fatalf("sleep 100 reported complete: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || exitCode(r) != "130" {
		t.Fatalf("after ctrl+c: complete=%v exit=%s via=%q", r.Complete, exitCode(r), r.Via)
	}
	if r := send(t, s, session.SendRequest{Text: "echo alive"}); r.Output != "alive" {
		t.Fatalf("shell did not answer after ctrl+c: %q", r.Output)
	}
}

// TestCtrlCWhileTheProgramStarts: a ctrl+c the kernel hands to the shell
// because the command's program has not taken the terminal yet (on a busy
// machine, between the shell reading the line and the program starting)
// reaches the program once it does. Here the program gives the terminal
// back to the shell for a moment, as if it had not taken it yet; before,
// the shell swallowed the interrupt and the program ran on past the
// send's timeout (TestCtrlCInterrupts failed so under two CPU hogs).
func TestCtrlCWhileTheProgramStarts(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		t.Skip("python3 not installed")
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	prog := `python3 -c 'import os,signal,sys,time
signal.signal(signal.SIGTTOU, signal.SIG_IGN)
me = os.getpgrp()
os.tcsetpgrp(0, os.getpgid(os.getppid()))
print("handed-" + "back", flush=True)
time.sleep(0.15)
os.tcsetpgrp(0, me)
time.sleep(100)'`
	r := send(t, s, session.SendRequest{Text: prog, Until: "handed-back", Timeout: 10 * time.Second})
	if r.Via != session.ViaUntil {
		t.Fatalf("program did not start: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	r, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 5 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete || exitCode(r) == "0" || exitCode(r) == "<nil>" {
		t.Fatalf("after ctrl+c: complete=%v exit=%s via=%q output=%q", r.Complete, exitCode(r), r.Via, r.Output)
	}
	if r := send(t, s, session.SendRequest{Text: "echo alive"}); r.Output != "alive" {
		t.Fatalf("shell did not answer after ctrl+c: %q", r.Output)
	}
}

func TestPythonREPLWithUntil(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 missing under CI; .ci/run installs it")
		}
		t.Skip("python3 not installed")
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "python3 -q", Until: ">>> $"})
	if !r.Complete || r.Via != session.ViaUntil {
		t.Fatalf("python3 start: %+v", r)
	}
	if r.State != "repl" {
		t.Errorf("state = %q, want repl", r.State)
	}
	r = send(t, s, session.SendRequest{Text: "print(6*7)", Until: ">>> $"})
	if !strings.HasPrefix(r.Output, "42") || r.Via != session.ViaUntil {
		t.Fatalf("print(6*7): output %q via %q", r.Output, r.Via)
	}
	r = send(t, s, session.SendRequest{Text: "exit()"})
	if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != "0" {
		t.Fatalf("exit(): %+v", r)
	}
}

// TestLongOutputFoldedAndReadableByRange: a long output is folded in the
// result and every line of it reads back exactly by range, a million lines
// too, in the server and through the agent.
func TestLongOutputFoldedAndReadableByRange(t *testing.T) {
	for _, tc := range []struct {
		name       string
		n          int
		persistent bool
	}{
		{"in-process/seq_100000", 100000, false},
		{"in-process/seq_1000000", 1000000, false},
		{"persistent/seq_1000000", 1000000, true},
	} {
		t.Run(tc.name, func(t *testing.T) { testReadableByRange(t, tc.n, tc.persistent) })
	}
}

// testReadableByRange runs `seq 1 n`, which is folded, and reads every line
// back by range, page by page.
func testReadableByRange(t *testing.T, n int, persistent bool) {
	var s *session.Session
	if persistent {
		m := newPersistentManager(t, startAgent(t))
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		var err error
		s, err = m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: true,
			Target: transport.Target{Env: []string{"HOME=" + t.TempDir(), "PS1=$ ", "LANG=C.UTF-8"}}})
		if err != nil {
			t.Fatal(err)
		}
		if !s.Persistent() {
			t.Fatalf("not persistent: %s", s.OpenNote())
		}
	} else {
		s = openShell(t, newManager(t, session.Options{}))
	}
	r := send(t, s, session.SendRequest{Text: fmt.Sprintf("seq 1 %d", n), Timeout: 2 * time.Minute}) // a busy machine
	if !r.Complete || exitCode(r) != "0" {
		t.Fatalf("seq: %+v", r)
	}
	if r.Reduction == nil || r.Reduction.Elided == 0 || r.Reduction.RawLines != n {
		t.Fatalf("reduction = %+v, want folded %d lines", r.Reduction, n)
	}
	if !strings.Contains(r.Output, `"mode":"range"`) {
		t.Fatalf("fold marker lacks the read call:\n%s", r.Output)
	}
	if r.LastLine-r.FirstLine+1 != int64(n) {
		t.Fatalf("first/last line %d..%d, want %d lines", r.FirstLine, r.LastLine, n)
	}
	// Every line comes back exactly, page by page.
	ctx := context.Background()
	next := int64(1)
	for line := r.FirstLine; line <= r.LastLine; {
		rr, err := s.Read(ctx, session.ReadRequest{Mode: "range", FromLine: line, ToLine: r.LastLine})
		if err != nil {
			t.Fatal(err)
		}
		for _, l := range strings.Split(rr.Output, "\n") {
			if l != strconv.FormatInt(next, 10) {
				t.Fatalf("line %d of session reads %q, want %d", line, l, next)
			}
			next++
			line++
		}
		if rr.LastLine < line-1 {
			t.Fatalf("range read ended at %d, returned lines up to %d", rr.LastLine, line-1)
		}
	}
	if next != int64(n)+1 {
		t.Fatalf("read back %d lines, want %d", next-1, n)
	}
}

func TestBadInput(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	ctx := context.Background()
	tests := []struct {
		name string
		req  session.SendRequest
		want string
	}{
		{"empty", session.SendRequest{}, "nothing to send"},
		{"bad regex", session.SendRequest{Text: "echo", Until: "(("}, "not a valid regular expression"},
		{"unknown key", session.SendRequest{Keys: []string{"ctrl+banana"}}, "unknown key"},
		{"destructive", session.SendRequest{Text: "rm -rf /"}, "confirm: true"},
		{"huge", session.SendRequest{Text: strings.Repeat("x", session.MaxSendBytes+1)}, "limit"},
		{"timeout too long", session.SendRequest{Text: "true", Timeout: time.Hour}, "maximum"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := s.Send(ctx, tt.req)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want one containing %q", err, tt.want)
			}
		})
	}
	if err := s.Resize(ctx, transport.Size{Rows: 0, Cols: 80}); err == nil {
		t.Error("resize to 0 rows succeeded")
	}
	if _, err := m.Get(context.Background(), "s999"); err == nil || !strings.Contains(err.Error(), s.ID()) {
		t.Errorf("wrong id error = %v, want one listing %s", err, s.ID())
	}
	var nf *session.NotFoundError
	if _, err := m.Get(context.Background(), "nope"); !errors.As(err, &nf) {
		t.Errorf("wrong id error type %T", err)
	}
	// The session still works after all that.
	if r := send(t, s, session.SendRequest{Text: "echo ok"}); r.Output != "ok" {
		t.Fatalf("session broken after bad input: %q", r.Output)
	}
}

func TestSecretRedacted(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	const secret = "hunter2-planted-secret"
	r := send(t, s, session.SendRequest{Text: "read -r pw; echo got:$pw", Timeout: 300 * time.Millisecond})
	if r.Complete {
		t.Fatalf("read builtin reported complete before input: %+v", r)
	}
	r = send(t, s, session.SendRequest{Text: secret, Secret: true})
	if strings.Contains(r.Output, secret) || !strings.Contains(r.Output, "got:********") {
		t.Fatalf("secret leaked or missing marker: %q", r.Output)
	}
	rr, err := s.Read(context.Background(), session.ReadRequest{Mode: "screen"})
	if err != nil || strings.Contains(rr.Output, secret) {
		t.Fatalf("secret in screen: %q %v", rr.Output, err)
	}
}

func TestUserRCLoaded(t *testing.T) {
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte("export FROM_RC=yes\nalias hi='echo hi-from-alias'\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{Shell: "/bin/bash"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: []string{"HOME=" + home}}})
	if err != nil {
		t.Fatal(err)
	}
	r := send(t, s, session.SendRequest{Text: "echo $FROM_RC; hi"})
	if r.Output != "yes\nhi-from-alias" || r.Via != session.ViaExitCode {
		t.Fatalf("user rc not loaded or integration lost: %q via %q", r.Output, r.Via)
	}
}

func TestZshIntegration(t *testing.T) {
	zsh, err := exec.LookPath("zsh")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("zsh missing under CI; .ci/run installs it")
		}
		t.Skip("zsh not installed")
	}
	home := t.TempDir()
	if err := os.WriteFile(filepath.Join(home, ".zshrc"), []byte("export FROM_ZSHRC=yes\nPROMPT='%% '\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{Shell: zsh})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: []string{"HOME=" + home, "ZDOTDIR="}}})
	if err != nil {
		t.Fatal(err)
	}
	if !s.Info().Integrated {
		t.Fatal("zsh integration not ready")
	}
	r := send(t, s, session.SendRequest{Text: "echo $FROM_ZSHRC; false"})
	if r.Output != "yes" || exitCode(r) != "1" || r.Via != session.ViaExitCode {
		t.Fatalf("zsh: output %q exit %s via %q", r.Output, exitCode(r), r.Via)
	}
}

// TestShellLayerWithoutIntegration runs a shell without ttymux's hook: the
// verdict comes from the foreground process group, and a quiet sleep is
// still not complete early. dash gets the hook through ENV when started
// plain; an argument (-E here, emacs editing, which changes nothing) says
// the caller composed the command line, and ttymux leaves it alone.
func TestShellLayerWithoutIntegration(t *testing.T) {
	sh, err := exec.LookPath("dash")
	if err != nil {
		sh = "/bin/sh"
	}
	for _, tt := range []struct {
		name, ps1, via string
	}{
		{"no prompt: the shell layer decides", "", session.ViaShell},
		{"a prompt: the prompt layer decides", "$ ", session.ViaPrompt},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := newManager(t, session.Options{Shell: sh})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Command: sh, Args: []string{"-E"}, Env: []string{"HOME=" + t.TempDir(), "PS1=" + tt.ps1, "LANG=C.UTF-8"}}})
			if err != nil {
				t.Fatal(err)
			}
			if s.Info().Integrated {
				t.Fatal("integrated, though the caller gave arguments")
			}
			r := send(t, s, session.SendRequest{Text: "sleep 0.5; echo slept"})
			if !r.Complete || r.Via != tt.via || r.Output != "slept" {
				t.Fatalf("got complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
			}
		})
	}
}

func TestExitedSession(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "exit 4"})
	if !r.Complete || r.Via != session.ViaExited || exitCode(r) != "4" || r.State != "exited" {
		t.Fatalf("exit 4: %+v", r)
	}
	_, err := s.Send(context.Background(), session.SendRequest{Text: "echo"})
	if err == nil || !strings.Contains(err.Error(), "exit status 4") {
		t.Fatalf("send to exited session: %v", err)
	}
}

func TestSessionLimitAndNames(t *testing.T) {
	m := newManager(t, session.Options{Limit: 2})
	ctx := context.Background()
	a, err := m.Open(ctx, session.OpenRequest{Transport: "local", Name: "build", Target: transport.Target{Command: "cat"}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := m.Open(ctx, session.OpenRequest{Transport: "local", Name: "build", Target: transport.Target{Command: "cat"}}); err == nil {
		t.Fatal("duplicate name accepted")
	}
	if _, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Command: "cat"}}); err != nil {
		t.Fatal(err)
	}
	_, err = m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Command: "cat"}})
	if !errors.Is(err, session.ErrLimit) {
		t.Fatalf("third open: %v, want ErrLimit", err)
	}
	if got, err := m.Get(ctx, "build"); err != nil || got != a {
		t.Fatalf("Get by name: %v", err)
	}
	if _, err := m.Close(ctx, "build"); err != nil {
		t.Fatal(err)
	}
	if len(m.List(ctx)) != 1 {
		t.Fatalf("list after close: %+v", m.List(ctx))
	}
}

func TestProgressBarRendered(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: `for i in 10 50 100; do printf '\rprogress %d%%' $i; done; echo`})
	if r.Output != "progress 100%" {
		t.Fatalf("progress bar rendered as %q", r.Output)
	}
	raw := send(t, s, session.SendRequest{Text: `printf 'a\rb\n'`, Raw: true})
	if !strings.Contains(raw.Output, "a\rb") {
		t.Fatalf("raw output %q lacks the untouched bytes", raw.Output)
	}
}

func TestScreenAndAltScreen(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: `printf '\033[?1049h\033[Hfull screen app'; sleep 5`, Until: "full screen app"})
	if r.Mode != "screen" || !strings.Contains(r.Output, "full screen app") {
		t.Fatalf("alt screen output: mode %q %q", r.Mode, r.Output)
	}
	ctx := context.Background()
	if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 5 * time.Second}); err != nil {
		t.Fatal(err)
	}
	send(t, s, session.SendRequest{Text: `printf '\033[?1049l'`})
	sr, err := s.Read(ctx, session.ReadRequest{Mode: "screen"})
	if err != nil || sr.Cursor == nil {
		t.Fatalf("screen read: %+v %v", sr, err)
	}
}

// waitForeground waits (bounded) until name owns the session's terminal.
func waitForeground(t *testing.T, s *session.Session, name string) {
	t.Helper()
	// Polling a kernel state: no event announces it.
	if !testwait.Poll(t.Context(), 10*time.Second, func() bool { return s.Info().Foreground == name }) {
		t.Fatalf("foreground is %q, want %q", s.Info().Foreground, name)
	}
}

// TestNestedShellPromptLayer types a shell into the session, as `ssh host`
// or `docker exec -it c bash` would be: inside it ttymux has no hook, and the
// prompt layer must not call a quiet command complete early.
func TestNestedShellPromptLayer(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "PS1='inner$ ' bash --norc --noprofile"})
	if !r.Complete || r.Via != session.ViaPrompt || r.Foreground != "bash" {
		t.Fatalf("nested bash start: complete=%v via=%q fg=%q output=%q", r.Complete, r.Via, r.Foreground, r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "sleep 1; echo inner-done"})
	if !r.Complete || r.Via != session.ViaPrompt || r.Output != "inner-done" {
		t.Fatalf("inner command: complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "cd /tmp"})
	if !r.Complete || r.Via != session.ViaPrompt {
		t.Fatalf("cd inside: %+v", r)
	}
	r = send(t, s, session.SendRequest{Text: "exit 3"})
	if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != "3" || r.State != "prompt" {
		t.Fatalf("exit from the nested shell: complete=%v via=%q exit=%s state=%q", r.Complete, r.Via, exitCode(r), r.State)
	}
}

func TestPythonREPLWithoutUntil(t *testing.T) {
	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 missing under CI; .ci/run installs it")
		}
		t.Skip("python3 not installed")
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "python3 -q"})
	if !r.Complete || r.Via != session.ViaPrompt || r.State != "repl" {
		t.Fatalf("python3 start: complete=%v via=%q state=%q output=%q", r.Complete, r.Via, r.State, r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "import time; time.sleep(0.5); print(6*7)"})
	if !r.Complete || r.Via != session.ViaPrompt || r.Output != "42" {
		t.Fatalf("print(6*7): complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "for i in range(3):\n    print(i)\n"})
	if !r.Complete || !strings.Contains(r.Output, "0\n1\n2") {
		t.Fatalf("multi-line block: complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
}

// TestMarkInNestedShell: mark: true gives exit codes where ttymux has no
// hook, and the sentinel never shows in the output.
func TestMarkInNestedShell(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	if r := send(t, s, session.SendRequest{Text: "PS1='inner$ ' bash --norc --noprofile"}); !r.Complete {
		t.Fatalf("nested bash: %+v", r)
	}
	for _, tt := range []struct{ text, out, code string }{
		{"echo marked; (exit 4)", "marked", "4"},
		{"sleep 0.5; echo slow", "slow", "0"},
		{"printf 'no newline'", "no newline", "0"},
		{"echo a\necho b; false", "a\nb", "1"},
		{"echo c # a comment", "c", "0"},
	} {
		r := send(t, s, session.SendRequest{Text: tt.text, Mark: true})
		if !r.Complete || r.Via != session.ViaMark || exitCode(r) != tt.code || r.Output != tt.out {
			t.Fatalf("%q: complete=%v via=%q exit=%s output=%q state=%q note=%q elapsed=%d", tt.text, r.Complete, r.Via, exitCode(r), r.Output, r.State, r.Note, r.ElapsedMS)
		}
	}
}

// TestIntegrateNestedShell installs the hook into a shell typed into the
// session; its commands then come back with exit codes. mksh gets the D
// mark in PS1, as ash and dash would: BusyBox ash's line editor takes at
// most 1024 characters, shorter than the hook's line, and a nested dash
// (no line editor, echo on) does not end the send that starts it.
func TestIntegrateNestedShell(t *testing.T) {
	for _, nested := range []string{"PS1='inner$ ' bash --norc --noprofile", "PS1='inner%% ' zsh -f", "PS1='inner$ ' mksh"} {
		t.Run(strings.Fields(nested)[2], func(t *testing.T) { testIntegrateNested(t, nested) })
	}
}

func testIntegrateNested(t *testing.T, nested string) {
	if _, err := exec.LookPath(strings.Fields(nested)[2]); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing under CI", nested)
		}
		t.Skip(err)
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	if r := send(t, s, session.SendRequest{Text: nested}); !r.Complete {
		t.Fatalf("nested shell: %+v", r)
	}
	r := send(t, s, session.SendRequest{Integrate: true})
	if !r.Complete || r.Via != session.ViaExitCode {
		t.Fatalf("integrate: complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "sleep 0.3; echo nested; (exit 5)"})
	if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != "5" || r.Output != "nested" {
		t.Fatalf("after integrate: complete=%v via=%q exit=%s output=%q", r.Complete, r.Via, exitCode(r), r.Output)
	}
	r = send(t, s, session.SendRequest{Text: "exit"})
	if !r.Complete || r.Via != session.ViaExitCode || exitCode(r) != "5" {
		t.Fatalf("back in the outer shell: %+v", r)
	}
	if r := send(t, s, session.SendRequest{Text: "echo outer"}); r.Output != "outer" || r.Via != session.ViaExitCode {
		t.Fatalf("outer shell: %+v", r)
	}
}

// TestCommandReducerThroughSend: the command typed picks a per-command
// reducer for its output, the result says which, and what it hid is still
// readable exactly by range.
func TestCommandReducerThroughSend(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "ls -laR /usr/share/doc /usr/lib/python3*/ 2>/dev/null | cat"})
	if !r.Complete || r.Reduction == nil {
		t.Fatalf("ls -laR: complete=%v reduction=%+v", r.Complete, r.Reduction)
	}
	if r.Reduction.Reducer != "ls -R" {
		t.Fatalf("reducer %q, want ls -R (reduction %+v)", r.Reduction.Reducer, r.Reduction)
	}
	if r.Reduction.Bytes*4 > r.Reduction.RawBytes {
		t.Fatalf("reduced to %d of %d bytes", r.Reduction.Bytes, r.Reduction.RawBytes)
	}
	// Every line is there by range.
	all, err := s.Read(t.Context(), session.ReadRequest{Mode: "range", FromLine: r.FirstLine, ToLine: r.FirstLine + 5})
	first, _, _ := strings.Cut(r.Output, "\n")
	if err != nil || !strings.HasPrefix(all.Output, first+"\n") {
		t.Fatalf("range read: %v %q, want it to start with %q", err, all.Output, first)
	}
}
