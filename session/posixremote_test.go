package session_test

import (
	"bytes"
	"context"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// syncBuffer is a bytes.Buffer safe for a logger and the test at once.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// linkShell makes a link named name to the shell program target in a
// directory of the test's, so that the remote bootstrap sees a login shell
// of that name (BusyBox picks its applet from it).
func linkShell(t *testing.T, name, target string) string {
	t.Helper()
	p, err := exec.LookPath(target)
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("%s missing under CI; .ci/run installs it", target)
		}
		t.Skipf("%s not installed", target)
	}
	l := filepath.Join(t.TempDir(), name)
	if err := os.Symlink(p, l); err != nil {
		t.Fatal(err)
	}
	return l
}

// TestRemoteBootstrapPOSIX: over SSH (sshd runs `$SHELL -c bootstrap`),
// a login shell of BusyBox ash, dash or mksh gets exact exit codes without
// mark, with the login files read as a login shell reads them, and ENV set
// by /etc/profile or ~/.profile (OpenWrt's /etc/profile sets
// ENV=/etc/shinit) still read. Before, the bootstrap started these shells
// plain: no exit codes, and open_ssh waited the whole 5 s ready timeout
// for a mark that never came.
func TestRemoteBootstrapPOSIX(t *testing.T) {
	for _, tt := range []struct{ name, target string }{
		{"ash", "busybox"},
		{"dash", "dash"},
		{"mksh", "mksh"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			shell := linkShell(t, tt.name, tt.target)
			home, tmp := t.TempDir(), t.TempDir()
			shinit := filepath.Join(home, "shinit")
			os.WriteFile(filepath.Join(home, ".profile"), []byte("export FROM_PROFILE=yes\nexport ENV="+shinit+"\nexport PS1='router# '\n"), 0o600)
			os.WriteFile(shinit, []byte("FROM_SHINIT=yes\n"), 0o600)
			var log syncBuffer
			m := sshdLikeManager(t, shell, session.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
				Env:  []string{"HOME=" + home, "TMPDIR=" + tmp, "ENV="},
				Spec: transport.SSHParams{Host: "router"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			logOnFailure(t, s)
			if !s.Info().Integrated {
				t.Fatalf("remote integration not ready: %+v\n%s", s.Info(), log.String())
			}
			r := send(t, s, session.SendRequest{Text: "echo $FROM_PROFILE-$FROM_SHINIT; (exit 6)"})
			if r.Output != "yes-yes" || exitCode(r) != "6" || r.Via != session.ViaExitCode {
				t.Fatalf("output %q exit %s via %q", r.Output, exitCode(r), r.Via)
			}
			if left, _ := os.ReadDir(tmp); len(left) != 0 {
				t.Fatalf("bootstrap left files behind in TMPDIR: %v", left)
			}
			if r := send(t, s, session.SendRequest{Text: "env | grep -e TTYMUX_ -E -e 'ttymux=[0-9a-f]{16}' | grep -v TTYMUX_SESSION= | cut -c1-20; echo $ENV"}); r.Output != shinit {
				t.Fatalf("TTYMUX_ variables or the nonce leaked, or ENV changed: %q", r.Output)
			}
		})
	}
}

// TestRemoteBootstrapNoHook: a login shell the bootstrap has no hook for
// says so with a mark at once, so the open does not wait out the ready
// timeout (5 s before, on every open_ssh to such a host), and the lower
// layers judge its commands. A link named tcsh to dash plays that shell.
func TestRemoteBootstrapNoHook(t *testing.T) {
	shell := linkShell(t, "tcsh", "dash")
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".profile"), []byte("PS1='$ '\n"), 0o600)
	var log syncBuffer
	m := sshdLikeManager(t, shell, session.Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Target: transport.Target{
		Env:  []string{"HOME=" + home, "TMPDIR=" + t.TempDir(), "ENV="},
		Spec: transport.SSHParams{Host: "box"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	if strings.Contains(log.String(), "did not report a prompt") {
		t.Fatalf("the open waited for a mark that cannot come:\n%s", log.String())
	}
	if s.Info().Integrated {
		t.Fatal("integrated, with no hook loaded")
	}
	r := send(t, s, session.SendRequest{Text: "echo plain-$((6*7))"})
	if !r.Complete || r.Output != "plain-42" {
		t.Fatalf("complete=%v output %q via %q", r.Complete, r.Output, r.Via)
	}
}

// TestRemoteBootstrapFitsDropbear: Dropbear refuses an exec request longer
// than its MAX_CMD_LEN (9000 bytes) with "String too long" and drops the
// connection, so open_ssh to a Dropbear host failed outright once the
// bootstrap carried the ash hook too. bash's and zsh's files, line keys
// included, now come as the command's input (the second stage), and the
// command keeps a margin of bootstrapMargin bytes for the files it still
// carries to grow.
func TestRemoteBootstrapFitsDropbear(t *testing.T) {
	const bootstrapMargin = 1500
	cmd, files, err := session.RemoteBootstrap("0123456789abcdef")
	if err != nil {
		t.Fatal(err)
	}
	if len(cmd) > session.MaxBootstrap-bootstrapMargin {
		t.Fatalf("the remote bootstrap is %d bytes; Dropbear takes at most %d, and the margin is %d", len(cmd), session.MaxBootstrap, bootstrapMargin)
	}
	for _, sh := range []string{"bash", "zsh"} {
		if !bytes.Contains(files[sh], []byte("9901~")) || !bytes.HasSuffix(files[sh], []byte("\nTTYMUX_EOF\n")) {
			t.Errorf("the %s file the second stage types lacks the line keys or its end line", sh)
		}
	}
	t.Logf("bootstrap: %d bytes; typed after it: bash %d, zsh %d", len(cmd), len(files["bash"]), len(files["zsh"]))
}

// TestRemoteNoHookKeptAndAttached: a persistent session on a host whose
// login shell has no hook, detached and attached again: the kept metadata
// holds no nonce once the far end said no hook loads, so the attached
// session does not wait for a D mark that never comes (every send timed
// out before).
func TestRemoteNoHookKeptAndAttached(t *testing.T) {
	shell := linkShell(t, "tcsh", "dash")
	home := t.TempDir()
	os.WriteFile(filepath.Join(home, ".profile"), []byte("PS1='$ '\n"), 0o600)
	k := startAgent(t)
	m := sshdLikeManager(t, shell, session.Options{Remote: func(context.Context, transport.Target) (transport.Keeper, error) { return k, nil }})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "ssh", Persistent: true, Target: transport.Target{
		Env:  []string{"HOME=" + home, "TMPDIR=" + t.TempDir(), "ENV=", "SHELL=" + shell},
		Spec: transport.SSHParams{Host: "box"},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if s.Info().Integrated || !s.Info().Persistent {
		t.Fatalf("open: %+v", s.Info())
	}
	if r := send(t, s, session.SendRequest{Text: "echo before"}); !r.Complete || r.Output != "before" {
		t.Fatalf("before detach: %+v", r)
	}
	id := s.ID()
	if _, err := m.Detach(ctx, id); err != nil {
		t.Fatal(err)
	}
	s2, err := m.Attach(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s2)
	if r := send(t, s2, session.SendRequest{Text: "echo after", Timeout: 5 * time.Second}); !r.Complete || r.Output != "after" {
		t.Fatalf("after attach: complete=%v via %q output %q", r.Complete, r.Via, r.Output)
	}
}
