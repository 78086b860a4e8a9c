package session_test

import (
	"context"
	"os"
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
		// Hooked, but without the line keys: the person's keys tell
		// the line.
		{name: "fish", shell: "fish", hooked: true},
		{name: "dash", shell: "dash", hooked: true},
		// Without the hook: the person's own keys tell the line, and
		// ctrl+e ctrl+u clears it.
		// (env: a program ttymux does not integrate, which runs dash.)
		{name: "dash-unhooked", shell: "dash", args: []string{"dash", "-i"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := lookShell(t, []string{tc.shell})[0]
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
			calc := "$((6*7))"
			if tc.shell == "fish" {
				calc = "(math 6 '*' 7)"
			}
			r := send(t, s, session.SendRequest{Text: "echo model-" + calc})
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
			// A send that starts with ctrl+u (or ctrl+c) empties the line
			// itself: typed, and told.
			if _, err := s.HumanWrite([]byte("touch person-file ")); err != nil {
				t.Fatal(err)
			}
			awaitOutput(t, s, regexp.MustCompile(`model-after(?s:.*)touch person-file `))
			rc, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+u"}})
			if err != nil {
				t.Fatalf("ctrl+u after a person's keys: %v", err)
			}
			r = send(t, s, session.SendRequest{Text: "echo model-four"})
			// The note comes with the first result after: ctrl+u's own, or
			// the next while the shell's answer to it is on its way.
			note := rc.Note + " | " + r.Note
			if r.Output != "model-four" || !strings.Contains(note, `a person left "touch person-file "`) || !strings.Contains(note, "your ctrl+u cleared it") {
				t.Fatalf("the model's command after its ctrl+u: output %q notes %q", r.Output, note)
			}
			if _, err := os.Stat(filepath.Join(dir, "person-file")); err == nil {
				t.Fatal("the person's line ran")
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

// TestPersonKeysRecorded (issue #35): a session's asciicast recording
// marks where a person's keys start ("m" event) and records them as input
// where the terminal shows them, never a secret they type to a read -s,
// typed alone or ahead in one write with the command that asks. Before,
// HumanWrite's keys were in no event.
func TestPersonKeysRecorded(t *testing.T) {
	m := newManager(t, session.Options{})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Record: true, Target: transport.Target{
		Env: []string{"HOME=" + t.TempDir(), "PS1=$ "},
	}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if !s.Info().Integrated {
		t.Fatal("bash is not integrated")
	}
	type4 := func(p string, want *regexp.Regexp) {
		t.Helper()
		if _, err := s.HumanWrite([]byte(p)); err != nil {
			t.Fatal(err)
		}
		awaitOutput(t, s, want)
	}
	type4("echo rec-$((2*21))\r", regexp.MustCompile(`rec-42\r\n(?s:.*)133;B`))
	send(t, s, session.SendRequest{Text: "echo model-typed"})
	if _, err := s.Send(ctx, session.SendRequest{Text: "read -s X; echo got-${#X}", Enter: true}); err != nil {
		t.Fatal(err)
	}
	awaitOutput(t, s, regexp.MustCompile(`echo got-\$\{#X\}\r\n(?s:.*)133;C`))
	type4("hunter2secret\r", regexp.MustCompile(`got-13\r\n(?s:.*)133;B`))
	// Typed ahead in one write: whether the shell or read takes it, it
	// is not shown; ctrl+c ends whatever waits.
	type4("read -s Y; echo y-${#Y}\rtypedahead9\r", regexp.MustCompile(`echo y-\$\{#Y\}\r\n(?s:.*)133;C`))
	type4("\x03", regexp.MustCompile(`echo y-\$\{#Y\}\r\n(?s:.*)133;B`))
	path := s.Info().Recording
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	cast := string(b)
	if strings.Contains(cast, "hunter2secret") || strings.Contains(cast, "typedahead9") {
		t.Fatalf("a secret a person typed is in the recording:\n%s", cast)
	}
	var marks, person, model int
	for _, l := range strings.Split(cast, "\n") {
		switch {
		case strings.Contains(l, `"m", "a person typed"`) || strings.Contains(l, `"m","a person typed"`):
			marks++
		case strings.Contains(l, `"i"`) && strings.Contains(l, `echo rec-$((2*21))`):
			person++
		case strings.Contains(l, `"i"`) && strings.Contains(l, `echo model-typed`):
			model++
		}
	}
	t.Logf("recording:\n%s", cast)
	if marks < 2 || person != 1 || model != 1 {
		t.Fatalf("recording: %d person markers (want 2 or more), the person's line in %d input events (want 1), the model's in %d (want 1):\n%s", marks, person, model, cast)
	}
}

// TestPersonKeysInFullScreen: keys a person typed into a full-screen
// program (vim's "dd", no Enter) are not a line left at a prompt: the
// model's next keys are typed as asked.
func TestPersonKeysInFullScreen(t *testing.T) {
	vim := lookShell(t, []string{"vim"})[0]
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	logOnFailure(t, s)
	f := filepath.Join(t.TempDir(), "f.txt")
	if err := os.WriteFile(f, []byte("one\ntwo\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if r := send(t, s, session.SendRequest{Text: vim + " -u NONE -N -n " + f, Until: "two"}); r.Mode != "screen" {
		t.Fatalf("vim start: %+v", r)
	}
	if _, err := s.HumanWrite([]byte("dd")); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(t.Context(), session.SendRequest{Keys: []string{"esc"}}); err != nil {
		t.Fatalf("keys after a person's keys in vim: %v", err)
	}
	send(t, s, session.SendRequest{Text: ":wq"})
	b, err := os.ReadFile(f)
	if err != nil || string(b) != "two\n" {
		t.Fatalf("the file after the person's dd and the model's :wq: %q %v", b, err)
	}
}
