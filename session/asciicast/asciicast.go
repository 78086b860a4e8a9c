// Package asciicast writes a session's recording as an asciicast v2 file
// (https://docs.asciinema.org/manual/asciicast/v2/), and resumes one an
// earlier server began for a session an agent kept.
//
// It owns the file: creating it (private, never overwriting), locking it
// against a second writer, encoding events (output, typed input, resizes),
// holding back split UTF-8 sequences and secrets, and cutting a resumed file
// back to the progress stored with the agent. It does not own what is
// recorded or when: the session feeds it and stores its State.
//
// Concurrency: a Recorder's methods are safe for concurrent use and never
// block on the disk (one writer goroutine does the writing), except Close,
// which waits a bounded time for the last write. A nil *Recorder records
// nothing.
package asciicast

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"
	"unicode/utf8"

	"github.com/ttymux/ttymux/internal/privdir"
)

// Recordings are asciicast v2 files
// (https://docs.asciinema.org/manual/asciicast/v2/): a JSON header line,
// then one JSON array per event, [seconds, code, data], where code is "o"
// (output), "i" (typed input), "r" (a resize to "COLSxROWS") or "m" (a
// marker: "a person typed" where a person's keys start).
//
// The session's pump hands every chunk of output to the Recorder, which only
// copies it into a buffer under its own lock; a writer goroutine encodes and
// writes that buffer at most flushEvery later (sooner when it grows past
// urgentBytes). The pump never waits for the disk. A write error (a full
// disk) stops the recording with a note; the session goes on.
const (
	flushEvery  = 100 * time.Millisecond
	urgentBytes = 256 << 10
	// maxPending bounds what waits for a slow disk; past it the recording
	// stops rather than hold the pump or grow without bound.
	maxPending = 16 << 20
	// minSecret is the shortest secret redacted, as in results (redact).
	minSecret = 3
	redacted  = "********"
)

// castHeader is the first line of an asciicast v2 file.
type castHeader struct {
	Version   int               `json:"version"`
	Width     int               `json:"width"`
	Height    int               `json:"height"`
	Timestamp int64             `json:"timestamp"`
	Env       map[string]string `json:"env,omitempty"`
	Title     string            `json:"title,omitempty"`
}

// recEvent is one event waiting to be written; its data, if any, is the
// next n bytes of the pending buffer.
type recEvent struct {
	at   time.Duration // since the header's timestamp
	kind byte          // 'o', 'i', 'r', 'm', or 'g' (output lost)
	off  int64         // output offset of the data ('o') or of the loss ('g')
	n    int           // bytes of data in the pending buffer
	lost int64         // bytes of output lost, for 'g'
}

// A Recorder writes one session's asciicast v2 recording. Its methods are
// safe for concurrent use and never block on the disk, except close, which
// waits for the last write (at most closeWait). A nil *Recorder records
// nothing.
type Recorder struct {
	path    string
	log     *slog.Logger
	now     func() time.Time
	onFlush func() // after each successful periodic write (to store progress); may be nil

	mu sync.Mutex // mu protects the following
	// Event times are base plus the monotonic time since start.
	start   time.Time
	base    time.Duration
	buf     []byte // data of the pending events
	evs     []recEvent
	fedOff  int64 // output offset of the next byte output receives
	skipTo  int64 // output before this offset is already in the file
	secrets [][]byte
	doneOff int64 // output offset the file holds everything before (but carry)
	size    int64 // bytes in the file
	stopped bool
	note    string // why the recording stopped
	shown   bool   // note was put in a result
	closed  bool
	running bool // the writer goroutine was started

	// The writer's own state: touched only by the writer goroutine, or by
	// close when no writer was started.
	f     *os.File
	carry []byte // output held back: an incomplete UTF-8 sequence, or a possible start of a secret
	out   []byte // encoded lines
	wbuf  []byte // swapped with buf
	wevs  []recEvent

	kick   chan struct{} // data is pending
	urgent chan struct{} // much data is pending
	done   chan struct{} // closed by close
	exited chan struct{} // closed by the writer goroutine when it ends
}

// Options describe a recording. The zero value of each field works, but a
// new recording needs Path or Dir.
type Options struct {
	// Path is the file to record to; empty means a new file in Dir named
	// after ID and the time.
	Path string
	Dir  string
	ID   string
	// Rows, Cols, Env and Title go into the header.
	Rows, Cols int
	Env        map[string]string
	Title      string
	Log        *slog.Logger // nil discards
	// Clock gives the time: the header's timestamp and each event's
	// (nil: time.Now). The session passes its own clock.
	Clock func() time.Time
	// FedOff is the output offset of the first byte Output will receive.
	FedOff int64
}

// Create creates the recording file and writes its header. An error
// means the file could not be created (nothing to record to); a failed
// header write returns a stopped Recorder whose note says why.
func Create(o Options) (*Recorder, error) {
	if o.Clock == nil {
		o.Clock = time.Now
	}
	start := o.Clock()
	f, path, err := createCast(o, start)
	if err != nil {
		return nil, err
	}
	if err := lockCast(f); err != nil {
		_ = f.Close() // refusing it
		return nil, fmt.Errorf("record_path %s: %w; give another file name", path, err)
	}
	r := newRecorderState(path, o)
	r.f, r.start = f, start
	r.fedOff, r.skipTo, r.doneOff = o.FedOff, o.FedOff, o.FedOff
	hdr, _ := json.Marshal(castHeader{ // plain fields: cannot fail
		Version: 2, Width: o.Cols, Height: o.Rows, Timestamp: r.start.Unix(),
		Env: o.Env, Title: o.Title,
	})
	hdr = append(hdr, '\n')
	if _, err := f.Write(hdr); err != nil {
		r.fail(err)
		return r, nil
	}
	r.size = int64(len(hdr))
	return r, nil
}

func newRecorderState(path string, o Options) *Recorder {
	log := o.Log
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	now := o.Clock
	if now == nil {
		now = time.Now
	}
	return &Recorder{
		path: path, log: log, now: now, start: now(),
		kick: make(chan struct{}, 1), urgent: make(chan struct{}, 1),
		done: make(chan struct{}), exited: make(chan struct{}),
	}
}

// createCast opens the file a new recording goes to, 0600: the given path,
// which must not be a non-empty regular file, or a new file named after the
// session and the time in dir (0700).
func createCast(o Options, now time.Time) (*os.File, string, error) {
	if o.Path != "" {
		path, err := filepath.Abs(o.Path)
		if err != nil {
			return nil, "", fmt.Errorf("record_path %q: %w", o.Path, err)
		}
		// O_NONBLOCK: opening a FIFO nobody reads fails instead of hanging.
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND|syscall.O_NONBLOCK, 0o600)
		if err != nil {
			return nil, "", fmt.Errorf("record_path: %w; give a writable file path in an existing directory", err)
		}
		if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > 0 {
			_ = f.Close() // refusing it
			return nil, "", fmt.Errorf("record_path %s already exists and is not empty; give a new file name (a recording is never appended to or overwritten)", path)
		}
		return f, path, nil
	}
	// Its parent (the state directory) must be private first: then nobody
	// else can have made or replaced o.Dir (issue #14).
	if err := privdir.EnsureNoWrite(filepath.Dir(o.Dir), "state directory"); err != nil {
		return nil, "", fmt.Errorf("recordings: %w", err)
	}
	if err := os.MkdirAll(o.Dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("create the recordings directory: %w", err)
	}
	if err := os.Chmod(o.Dir, 0o700); err != nil {
		return nil, "", fmt.Errorf("create the recordings directory: %w", err)
	}
	// A remote session's id is host/s1: keep file names flat and plain.
	id := strings.Map(func(r rune) rune {
		if r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' {
			return r
		}
		return '_'
	}, o.ID)
	base := id + "-" + now.UTC().Format("20060102T150405Z")
	for i := 1; ; i++ {
		name := base + ".cast"
		if i > 1 {
			name = base + "-" + strconv.Itoa(i) + ".cast"
		}
		path := filepath.Join(o.Dir, name)
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL|os.O_APPEND, 0o600)
		if errors.Is(err, os.ErrExist) && i < 100 {
			continue
		}
		if err != nil {
			return nil, "", fmt.Errorf("create the recording: %w", err)
		}
		return f, path, nil
	}
}

// Resume continues the recording at o.Path that an earlier server
// wrote for a kept session: the file is cut back to size (the length that
// held output up to off, as last stored with the agent; anything after it
// is written again from the replay), output before off is skipped, and
// event times continue from the header's timestamp. from is the output
// offset of the first byte the Recorder will receive. A recording that
// cannot be resumed comes back stopped, with a note.
func Resume(o Options, off, size, from int64) *Recorder {
	path := o.Path
	r := newRecorderState(path, o)
	r.fedOff, r.skipTo, r.doneOff = from, off, max(off, from)
	if off < from {
		r.log.Warn("output left the agent's log before it was recorded", "path", path, "bytes", from-off)
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_APPEND, 0)
	if err != nil {
		r.stop(fmt.Sprintf("recording not resumed after the restart: %v", err))
		return r
	}
	if err := lockCast(f); err != nil {
		_ = f.Close() // another server records it
		r.stop(fmt.Sprintf("recording not resumed here: %v", err))
		return r
	}
	hdrTime, last, fsize, err := castState(f)
	if err != nil {
		_ = f.Close() // giving up on it
		r.stop(fmt.Sprintf("recording not resumed after the restart: %s: %v", path, err))
		return r
	}
	switch {
	case size > 0 && fsize > size:
		// Written after the progress was stored (the server stopped or was
		// killed between the two): the replay writes it again.
		r.log.Info("recording cut back to the progress stored with the agent", "path", path, "bytes", fsize-size)
		if err := f.Truncate(size); err == nil {
			hdrTime, last, fsize, err = castState(f) // the last event's time changed
		}
		if err != nil {
			_ = f.Close() // giving up on it
			r.stop(fmt.Sprintf("recording not resumed after the restart: %s: %v", path, err))
			return r
		}
	case fsize < size:
		r.log.Warn("recording is shorter than recorded; appending", "path", path, "size", fsize, "want", size)
	}
	r.f, r.size = f, fsize
	r.base = max(last, r.now().Sub(hdrTime))
	r.log.Info("recording resumed", "path", path, "from", off, "size", fsize)
	return r
}

// lockCast takes an exclusive lock on a recording, held while the file is
// open, so two servers attached to one kept session never write the same
// file. Devices (record_path /dev/null) and files that cannot be locked
// (some network file systems) are used unlocked.
func lockCast(f *os.File) error {
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	if lerr := privdir.Flock(f, syscall.LOCK_EX|syscall.LOCK_NB); errors.Is(lerr, syscall.EWOULDBLOCK) {
		return errors.New("another ttymux server is writing this recording")
	}
	return nil
}

// castState reads a recording's header time, the time of its last event
// (looked for in the last 64 KiB) and its size.
func castState(f *os.File) (time.Time, time.Duration, int64, error) {
	fi, err := f.Stat()
	if err != nil {
		return time.Time{}, 0, 0, err
	}
	line, err := bufio.NewReader(io.NewSectionReader(f, 0, 64<<10)).ReadBytes('\n')
	if err != nil {
		return time.Time{}, 0, 0, errors.New("no asciicast header line")
	}
	var h castHeader
	if err := json.Unmarshal(line, &h); err != nil || h.Version != 2 {
		return time.Time{}, 0, 0, errors.New("not an asciicast v2 file")
	}
	size := fi.Size()
	from := max(int64(len(line)), size-64<<10)
	tail := make([]byte, size-from)
	if _, err := f.ReadAt(tail, from); err != nil && !errors.Is(err, io.EOF) {
		return time.Time{}, 0, 0, err
	}
	var last time.Duration
	lines := bytes.Split(tail, []byte("\n"))
	for i := len(lines) - 1; i >= 0; i-- {
		var ev []json.RawMessage
		if json.Unmarshal(lines[i], &ev) != nil || len(ev) < 1 {
			continue
		}
		var t float64
		if json.Unmarshal(ev[0], &t) == nil {
			last = time.Duration(t * float64(time.Second))
			break
		}
	}
	return time.Unix(h.Timestamp, 0), last, size, nil
}

// run is the writer goroutine: it writes pending events at most flushEvery
// after they arrive, at once when many are pending, and the rest at close.
func (r *Recorder) run() {
	defer close(r.exited)
	t := time.NewTimer(flushEvery)
	t.Stop()
	for {
		urgent := false
		select {
		case <-r.kick:
		case <-r.urgent:
			urgent = true
		case <-r.done:
			r.flush(true)
			r.closeFile()
			return
		}
		if !urgent {
			t.Reset(flushEvery)
			select {
			case <-t.C:
			case <-r.urgent:
				t.Stop()
			case <-r.done:
				t.Stop()
				r.flush(true)
				r.closeFile()
				return
			}
		}
		if r.flush(false) && r.onFlush != nil {
			r.onFlush()
		}
	}
}

// startWriter starts the writer goroutine; onFlush, if set, is called after each periodic
// write, so that a kept session can store how far the file goes.
func (r *Recorder) Start(onFlush func()) {
	if r == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.stopped || r.closed || r.running {
		return
	}
	r.onFlush, r.running = onFlush, true
	go r.run()
}

// nowLocked returns the time of an event happening now. r.mu must be held.
func (r *Recorder) nowLocked() time.Duration { return r.base + r.now().Sub(r.start) }

// output records a chunk of the session's output; p is copied.
func (r *Recorder) Output(p []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	off := r.fedOff
	r.fedOff += int64(len(p))
	if r.stopped || r.closed || r.fedOff <= r.skipTo {
		r.mu.Unlock()
		return
	}
	if off < r.skipTo {
		p, off = p[r.skipTo-off:], r.skipTo
	}
	r.appendLocked(recEvent{kind: 'o', off: off}, p)
}

// skip records that n bytes of output were lost before this server got
// them: the recording goes on after them.
func (r *Recorder) Skip(n int64) {
	if r == nil {
		return
	}
	r.mu.Lock()
	off := r.fedOff
	r.fedOff += n
	if r.stopped || r.closed || r.fedOff <= r.skipTo {
		r.mu.Unlock()
		return
	}
	off = max(off, r.skipTo)
	r.log.Warn("output lost before it was recorded", "path", r.path, "bytes", r.fedOff-off)
	r.appendLocked(recEvent{kind: 'g', off: off, lost: r.fedOff - off}, nil)
}

// input records what was typed (never call it with a secret).
func (r *Recorder) Input(p []byte) {
	if len(p) > 0 {
		r.event('i', p)
	}
}

// Marker records a marker event ("m", asciicast v2): label says what
// happened there (players list markers as chapters).
func (r *Recorder) Marker(label string) { r.event('m', []byte(label)) }

// resize records a new window size.
func (r *Recorder) Resize(rows, cols int) {
	var b [24]byte
	s := strconv.AppendInt(b[:0], int64(cols), 10)
	s = append(s, 'x')
	s = strconv.AppendInt(s, int64(rows), 10)
	r.event('r', s)
}

// event records an event of kind with data (copied), unless the
// recording stopped or closed.
func (r *Recorder) event(kind byte, data []byte) {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.stopped || r.closed {
		r.mu.Unlock()
		return
	}
	r.appendLocked(recEvent{kind: kind}, data)
}

// appendLocked queues an event and wakes the writer; it unlocks r.mu.
func (r *Recorder) appendLocked(ev recEvent, data []byte) {
	ev.at, ev.n = r.nowLocked(), len(data)
	wake := len(r.evs) == 0
	r.buf = append(r.buf, data...)
	r.evs = append(r.evs, ev)
	pending := len(r.buf)
	if pending > maxPending {
		r.buf, r.evs = nil, nil
		r.mu.Unlock()
		r.stop(fmt.Sprintf("recording stopped: writing %s did not keep up with the output; the session goes on unrecorded", r.path))
		return
	}
	r.mu.Unlock()
	if wake {
		select {
		case r.kick <- struct{}{}:
		default:
		}
	}
	if pending >= urgentBytes {
		select {
		case r.urgent <- struct{}{}:
		default:
		}
	}
}

// addSecret makes every later write replace secret with ********.
func (r *Recorder) AddSecret(secret string) {
	if r == nil || len(secret) < minSecret {
		return
	}
	r.mu.Lock()
	r.secrets = append(r.secrets, []byte(secret))
	r.mu.Unlock()
}

// flush encodes and writes the pending events; final also writes the
// output held back. It reports whether it wrote anything.
func (r *Recorder) flush(final bool) bool {
	r.mu.Lock()
	if r.stopped || r.f == nil {
		r.mu.Unlock()
		return false
	}
	r.buf, r.wbuf = r.wbuf[:0], r.buf
	r.evs, r.wevs = r.wevs[:0], r.evs
	// Appends never touch the elements this copy of the slice sees.
	secrets := r.secrets
	last := r.nowLocked()
	done := r.doneOff
	r.mu.Unlock()

	out := r.out[:0]
	data := r.wbuf
	for _, ev := range r.wevs {
		switch ev.kind {
		case 'o':
			p := data[:ev.n]
			if len(r.carry) > 0 {
				p = append(r.carry, p...)
			}
			cut := recordCut(p, secrets)
			if cut > 0 {
				out = appendEvent(out, ev.at, 'o', redactBytes(p[:cut], secrets))
			}
			r.carry = append(r.carry[:0], p[cut:]...)
			done = ev.off + int64(ev.n) - int64(len(r.carry))
		case 'g':
			if len(r.carry) > 0 {
				out = appendEvent(out, ev.at, 'o', redactBytes(r.carry, secrets))
				r.carry = r.carry[:0]
			}
			done = ev.off + ev.lost
		case 'i':
			out = appendEvent(out, ev.at, 'i', redactBytes(data[:ev.n], secrets))
		case 'r', 'm':
			out = appendEvent(out, ev.at, ev.kind, data[:ev.n])
		}
		data = data[ev.n:]
	}
	if final && len(r.carry) > 0 {
		out = appendEvent(out, last, 'o', redactBytes(r.carry, secrets))
		done += int64(len(r.carry))
		r.carry = r.carry[:0]
	}
	// Keep buffers for reuse, unless a burst made them large.
	r.out, r.wbuf, r.wevs = keep(out), keep(r.wbuf), r.wevs[:0]
	if len(out) == 0 {
		return false
	}
	n, err := r.f.Write(out)
	if err != nil {
		r.fail(err) // cuts the file back to r.size, before this write
		return false
	}
	r.mu.Lock()
	r.size += int64(n)
	r.doneOff = done
	r.mu.Unlock()
	return true
}

func keep(b []byte) []byte {
	if cap(b) > 1<<20 {
		return nil
	}
	return b[:0]
}

// fail stops the recording after a write error, cutting a partly written
// line so the file still plays.
func (r *Recorder) fail(err error) {
	r.mu.Lock()
	good := r.size
	r.mu.Unlock()
	if fi, serr := r.f.Stat(); serr == nil && fi.Mode().IsRegular() && fi.Size() > good {
		_ = r.f.Truncate(good) // best effort: a full disk still allows shrinking
	}
	r.stop(fmt.Sprintf("recording stopped: %v; the session goes on unrecorded (the file holds what came before)", err))
}

// Stopped is a recording an earlier server stopped: it records
// nothing and keeps the path and the note for list.
func Stopped(path, note string) *Recorder {
	r := newRecorderState(path, Options{})
	r.stopped, r.note, r.shown = true, note, true
	return r
}

// stop ends the recording with a note; the session goes on.
func (r *Recorder) stop(note string) {
	r.mu.Lock()
	if r.stopped {
		r.mu.Unlock()
		return
	}
	r.stopped, r.note, r.buf, r.evs = true, note, nil, nil
	r.mu.Unlock()
	r.log.Warn("recording stopped", "path", r.path, "note", note)
}

// close writes what is pending and closes the file. It is idempotent, and
// returns within closeWait even when the disk does not answer.
func (r *Recorder) Close() {
	if r == nil {
		return
	}
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return
	}
	r.closed = true
	running := r.running
	r.mu.Unlock()
	if !running {
		r.flush(true)
		r.closeFile()
		return
	}
	close(r.done)
	select {
	case <-r.exited:
	case <-time.After(closeWait):
		// A disk that does not answer (a hung network mount) must not
		// hold up the session's teardown: the writer closes the file
		// once its write returns, and nothing else waits for it.
		r.log.Warn("recording writer is blocked on the disk; leaving it to finish", "path", r.path)
	}
}

// closeWait bounds how long close waits for the last write.
const closeWait = 5 * time.Second

// closeFile closes the recording's file; called once, by whoever wrote last.
func (r *Recorder) closeFile() {
	if r.f == nil {
		return
	}
	if err := r.f.Close(); err != nil {
		r.log.Warn("close the recording", "path", r.path, "err", err)
	}
}

// state returns the recording's path, how far it goes (the output offset
// and the file size that holds everything before it) and why it stopped.
func (r *Recorder) State() (path string, off, size int64, note string) {
	if r == nil {
		return "", 0, 0, ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.path, r.doneOff, r.size, r.note
}

// takeNote returns the note of a stopped recording the first time it is
// asked, so a result can tell the model once.
func (r *Recorder) TakeNote() string {
	if r == nil {
		return ""
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.note == "" || r.shown {
		return ""
	}
	r.shown = true
	return r.note
}

// recordCut returns how much of p can be written now: the rest is an
// incomplete UTF-8 sequence at the end, or a tail that may be the start of
// a secret, and waits for more output. Every whole secret in p lies before
// the cut.
func recordCut(p []byte, secrets [][]byte) int {
	floor := 0
	for _, sec := range secrets {
		if i := bytes.LastIndex(p, sec); i >= 0 {
			floor = max(floor, i+len(sec))
		}
	}
	cut := len(p)
	for i := len(p) - 1; i >= max(floor, len(p)-utf8.UTFMax+1); i-- {
		if utf8.RuneStart(p[i]) {
			if !utf8.FullRune(p[i:]) {
				cut = i
			}
			break
		}
	}
	for _, sec := range secrets {
		for i := max(floor, len(p)-len(sec)+1); i < cut; i++ {
			if p[i] == sec[0] && bytes.HasPrefix(sec, p[i:]) {
				cut = i
				break
			}
		}
	}
	return cut
}

// redactBytes replaces every secret in p with ********. p is not modified
// when it holds none.
func redactBytes(p []byte, secrets [][]byte) []byte {
	for _, sec := range secrets {
		if bytes.Contains(p, sec) {
			p = bytes.ReplaceAll(p, sec, []byte(redacted))
		}
	}
	return p
}

// appendEvent appends one event line, [seconds, "code", "data"].
func appendEvent(dst []byte, at time.Duration, kind byte, data []byte) []byte {
	dst = append(dst, '[')
	dst = strconv.AppendFloat(dst, max(at, 0).Seconds(), 'f', 6, 64)
	dst = append(dst, ", \""...)
	dst = append(dst, kind)
	dst = append(dst, "\", "...)
	dst = appendJSONString(dst, data)
	return append(dst, "]\n"...)
}

// jsonPlain marks the bytes a JSON string holds as they are.
var jsonPlain = func() (t [256]bool) {
	for c := 0x20; c < 0x7f; c++ {
		t[c] = c != '"' && c != '\\'
	}
	return t
}()

// appendJSONString appends p as a JSON string. Invalid UTF-8 becomes
// U+FFFD, so the line is always valid JSON and valid UTF-8.
func appendJSONString(dst, p []byte) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0 // p[start:i] is waiting to be copied as is
	for i := 0; i < len(p); {
		c := p[i]
		if jsonPlain[c] {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, size := utf8.DecodeRune(p[i:])
			if r != utf8.RuneError && r != '\u2028' && r != '\u2029' {
				i += size
				continue
			}
			dst = append(dst, p[start:i]...)
			switch r {
			case utf8.RuneError:
				// Both an invalid byte and a literal U+FFFD.
				dst = append(dst, `\ufffd`...)
			case '\u2028':
				dst = append(dst, `\u2028`...)
			default:
				dst = append(dst, `\u2029`...)
			}
			i += size
			start = i
			continue
		}
		dst = append(dst, p[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, p[start:]...)
	return append(dst, '"')
}
