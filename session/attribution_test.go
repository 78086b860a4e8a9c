package session_test

import (
	"context"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// earlierString describes r.Earlier for failure messages.
func earlierString(r session.Result) string {
	if r.Earlier == nil {
		return "<nil>"
	}
	code := "<nil>"
	if r.Earlier.ExitCode != nil {
		code = exitCodeOf(*r.Earlier.ExitCode)
	}
	return "{output " + strings.ReplaceAll(r.Earlier.Output, "\n", `\n`) + ", exit " + code + ", via " + r.Earlier.Via + "}"
}

func exitCodeOf(c int) string { return exitCode(session.Result{ExitCode: &c}) }

// TestTypeAheadResultsBelongToTheirCommand pins issue #13's misattribution:
// after a send that timed out, the next send returned the earlier
// command's output and exit code as its own, and its own output never
// came back. Its result is its own; the earlier command's rest and exit
// code are in earlier.
func TestTypeAheadResultsBelongToTheirCommand(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	for _, tt := range []struct {
		name, first, second, out, earlierOut, earlierCode string
	}{
		{"output and status", "sleep 1.5; echo A-DONE; (exit 4)", "echo B", "B", "A-DONE", "4"},
		{"status only", "sleep 1.5; (exit 3)", "echo C", "C", "", "3"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			r := send(t, s, session.SendRequest{Text: tt.first, Timeout: 300 * time.Millisecond})
			if r.Complete {
				t.Fatalf("first command complete early: %+v", r)
			}
			r = send(t, s, session.SendRequest{Text: tt.second})
			if !r.Complete || r.Via != session.ViaExitCode || r.Output != tt.out || exitCode(r) != "0" {
				t.Fatalf("second command: complete=%v via=%q output=%q exit=%s earlier=%s note=%q", r.Complete, r.Via, r.Output, exitCode(r), earlierString(r), r.Note)
			}
			if r.Earlier == nil || r.Earlier.Output != tt.earlierOut || r.Earlier.ExitCode == nil || exitCodeOf(*r.Earlier.ExitCode) != tt.earlierCode {
				t.Fatalf("earlier = %s, want {output %q, exit %s}", earlierString(r), tt.earlierOut, tt.earlierCode)
			}
			// And the next command is itself again.
			if r := send(t, s, session.SendRequest{Text: "echo again"}); r.Output != "again" || r.Earlier != nil {
				t.Fatalf("third command: output %q earlier %s", r.Output, earlierString(r))
			}
		})
	}
}

// TestCancelledSendOutputComesBack: a send whose caller went away (the MCP
// client cancelled) returns nothing; its command's output and status must
// come back with the next result, not be skipped (issue #13).
func TestCancelledSendOutputComesBack(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	ctx, cancel := context.WithTimeout(t.Context(), 300*time.Millisecond)
	defer cancel()
	if _, err := s.Send(ctx, session.SendRequest{Text: "sleep 1; echo X-DONE; (exit 5)", Enter: true, Wait: true, Timeout: 10 * time.Second}); err == nil {
		t.Fatal("a cancelled send returned a result")
	}
	r := send(t, s, session.SendRequest{Text: "echo Y"})
	if r.Output != "Y" || exitCode(r) != "0" || r.Earlier == nil || r.Earlier.Output != "X-DONE" || r.Earlier.ExitCode == nil || *r.Earlier.ExitCode != 5 {
		t.Fatalf("after a cancelled send: output %q exit %s earlier %s", r.Output, exitCode(r), earlierString(r))
	}
}

// waitState waits (bounded) until the session's state is want, without
// reading its output.
func waitState(t *testing.T, s *session.Session, want string) {
	t.Helper()
	// Polling a state no event announces.
	if !testwait.Poll(t.Context(), 15*time.Second, func() bool { return s.Info().State == want }) {
		t.Fatalf("state is %q, want %q", s.Info().State, want)
	}
}

// waitScreen waits (bounded) until the rendered screen holds want, without
// moving the read position.
func waitScreen(t *testing.T, s *session.Session, want string) {
	t.Helper()
	var r session.Result
	// The screen has no change event for tests.
	if !testwait.Poll(t.Context(), 15*time.Second, func() bool {
		var err error
		if r, err = s.Read(t.Context(), session.ReadRequest{Mode: "screen"}); err != nil {
			t.Fatal(err)
		}
		return strings.Contains(r.Output, want)
	}) {
		t.Fatalf("screen lacks %q:\n%s", want, r.Output)
	}
}

// waitLog waits (bounded) until the session's log holds want, without
// moving the read position.
func waitLog(t *testing.T, s *session.Session, want string) {
	t.Helper()
	deadline := time.Now().Add(15 * time.Second)
	for {
		r, err := s.Read(t.Context(), session.ReadRequest{Mode: "range", FromLine: 1, Raw: true})
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(r.Output, want) {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the log lacks %q:\n%s", want, r.Output)
		}
		time.Sleep(10 * time.Millisecond) // the log has no change event for tests
	}
}

// TestUnreadOutputComesBack pins issue #13's silent drops: output that
// arrived after a result and was never returned (a command that finished
// after its send timed out, a send without wait, a background job) comes
// back in earlier of the next result.
func TestUnreadOutputComesBack(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	t.Run("timed out, then finished", func(t *testing.T) {
		r := send(t, s, session.SendRequest{Text: "sleep 0.5; echo 'error: build failed at foo.c:12'; false", Timeout: 200 * time.Millisecond})
		if r.Complete {
			t.Fatalf("complete early: %+v", r)
		}
		waitState(t, s, "prompt")
		r = send(t, s, session.SendRequest{Text: "echo next"})
		if r.Output != "next" || r.Earlier == nil || r.Earlier.Output != "error: build failed at foo.c:12" || r.Earlier.ExitCode == nil || *r.Earlier.ExitCode != 1 {
			t.Fatalf("output %q earlier %s", r.Output, earlierString(r))
		}
	})
	t.Run("without wait", func(t *testing.T) {
		if _, err := s.Send(t.Context(), session.SendRequest{Text: "echo W1; echo W2", Enter: true}); err != nil {
			t.Fatal(err)
		}
		r := send(t, s, session.SendRequest{Text: "echo next"})
		if r.Output != "next" || r.Earlier == nil || r.Earlier.Output != "W1\nW2" {
			t.Fatalf("output %q earlier %s", r.Output, earlierString(r))
		}
	})
	t.Run("background job", func(t *testing.T) {
		r := send(t, s, session.SendRequest{Text: "(sleep 1; echo BG-$((6*7))) &"})
		if !r.Complete {
			t.Fatalf("starting a background job: %+v", r)
		}
		// The log, not the screen: the screen gets output a moment
		// before the log does, and output that reaches the log after
		// the next send is typed is not that send's earlier.
		waitLog(t, s, "BG-42")
		r = send(t, s, session.SendRequest{Text: "echo next"})
		if !strings.HasPrefix(r.Output, "next") || r.Earlier == nil || !strings.Contains(r.Earlier.Output, "BG-42") {
			all, _ := s.Read(t.Context(), session.ReadRequest{Mode: "range", FromLine: 1, Raw: true})
			t.Fatalf("output %q earlier %s via %s note %q offset %d; the session:\n%q", r.Output, earlierString(r), r.Via, r.Note, r.Offset, all.Output)
		}
	})
}

// TestWaitsEndWhenTheTerminalWaitsForAHuman pins issue #13's waits: a
// password or [y/N] prompt, a line-input prompt, a pager or a quiet
// full-screen program cost the whole timeout. They return after a short
// quiet, not complete, with the state and a note on what to send; a quiet
// sleep is still waited for.
func TestWaitsEndWhenTheTerminalWaitsForAHuman(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	has := func(prog string) bool {
		if _, err := exec.LookPath(prog); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s missing under CI", prog)
			}
			t.Logf("%s not installed: skipped", prog)
			return false
		}
		return true
	}
	for _, tt := range []struct {
		name, text, state, answer string
		answerKeys                []string
		needs                     string
	}{
		{name: "line input", text: "read -p 'Name: ' name", state: "input_prompt", answer: "bob"},
		{name: "password", text: "read -s -p 'Password: ' pw", state: "password_prompt", answer: "hunter2"},
		// The answer is checked for a while, silently (sudo's PAM delay):
		// the terminal still shows the prompt it answered, but waits for
		// the program now, not for a human.
		{name: "password checked slowly", text: "read -s -p 'Password: ' pw; sleep 2", state: "password_prompt", answer: "hunter2"},
		{name: "confirm checked slowly", text: "read -p 'Remove it? [y/N] ' a; sleep 2", state: "confirm_prompt", answer: "y"},
		{name: "confirm", text: "read -p 'Remove it? [y/N] ' a", state: "confirm_prompt", answer: "y"},
		{name: "ssh host key", text: "read -p 'Are you sure you want to continue connecting (yes/no/[fingerprint])? ' a", state: "confirm_prompt", answer: "no"},
		{name: "pager", text: "seq 1 500 | less", state: "pager", answerKeys: []string{"space"}, needs: "less"},
		{name: "vim", text: "vim -u NONE -N -n", state: "alt_screen", answer: ":q", needs: "vim"},
		{name: "top", text: "top -d 1", state: "alt_screen", answerKeys: []string{"ctrl+c"}, needs: "top"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if tt.needs != "" && !has(tt.needs) {
				t.Skip()
			}
			start := time.Now()
			r := send(t, s, session.SendRequest{Text: tt.text, Timeout: 20 * time.Second})
			el := time.Since(start)
			if r.Complete || r.State != tt.state || len(r.Hints) == 0 || r.Hints[0].Kind != session.HintWaiting || r.Hints[0].Status.State != tt.state {
				t.Fatalf("complete=%v state=%q hints=%+v output=%q after %s; want not complete, state %s, a hint that it waits", r.Complete, r.State, r.Hints, r.Output, el, tt.state)
			}
			if el > 5*time.Second {
				t.Fatalf("returned after %s; a terminal waiting for a human ends the wait in well under 2 s", el)
			}
			t.Logf("%s: %s after %s: %+v", tt.name, r.State, el.Round(time.Millisecond), r.Hints)
			if tt.answer != "" {
				r = send(t, s, session.SendRequest{Text: tt.answer, Secret: tt.state == "password_prompt"})
			} else {
				var err error
				if r, err = s.Send(t.Context(), session.SendRequest{Keys: tt.answerKeys, Wait: true, Timeout: 20 * time.Second}); err != nil {
					t.Fatal(err)
				}
				if tt.state == "pager" {
					// The next page: the pager still waits, and says so
					// at once.
					if r.Complete || r.State != "pager" {
						t.Fatalf("space in the pager: complete=%v state=%q", r.Complete, r.State)
					}
					if r, err = s.Send(t.Context(), session.SendRequest{Text: "q", Wait: true, Timeout: 20 * time.Second}); err != nil {
						t.Fatal(err)
					}
				}
			}
			if !r.Complete || r.Via != session.ViaExitCode {
				t.Fatalf("after answering: complete=%v via=%q state=%q note=%q", r.Complete, r.Via, r.State, r.Note)
			}
		})
	}
	t.Run("quiet sleep still waits", func(t *testing.T) {
		start := time.Now()
		r := send(t, s, session.SendRequest{Text: "sleep 30", Timeout: 1500 * time.Millisecond})
		if el := time.Since(start); r.Complete || r.State != "running" || el < 1400*time.Millisecond {
			t.Fatalf("sleep 30: complete=%v state=%q after %s; want running for the whole timeout", r.Complete, r.State, el)
		}
		if _, err := s.Send(t.Context(), session.SendRequest{Keys: []string{"ctrl+c"}, Wait: true, Timeout: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
	})
}

// TestHookOutranksPromptShapedOutput pins issue #13's early verdict: in a
// shell with ttymux's hook, output shaped like the prompt ended the
// command after 34 ms via prompt, and every later result was shifted by
// one command. Only the hook's marks end a command there.
func TestHookOutranksPromptShapedOutput(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	start := time.Now()
	// ${PS1@P} is the prompt exactly as bash draws it.
	r := send(t, s, session.SendRequest{Text: `printf '%s' "${PS1@P}"; sleep 1; echo done2`})
	if !r.Complete || r.Via != session.ViaExitCode || !strings.Contains(r.Output, "done2") || time.Since(start) < time.Second {
		t.Fatalf("complete=%v via=%q output=%q after %s; want done2 by exit-code", r.Complete, r.Via, r.Output, time.Since(start))
	}
	if r := send(t, s, session.SendRequest{Text: "echo next"}); r.Output != "next" {
		t.Fatalf("next command: %q", r.Output)
	}
}
