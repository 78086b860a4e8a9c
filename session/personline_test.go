package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// awaitOutput waits until the session's output log matches re.
func awaitOutput(t *testing.T, s *session.Session, re *regexp.Regexp) {
	t.Helper()
	testwait.Until(t, "the output to match "+re.String(), 20*time.Second, func() bool {
		b, _, _, _ := s.OutputFrom(0, 1<<20)
		return re.Match(b)
	})
}

func needShell(t *testing.T, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		if os.Getenv("CI") == "true" {
			t.Fatalf("%s missing under CI", name)
		}
		t.Skipf("no %s", name)
	}
	return path
}

// TestPersonLeftLine (issue #35): a person types at the prompt without
// pressing Enter and gives the terminal back. The model's next command
// runs alone and its result says what the person left, which did not
// run; keys, which would act on the person's line, are refused with an
// error naming it. Before, the person's keys joined the model's line:
// "touch F" left, then "echo model" ran "touch Fecho model".
func TestPersonLeftLine(t *testing.T) {
	for _, tc := range []struct {
		name, shell string
		hooked      bool
		args        []string
	}{
		{name: "bash", shell: "bash", hooked: true},
		{name: "zsh", shell: "zsh", hooked: true},
		// Without the hook: the person's own keys tell the line, and
		// ctrl+e ctrl+u clears it.
		// (env: a program ttymux does not integrate, which runs dash.)
		{name: "dash-unhooked", shell: "dash", args: []string{"dash", "-i"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := needShell(t, tc.shell)
			var s *session.Session
			dir := t.TempDir()
			if tc.hooked {
				m := newManager(t, session.Options{Shell: path, NoRC: true})
				s = openShell(t, m)
				if !s.Info().Integrated {
					t.Fatalf("%s is not integrated", tc.shell)
				}
				if tc.shell == "zsh" {
					send(t, s, session.SendRequest{Text: "bindkey -e"})
				}
			} else {
				m := newManager(t, session.Options{})
				ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
				defer cancel()
				var err error
				s, err = m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
					Command: "/usr/bin/env", Args: tc.args, Env: []string{"HOME=" + dir, "PS1=$ ", "ENV="},
				}})
				if err != nil {
					t.Fatal(err)
				}
				if s.Info().Integrated {
					t.Fatalf("%s %v is integrated", tc.shell, tc.args)
				}
			}
			logOnFailure(t, s)
			send(t, s, session.SendRequest{Text: "cd " + dir})
			if _, err := s.HumanWrite([]byte("touch person-file ")); err != nil {
				t.Fatal(err)
			}
			awaitOutput(t, s, regexp.MustCompile(`touch person-file `))
			r := send(t, s, session.SendRequest{Text: "echo model-$((6*7))"})
			if r.Output != "model-42" || tc.hooked && exitCode(r) != "0" || !strings.Contains(r.Note, `a person left "touch person-file "`) || !strings.Contains(r.Note, "cleared it") {
				t.Fatalf("the model's command after a person's keys without Enter: output %q exit %s note %q", r.Output, exitCode(r), r.Note)
			}
			t.Logf("note: %s", r.Note)
			if _, err := os.Stat(filepath.Join(dir, "person-file")); err == nil {
				t.Fatal("the person's line ran")
			}
			// Keys act on the line: refused, with the line named.
			if _, err := s.HumanWrite([]byte("echo person-again")); err != nil {
				t.Fatal(err)
			}
			awaitOutput(t, s, regexp.MustCompile(`echo person-again`))
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			_, err := s.Send(ctx, session.SendRequest{Keys: []string{"enter"}, Wait: true, Timeout: 10 * time.Second})
			if err == nil || !strings.Contains(err.Error(), `"echo person-again"`) || !strings.Contains(err.Error(), "nothing of this send was typed") {
				t.Fatalf("enter after a person's keys: %v", err)
			}
			// Told, the model clears the line itself and goes on.
			if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+e", "ctrl+u"}}); err != nil {
				t.Fatal(err)
			}
			r = send(t, s, session.SendRequest{Text: "echo model-after"})
			if r.Output != "model-after" || strings.Contains(r.Note, "person left") {
				t.Fatalf("the model's command after it cleared the line: output %q note %q", r.Output, r.Note)
			}
			// A person's line that ended with Enter is no reason to clear.
			if _, err := s.HumanWrite([]byte("echo person-ran\r")); err != nil {
				t.Fatal(err)
			}
			awaitOutput(t, s, regexp.MustCompile(`person-ran\r\n(?s:.*)(133;B|\$ )`))
			r = send(t, s, session.SendRequest{Text: "echo model-three"})
			if r.Output != "model-three" || strings.Contains(r.Note, "person left") {
				t.Fatalf("the model's command after a person's whole line: output %q note %q", r.Output, r.Note)
			}
		})
	}
}
