package session_test

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/session"
)

// TestLineThatRunsIsChecked: Enter after keys that edit the line (ctrl+a
// alt+d turning "echo touch F" into "touch F"), recall it from history (up)
// or complete text typed without Enter is judged on the line the shell's
// line editor holds, read from the shell: a line the policy refuses is not
// run and is cleared from the prompt. On the old code the first two ran
// touch. Lines the policy allows still run. fish reports its line too (on
// the code before, its edited Enter was refused after a 3 s wait).
func TestLineThatRunsIsChecked(t *testing.T) {
	for _, sh := range []string{"bash", "zsh", "fish"} {
		t.Run(sh, func(t *testing.T) { lineThatRunsIsChecked(t, sh) })
	}
}

func lineThatRunsIsChecked(t *testing.T, shell string) {
	path, err := exec.LookPath(shell)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing under CI", shell)
		}
		t.Skipf("no %s", shell)
	}
	p, err := policy.Parse("p.toml", []byte("[[rule]]\nhosts = [\"local\"]\ndeny = ['^\\s*touch\\b']\n"))
	if err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{Policy: p, Shell: path, NoRC: true})
	s := openShell(t, m)
	if !s.Info().Integrated {
		t.Fatalf("%s is not integrated", shell)
	}
	addHistory := "history -s"
	if shell == "zsh" {
		send(t, s, session.SendRequest{Text: "bindkey -e"})
		addHistory = "print -s"
	}
	logOnFailure(t, s)
	dir := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	do := func(req session.SendRequest) (session.Result, error) {
		if req.Timeout == 0 {
			req.Timeout = 10 * time.Second
		}
		req.Wait = true
		return s.Send(ctx, req)
	}
	held := func(what, file string, err error) {
		t.Helper()
		var ge *session.GateError
		if !errors.As(err, &ge) || !strings.Contains(ge.Line+ge.Reason, "touch") {
			t.Errorf("%s: %v, want the touch line refused", what, err)
		}
		if _, err := os.Stat(filepath.Join(dir, file)); err == nil {
			t.Errorf("%s: %s was created", what, file)
		}
		if r := send(t, s, session.SendRequest{Text: "echo clean"}); r.Output != "clean" {
			t.Errorf("%s: the line after: %q (was the held line left at the prompt?)", what, r.Output)
		}
	}

	f := filepath.Join(dir, "F")
	if _, err := do(session.SendRequest{Text: "echo touch " + f}); err != nil {
		t.Fatal(err)
	}
	_, err = do(session.SendRequest{Keys: []string{"ctrl+a", "alt+d", "enter"}})
	held("ctrl+a alt+d enter", "F", err)

	// fish puts an appended line where up does not reach it at once:
	// a recalled line is checked below, in every shell, on an allowed one.
	if shell != "fish" {
		if _, err := do(session.SendRequest{Text: addHistory + " 'touch " + filepath.Join(dir, "H") + "'", Enter: true}); err != nil {
			t.Fatal(err)
		}
		_, err = do(session.SendRequest{Keys: []string{"up", "enter"}})
		held("up enter", "H", err)
	}

	// Allowed lines built the same ways still run.
	if _, err := do(session.SendRequest{Text: "echo   hel"}); err != nil {
		t.Fatal(err)
	}
	r, err := do(session.SendRequest{Keys: []string{"ctrl+a", "alt+d", "home"}, Text: ""})
	if err == nil {
		r, err = do(session.SendRequest{Text: `printf '%s\n'`, Enter: true})
	}
	if err != nil || r.Output != "hel" {
		t.Errorf("an edited allowed line: %q, %v; want hel", r.Output, err)
	}
	send(t, s, session.SendRequest{Text: "echo again"})
	r, err = do(session.SendRequest{Keys: []string{"up", "enter"}})
	if err != nil || r.Output != "again" {
		t.Errorf("a recalled allowed line: %q, %v; want again", r.Output, err)
	}
}

// TestUnknownLineRefused: at the prompt of a shell without ttymux's hook (a
// nested bash), Enter after keys that edit or recall the line is refused:
// the line cannot be read. Text sent with Enter still runs.
func TestUnknownLineRefused(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	send(t, s, session.SendRequest{Text: "PS1='$ ' bash --norc --noprofile", Timeout: 2 * time.Second})
	if r := send(t, s, session.SendRequest{Text: "echo inner", Timeout: 5 * time.Second}); !strings.Contains(r.Output, "inner") {
		t.Fatalf("nested bash: %+v", r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	_, err := s.Send(ctx, session.SendRequest{Keys: []string{"up", "enter"}, Wait: true, Timeout: 5 * time.Second})
	var ge *session.GateError
	if !errors.As(err, &ge) || !ge.Denied || !strings.Contains(err.Error(), "cannot be read") {
		t.Fatalf("up enter at an unhooked prompt: %v", err)
	}
}
