package session_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// interruptRounds is how many times each shell is interrupted and typed
// into again: on the old code the lost key came within two or three
// rounds under two CPU hogs.
const interruptRounds = 20

// TestSendAfterInterruptKeepsKeys: a command sent right after a ctrl+c
// keeps every key: after one that ended a running command, and after one
// at the prompt over a line the model or a person left, waited for or not.
// zsh's and bash's line editors read a key at a time with the terminal's
// ISIG on, so a ctrl+c at the prompt is SIGINT, and a key typed right
// after it could be read before the signal was handled and dropped with
// the line it discards: "zsh: command not found: cho" (bash: "cho:
// command not found") for echo. The send now waits for the shell's D mark
// first (awaitInterrupt). Before, zsh and bash failed within a few rounds
// with two CPU hogs running.
func TestSendAfterInterruptKeepsKeys(t *testing.T) {
	for _, tt := range []struct {
		name string
		argv []string
		env  func(t *testing.T) []string
		// atPrompt: ctrl+c at the prompt over a line is tried too. Not
		// for fish, where text typed right before the ctrl+c can outlive
		// it ("left-behindecho ..."), a race of its own, old code and new.
		atPrompt bool
	}{
		{"zsh", []string{"zsh"}, func(t *testing.T) []string {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".zshrc"), []byte("PROMPT='%% '\n"), 0o600); err != nil {
				t.Fatal(err)
			}
			return []string{"HOME=" + home, "ZDOTDIR=", "LANG=C.UTF-8"}
		}, true},
		{"bash", []string{"bash"}, func(t *testing.T) []string {
			return []string{"HOME=" + t.TempDir(), "PS1=$ ", "LANG=C.UTF-8"}
		}, true},
		{"fish", []string{"fish"}, fishConfig, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			argv := lookShell(t, tt.argv)
			m := newManager(t, session.Options{Shell: argv[0], NoRC: false})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: tt.env(t)}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if !s.Info().Integrated {
				t.Fatalf("%s not integrated", tt.name)
			}
			for i := range interruptRounds {
				interruptThenSend(t, s, i)
				if !tt.atPrompt {
					continue
				}
				interruptLineThenSend(t, s, i, true)
				interruptLineThenSend(t, s, i, false)
				interruptPersonLineThenSend(t, s, i, true)
				interruptPersonLineThenSend(t, s, i, false)
			}
		})
	}
}

// interruptThenSend starts a long sleep, interrupts it with a waited
// ctrl+c and sends a command at once, which must run whole.
func interruptThenSend(t *testing.T, s *session.Session, i int) {
	t.Helper()
	r := send(t, s, session.SendRequest{Text: "sleep 100", Timeout: 100 * time.Millisecond})
	if r.Complete {
		t.Fatalf("round %d: sleep 100 reported complete: %+v", i, r)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	r, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 10 * time.Second})
	if err != nil {
		t.Fatal(err)
	}
	if !r.Complete {
		t.Fatalf("round %d: ctrl+c did not end sleep: via %q state %q", i, r.Via, r.State)
	}
	want := fmt.Sprintf("after-%d", i)
	if r := send(t, s, session.SendRequest{Text: "echo " + want}); r.Output != want || exitCode(r) != "0" {
		t.Fatalf("round %d: after ctrl+c got output %q exit %s, want %q", i, r.Output, exitCode(r), want)
	}
}

// interruptLineThenSend types a line without Enter, interrupts it at the
// prompt with ctrl+c (waited for or not) and sends a command at once.
func interruptLineThenSend(t *testing.T, s *session.Session, i int, wait bool) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := s.Send(ctx, session.SendRequest{Text: "echo left-behind"}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: wait, Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("line-%d-%v", i, wait)
	if r := send(t, s, session.SendRequest{Text: "echo " + want}); r.Output != want || exitCode(r) != "0" {
		t.Fatalf("round %d (wait %v): after ctrl+c over a line got output %q exit %s, want %q", i, wait, r.Output, exitCode(r), want)
	}
}

// interruptPersonLineThenSend: a person leaves a line at the prompt, the
// model's ctrl+c (waited for or not) empties it and its command follows.
func interruptPersonLineThenSend(t *testing.T, s *session.Session, i int, wait bool) {
	t.Helper()
	left := fmt.Sprintf("touch person-%d-%v ", i, wait)
	if _, err := s.HumanWrite([]byte(left)); err != nil {
		t.Fatal(err)
	}
	awaitOutput(t, s, regexp.MustCompile(regexp.QuoteMeta(left)+"$"))
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+c"}, Wait: wait, Timeout: 10 * time.Second}); err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("person-line-%d-%v", i, wait)
	if r := send(t, s, session.SendRequest{Text: "echo " + want}); r.Output != want || exitCode(r) != "0" {
		t.Fatalf("round %d (wait %v): after ctrl+c over a person's line got output %q exit %s, want %q", i, wait, r.Output, exitCode(r), want)
	}
}
