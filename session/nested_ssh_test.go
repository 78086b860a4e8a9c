package session_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/session"
)

// TestNestedSSHEndToEnd types ssh into a real local session, to a real
// OpenSSH sshd on 127.0.0.1 (key auth), and drives the shell there (issue
// #7): the prompt layer must not call a quiet command finished early, mark
// and integrate-on-demand give exit codes, a REPL over ssh completes by its
// prompt without until, and exiting returns to the local shell with the
// local hook's verdict.
func TestNestedSSHEndToEnd(t *testing.T) {
	if _, err := exec.LookPath("ssh"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("ssh missing under CI: install openssh-client")
		}
		t.Skip("ssh client not installed")
	}
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{}) // skips without sshd unless CI is set
	cfg := filepath.Join(t.TempDir(), "ssh_config")
	block := d.ConfigBlock("box", "/dev/null", "StrictHostKeyChecking no", "LogLevel ERROR")
	if err := os.WriteFile(cfg, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	if !s.Info().Integrated {
		t.Fatalf("local bash not integrated: %+v", s.Info())
	}
	sendOK := func(req session.SendRequest, via, code string) session.Result {
		t.Helper()
		req.Timeout = 30 * time.Second
		r := send(t, s, req)
		if !r.Complete || r.Via != via || exitCode(r) != code {
			t.Fatalf("%q: complete=%v via=%q exit=%s state=%s output=%q; want complete via %s exit %s\nsshd log:\n%s",
				req.Text, r.Complete, r.Via, exitCode(r), r.State, r.Output, via, code, d.Log())
		}
		return r
	}

	sendOK(session.SendRequest{Text: "ssh -F " + cfg + " -p " + strconv.Itoa(d.Port) + " box"}, session.ViaPrompt, "<nil>")

	// A quiet command: the remote prompt comes back only after it.
	start := time.Now()
	r := sendOK(session.SendRequest{Text: "sleep 2; echo inner-done"}, session.ViaPrompt, "<nil>")
	if took := time.Since(start); took < 2*time.Second || r.Output != "inner-done" {
		t.Fatalf("sleep 2; echo inner-done: complete after %s with output %q; want ≥ 2s and inner-done", took, r.Output)
	}

	sendOK(session.SendRequest{Text: "false", Mark: true}, session.ViaMark, "1")

	sendOK(session.SendRequest{Integrate: true}, session.ViaExitCode, "0")
	sendOK(session.SendRequest{Text: "(exit 3)"}, session.ViaExitCode, "3")

	if _, err := exec.LookPath("python3"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("python3 missing under CI; .ci/run installs it")
		}
		t.Log("python3 not installed: the REPL part is not run")
	} else {
		sendOK(session.SendRequest{Text: "python3"}, session.ViaPrompt, "<nil>")
		r = sendOK(session.SendRequest{Text: "print(6*7)"}, session.ViaPrompt, "<nil>")
		if r.Output != "42" {
			t.Fatalf("print(6*7) over ssh: output %q, want 42", r.Output)
		}
		sendOK(session.SendRequest{Text: "exit()"}, session.ViaExitCode, "0")
	}

	// Leaving ssh: the local hook's mark says so, with ssh's status.
	sendOK(session.SendRequest{Text: "exit"}, session.ViaExitCode, "0")
	r = sendOK(session.SendRequest{Text: "echo $TTYMUX_SESSION"}, session.ViaExitCode, "0")
	if r.Output != s.ID() || r.State != "prompt" {
		t.Fatalf("after exit: output %q state %q; want the local shell (%s) at its prompt", r.Output, r.State, s.ID())
	}
	if !strings.Contains(d.Log(), "Accepted publickey") {
		t.Errorf("sshd did not log a key login:\n%s", d.Log())
	}
}
