package session_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// allowAll is a policy that makes local read-only and then lets every line
// through the command checks: what a line the grammar misread amounts to.
const allowAll = `
[[rule]]
hosts = ["local"]
read_only = %v
allow = ['.*']
`

// TestReadOnlyLocalIsConfined: a read-only local session, in this process
// or kept by the agent, cannot create a file even when the command checks
// let the line through (the kernel refuses it: EACCES, no file), and says
// it is confined; the same session without read_only creates it. Before
// Target.Confine the read-only session created the file.
func TestReadOnlyLocalIsConfined(t *testing.T) {
	if ptyproc.ConfineLevel() == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no Landlock; CI's must")
		}
		t.Skip("the kernel has no Landlock")
	}
	for _, persistent := range []bool{false, true} {
		for _, ro := range []bool{true, false} {
			name := map[bool]string{false: "in-process", true: "kept"}[persistent] + map[bool]string{true: "/read-only", false: "/writable"}[ro]
			t.Run(name, func(t *testing.T) {
				p, err := policy.Parse("p.toml", []byte(strings.Replace(allowAll, "%v", map[bool]string{true: "true", false: "false"}[ro], 1)))
				if err != nil {
					t.Fatal(err)
				}
				opts := session.Options{
					Kinds: []session.Kind{session.LocalKind(&local.Opener{})}, StateDir: t.TempDir(),
					Shell: "/bin/bash", NoRC: true, Policy: p,
				}
				if persistent {
					opts.Keeper = startAgent(t)
				}
				m := session.NewManager(opts)
				t.Cleanup(m.CloseAll)
				ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
				defer cancel()
				s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Persistent: persistent,
					Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
				if err != nil {
					t.Fatal(err)
				}
				logOnFailure(t, s)
				if persistent != s.Persistent() {
					t.Fatalf("persistent = %v: %s", s.Persistent(), s.OpenNote())
				}
				dir := t.TempDir()
				f := filepath.Join(dir, "F")
				r := send(t, s, session.SendRequest{Text: "touch " + f})
				_, statErr := os.Stat(f)
				if !ro {
					if statErr != nil || s.Confined() != 0 || s.Info().Kernel != "" {
						t.Errorf("writable session: touch %v (output %q), Confined %d", statErr, r.Output, s.Confined())
					}
					return
				}
				if statErr == nil {
					t.Errorf("a read-only session created %s (output %q)", f, r.Output)
				}
				if !strings.Contains(r.Output, "Permission denied") || r.ExitCode == nil || *r.ExitCode == 0 {
					t.Errorf("touch in a read-only session: output %q, exit %v; want Permission denied", r.Output, r.ExitCode)
				}
				if s.Confined() == 0 || s.Info().Kernel != "landlock" {
					t.Errorf("a read-only session on a kernel with Landlock does not say it is confined: Confined %d, kernel %q", s.Confined(), s.Info().Kernel)
				}
				// The shell still works: its TMPDIR takes a here-document.
				if r := send(t, s, session.SendRequest{Text: "cat <<EOF\nhere-$((6*7))\nEOF"}); !strings.Contains(r.Output, "here-42") {
					t.Errorf("here-document in a confined shell: %q", r.Output)
				}
			})
		}
	}
}

// TestConfinedShellLeavesNoNonce: the hook's nonce file, which the shell
// removes once read, is gone from the state directory also when the shell
// runs confined (the launcher hands it over through the scratch
// directory), and the shell's startup printed no error.
func TestConfinedShellLeavesNoNonce(t *testing.T) {
	if ptyproc.ConfineLevel() == 0 {
		t.Skip("the kernel has no Landlock")
	}
	p, err := policy.Parse("p.toml", []byte("[[rule]]\nhosts = [\"local\"]\nread_only = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	state := t.TempDir()
	m := session.NewManager(session.Options{Kinds: []session.Kind{session.LocalKind(&local.Opener{})}, StateDir: state, Shell: "/bin/bash", NoRC: true, Policy: p})
	t.Cleanup(m.CloseAll)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{Env: []string{"PS1=$ ", "HOME=" + t.TempDir()}}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if s.Confined() == 0 || !s.Info().Integrated {
		t.Fatalf("confined %d, integrated %v", s.Confined(), s.Info().Integrated)
	}
	left, _ := filepath.Glob(filepath.Join(state, "shellinit", "nonce-*"))
	if len(left) != 0 {
		t.Errorf("nonce files left in the state directory: %v", left)
	}
	r, _ := s.Read(ctx, session.ReadRequest{Mode: "screen"})
	if strings.Contains(r.Output, "rm:") || strings.Contains(r.Output, "Permission denied") {
		t.Errorf("the confined shell's startup printed an error:\n%s", r.Output)
	}
}
