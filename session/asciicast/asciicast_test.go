package asciicast

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode/utf8"
)

// castEvent is one decoded event line of a recording.
type castEvent struct {
	At   float64
	Code string
	Data string
}

// readCast parses a recording strictly: the file is valid UTF-8, the first
// line a v2 header, every other line a [number, string, string] array.
func readCast(t *testing.T, path string) (castHeader, []castEvent) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !utf8.Valid(b) {
		t.Fatalf("%s is not valid UTF-8", path)
	}
	if len(b) == 0 || b[len(b)-1] != '\n' {
		t.Fatalf("%s does not end with a newline: %q", path, b)
	}
	lines := strings.Split(strings.TrimSuffix(string(b), "\n"), "\n")
	var h castHeader
	if err := json.Unmarshal([]byte(lines[0]), &h); err != nil || h.Version != 2 {
		t.Fatalf("header %q: %v", lines[0], err)
	}
	var evs []castEvent
	for _, l := range lines[1:] {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(l), &raw); err != nil || len(raw) != 3 {
			t.Fatalf("event line %q: %v", l, err)
		}
		var ev castEvent
		if json.Unmarshal(raw[0], &ev.At) != nil || json.Unmarshal(raw[1], &ev.Code) != nil || json.Unmarshal(raw[2], &ev.Data) != nil {
			t.Fatalf("event line %q: want [number, string, string]", l)
		}
		evs = append(evs, ev)
	}
	return h, evs
}

// castOutput joins the data of a recording's output events.
func castOutput(evs []castEvent) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Code == "o" {
			b.WriteString(ev.Data)
		}
	}
	return b.String()
}

func newTestRecorder(t *testing.T) *Recorder {
	t.Helper()
	return newClockRecorder(t, nil)
}

// newClockRecorder is newTestRecorder on clock (nil: time.Now).
func newClockRecorder(t *testing.T, clock func() time.Time) *Recorder {
	t.Helper()
	o := Options{Dir: t.TempDir(), ID: "t1", Env: map[string]string{"TERM": "xterm-256color"}, Title: "test", Clock: clock}
	o.Rows, o.Cols = 24, 80
	r, err := Create(o)
	if err != nil {
		t.Fatal(err)
	}
	return r
}

// TestRecordSplitUTF8 feeds text full of multi-byte characters, escapes
// and JSON specials split at every byte: the recording always decodes to
// exactly the text, so no split sequence is ever mangled.
func TestRecordSplitUTF8(t *testing.T) {
	const text = "héllo \"wörld\" \\ 日本語 😀\x1b[1;31mred\x1b[0m\r\n\ttab \u2028 \x07 end ✓"
	for i := 0; i <= len(text); i++ {
		r := newTestRecorder(t)
		r.Output([]byte(text[:i]))
		r.flush(false) // an incomplete sequence must wait across writes too
		r.Output([]byte(text[i:]))
		r.Close()
		if _, evs := readCast(t, r.path); castOutput(evs) != text {
			t.Fatalf("split at %d: recorded %q, want %q", i, castOutput(evs), text)
		}
	}
	// And one byte per chunk.
	r := newTestRecorder(t)
	for i := range len(text) {
		r.Output([]byte{text[i]})
	}
	r.Close()
	if _, evs := readCast(t, r.path); castOutput(evs) != text {
		t.Fatalf("byte by byte: recorded %q, want %q", castOutput(evs), text)
	}
}

// TestRecordInvalidUTF8 checks that bytes that are not UTF-8 (a binary
// dump, a truncated sequence at the very end) still give valid JSON in
// valid UTF-8, with U+FFFD in their place.
func TestRecordInvalidUTF8(t *testing.T) {
	r := newTestRecorder(t)
	r.Output([]byte("ok\xff\xfe"))
	r.Output([]byte("\xc3(mid\xed\xa0\x80surrogate"))
	r.Output([]byte("end\xe2\x82")) // never completed
	r.Close()
	_, evs := readCast(t, r.path)
	got := castOutput(evs)
	for _, want := range []string{"ok", "(mid", "surrogate", "end"} {
		if !strings.Contains(got, want) {
			t.Errorf("recorded %q lacks %q", got, want)
		}
	}
	if n := strings.Count(got, "\uFFFD"); n < 4 {
		t.Errorf("recorded %q: %d replacement characters, want one per invalid byte", got, n)
	}
}

func TestRecordJSONString(t *testing.T) {
	for _, tt := range []struct{ name, in, want string }{
		{name: "plain", in: "abc", want: `"abc"`},
		{name: "specials", in: "\"\\\n\r\t", want: `"\"\\\n\r\t"`},
		{name: "controls", in: "\x00\x1b\x7f", want: `"\u0000\u001b\u007f"`},
		{name: "utf8 kept", in: "é日😀", want: `"é日😀"`},
		{name: "line separators", in: "\u2028\u2029", want: `"\u2028\u2029"`},
		{name: "invalid", in: "a\xffb", want: `"a\ufffdb"`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := string(appendJSONString(nil, []byte(tt.in)))
			if got != tt.want {
				t.Fatalf("got %s, want %s", got, tt.want)
			}
			var back string
			if err := json.Unmarshal([]byte(got), &back); err != nil {
				t.Fatalf("not JSON: %v", err)
			}
		})
	}
}

// TestRecordHeaderAndEvents checks the header fields and that output,
// input and resize events come out in order with times that never go back.
func TestRecordHeaderAndEvents(t *testing.T) {
	var mu sync.Mutex
	start := time.Now()
	now := start
	clock := func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return now
	}
	r := newClockRecorder(t, clock)
	r.Start(nil)
	r.Output([]byte("$ "))
	r.Input([]byte("ls\r"))
	mu.Lock()
	now = now.Add(30 * time.Millisecond) // the next event must be later by at least this
	mu.Unlock()
	r.Output([]byte("file\r\n"))
	r.Resize(30, 100)
	for i := range 200 {
		r.Output([]byte{'a' + byte(i%26)})
	}
	r.Close()
	h, evs := readCast(t, r.path)
	if h.Width != 80 || h.Height != 24 || h.Env["TERM"] != "xterm-256color" || h.Title != "test" {
		t.Fatalf("header %+v", h)
	}
	if d := time.Unix(h.Timestamp, 0).Sub(start); d > time.Second || d < -2*time.Second {
		t.Fatalf("header timestamp %d is not now (%v)", h.Timestamp, start.Unix())
	}
	if len(evs) < 4 || evs[0] != (castEvent{evs[0].At, "o", "$ "}) || evs[1].Code != "i" || evs[1].Data != "ls\r" {
		t.Fatalf("events %+v", evs[:min(4, len(evs))])
	}
	if evs[2].Data != "file\r\n" || evs[2].At-evs[1].At < 0.03 {
		t.Fatalf("event after 30 ms: %+v after %+v", evs[2], evs[1])
	}
	if evs[3] != (castEvent{evs[3].At, "r", "100x30"}) {
		t.Fatalf("resize event %+v", evs[3])
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].At < evs[i-1].At {
			t.Fatalf("time goes back at event %d: %v after %v", i, evs[i].At, evs[i-1].At)
		}
	}
	fi, err := os.Stat(r.path)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("recording mode %v (%v), want 0600", fi.Mode(), err)
	}
	di, err := os.Stat(filepath.Dir(r.path))
	if err != nil || di.Mode().Perm() != 0o700 {
		t.Fatalf("recordings directory mode %v (%v), want 0700", di.Mode(), err)
	}
	if !strings.HasPrefix(filepath.Base(r.path), "t1-") || filepath.Ext(r.path) != ".cast" {
		t.Fatalf("file name %s, want t1-<time>.cast", r.path)
	}
}

// TestRecordFlushesWhileRunning: the writer writes within about
// flushEvery of the output, without waiting for close, and reports it.
func TestRecordFlushesWhileRunning(t *testing.T) {
	r := newTestRecorder(t)
	flushed := make(chan struct{}, 16)
	r.Start(func() { flushed <- struct{}{} })
	defer r.Close()
	start := time.Now()
	r.Output([]byte("tick\r\n"))
	select {
	case <-flushed:
	case <-time.After(5 * time.Second):
		t.Fatal("no write within 5 s")
	}
	if el := time.Since(start); el > time.Second {
		t.Errorf("first write after %v, want about %v", el, flushEvery)
	}
	if _, evs := readCast(t, r.path); castOutput(evs) != "tick\r\n" {
		t.Fatalf("file holds %+v before close", evs)
	}
	_, off, size, _ := r.State()
	fi, _ := os.Stat(r.path)
	if off != 6 || size != fi.Size() {
		t.Fatalf("state off %d size %d, want 6 and %d", off, size, fi.Size())
	}
}

// TestRecordSecrets: a secret never reaches the file, whether the far end
// echoes it in one piece, split at any byte, or it is typed as plain input
// later; a tail that might begin a secret waits for the rest.
func TestRecordSecrets(t *testing.T) {
	const secret = "hunter2-planted"
	const text = "password: " + secret + "\r\nok\r\n"
	for i := 0; i <= len(text); i++ {
		r := newTestRecorder(t)
		r.AddSecret(secret)
		r.Output([]byte(text[:i]))
		r.flush(false)
		r.Output([]byte(text[i:]))
		r.Input([]byte("echo " + secret + "\r"))
		r.Close()
		b, err := os.ReadFile(r.path)
		if err != nil {
			t.Fatal(err)
		}
		if bytes.Contains(b, []byte(secret)) || bytes.Contains(b, []byte("hunter2")) {
			t.Fatalf("split at %d: the secret is in the recording:\n%s", i, b)
		}
		_, evs := readCast(t, r.path)
		if got := castOutput(evs); got != "password: ********\r\nok\r\n" {
			t.Fatalf("split at %d: recorded %q", i, got)
		}
	}
	// A prefix at the end of the stream is written at close, as is.
	r := newTestRecorder(t)
	r.AddSecret(secret)
	r.Output([]byte("x hunter"))
	r.flush(false)
	if _, evs := readCast(t, r.path); castOutput(evs) != "x " {
		t.Fatalf("before close: %+v", evs)
	}
	r.Close()
	if _, evs := readCast(t, r.path); castOutput(evs) != "x hunter" {
		t.Fatalf("after close: %+v", evs)
	}
}

// TestRecordFullDisk: a write error (here /dev/full: ENOSPC) stops the
// recording with a note; later output is dropped at once and close does not
// hang.
func TestRecordFullDisk(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full on this system")
	}
	t.Run("header", func(t *testing.T) {
		o := Options{Path: "/dev/full"}
		o.Rows, o.Cols = 24, 80
		r, err := Create(o)
		if err != nil {
			t.Fatal(err)
		}
		r.Start(nil)
		r.Output([]byte("more"))
		r.Close()
		if _, _, _, note := r.State(); !strings.Contains(note, "no space left") || r.TakeNote() == "" || r.TakeNote() != "" {
			t.Fatalf("note %q, want one about the full disk, given once", note)
		}
	})
	t.Run("while running", func(t *testing.T) {
		r := newTestRecorder(t)
		good, _ := os.Stat(r.path)
		full, err := os.OpenFile("/dev/full", os.O_WRONLY, 0)
		if err != nil {
			t.Fatal(err)
		}
		regular := r.f
		r.f = full
		r.Output([]byte("lost"))
		r.flush(false)
		_, _, _, note := r.State()
		if !strings.Contains(note, "no space left") {
			t.Fatalf("note %q", note)
		}
		r.Output(bytes.Repeat([]byte("x"), 1<<20)) // dropped, not buffered
		r.mu.Lock()
		pending := len(r.buf)
		r.mu.Unlock()
		if pending != 0 {
			t.Fatalf("%d bytes buffered after the recording stopped", pending)
		}
		r.Close()
		_ = regular.Close()
		if fi, _ := os.Stat(r.path); fi.Size() != good.Size() {
			t.Fatalf("file changed after the failure: %d bytes, want %d", fi.Size(), good.Size())
		}
	})
}

// TestRecordNoDiskKeepingUp: output that piles up faster than the disk
// takes it stops the recording rather than block or grow without bound.
func TestRecordNoDiskKeepingUp(t *testing.T) {
	r := newTestRecorder(t) // the writer is not running: nothing drains
	chunk := bytes.Repeat([]byte("y"), 1<<20)
	for range maxPending>>20 + 2 {
		r.Output(chunk)
	}
	if _, _, _, note := r.State(); !strings.Contains(note, "did not keep up") {
		t.Fatalf("note %q", note)
	}
	r.Close()
}

// TestRecordResume is the restart case: the progress stored with the agent
// (offset and size) lags the file; the new Recorder cuts the file back to it,
// skips the replayed output before the offset, writes the rest once, and
// its times continue after the old ones.
func TestRecordResume(t *testing.T) {
	const before, after = "one\r\ntwo\r\n", "three\r\n"
	r := newTestRecorder(t)
	r.Output([]byte(before[:5]))
	r.flush(false)
	_, off, size, _ := r.State() // stored with the agent
	r.Output([]byte(before[5:]))
	r.Close() // written after the progress was stored
	_, old := readCast(t, r.path)

	// The replay starts at offset 2 (the agent's log lost the first bytes
	// for this test's sake): "e\r\ntwo\r\n" then new output.
	r2 := Resume(Options{Path: r.path}, off, size, 2)
	if _, _, _, note := r2.State(); note != "" {
		t.Fatalf("resume: %s", note)
	}
	r2.Start(nil)
	r2.Output([]byte(before[2:7]))
	r2.Output([]byte(before[7:]))
	r2.Output([]byte(after))
	r2.Close()
	_, evs := readCast(t, r.path)
	if got := castOutput(evs); got != before+after {
		t.Fatalf("resumed recording holds %q, want %q", got, before+after)
	}
	for i := 1; i < len(evs); i++ {
		if evs[i].At < evs[i-1].At {
			t.Fatalf("time goes back at event %d: %+v", i, evs)
		}
	}
	if last := evs[len(evs)-1].At; last < old[len(old)-1].At {
		t.Fatalf("resumed times start before the old ones")
	}

	// A file that is gone comes back as a stopped recording with a note.
	r3 := Resume(Options{Path: filepath.Join(t.TempDir(), "gone.cast")}, 0, 0, 0)
	if _, _, _, note := r3.State(); !strings.Contains(note, "not resumed") {
		t.Fatalf("note %q", note)
	}
	r3.Output([]byte("x"))
	r3.Close()
}

// TestRecordLocked: a second writer of the same recording (two servers
// attached to one kept session) is refused.
func TestRecordLocked(t *testing.T) {
	r := newTestRecorder(t)
	defer r.Close()
	_, off, size, _ := r.State()
	r2 := Resume(Options{Path: r.path}, off, size, 0)
	defer r2.Close()
	if _, _, _, note := r2.State(); !strings.Contains(note, "another ttymux server") {
		t.Fatalf("note %q", note)
	}
}

// TestRecordFileName: a remote session's id (host/s1) still names one
// file in the recordings directory, and a second recording of the same id in
// the same second gets a file of its own.
func TestRecordFileName(t *testing.T) {
	dir := t.TempDir()
	now := time.Now()
	var paths []string
	for range 2 {
		r, err := Create(Options{Dir: dir, ID: "router.lan/s3", Clock: func() time.Time { return now }})
		if err != nil {
			t.Fatal(err)
		}
		r.Close()
		paths = append(paths, r.path)
	}
	for _, p := range paths {
		if filepath.Dir(p) != dir || !strings.HasPrefix(filepath.Base(p), "router.lan_s3-") {
			t.Fatalf("recording at %s, want router.lan_s3-… in %s", p, dir)
		}
	}
	if paths[0] == paths[1] {
		t.Fatalf("two recordings share %s", paths[0])
	}
}

func TestRecordPathRefusesExistingFile(t *testing.T) {
	p := filepath.Join(t.TempDir(), "x.cast")
	if err := os.WriteFile(p, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Create(Options{Path: p})
	if err == nil || !strings.Contains(err.Error(), "new file name") {
		t.Fatalf("err = %v", err)
	}
	if b, _ := os.ReadFile(p); string(b) != "keep me" {
		t.Fatalf("existing file changed: %q", b)
	}
	_, err = Create(Options{Path: filepath.Join(t.TempDir(), "no", "dir.cast")})
	if err == nil || !strings.Contains(err.Error(), "existing directory") {
		t.Fatalf("err = %v", err)
	}
}

// BenchmarkRecordOutput measures what recording costs per byte of
// seq-like output, in 32 KiB chunks as the pump reads them: the copy the
// pump makes, plus the encoding and writing the writer goroutine does
// (here called in line every 8 chunks, about what a flood gives it).
func BenchmarkRecordOutput(b *testing.B) {
	o := Options{Dir: b.TempDir(), ID: "t1"}
	o.Rows, o.Cols = 24, 80
	r, err := Create(o)
	if err != nil {
		b.Fatal(err)
	}
	var chunk []byte
	for i := 1; len(chunk) < 32<<10; i++ {
		chunk = append(chunk, []byte(strings.Repeat("9", i%7+1)+"\r\n")...)
	}
	chunk = chunk[:32<<10]
	b.SetBytes(int64(len(chunk)))
	b.ReportAllocs()
	n := 0
	for b.Loop() {
		r.Output(chunk)
		if n++; n%8 == 0 {
			r.flush(false)
		}
	}
	b.StopTimer()
	r.Close()
	if _, _, _, note := r.State(); note != "" {
		b.Fatal(note)
	}
}
