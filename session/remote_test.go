package session_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// sshdLike runs a remote command the way sshd does: with the user's shell,
// `$SHELL -c command`, on a PTY. It lets the remote bootstrap be tested
// without a network.
type sshdLike struct{ shell string }

func (o sshdLike) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	lt := transport.Target{Command: o.shell, Env: append(t.Env, "SHELL="+o.shell), Size: t.Size, Dir: t.Dir}
	if t.Command != "" {
		lt.Args = []string{"-c", t.Command}
	} else {
		lt.Args = []string{"-l"}
	}
	return (&local.Opener{}).Open(ctx, lt)
}

// sshdLikeManager is a Manager whose ssh kind runs shell the way sshd runs
// a login shell (sshdLike), in a state directory of the test's; o brings
// the rest (a logger, a keeper, a ready timeout).
func sshdLikeManager(t *testing.T, shell string, o session.Options) *session.Manager {
	t.Helper()
	o.Kinds = []session.Kind{session.SSHKind(sshdLike{shell: shell})}
	o.StateDir = t.TempDir()
	m := session.NewManager(o)
	t.Cleanup(m.CloseAll)
	return m
}

func TestRemoteBootstrap(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			path, err := exec.LookPath(shell)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s missing under CI", shell)
				}
				t.Skipf("%s not installed", shell)
			}
			home := t.TempDir()
			tmp := t.TempDir()
			// A login shell reads these; the hook must load after them.
			os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("export FROM_PROFILE=bash\nPS1='$ '\n"), 0o600)
			os.WriteFile(filepath.Join(home, ".zprofile"), []byte("export FROM_PROFILE=zsh\nPROMPT='%% '\n"), 0o600)
			m := sshdLikeManager(t, path, session.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
				Env:  []string{"HOME=" + home, "TMPDIR=" + tmp, "ZDOTDIR="},
				Spec: transport.SSHParams{Host: "example"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if !s.Info().Integrated {
				t.Fatalf("remote integration not ready: %+v", s.Info())
			}
			r := send(t, s, session.SendRequest{Text: "echo $FROM_PROFILE; (exit 6)"})
			if r.Output != shell || exitCode(r) != "6" || r.Via != session.ViaExitCode {
				t.Fatalf("output %q exit %s via %q", r.Output, exitCode(r), r.Via)
			}
			left, _ := os.ReadDir(tmp)
			if len(left) != 0 {
				t.Fatalf("bootstrap left files behind in TMPDIR: %v", left)
			}
			if r := send(t, s, session.SendRequest{Text: "env | grep TTYMUX_ | grep -v TTYMUX_SESSION= || echo none"}); strings.TrimSpace(r.Output) != "none" {
				t.Fatalf("TTYMUX_ variables leaked into the shell: %q", r.Output)
			}
		})
	}
}

// TestRemoteBootstrapTakenTmpDir pins two fixes from the security review
// (issue #8). Another user who made ttymux.<pid> in a shared /tmp first (a
// mkdir shim plays that user here, linking the name to their directory just
// before ttymux's mkdir runs) must not receive the rc file: the bootstrap's
// plain mkdir fails and the login shell starts without integration. And the
// user's shell keeps its own umask: 077 is only for making the directory.
func TestRemoteBootstrapTakenTmpDir(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	for _, taken := range []bool{false, true} {
		t.Run(map[bool]string{false: "free", true: "taken"}[taken], func(t *testing.T) {
			home, tmp, attacker, shim := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
			os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("PS1='$ '\n"), 0o600)
			if taken {
				script := "#!/bin/sh\nfor a; do case $a in -*) ;; *) [ -e \"$a\" ] || ln -s " + attacker + " \"$a\";; esac; done\nexec /bin/mkdir \"$@\"\n"
				if err := os.WriteFile(filepath.Join(shim, "mkdir"), []byte(script), 0o755); err != nil {
					t.Fatal(err)
				}
			}
			m := sshdLikeManager(t, bash, session.Options{})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
				Env:  []string{"HOME=" + home, "TMPDIR=" + tmp, "PATH=" + shim + ":" + os.Getenv("PATH")},
				Spec: transport.SSHParams{Host: "example"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			if got := s.Info().Integrated; got == taken {
				t.Fatalf("integrated = %v with the directory taken = %v", got, taken)
			}
			if left, _ := os.ReadDir(attacker); len(left) != 0 {
				t.Fatalf("the bootstrap wrote into another user's directory: %v", left)
			}
			r := send(t, s, session.SendRequest{Text: "umask", Until: `\d{4}`})
			if want := currentUmask(t); !strings.Contains(r.Output, want) {
				t.Fatalf("remote shell umask = %q, want %s (the caller's)", r.Output, want)
			}
		})
	}
}

// currentUmask reads this process's umask from /proc (setting it to read it
// would race with files other tests create).
func currentUmask(t *testing.T) string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		t.Skip("no /proc/self/status to read the umask from")
	}
	for _, l := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(l, "Umask:"); ok {
			return strings.TrimSpace(v)
		}
	}
	t.Skip("no Umask line in /proc/self/status")
	return ""
}

// TestRemoteHookNoteIsTruthful: over SSH a hook that does not report was
// always put down to "the remote shell is not bash or zsh" (issue #30).
// The note now says what happened: a login shell that is not bash or zsh
// by name, a bash whose startup files leave the hook out (exec of another
// shell) as the hook not reporting at the first prompt.
func TestRemoteHookNoteIsTruthful(t *testing.T) {
	for _, tt := range []struct{ name, shell, profile, want, not string }{
		{"a shell with no hook", "dash", "", "no hook for tcsh", ""},
		{"bash that execs another shell", "bash", "exec bash --norc --noprofile\n", "did not report at the first prompt", "not bash or zsh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			path, err := exec.LookPath(tt.shell)
			if err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s missing under CI", tt.shell)
				}
				t.Skipf("%s not installed", tt.shell)
			}
			if tt.name == "a shell with no hook" {
				// A login shell ttymux has no hook for, by its name
				// (tcsh), that can still run the bootstrap's exec.
				link := filepath.Join(t.TempDir(), "tcsh")
				if err := os.Symlink(path, link); err != nil {
					t.Fatal(err)
				}
				path = link
			}
			home := t.TempDir()
			os.WriteFile(filepath.Join(home, ".bash_profile"), []byte(tt.profile), 0o600)
			m := sshdLikeManager(t, path, session.Options{ReadyTimeout: time.Minute})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
				Env:  []string{"HOME=" + home, "TMPDIR=" + t.TempDir(), "PS1=$ ", "ENV="},
				Spec: transport.SSHParams{Host: "example"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			note := s.OpenNote()
			if s.Info().Integrated || !strings.Contains(note, tt.want) || tt.not != "" && strings.Contains(note, tt.not) {
				t.Fatalf("integrated=%v note %q; want it to say %q", s.Info().Integrated, note, tt.want)
			}
			r := send(t, s, session.SendRequest{Text: "echo hello", Timeout: 10 * time.Second})
			if !r.Complete || r.Output != "hello" {
				t.Fatalf("echo hello: complete=%v via=%q output=%q note=%q", r.Complete, r.Via, r.Output, r.Note)
			}
		})
	}
}

// TestRemoteFileAfterReadyTimeout: on a host slower than the ready timeout
// the open returns before the bootstrap asks for bash's file; the first
// send types the file before its own text, which would otherwise have gone
// into that file (with echo off: a send that never completes), and the
// hook then reports.
func TestRemoteFileAfterReadyTimeout(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("bash not installed")
	}
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("PS1='$ '\n"), 0o600)
	// As over SSH, the session cannot see the far end's foreground
	// program (a local PTY shows the bootstrap waiting, and the open
	// waits on), so the ready timeout ends the open.
	m := session.NewManager(session.Options{
		Kinds:        []session.Kind{session.SSHKind(plainConn{sshdLike{shell: bash}})},
		StateDir:     t.TempDir(),
		ReadyTimeout: time.Nanosecond,
	})
	t.Cleanup(m.CloseAll)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
		Env:  []string{"HOME=" + home, "TMPDIR=" + t.TempDir()},
		Spec: transport.SSHParams{Host: "slow"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	testwait.Until(t, "the bootstrap's request", 10*time.Second, func() bool {
		r, err := s.Read(ctx, session.ReadRequest{Mode: "range", FromLine: 1, Raw: true})
		return err == nil && strings.Contains(r.Output, "133;P;rc=bash;")
	})
	r := send(t, s, session.SendRequest{Text: "echo $((6*7)); (exit 3)", Timeout: 10 * time.Second})
	if r.Output != "42" || exitCode(r) != "3" {
		t.Fatalf("the first send after a late request: complete=%v via=%q output=%q exit=%s", r.Complete, r.Via, r.Output, exitCode(r))
	}
}

// plainConn opens conns that offer only transport.Conn's methods: no
// foreground program, no resize, as a far end that cannot tell.
type plainConn struct{ op transport.Opener }

func (o plainConn) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	c, err := o.op.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	return struct{ transport.Conn }{c}, nil
}

// BenchmarkRemoteBootstrapReady measures an open through the remote
// bootstrap, run as sshd runs it (`$SHELL -c`, no network), until the
// shell is ready: bash, whose file is typed after the bootstrap asks for it
// (a round trip, two stty and a sed), and BusyBox ash, whose file is in the
// command. Compare runs of the same tree state for the cost of the second
// stage.
func BenchmarkRemoteBootstrapReady(b *testing.B) {
	for _, sh := range []struct{ name, target string }{{"bash", "bash"}, {"ash", "busybox"}} {
		b.Run(sh.name, func(b *testing.B) {
			p, err := exec.LookPath(sh.target)
			if err != nil {
				b.Skipf("%s not installed", sh.target)
			}
			shell := filepath.Join(b.TempDir(), sh.name)
			if err := os.Symlink(p, shell); err != nil {
				b.Fatal(err)
			}
			home := b.TempDir()
			os.WriteFile(filepath.Join(home, ".bash_profile"), []byte("PS1='$ '\n"), 0o600)
			os.WriteFile(filepath.Join(home, ".profile"), []byte("PS1='$ '\n"), 0o600)
			m := session.NewManager(session.Options{Kinds: []session.Kind{session.SSHKind(sshdLike{shell: shell})}, StateDir: b.TempDir()})
			b.Cleanup(m.CloseAll)
			ctx := context.Background()
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
					Env:  []string{"HOME=" + home, "TMPDIR=" + b.TempDir(), "ENV="},
					Spec: transport.SSHParams{Host: "bench"},
				}})
				if err != nil {
					b.Fatal(err)
				}
				took = append(took, time.Since(start))
				if !s.Info().Integrated {
					b.Fatalf("not integrated: %+v", s.Info())
				}
				b.StopTimer()
				_, _ = m.Close(ctx, s.ID())
				b.StartTimer()
			}
			slices.Sort(took)
			b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "median-ms")
		})
	}
}
