package audit

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

// writeLog writes n send events to a fresh log at p (rotating at maxSize).
func writeLog(t *testing.T, p string, maxSize int64, n int) {
	t.Helper()
	l, err := open(p, maxSize)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	for i := range n {
		if err := l.Write(Event{Event: KindSend, Session: "t1", Host: "local", Command: fmt.Sprintf("echo %d", i), Decision: Ran}); err != nil {
			t.Fatal(err)
		}
	}
}

func lines(t *testing.T, p string) [][]byte {
	t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		t.Fatal(err)
	}
	return bytes.SplitAfter(bytes.TrimSuffix(b, []byte("\n")), []byte("\n"))
}

func rewrite(t *testing.T, p string, ls [][]byte) {
	t.Helper()
	var b []byte
	for _, l := range ls {
		b = append(b, l...)
		if !bytes.HasSuffix(l, []byte("\n")) {
			b = append(b, '\n')
		}
	}
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

// TestVerifyIntact: a log written by one Log, by two Logs sharing the file
// (two servers), and across rotations verifies without a break, and the
// chain goes on after the log is reopened.
func TestVerifyIntact(t *testing.T) {
	t.Run("one writer, reopened", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "audit.jsonl")
		writeLog(t, p, MaxSize, 5)
		writeLog(t, p, MaxSize, 5)
		r, err := Verify(p)
		if err != nil || len(r.Breaks) != 0 || r.Records != 10 || r.LastSeq != 10 {
			t.Fatalf("report %+v, err %v", r, err)
		}
	})
	t.Run("two writers", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "audit.jsonl")
		a, err := open(p, 2000)
		if err != nil {
			t.Fatal(err)
		}
		defer a.Close()
		b, err := open(p, 2000)
		if err != nil {
			t.Fatal(err)
		}
		defer b.Close()
		var wg sync.WaitGroup
		for _, l := range []*Log{a, b} {
			wg.Go(func() {
				for i := range 40 {
					if err := l.Write(Event{Event: KindSend, Command: fmt.Sprint(i)}); err != nil {
						t.Error(err)
					}
				}
			})
		}
		wg.Wait()
		r, err := Verify(p)
		if err != nil || len(r.Breaks) != 0 || r.LastSeq != 80+int64(rotations(r)) {
			t.Fatalf("report %+v, err %v", r, err)
		}
	})
	t.Run("rotated, oldest dropped", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "audit.jsonl")
		writeLog(t, p, 600, 60)
		r, err := Verify(p)
		if err != nil || len(r.Breaks) != 0 || len(r.Files) != Keep || len(r.Notes) != 1 {
			t.Fatalf("report %+v, err %v", r, err)
		}
	})
}

// rotations is the number of Rotated records a two-writer log may hold.
func rotations(r Report) int { return int(r.LastSeq) - 80 }

// TestVerifyFindsTampering is issue #31's "audit verify detects a deleted
// line", with an edited and a forged one: each is named by its line.
func TestVerifyFindsTampering(t *testing.T) {
	tests := []struct {
		name   string
		tamper func([][]byte) [][]byte
		line   int
		why    string
	}{
		{"removed", func(ls [][]byte) [][]byte { return append(ls[:3:3], ls[4:]...) }, 4, "1 record(s) removed"},
		{"two removed", func(ls [][]byte) [][]byte { return append(ls[:3:3], ls[5:]...) }, 4, "2 record(s) removed"},
		{"first removed", func(ls [][]byte) [][]byte { return ls[1:] }, 1, "before this one were removed"},
		{"edited", func(ls [][]byte) [][]byte {
			ls[2] = bytes.Replace(ls[2], []byte("echo 2"), []byte("echo X"), 1)
			return ls
		}, 3, "edited"},
		{"decision edited", func(ls [][]byte) [][]byte {
			ls[4] = bytes.Replace(ls[4], []byte(`"ran"`), []byte(`"held"`), 1)
			return ls
		}, 5, "edited"},
		{"forged without chain", func(ls [][]byte) [][]byte {
			f := []byte(`{"time":"2026-01-01T00:00:00Z","event":"send","command":"rm -rf /","decision":"declined_by_human"}` + "\n")
			return append(ls[:3:3], append([][]byte{f}, ls[3:]...)...)
		}, 4, "forged"},
		{"forged with a chain", func(ls [][]byte) [][]byte {
			f := fmt.Appendf(nil, `{"time":"2026-01-01T00:00:00Z","event":"send","command":"x","seq":4,"prev":"%s"}`+"\n", Hash(bytes.TrimSuffix(ls[2], []byte("\n"))))
			return append(ls[:3:3], append([][]byte{f}, ls[3:]...)...)
		}, 4, "forged"},
		{"not json", func(ls [][]byte) [][]byte {
			ls[5] = []byte("\x1b[2Jhello\n")
			return ls
		}, 6, "not a record"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := filepath.Join(t.TempDir(), "audit.jsonl")
			writeLog(t, p, MaxSize, 8)
			rewrite(t, p, tt.tamper(lines(t, p)))
			r, err := Verify(p)
			if err != nil {
				t.Fatal(err)
			}
			if len(r.Breaks) == 0 {
				t.Fatal("no break found")
			}
			b := r.Breaks[0]
			if b.Line != tt.line || !strings.Contains(b.Why, tt.why) {
				t.Fatalf("first break %v, want line %d with %q (all: %v)", b, tt.line, tt.why, r.Breaks)
			}
		})
	}
}

// TestLegacyLogChains: a log from before the chain is continued: its lines
// count as legacy, and the first chained record follows the last of them.
func TestLegacyLogChains(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	if err := os.WriteFile(p, []byte(`{"time":"2026-01-01T00:00:00Z","event":"open"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	writeLog(t, p, MaxSize, 3)
	r, err := Verify(p)
	if err != nil || len(r.Breaks) != 0 || r.Legacy != 1 || r.Records != 3 {
		t.Fatalf("report %+v, err %v", r, err)
	}
}

// TestFormatShowsControls: ttymux audit never prints a model's escape
// sequence or newline raw.
func TestFormatShowsControls(t *testing.T) {
	s := Format(Event{Event: KindSend, Session: "t1", Command: "echo hi\x1b[2J\nfake line", Reason: "x\ny"})
	if strings.ContainsAny(s, "\x1b\n") || !strings.Contains(s, `\x1b[2J\nfake line`) || !strings.Contains(s, `x\ny`) {
		t.Fatalf("Format = %q", s)
	}
}

// BenchmarkWrite is the cost the chain adds to every audited call: the
// flock, two stats and a hash per record.
func BenchmarkWrite(b *testing.B) {
	l, err := open(filepath.Join(b.TempDir(), "audit.jsonl"), MaxSize)
	if err != nil {
		b.Fatal(err)
	}
	defer l.Close()
	e := Event{Event: KindSend, Session: "t1", Host: "local", Command: "echo hello", Decision: Ran}
	for b.Loop() {
		if err := l.Write(e); err != nil {
			b.Fatal(err)
		}
	}
}
