package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// doctorLine is one parsed line of ttymux doctor's report.
type doctorLine struct{ status, rest string }

// runDoctor runs the built binary (or bin, when set) as "ttymux doctor
// args..." with exactly env, and returns its parsed lines, its stdout and
// its exit status.
func runDoctor(t *testing.T, bin string, env []string, args ...string) (map[string]doctorLine, string, int) {
	t.Helper()
	if bin == "" {
		bin = ttymuxBinary(t)
	}
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, append([]string{"doctor"}, args...)...)
	cmd.Env = env
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	code := 0
	var ee *exec.ExitError
	switch {
	case errors.As(err, &ee):
		code = ee.ExitCode()
	case err != nil:
		t.Fatalf("ttymux doctor: %v; stderr:\n%s", err, stderr.String())
	}
	if stderr.Len() > 0 {
		t.Errorf("doctor wrote to stderr:\n%s", stderr.String())
	}
	lines := map[string]doctorLine{}
	for _, l := range strings.Split(strings.TrimSpace(stdout.String()), "\n") {
		f := strings.Fields(l)
		if len(f) < 3 || (f[0] != statusOK && f[0] != statusWarn && f[0] != statusFail) {
			continue // the summary line
		}
		lines[f[1]] = doctorLine{status: f[0], rest: strings.Join(f[2:], " ")}
	}
	return lines, stdout.String(), code
}

// doctorEnv is a scratch machine: HOME, the XDG directories and PATH under
// root, SHELL=/bin/bash, and nothing else from the caller's environment.
func doctorEnv(root, path string) []string {
	home := filepath.Join(root, "home")
	return []string{
		"HOME=" + home,
		"PATH=" + path,
		"SHELL=/bin/bash",
		"XDG_RUNTIME_DIR=" + filepath.Join(root, "run"),
		"XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_CACHE_HOME=" + filepath.Join(home, ".cache"),
	}
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
}

// wantLines checks each named check's status and that its line contains
// every given fragment.
func wantLines(t *testing.T, got map[string]doctorLine, out string, want map[string][]string) {
	t.Helper()
	for name, w := range want {
		l, ok := got[name]
		if !ok {
			t.Errorf("no %s line in:\n%s", name, out)
			continue
		}
		if l.status != w[0] {
			t.Errorf("%s: status %s, want %s: %s", name, l.status, w[0], l.rest)
		}
		for _, frag := range w[1:] {
			if !strings.Contains(l.rest, frag) {
				t.Errorf("%s: %q does not contain %q", name, l.rest, frag)
			}
		}
	}
}

// TestDoctorScratchMachine runs doctor on a scratch machine whose PATH has
// no ssh: that is a warning with the package to install, not a failure
// (open_ssh parses ssh_config itself), so the exit status is 0. A valid
// ssh_config with a ProxyJump, a known_hosts file and two cross-built
// agents are reported as found.
func TestDoctorScratchMachine(t *testing.T) {
	root := shortTempDir(t)
	home := filepath.Join(root, "home")
	writeFile(t, filepath.Join(home, ".ssh", "config"),
		"Host homelab\n  HostName 192.168.1.20\n  User admin\n  ProxyJump bastion\nHost bastion\n  HostName bastion.example.org\n", 0o600)
	writeFile(t, filepath.Join(home, ".ssh", "known_hosts"),
		"# comment\nbastion.example.org ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIPrv3J2Q1Cm9F6M9ZKkR6yB2t8s1u1pVnB3c4d5e6f7g\n", 0o600)
	agents := filepath.Join(home, ".local", "share", "ttymux", "agents")
	writeFile(t, filepath.Join(agents, "linux-amd64", "ttymux-agent"), "#!/bin/sh\n", 0o755)
	writeFile(t, filepath.Join(agents, "linux-arm64", "ttymux-agent"), "#!/bin/sh\n", 0o755)
	emptyPath := filepath.Join(root, "bin") // no ssh, no ttymux-agent
	if err := os.Mkdir(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}

	got, out, code := runDoctor(t, "", doctorEnv(root, emptyPath))
	if code != 0 {
		t.Errorf("exit status %d, want 0 (no check fails):\n%s", code, out)
	}
	wantLines(t, got, out, map[string][]string{
		"shell":            {statusOK, "/bin/bash", "exact exit codes"},
		"agent-binary":     {statusOK, filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent"), "protocol 1"},
		"agent-socket-dir": {statusOK, filepath.Join(root, "run", "ttymux"), "will be created"},
		"agent":            {statusOK, "not running", "on demand"},
		"ssh-client":       {statusWarn, "no ssh on PATH", "fix: install the OpenSSH client", "openssh-client"},
		"ssh-config":       {statusOK, filepath.Join(home, ".ssh", "config") + " parses", "ssh_config"},
		"known-hosts":      {statusOK, filepath.Join(home, ".ssh", "known_hosts") + " (1 entries)"},
		"remote-agents":    {statusWarn, "linux-amd64 linux-arm64", "missing linux-armv7", "fix: run ./install.sh"},
		"serial":           {statusOK},
		"state-dir":        {statusOK, filepath.Join(home, ".cache", "ttymux")},
	})
	if !strings.Contains(out, "0 fail\n") {
		t.Errorf("summary line missing:\n%s", out)
	}
}

// TestDoctorFailures breaks one thing per check on a scratch machine and
// expects each to be named with its fix, and exit status 1.
func TestDoctorFailures(t *testing.T) {
	root := shortTempDir(t)
	home := filepath.Join(root, "home")
	emptyPath := filepath.Join(root, "bin")
	if err := os.Mkdir(emptyPath, 0o755); err != nil {
		t.Fatal(err)
	}
	// ttymux alone, without ttymux-agent beside it.
	lone := filepath.Join(root, "lone", "ttymux")
	b, err := os.ReadFile(ttymuxBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	writeFile(t, lone, string(b), 0o755)
	// A socket directory others can enter: the agent refuses it.
	sockDir := filepath.Join(root, "run", "ttymux")
	if err := os.MkdirAll(sockDir, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(sockDir, 0o755); err != nil { // whatever the umask
		t.Fatal(err)
	}
	writeFile(t, filepath.Join(home, ".ssh", "config"), "Host x\n  Port notaport\n", 0o600)
	env := doctorEnv(root, emptyPath)
	// A state directory that cannot be created (works as root too).
	env = append(env, "XDG_CACHE_HOME=/dev/null/cache", "SHELL=/bin/sh")

	got, out, code := runDoctor(t, lone, env)
	if code != 1 {
		t.Errorf("exit status %d, want 1:\n%s", code, out)
	}
	sh := "warn"
	if p, err := filepath.EvalSymlinks("/bin/sh"); err == nil && (filepath.Base(p) == "bash" || filepath.Base(p) == "zsh") {
		sh = statusOK // /bin/sh is bash on some systems
	}
	wantLines(t, got, out, map[string][]string{
		"shell":            {sh, "/bin/sh"},
		"agent-binary":     {statusFail, "ttymux-agent not found", "fix: run ./install.sh"},
		"agent-socket-dir": {statusFail, "unsafe permissions 0755", "fix: chmod 700 " + sockDir},
		"agent":            {statusFail, "unsafe permissions"},
		"ssh-client":       {statusWarn, "fix:"},
		"ssh-config":       {statusFail, "notaport", "fix:"},
		"known-hosts":      {statusWarn, "accept_new_host_key"},
		"remote-agents":    {statusWarn, "no cross-built agents", "fix: run ./install.sh"},
		"state-dir":        {statusFail, "/dev/null/cache/ttymux", "fix:", "XDG_CACHE_HOME"},
	})
	// bash is not on this PATH, but doctor finds it where it usually is.
	if sh == statusWarn && !strings.Contains(got["shell"].rest, "fix: start the MCP server with SHELL=") {
		t.Errorf("shell: no fix naming an installed shell in %q", got["shell"].rest)
	}

	// --json says the same.
	cmd := exec.Command(lone, "doctor", "--json")
	cmd.Env = env
	raw, err := cmd.Output()
	var ee *exec.ExitError
	if !errors.As(err, &ee) || ee.ExitCode() != 1 {
		t.Fatalf("doctor --json: %v, want exit status 1", err)
	}
	var rep doctorReport
	if err := json.Unmarshal(raw, &rep); err != nil {
		t.Fatalf("doctor --json is not JSON: %v\n%s", err, raw)
	}
	if rep.OK || len(rep.Checks) != len(got) {
		t.Errorf("--json: ok %v and %d checks, want false and %d", rep.OK, len(rep.Checks), len(got))
	}
	for _, c := range rep.Checks {
		if c.Status != got[c.Name].status {
			t.Errorf("--json %s: %s, text says %s", c.Name, c.Status, got[c.Name].status)
		}
		if c.Status != statusOK && c.Fix == "" {
			t.Errorf("--json %s: %s without a fix", c.Name, c.Status)
		}
	}
}

// TestDoctorAgentRunning starts a real agent on a scratch socket and
// expects doctor to find it (and the ssh client, when installed).
func TestDoctorAgentRunning(t *testing.T) {
	root := shortTempDir(t)
	env := doctorEnv(root, os.Getenv("PATH"))
	agentBin := filepath.Join(filepath.Dir(ttymuxBinary(t)), "ttymux-agent")
	start := exec.Command(agentBin, "serve", "--detach")
	start.Env = env
	if out, err := start.CombinedOutput(); err != nil {
		t.Fatalf("ttymux-agent serve --detach: %v\n%s", err, out)
	}
	t.Cleanup(func() {
		stop := exec.Command(agentBin, "stop", "--force")
		stop.Env = env
		if out, err := stop.CombinedOutput(); err != nil {
			t.Errorf("ttymux-agent stop: %v\n%s", err, out)
		}
	})

	got, out, code := runDoctor(t, "", env)
	want := map[string][]string{
		"agent-socket-dir": {statusOK, "mode 0700, yours"},
		"agent":            {statusOK, "running on " + filepath.Join(root, "run", "ttymux"), "0 session(s)"},
	}
	if _, err := exec.LookPath("ssh"); err == nil {
		want["ssh-client"] = []string{statusOK, "ssh -G"}
		want["ssh-config"] = []string{statusOK, "OpenSSH defaults", "ssh -G"}
	} else if os.Getenv("CI") != "" {
		t.Errorf("ssh is not installed; .ci/run installs openssh-client")
	}
	wantLines(t, got, out, want)
	if code != 0 {
		t.Errorf("exit status %d, want 0:\n%s", code, out)
	}
}

// TestDoctorShellHook: doctor opens the user's own shell with their
// startup files and ttymux's hook on a real PTY (issue #30) and reports a
// composition that breaks the hook with its cause; one the hook survives
// (pyenv-virtualenv's PROMPT_COMMAND, a zsh assigning precmd_functions) is
// ok with exact exit codes.
func TestDoctorShellHook(t *testing.T) {
	for _, tt := range []struct {
		name, shell, file, rc string
		want                  []string
	}{
		{"pyenv-virtualenv", "/bin/bash", ".bashrc", "_h() { local r=$?; return $r; }\nPROMPT_COMMAND=\"_h;${PROMPT_COMMAND-}\"\n", []string{statusOK, "hook ready in", "exact exit codes"}},
		{"readonly PROMPT_COMMAND and PS1", "/bin/bash", ".bashrc", "PROMPT_COMMAND='history -a'\nPS1='$ '\nreadonly PROMPT_COMMAND PS1\n", []string{statusWarn, "is not installed: PROMPT_COMMAND and PS1 are readonly", "fix: ttymux's hook loads after your startup files (~/.bashrc)"}},
		{"an rc that execs another shell", "/bin/bash", ".bashrc", "exec /bin/bash --norc --noprofile\n", []string{statusWarn, "did not report at the first prompt"}},
		{"zsh assigning precmd_functions", "/usr/bin/zsh", ".zshrc", "precmd_functions=()\nPROMPT='%% '\n", []string{statusOK, "exact exit codes"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if _, err := os.Stat(tt.shell); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s missing under CI", tt.shell)
				}
				t.Skipf("%s not installed", tt.shell)
			}
			root := shortTempDir(t)
			writeFile(t, filepath.Join(root, "home", tt.file), tt.rc, 0o600)
			env := doctorEnv(root, "/usr/bin:/bin")
			env = append(env, "SHELL="+tt.shell, "TMPDIR="+t.TempDir())
			got, out, _ := runDoctor(t, "", env)
			wantLines(t, got, out, map[string][]string{"shell-hook": tt.want})
		})
	}
}
