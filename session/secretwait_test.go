package session_test

import (
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
)

// TestSecretWaitsForThePrompt: a secret sent right after the command that
// asks for it (sent without waiting) is typed once that command reads with
// the terminal's echo off, as a human would type it. Typed at once, it
// arrived while `sleep` ran and the terminal echoed it; on a busy machine,
// before the shell had even read the command line (issue #13).
func TestSecretWaitsForThePrompt(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	const secret = "hunter2-planted"
	for _, first := range []string{"read -rs X", "sleep 0.5; read -rs X"} {
		t.Run(first, func(t *testing.T) {
			if _, err := s.Send(t.Context(), session.SendRequest{Text: first, Enter: true}); err != nil {
				t.Fatal(err)
			}
			r := send(t, s, session.SendRequest{Text: secret, Secret: true})
			if !r.Complete || r.Note != "" {
				t.Fatalf("the secret: %+v", r)
			}
			if strings.Contains(r.Output, "****") || r.Earlier != nil && strings.Contains(r.Earlier.Output, "****") {
				t.Fatalf("the terminal echoed the secret: output %q earlier %+v", r.Output, r.Earlier)
			}
			r = send(t, s, session.SendRequest{Text: `echo "got-${#X}"`})
			if r.Output != "got-15" {
				t.Fatalf("read got: %+v", r)
			}
		})
	}
}
