package main

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// checkShellHook opens the user's own interactive shell as open_local
// would (their startup files, then ttymux's hook) on a real PTY, in a
// scratch state directory removed afterwards, and checks that the hook
// reports: the session is ready, and (exit 3) comes back with exit code 3
// by the hook. A startup file that breaks the hook (issue #30) is reported
// with what the session found: the error line the terminal showed, or the
// hook's own word (a readonly PROMPT_COMMAND and PS1).
func checkShellHook(ctx context.Context) check {
	c := check{Name: "shell-hook"}
	sh := os.Getenv("SHELL")
	if sh == "" {
		sh = "/bin/bash"
	}
	path, err := exec.LookPath(sh)
	if err != nil {
		c.Status, c.Detail = statusOK, "not checked: "+sh+" is not installed (see shell)"
		return c
	}
	if b := filepath.Base(path); b != "bash" && b != "zsh" {
		c.Status, c.Detail = statusOK, "not checked: "+path+" has no ttymux hook (see shell)"
		return c
	}
	dir, err := os.MkdirTemp("", "ttymux-doctor-")
	if err != nil {
		c.Status, c.Detail = statusWarn, "cannot make a scratch directory: "+err.Error()
		c.Fix = "check TMPDIR"
		return c
	}
	defer os.RemoveAll(dir) // best effort: a scratch directory
	m := session.NewManager(session.Options{
		Kinds:        []session.Kind{session.LocalKind(&local.Opener{})},
		StateDir:     dir,
		Shell:        path,
		ReadyTimeout: probeTimeout,
	})
	defer m.CloseAll()
	ctx, cancel := context.WithTimeout(ctx, 2*probeTimeout)
	defer cancel()
	t0 := time.Now()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Command: path}})
	if err != nil {
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s does not start on a terminal: %v", path, err)
		c.Fix = "check that " + path + " -i runs"
		return c
	}
	ready := time.Since(t0)
	fix := "ttymux's hook loads after your startup files (" + startupFiles(path) + "); change what the cause names, or send with mark: true for exit codes"
	if !s.Info().Integrated {
		c.Status, c.Detail, c.Fix = statusWarn, fmt.Sprintf("%s with your startup files: ttymux's hook %s", path, s.HookProblem()), fix
		return c
	}
	r, err := s.Send(ctx, session.SendRequest{Text: "(exit 3)", Enter: true, Wait: true, Timeout: probeTimeout})
	switch {
	case err != nil:
		c.Status, c.Detail = statusWarn, fmt.Sprintf("%s with your startup files: a command could not be sent: %v", path, err)
	case !r.Complete || r.Via != session.ViaExitCode || r.ExitCode == nil || *r.ExitCode != 3:
		code := "none"
		if r.ExitCode != nil {
			code = fmt.Sprint(*r.ExitCode)
		}
		why := s.HookProblem()
		if why == "" {
			why = "did not give the exit code"
		}
		c.Status, c.Detail = statusWarn, fmt.Sprintf("%s with your startup files: (exit 3) came back complete=%v via %s, exit code %s: ttymux's hook %s", path, r.Complete, r.Via, code, why)
	default:
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s with your startup files: hook ready in %d ms, exact exit codes", path, ready.Milliseconds())
		return c
	}
	c.Fix = fix
	return c
}

// startupFiles names the files a shell reads before ttymux's hook.
func startupFiles(shell string) string {
	if filepath.Base(shell) == "zsh" {
		return "~/.zshenv, ~/.zprofile, ~/.zshrc, ~/.zlogin"
	}
	return "~/.bashrc"
}
