package session_test

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// fishConfig writes a user's fish config (a variable, a prompt of their
// own, an abbreviation-like function) under a fresh XDG_CONFIG_HOME and
// returns the environment that points fish at it.
func fishConfig(t *testing.T) []string {
	t.Helper()
	home, cfg := t.TempDir(), t.TempDir()
	if err := os.MkdirAll(filepath.Join(cfg, "fish"), 0o700); err != nil {
		t.Fatal(err)
	}
	conf := "set -gx FROM_CONFIG yes\nfunction fish_prompt; printf \"fish> \"; end\nfunction fish_greeting; end\nfunction hi; echo hi-from-config; end\n"
	if err := os.WriteFile(filepath.Join(cfg, "fish", "config.fish"), []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	return []string{"HOME=" + home, "XDG_CONFIG_HOME=" + cfg, "XDG_DATA_HOME=" + t.TempDir(), "LANG=C.UTF-8"}
}

// TestFishHook: fish gets the exit-code layer (issue #30). fish runs
// --init-command after the user's config, and ttymux's file hooks the
// fish_preexec (C) and fish_prompt (D, with $status) events. Before it,
// fish had no exit codes at all and took the 1 s settle at open.
func TestFishHook(t *testing.T) {
	argv := lookShell(t, []string{"fish"})
	m := newManager(t, session.Options{Shell: argv[0], NoRC: false})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: fishConfig(t)}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if !s.Info().Integrated {
		t.Fatalf("fish not integrated: %+v", s.Info())
	}
	fishSteps(t, s)
}

// fishSteps runs the checks every fish session must pass.
func fishSteps(t *testing.T, s *session.Session) {
	t.Helper()
	r := send(t, s, session.SendRequest{Text: "echo $FROM_CONFIG; hi; false"})
	if r.Output != "yes\nhi-from-config" || exitCode(r) != "1" || r.Via != session.ViaExitCode {
		t.Fatalf("output %q exit %s via %q", r.Output, exitCode(r), r.Via)
	}
	hookedSteps(t, s, hooked{cd: "cd /tmp; pwd", cwdFrom: "OSC 7 from the hook", fail: "sh -c 'exit 4'", code: "4"})
	// mark: true with the hook still answers, and writes fish syntax.
	r = send(t, s, session.SendRequest{Text: "false", Mark: true})
	if !r.Complete || exitCode(r) != "1" || r.Output != "" {
		t.Fatalf("mark: complete=%v exit %s via %q output %q", r.Complete, exitCode(r), r.Via, r.Output)
	}
	if r = send(t, s, session.SendRequest{Text: "env | grep -c -e TTYMUX_NONCE -e TTYMUX_RCFILE"}); r.Output != "0" {
		t.Errorf("ttymux's variables reached the environment: %q", r.Output)
	}
}

// TestFishMark: mark: true in a fish without the hook (started with an
// argument, so ttymux leaves it alone) writes $status: fish rejects "$?"
// even in quotes, and before, the call waited out its timeout.
func TestFishMark(t *testing.T) {
	argv := lookShell(t, []string{"fish"})
	m := newManager(t, session.Options{Shell: "/bin/bash"})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
		Command: argv[0], Args: []string{"--private"}, Env: fishConfig(t)}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if s.Info().Integrated {
		t.Fatal("integrated, though the caller gave arguments")
	}
	for _, tt := range []struct{ text, out, code string }{
		{"echo one; false", "one", "1"},
		{"sh -c 'exit 5'", "", "5"},
		{"echo two", "two", "0"},
	} {
		// The output is checked by its end only: on a loaded machine the
		// next line may be typed before fish draws its prompt (the mark
		// layer ends at the sentinel, not at the prompt), and fish then
		// redraws it after the prompt, with cursor moves between its
		// words that the echo skipping does not see through.
		r := send(t, s, session.SendRequest{Text: tt.text, Mark: true, Timeout: 10 * time.Second})
		if !r.Complete || r.Via != session.ViaMark || exitCode(r) != tt.code || !strings.HasSuffix(r.Output, tt.out) {
			t.Fatalf("%q: complete=%v via %q exit %s output %q", tt.text, r.Complete, r.Via, exitCode(r), r.Output)
		}
	}
}

// TestRemoteBootstrapFish: a fish login shell over SSH loads the hook
// after its config through --init-command.
func TestRemoteBootstrapFish(t *testing.T) {
	shell := lookShell(t, []string{"fish"})[0]
	tmp := t.TempDir()
	var log syncBuffer
	m := sshdLikeManager(t, shell, session.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
		Env:  append(fishConfig(t), "TMPDIR="+tmp),
		Spec: transport.SSHParams{Host: "box"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if !s.Info().Integrated {
		t.Fatalf("remote fish not integrated: %+v\n%s", s.Info(), log.String())
	}
	fishSteps(t, s)
	left, _ := os.ReadDir(tmp)
	for _, e := range left {
		if strings.HasPrefix(e.Name(), "ttymux.") { // fish keeps fish.$USER there
			t.Fatalf("bootstrap left files behind in TMPDIR: %v", left)
		}
	}
}
