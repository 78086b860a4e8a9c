package audit

import (
	"context"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestWriteReadRotate(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "state", "ttymux", "audit.jsonl")
	l, err := open(p, 1000)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	code := 0
	for i := range 100 {
		if err := l.Write(Event{Event: "send", Session: "t1", Host: "local", Command: strings.Repeat("x", i%7), Decision: Ran, ExitCode: &code}); err != nil {
			t.Fatal(err)
		}
	}
	files := Files(p)
	if len(files) != Keep {
		t.Fatalf("files %v, want %d", files, Keep)
	}
	for _, f := range files {
		st, err := os.Stat(f)
		if err != nil {
			t.Fatal(err)
		}
		if st.Size() > 1000 {
			t.Fatalf("%s is %d bytes", f, st.Size())
		}
		if st.Mode().Perm() != 0o600 {
			t.Fatalf("%s mode %v", f, st.Mode())
		}
	}
	if st, _ := os.Stat(filepath.Dir(p)); st.Mode().Perm() != 0o700 {
		t.Fatalf("dir mode %v", st.Mode())
	}
	n := 0
	var last time.Time
	if err := ReadAll(p, func(e Event, _ []byte, ok bool) {
		if ok && e.Event == KindRotated {
			return
		}
		if !ok || e.Decision != Ran || e.Time.Before(last) {
			t.Fatalf("bad event %+v", e)
		}
		last = e.Time
		n++
	}); err != nil {
		t.Fatal(err)
	}
	if n == 0 || n >= 100 {
		t.Fatalf("read %d events (oldest must be dropped)", n)
	}
	if s := Format(Event{Time: time.Now(), Event: "send", Session: "t1", Host: "h", Command: "ls", Decision: Ran, ExitCode: &code}); !strings.Contains(s, `send t1 @h "ls" ran exit 0`) {
		t.Fatal(s)
	}
}

func TestNilLog(t *testing.T) {
	var l *Log
	if err := l.Write(Event{}); err != nil || l.Close() != nil {
		t.Fatal(err)
	}
}

// TestFollow sees events written after it starts, across a rotation.
func TestFollow(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	l, err := open(p, 300)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	l.Write(Event{Event: "open", Session: "before"})
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	var mu sync.Mutex
	got := map[string]bool{}
	var wg sync.WaitGroup
	wg.Go(func() {
		Follow(ctx, p, 10*time.Millisecond, func(e Event, _ []byte, ok bool) {
			mu.Lock()
			got[e.Session] = true
			if len(got) >= 10 {
				cancel()
			}
			mu.Unlock()
		})
	})
	time.Sleep(50 * time.Millisecond) // let Follow open the file at its end
	for i := range 10 {
		l.Write(Event{Event: "send", Session: "s" + string(rune('0'+i)), Command: strings.Repeat("y", 60)})
		time.Sleep(30 * time.Millisecond) // each poll sees a few events, some after a rotation
	}
	wg.Wait()
	if got["before"] {
		t.Fatal("Follow replayed an old event")
	}
	if len(got) < 8 {
		t.Fatalf("followed %v", got)
	}
}

// TestSharedLogWriteAllocs: two servers writing one log in turn (one per
// client) make each record chain to the other's last line, read from the
// file. That read costs about the last record, not a 64 KiB buffer: 200
// alternating records allocate under 12 KiB each (over 64 KiB each
// before, issue #37). The chain stays whole.
func TestSharedLogWriteAllocs(t *testing.T) {
	p := filepath.Join(t.TempDir(), "audit.jsonl")
	a, err := open(p, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer a.Close()
	b, err := open(p, 64<<20)
	if err != nil {
		t.Fatal(err)
	}
	defer b.Close()
	e := Event{Event: "send", Session: "t1", Host: "local", Command: "echo hello", Decision: Ran}
	const before = 400 // records of one writer: a log over 64 KiB
	for range before {
		if err := a.Write(e); err != nil {
			t.Fatal(err)
		}
	}
	const n = 200
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	for i := range n {
		if err := []*Log{b, a}[i%2].Write(e); err != nil {
			t.Fatal(err)
		}
	}
	runtime.ReadMemStats(&m1)
	if per := (m1.TotalAlloc - m0.TotalAlloc) / n; per > 12<<10 {
		t.Errorf("%d bytes allocated per record written after the other writer's", per)
	}
	r, err := Verify(p)
	if err != nil || len(r.Breaks) != 0 || r.Records != before+n || r.LastSeq != before+n {
		t.Errorf("chain: %v, %d records, last seq %d, breaks %v", err, r.Records, r.LastSeq, r.Breaks)
	}
}
