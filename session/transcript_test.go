package session

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

var recordTranscripts = flag.Bool("record", false, "re-record testdata/transcripts from real shells")

// A transcript is the raw output of a real shell session with ttymux's
// integration, and the marks the detector must find in it, recorded by
// TestRecordTranscripts (-record) and replayed at every split point.
type transcript struct {
	name  string
	nonce string
	marks string // e.g. "D0 C D0 C D1"
	data  string
}

func loadTranscripts(t *testing.T) []transcript {
	t.Helper()
	files, err := filepath.Glob("testdata/transcripts/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/transcripts: %v", err)
	}
	var ts []transcript
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		tr := transcript{name: filepath.Base(f)}
		sc := bufio.NewScanner(strings.NewReader(string(b)))
		sc.Buffer(nil, 1<<24)
		for sc.Scan() {
			l := sc.Text()
			switch {
			case strings.HasPrefix(l, "# nonce: "):
				tr.nonce = strings.TrimPrefix(l, "# nonce: ")
			case strings.HasPrefix(l, "# marks: "):
				tr.marks = strings.TrimPrefix(l, "# marks: ")
			case strings.HasPrefix(l, "\""):
				s, err := strconv.Unquote(l)
				if err != nil {
					t.Fatalf("%s: %v", f, err)
				}
				tr.data += s
			}
		}
		ts = append(ts, tr)
	}
	return ts
}

func markString(ms []verdict.Mark) string {
	var parts []string
	for _, m := range ms {
		if m.Kind == verdict.MarkDone {
			parts = append(parts, fmt.Sprintf("D%d", m.Status))
		} else {
			parts = append(parts, string(m.Kind))
		}
	}
	return strings.Join(parts, " ")
}

// TestTranscriptsEverySplit replays each recorded shell session split at
// every byte position: the detector finds the same marks, at the same
// offsets, whatever the split.
func TestTranscriptsEverySplit(t *testing.T) {
	for _, tr := range loadTranscripts(t) {
		t.Run(tr.name, func(t *testing.T) {
			whole := verdict.NewDetector(tr.nonce, 0)
			whole.Write([]byte(tr.data))
			if got := markString(whole.Marks()); got != tr.marks {
				t.Fatalf("marks %q, want %q", got, tr.marks)
			}
			for i := 0; i <= len(tr.data); i++ {
				d := verdict.NewDetector(tr.nonce, 0)
				d.Write([]byte(tr.data[:i]))
				d.Write([]byte(tr.data[i:]))
				if !reflect.DeepEqual(d.Marks(), whole.Marks()) || d.BracketedPaste() != whole.BracketedPaste() {
					t.Fatalf("split at %d: %q, want %q", i, markString(d.Marks()), tr.marks)
				}
			}
		})
	}
}

// TestRecordTranscripts re-records the transcripts from real shells; it runs
// only with -record.
func TestRecordTranscripts(t *testing.T) {
	if !*recordTranscripts {
		t.Skip("run with -record to re-record testdata/transcripts")
	}
	scripts := map[string][]string{
		"basic": {"echo hello", "false", "cd /tmp", "(exit 3)", "printf 'a\\rb\\n'", "echo one\necho two", "printf '\\033[1;31mred\\033[0m\\n'"},
		"quiet": {"sleep 0.2; echo done", "true"},
	}
	for _, shell := range []string{"bash", "zsh"} {
		path, err := exec.LookPath(shell)
		if err != nil {
			t.Logf("%s not installed; not recorded", shell)
			continue
		}
		for name, cmds := range scripts {
			m := NewManager(Options{
				Kinds:    []Kind{LocalKind(&local.Opener{})},
				StateDir: t.TempDir(), Shell: path, NoRC: true,
			})
			ctx := context.Background()
			s, err := m.Open(ctx, OpenRequest{Transport: "local", Target: transport.Target{
				Env: []string{"HOME=" + t.TempDir(), "PS1=$ ", "PROMPT=%% ", "ZDOTDIR="}}})
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range cmds {
				if _, err := s.Send(ctx, SendRequest{Text: c, Enter: true, Wait: true, Timeout: 10 * time.Second}); err != nil {
					t.Fatal(err)
				}
			}
			s.mu.Lock()
			data, _ := s.ring.AppendRange(nil, 0, s.ring.End())
			nonce := s.det.Nonce()
			marks := markString(s.det.Marks())
			s.mu.Unlock()
			m.CloseAll()
			var b strings.Builder
			fmt.Fprintf(&b, "# %s session recorded by TestRecordTranscripts: %q\n", shell, cmds)
			fmt.Fprintf(&b, "# nonce: %s\n# marks: %s\n", nonce, marks)
			for len(data) > 0 {
				n := min(len(data), 64)
				b.WriteString(strconv.Quote(string(data[:n])) + "\n")
				data = data[n:]
			}
			f := filepath.Join("testdata", "transcripts", shell+"-"+name+".txt")
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(b.String()), 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
}
