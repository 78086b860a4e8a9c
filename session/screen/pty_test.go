package screen

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// ptyRun runs a program on a real PTY of rows x cols and copies its output
// into a Screen whose answers to queries go back to the PTY, as a session
// does.
type ptyRun struct {
	t     *testing.T
	s     *Screen
	ptmx  *os.File
	cmd   *exec.Cmd
	chunk chan struct{} // a token after each chunk of output
	eof   chan struct{} // closed when the output ends
}

// startPTY starts name in dir, or in a new directory if dir is "".
func startPTY(t *testing.T, dir string, rows, cols int, name string, args ...string) *ptyRun {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		t.Skipf("%s not installed", name)
	}
	if dir == "" {
		dir = t.TempDir()
	}
	cmd := exec.Command(path, args...)
	cmd.Dir = dir
	cmd.Env = []string{"TERM=xterm-256color", "LANG=C.UTF-8", "HOME=" + cmd.Dir, "PATH=/usr/bin:/bin"}
	ptmx, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(rows), Cols: uint16(cols)})
	if err != nil {
		t.Fatal(err)
	}
	r := &ptyRun{
		t:     t,
		s:     New(rows, cols, Options{Reply: ptmx}),
		ptmx:  ptmx,
		cmd:   cmd,
		chunk: make(chan struct{}, 1),
		eof:   make(chan struct{}),
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		defer close(r.eof)
		buf := make([]byte, 32<<10)
		for {
			n, err := ptmx.Read(buf)
			if n > 0 {
				_, _ = r.s.Write(buf[:n])
				select {
				case r.chunk <- struct{}{}:
				default:
				}
			}
			if err != nil { // EIO once the program has exited
				return
			}
		}
	})
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait() // the program is gone: the read ends with EIO
		wg.Wait()
		_ = r.s.Close()
		_ = ptmx.Close()
	})
	return r
}

// waitScreen waits, after each chunk of output, until cond holds for a
// snapshot, and returns that snapshot.
func (r *ptyRun) waitScreen(what string, cond func(Snapshot) bool) Snapshot {
	r.t.Helper()
	timeout := time.After(waitTimeout)
	for {
		snap := r.s.Snapshot()
		if cond(snap) {
			return snap
		}
		select {
		case <-r.chunk:
		case <-r.eof:
			if snap := r.s.Snapshot(); cond(snap) {
				return snap
			}
			r.t.Fatalf("output ended before %s; screen:\n%s", what, snap.Text())
		case <-timeout:
			r.t.Fatalf("no %s after %v; screen:\n%s", what, waitTimeout, snap.Text())
		}
	}
}

// waitExit waits for the output to end and returns the final snapshot.
func (r *ptyRun) waitExit() Snapshot {
	r.t.Helper()
	select {
	case <-r.eof:
	case <-time.After(waitTimeout):
		r.t.Fatalf("program still running after %v; screen:\n%s", waitTimeout, r.s.Snapshot().Text())
	}
	return r.s.Snapshot()
}

func (r *ptyRun) send(s string) {
	r.t.Helper()
	if _, err := io.WriteString(r.ptmx, s); err != nil {
		r.t.Fatal(err)
	}
}

// writeFile writes a file of numbered lines in a new directory and
// returns the directory.
func writeFile(t *testing.T, name string, lines int) string {
	t.Helper()
	dir := t.TempDir()
	var b strings.Builder
	for i := 1; i <= lines; i++ {
		fmt.Fprintf(&b, "line %d\n", i)
	}
	if err := os.WriteFile(filepath.Join(dir, name), []byte(b.String()), 0o600); err != nil {
		t.Fatal(err)
	}
	return dir
}

func rowIs(row int, text string) func(Snapshot) bool {
	return func(s Snapshot) bool { return row < len(s.Lines) && s.Lines[row] == text }
}

// TestPTYFlood runs seq on a real PTY: the reader never waits for the
// emulator, and the final screen shows the last numbers.
func TestPTYFlood(t *testing.T) {
	const rows, n = 24, 300000
	r := startPTY(t, "", rows, 80, "seq", strconv.Itoa(n))
	snap := r.waitExit()
	var want []string
	for i := n - rows + 2; i <= n; i++ {
		want = append(want, strconv.Itoa(i))
	}
	want = append(want, "")
	if !slices.Equal(snap.Lines, want) {
		t.Errorf("screen:\n%s", snap.Text())
	}
}

// TestPTYQuery runs a program that asks for the cursor position and
// blocks until it gets the answer, which only the Screen can give.
func TestPTYQuery(t *testing.T) {
	r := startPTY(t, "", 24, 80, "bash", "--norc", "--noprofile", "-c",
		`printf 'abc\e[6n'; IFS= read -rsd R ans; printf '\r\ngot %s\r\n' "${ans#*[}"`)
	snap := r.waitExit()
	if snap.Lines[1] != "got 1;4" {
		t.Errorf("screen:\n%s", snap.Text())
	}
}

// TestPTYProgress runs a shell progress bar drawn with carriage returns.
func TestPTYProgress(t *testing.T) {
	r := startPTY(t, "", 24, 80, "bash", "--norc", "--noprofile", "-c",
		`echo '$ fetch'; bar=##########; for ((i = 0; i < 20000; i++)); do printf '\r[%-10s] %d%%' "${bar:0:i%10}" $((i / 200)); done; printf '\r[%s] 100%%\r\ndone\n' $bar`)
	snap := r.waitExit()
	want := []string{"$ fetch", "[##########] 100%", "done"}
	if !slices.Equal(snap.Lines[:3], want) {
		t.Errorf("screen:\n%s", snap.Text())
	}
}

// TestPTYLess pages a file with less, which draws on the alternate screen
// and gives the normal screen back on exit.
func TestPTYLess(t *testing.T) {
	r := startPTY(t, writeFile(t, "big.txt", 1000), 24, 80, "bash", "--norc", "--noprofile", "-c",
		`echo before less; less big.txt; echo after less`)
	// less draws its page progressively: wait for the whole page.
	snap := r.waitScreen("the first page", func(s Snapshot) bool { return rowIs(0, "line 1")(s) && rowIs(22, "line 23")(s) })
	if !snap.AltScreen {
		t.Errorf("first page not on the alternate screen:\n%s", snap.Text())
	}
	r.send("G")
	snap = r.waitScreen("the last page", func(s Snapshot) bool { return rowIs(22, "line 1000")(s) && rowIs(0, "line 978")(s) })
	if snap.Lines[0] != "line 978" {
		t.Errorf("last page:\n%s", snap.Text())
	}
	r.send("q")
	snap = r.waitExit()
	if snap.AltScreen || snap.Lines[0] != "before less" || snap.Lines[1] != "after less" {
		t.Errorf("after less, alt screen %v:\n%s", snap.AltScreen, snap.Text())
	}
}

// TestPTYVim edits a file with vim: a full-screen program with cursor
// addressing, scrolling regions and a status line.
func TestPTYVim(t *testing.T) {
	r := startPTY(t, writeFile(t, "f.txt", 100), 24, 80, "bash", "--norc", "--noprofile", "-c",
		`echo before vim; vim -u NONE -N -n f.txt; echo after vim`)
	snap := r.waitScreen("the file", func(s Snapshot) bool { return rowIs(0, "line 1")(s) && rowIs(22, "line 23")(s) })
	if !snap.AltScreen {
		t.Errorf("vim:\n%s", snap.Text())
	}
	r.send("50Gddkkdd")
	r.waitScreen("the edit", func(s Snapshot) bool {
		return slices.Contains(s.Lines, "line 51") && !slices.Contains(s.Lines, "line 50")
	})
	r.send("\x1b:q!\r")
	snap = r.waitExit()
	if snap.AltScreen || snap.Lines[0] != "before vim" || snap.Lines[1] != "after vim" {
		t.Errorf("after vim, alt screen %v:\n%s", snap.AltScreen, snap.Text())
	}
}

// TestPTYTop runs top, which repaints the whole screen periodically.
func TestPTYTop(t *testing.T) {
	r := startPTY(t, "", 24, 100, "top", "-d", "0.1")
	snap := r.waitScreen("the process table", func(s Snapshot) bool {
		return len(s.Lines) > 0 && strings.HasPrefix(s.Lines[0], "top - ") &&
			slices.ContainsFunc(s.Lines, func(l string) bool { return strings.Contains(l, "PID") && strings.Contains(l, "COMMAND") })
	})
	if !strings.HasPrefix(snap.Lines[0], "top - ") {
		t.Errorf("top:\n%s", snap.Text())
	}
	r.send("q")
	if snap := r.waitExit(); snap.AltScreen {
		t.Errorf("after top, alt screen:\n%s", snap.Text())
	}
}
