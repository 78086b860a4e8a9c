package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// posixShells are the shells ttymux hooks through ENV and PS1, as open_local
// starts them: the command and its arguments.
var posixShells = []struct {
	name string
	argv []string
}{
	{"busybox ash", []string{"busybox", "ash"}},
	{"dash", []string{"dash"}},
	{"mksh", []string{"mksh"}},
}

// lookShell finds argv[0], skipping the test (failing under CI, which
// installs them all) when it is missing.
func lookShell(t *testing.T, argv []string) []string {
	t.Helper()
	p, err := exec.LookPath(argv[0])
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing under CI; .ci/run installs it", argv[0])
		}
		t.Skipf("%s not installed", argv[0])
	}
	return append([]string{p}, argv[1:]...)
}

// hooked is how one shell says what hookedSteps types.
type hooked struct {
	cd      string // cd /tmp, then pwd
	cwdFrom string // what reports the working directory
	fail    string // a command that fails with exit code code
	code    string
}

// hookedSteps checks what every shell with ttymux's hook gives, whatever
// its syntax: a command that takes a second is waited for and ends by its
// exit code, cd moves the working directory the hook reports, and each of
// five commands in a row gets its own output and exit code.
func hookedSteps(t *testing.T, s *session.Session, h hooked) {
	t.Helper()
	t0 := time.Now()
	r := send(t, s, session.SendRequest{Text: "sleep 1; echo slept"})
	if el := time.Since(t0); r.Output != "slept" || exitCode(r) != "0" || r.Via != session.ViaExitCode || el < time.Second {
		t.Fatalf("sleep: output %q exit %s via %q after %v", r.Output, exitCode(r), r.Via, el)
	}
	r = send(t, s, session.SendRequest{Text: h.cd})
	if r.Output != "/tmp" || exitCode(r) != "0" {
		t.Fatalf("cd: output %q exit %s", r.Output, exitCode(r))
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if cwd, err := s.Cwd(ctx); err != nil || cwd != "/tmp" {
		t.Errorf("Cwd = %q, %v after cd /tmp, want /tmp (%s)", cwd, err, h.cwdFrom)
	}
	for i := range 5 {
		want := strings.Repeat("x", i+1)
		r = send(t, s, session.SendRequest{Text: "echo " + want + "; " + h.fail})
		if r.Output != want || exitCode(r) != h.code || r.Via != session.ViaExitCode {
			t.Fatalf("command %d: output %q exit %s via %q", i, r.Output, exitCode(r), r.Via)
		}
	}
}

// TestPOSIXShellHook: BusyBox ash, dash and mksh get exact exit codes
// without mark (issue #30). They have no hook that runs around a command,
// but read $ENV and expand $? in PS1 at every prompt: ttymux's ENV file
// (shellinit/shrc) reads the user's own ENV first, then puts the D mark
// with $? into PS1. Before it these shells had no exit codes at all
// (via shell or prompt, exit_code nil) and a 1 s settle at open.
//
// The D mark carries c=0 (no C mark will come): the command's output starts
// after its echo, a D without a C ends it at once (a bash D without C
// waits a second of quiet), and until matches while the command still
// runs.
func TestPOSIXShellHook(t *testing.T) {
	for _, sh := range posixShells {
		t.Run(sh.name, func(t *testing.T) {
			argv := lookShell(t, sh.argv)
			home := t.TempDir()
			// The user's ENV file: read before the hook, its PS1 kept.
			rc := filepath.Join(home, ".shrc")
			if err := os.WriteFile(rc, []byte("FROM_ENV=yes\nPS1='my-prompt> '\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			m := newManager(t, session.Options{Shell: "/bin/bash", NoRC: false})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			start := time.Now()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Command: argv[0], Args: argv[1:], Env: []string{"HOME=" + home, "ENV=" + rc, "LANG=C.UTF-8"}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if !s.Info().Integrated {
				t.Fatalf("no hook after %v: %+v", time.Since(start), s.Info())
			}
			r := send(t, s, session.SendRequest{Text: "echo $FROM_ENV; (exit 3)"})
			if r.Output != "yes" || exitCode(r) != "3" || r.Via != session.ViaExitCode {
				t.Fatalf("output %q exit %s via %q", r.Output, exitCode(r), r.Via)
			}
			hookedSteps(t, s, hooked{cd: "cd /tmp && pwd", cwdFrom: "OSC 7 from PS1", fail: "false", code: "1"})
			// until while the command runs: the anchor comes from the echo,
			// not from a C mark that never comes. The command runs until
			// the test opens its gate, which it does once the next line,
			// typed ahead, is on the terminal (before, a sleep 3 that the
			// until had to beat and every shell then sat out).
			gate := filepath.Join(t.TempDir(), "gate")
			r = send(t, s, session.SendRequest{Text: "echo started; until [ -e " + gate + " ]; do sleep 0.02; done; echo ended", Until: "started"})
			if r.Via != session.ViaUntil {
				t.Fatalf("until: via %q, output %q", r.Via, r.Output)
			}
			opened := openGateOnEcho(t, s, gate, "echo after")
			r = send(t, s, session.SendRequest{Text: "echo after"})
			<-opened
			if !strings.HasSuffix(r.Output, "after") || exitCode(r) != "0" {
				t.Fatalf("after the until: output %q exit %s via %q", r.Output, exitCode(r), r.Via)
			}
			if r = send(t, s, session.SendRequest{Text: "env | grep -E -c 'ttymux=[0-9a-f]{16}' ; echo $ENV"}); r.Output != "0\n"+rc {
				t.Errorf("the nonce reached the environment, or ENV was not restored: %q", r.Output)
			}
			// No key reports the line these shells hold: an Enter after
			// editing keys is refused at once, nothing of it typed (before:
			// the keys typed, 3 s waited for a report, the line left).
			if _, err := s.Send(ctx, session.SendRequest{Text: "echo touch x"}); err != nil {
				t.Fatal(err)
			}
			_, err = s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+a", "enter"}, Wait: true, Timeout: 5 * time.Second})
			if err == nil || !strings.Contains(err.Error(), "cannot report the line") {
				t.Fatalf("an edited Enter: %v, want it refused as a line the shell cannot report", err)
			}
			// Waited for: ash and mksh draw the prompt again at ctrl+u, D
			// mark included, which must not end the next command.
			if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+u"}, Wait: true, Timeout: 2 * time.Second}); err != nil {
				t.Fatal(err)
			}
			if r = send(t, s, session.SendRequest{Text: "echo cleared"}); r.Output != "cleared" {
				t.Errorf("after the refused Enter: %q", r.Output)
			}
		})
	}
}

// openGateOnEcho creates the file gate once typed shows up in s's output
// after the present end (a line typed ahead, echoed by the terminal while
// a command runs), so that a command waiting for gate ends after the line
// was typed. The channel is closed when it has.
func openGateOnEcho(t *testing.T, s *session.Session, gate, typed string) <-chan struct{} {
	from := s.OutputEnd()
	done := make(chan struct{})
	t.Cleanup(func() { <-done }) // the test fails, t.Context ends: so does the wait
	go func() {
		defer close(done)
		if !testwait.Poll(t.Context(), 20*time.Second, func() bool {
			b, _, _, _ := s.OutputFrom(from, 1<<20)
			return strings.Contains(string(b), typed)
		}) {
			t.Errorf("%q typed ahead never showed on the terminal", typed)
		}
		if err := os.WriteFile(gate, nil, 0o600); err != nil {
			t.Error(err)
		}
	}()
	return done
}

// TestMarkWithHook: mark: true in a hooked shell returns the command's
// exit code. The sentinel is typed on the same line, so the hook's D mark
// after it carries the sentinel printf's status (0); when both arrived in
// one read the exit-code layer won and reported 0 for a false, with the
// sentinel line in the output.
func TestMarkWithHook(t *testing.T) {
	for _, sh := range append([]struct {
		name string
		argv []string
	}{{"bash", []string{"bash"}}}, posixShells...) {
		t.Run(sh.name, func(t *testing.T) {
			argv := lookShell(t, sh.argv)
			m := newManager(t, session.Options{Shell: "/bin/bash"})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Command: argv[0], Args: argv[1:], Env: []string{"HOME=" + t.TempDir(), "PS1=$ ", "LANG=C.UTF-8"}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if !s.Info().Integrated {
				t.Fatal("not integrated")
			}
			for i := range 10 {
				r := send(t, s, session.SendRequest{Text: "echo x; false", Mark: true})
				if !r.Complete || exitCode(r) != "1" || r.Output != "x" {
					t.Fatalf("run %d: complete=%v via %q exit %s output %q", i, r.Complete, r.Via, exitCode(r), r.Output)
				}
			}
		})
	}
}

// TestPOSIXTypeAhead: a command typed while another runs in a shell whose
// hook prints no C mark. Its output starts after the echo the line editor
// makes once the shell reads it, after the prompt the earlier command's D
// leads: before, its result began with the prompt (dash: "$ second") or
// with that echo (ash, whose echo came after the grace measured from the
// send had run out).
func TestPOSIXTypeAhead(t *testing.T) {
	for _, sh := range posixShells {
		t.Run(sh.name, func(t *testing.T) {
			argv := lookShell(t, sh.argv)
			m := newManager(t, session.Options{Shell: "/bin/bash"})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Command: argv[0], Args: argv[1:], Env: []string{"HOME=" + t.TempDir(), "PS1=$ "}}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if _, err := s.Send(ctx, session.SendRequest{Text: "sleep 1; echo first; (exit 2)", Enter: true}); err != nil {
				t.Fatal(err)
			}
			r := send(t, s, session.SendRequest{Text: "echo second; (exit 3)"})
			if r.Output != "second" || exitCode(r) != "3" || r.Via != session.ViaExitCode {
				t.Fatalf("output %q exit %s via %q", r.Output, exitCode(r), r.Via)
			}
			if e := r.Earlier; e == nil || e.ExitCode == nil || *e.ExitCode != 2 || !strings.HasSuffix(e.Output, "first") {
				t.Fatalf("earlier: %+v", e)
			}
		})
	}
}
