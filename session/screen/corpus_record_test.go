package screen

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestRecordCorpus records the fixtures of the replay corpus: each case of
// corpus runs in tmux at its size, tmux's pipe-pane keeps what the program
// writes, and capture-pane its screen after the start and after each
// step. It runs only with TTYMUX_RECORD_CORPUS set (to a case name, or
// "all"), and needs tmux and the programs:
//
//	TTYMUX_RECORD_CORPUS=less-24x80 go test -run TestRecordCorpus ./session/screen/
func TestRecordCorpus(t *testing.T) {
	which := os.Getenv("TTYMUX_RECORD_CORPUS")
	if which == "" {
		t.Skip("TTYMUX_RECORD_CORPUS not set: nothing to record")
	}
	if _, err := exec.LookPath("tmux"); err != nil {
		t.Fatal("recording needs tmux")
	}
	t.Setenv("TMUX_TMPDIR", t.TempDir())
	t.Setenv("TMUX", "")
	for _, c := range corpus {
		if which != "all" && which != c.name {
			continue
		}
		t.Run(c.name, func(t *testing.T) { recordCase(t, c) })
	}
}

// recorder drives one tmux server.
type recorder struct {
	t    *testing.T
	sock string
	raw  string // where pipe-pane writes the output
}

func (r *recorder) tmux(args ...string) string {
	r.t.Helper()
	out, err := exec.Command("tmux", append([]string{"-L", r.sock}, args...)...).CombinedOutput()
	if err != nil {
		r.t.Fatalf("tmux %s: %v: %s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

// settle waits until the output has not grown for 400 ms (at most 15 s)
// and returns its size.
func (r *recorder) settle() int {
	ctx, cancel := context.WithTimeout(r.t.Context(), 15*time.Second)
	defer cancel()
	last, since := int64(-1), time.Now()
	for ctx.Err() == nil {
		st, err := os.Stat(r.raw)
		size := int64(0)
		if err == nil {
			size = st.Size()
		}
		if size != last {
			last, since = size, time.Now()
		} else if time.Since(since) >= 400*time.Millisecond {
			return int(size)
		}
		time.Sleep(50 * time.Millisecond) // polling a file another process writes
	}
	return int(last)
}

// capture returns tmux's screen as text: line drawing as its Unicode
// characters, attributes dropped.
func (r *recorder) capture(rows int) []string {
	lines := strings.Split(strings.TrimSuffix(plainCapture(r.tmux("capture-pane", "-p", "-e", "-t", "c")), "\n"), "\n")
	for len(lines) < rows {
		lines = append(lines, "")
	}
	return lines[:rows]
}

func recordCase(t *testing.T, c corpusCase) {
	dir := t.TempDir()
	for name, body := range corpusFiles {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	cmd := c.cmd
	var data []byte
	if c.gen != nil {
		data = c.gen(c.rows)
		if err := os.WriteFile(filepath.Join(dir, "gen.out"), data, 0o644); err != nil {
			t.Fatal(err)
		}
		cmd = "stty -opost; cat gen.out" // bytes as they are
	}
	r := &recorder{t: t, sock: fmt.Sprintf("corpus%d-%s", os.Getpid(), c.name), raw: filepath.Join(dir, "raw.out")}
	// The program starts after a pause, so that pipe-pane is in place.
	shell := fmt.Sprintf("cd %q && sleep 0.5 && env HOME=%q TERM=xterm-256color LANG=C.UTF-8 LC_ALL=C.UTF-8 sh -c %q; sleep 600",
		dir, dir, cmd+"; printf '\\n[exited]'")
	r.tmux("-f", "/dev/null", "new-session", "-d", "-s", "c", "-x", fmt.Sprint(c.cols), "-y", fmt.Sprint(c.rows), shell)
	defer exec.Command("tmux", "-L", r.sock, "kill-server").Run() //nolint:errcheck
	r.tmux("pipe-pane", "-t", "c", "cat > "+r.raw)

	var out bytes.Buffer
	fmt.Fprintf(&out, "# %s %dx%d: tmux's screen (%s) at each checkpoint\n", c.name, c.rows, c.cols, strings.TrimSpace(r.tmux("-V")))
	cp := func() {
		off := r.settle()
		fmt.Fprintf(&out, "@ %d\n", off)
		for _, l := range r.capture(c.rows) {
			out.WriteString(l + "\n")
		}
	}
	// Wait for the program's first output before the first checkpoint.
	for n := 0; n < 100; n++ {
		if st, err := os.Stat(r.raw); err == nil && st.Size() > 0 {
			break
		}
		time.Sleep(50 * time.Millisecond) // polling a file another process writes
	}
	cp()
	for _, st := range c.steps {
		for n := 0; ; n++ {
			r.tmux(append([]string{"send-keys", "-t", "c"}, st.keys...)...)
			if st.until == "" {
				break
			}
			off := r.settle()
			if strings.Contains(strings.Join(r.capture(c.rows), "\n"), st.until) || n >= 60 {
				_ = off
				break
			}
			cp()
		}
		cp()
	}
	raw, err := os.ReadFile(r.raw)
	if err != nil {
		t.Fatal(err)
	}
	if c.gen != nil && !bytes.HasPrefix(raw, data) {
		t.Fatalf("tmux passed on %d bytes of %d generated", len(raw), len(data))
	}
	if err := os.MkdirAll("testdata/corpus", 0o755); err != nil {
		t.Fatal(err)
	}
	if c.gen == nil {
		if err := os.WriteFile(corpusPath(c.name, ".bin"), raw, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.WriteFile(corpusPath(c.name, ".tmux"), out.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s: %d bytes, %d checkpoints", c.name, len(raw), strings.Count(out.String(), "\n@ "))
}

// decGraphics is the DEC special graphics set, as tmux's capture-pane -e
// shows it: the ASCII letters between SO and SI.
var decGraphics = map[rune]string{'`': "◆", 'a': "▒", 'b': "␉", 'c': "␌", 'd': "␍", 'e': "␊", 'f': "°", 'g': "±",
	'h': "␤", 'i': "␋", 'j': "┘", 'k': "┐", 'l': "┌", 'm': "└", 'n': "┼", 'o': "⎺", 'p': "⎻", 'q': "─", 'r': "⎼",
	's': "⎽", 't': "├", 'u': "┤", 'v': "┴", 'w': "┬", 'x': "│", 'y': "⩽", 'z': "⩾", '{': "π", '|': "≠", '}': "£", '~': "·"}

// plainCapture turns capture-pane -e output into text: line drawing
// (between SO and SI) as its Unicode characters, other sequences removed.
func plainCapture(s string) string {
	var b strings.Builder
	on := false
	rs := []rune(s)
	for i := 0; i < len(rs); i++ {
		r := rs[i]
		switch {
		case r == 0x0e:
			on = true
		case r == 0x0f:
			on = false
		case r == esc && i+1 < len(rs) && rs[i+1] == '[':
			for i += 2; i < len(rs) && (rs[i] < 0x40 || rs[i] > 0x7e); i++ {
			}
		case r == esc && i+1 < len(rs) && rs[i+1] == ']':
			for i += 2; i < len(rs) && rs[i] != 0x07 && !(rs[i] == '\\' && rs[i-1] == esc); i++ {
			}
		case r == esc && i+1 < len(rs):
			i++ // a two-byte escape
		case on && decGraphics[r] != "":
			b.WriteString(decGraphics[r])
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
