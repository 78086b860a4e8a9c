package session_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// liveWide is a file of wide characters and emoji, which the programs lay
// out by wcwidth (issue #33).
const liveWide = "Wide characters and emoji:\n❤️ ☺️ ✔️ end\n" +
	"keycap 1️⃣ x, thumbs 👍🏽 x, soft\u00adhyphen, é combining\n" +
	"中文字符 at the margin: yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy中文\n"

// TestScreenMatchesTmuxLive runs full-screen programs in a session and in
// tmux at the same size, TERM and keystrokes, and compares the screen that
// read {mode: "screen"} returns with tmux's, row by row: what issue #33
// asks of wide characters in vim and less, with each program answered by
// its own terminal (ttymux's emulator or tmux) as a user's would be.
func TestScreenMatchesTmuxLive(t *testing.T) {
	for _, tool := range []string{"tmux", "vim.tiny", "less"} {
		if _, err := exec.LookPath(tool); err != nil {
			if os.Getenv("CI") != "" {
				t.Fatalf("%s missing under CI", tool)
			}
			t.Skipf("%s not installed", tool)
		}
	}
	t.Setenv("TMUX_TMPDIR", t.TempDir())
	t.Setenv("TMUX", "")
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "wide.txt"), []byte(liveWide+strings.Repeat("filler line\n", 60)), 0o600); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name       string
		rows, cols int
		cmd        string
		typed      []string // typed in turn, each followed by a comparison
	}{
		{"vim.tiny 24x80", 24, 80, "vim.tiny -u NONE -i NONE -N -n wide.txt", []string{"G", "gg", "3jA ❤️x\x1b"}},
		{"vim.tiny 40x120", 40, 120, "vim.tiny -u NONE -i NONE -N -n wide.txt", []string{"jj$", ":set nu\r"}},
		{"less 24x80", 24, 80, "less wide.txt", []string{" ", "g"}},
	}
	for i, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tm := startTmux(t, fmt.Sprintf("live%d", i), tt.rows, tt.cols, dir, tt.cmd)
			m := newManager(t, session.Options{})
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
				Dir:  dir,
				Size: transport.Size{Rows: tt.rows, Cols: tt.cols},
				Env:  []string{"HOME=" + dir, "PS1=$ ", "LANG=C.UTF-8"},
			}})
			if err != nil {
				t.Fatal(err)
			}
			send(t, s, session.SendRequest{Text: tt.cmd, Until: "wide.txt"})
			compareLive(t, s, tm, "start")
			for _, typed := range tt.typed {
				text := strings.NewReplacer(`\x1b`, "\x1b", `\r`, "\r").Replace(typed)
				tm.run("send-keys", "-t", "c", "-l", text)
				if _, err := s.Send(t.Context(), session.SendRequest{Text: text, Wait: true, Timeout: 5 * time.Second}); err != nil {
					t.Fatal(err)
				}
				compareLive(t, s, tm, typed)
			}
		})
	}
}

// liveTmux is a tmux server running one program.
type liveTmux struct {
	t    *testing.T
	sock string
	rows int
}

func startTmux(t *testing.T, sock string, rows, cols int, dir, cmd string) *liveTmux {
	tm := &liveTmux{t: t, sock: sock, rows: rows}
	shell := fmt.Sprintf("cd %q && env HOME=%q TERM=xterm-256color LANG=C.UTF-8 %s; sleep 600", dir, dir, cmd)
	tm.run("-f", "/dev/null", "new-session", "-d", "-s", "c", "-x", fmt.Sprint(cols), "-y", fmt.Sprint(rows), shell)
	t.Cleanup(func() { _ = exec.Command("tmux", "-L", sock, "kill-server").Run() })
	return tm
}

func (tm *liveTmux) run(args ...string) string {
	tm.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", tm.sock}, args...)...).CombinedOutput()
	if err != nil {
		tm.t.Fatalf("tmux %v: %v: %s", args, err, out)
	}
	return string(out)
}

// screen returns tmux's rows once they have stayed the same for 300 ms.
func (tm *liveTmux) screen() []string {
	var last string
	since := time.Now()
	testwait.Poll(tm.t.Context(), 10*time.Second, func() bool {
		cur := tm.run("capture-pane", "-p", "-t", "c")
		if cur != last {
			last, since = cur, time.Now()
			return false
		}
		return strings.TrimSpace(cur) != "" && time.Since(since) >= 300*time.Millisecond
	})
	return rowsOf(last, tm.rows)
}

func rowsOf(s string, n int) []string {
	rows := strings.Split(strings.TrimSuffix(s, "\n"), "\n")
	for len(rows) < n {
		rows = append(rows, "")
	}
	for i := range rows {
		rows[i] = strings.TrimRight(rows[i], " ")
	}
	return rows[:n]
}

// compareLive compares the session's screen with tmux's, waiting (bounded)
// for both to settle.
func compareLive(t *testing.T, s *session.Session, tm *liveTmux, step string) {
	t.Helper()
	want := tm.screen()
	var got []string
	ok := testwait.Poll(t.Context(), 10*time.Second, func() bool {
		r, err := s.Read(t.Context(), session.ReadRequest{Mode: "screen"})
		if err != nil {
			t.Fatal(err)
		}
		got = rowsOf(r.Output, tm.rows)
		return strings.Join(got, "\n") == strings.Join(want, "\n")
	})
	if !ok {
		var b strings.Builder
		for i := range want {
			mark := " "
			if got[i] != want[i] {
				mark = "!"
			}
			fmt.Fprintf(&b, "%s%2d ttymux |%s|\n      tmux |%s|\n", mark, i, got[i], want[i])
		}
		t.Fatalf("after %s, the screen differs from tmux's:\n%s", step, b.String())
	}
}
