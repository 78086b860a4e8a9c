// Package audit writes and reads ttymux's audit log: one JSON object per
// line (JSON Lines) for every event a human may want to account for later:
// sessions opened and closed, command lines sent and what was decided about
// them, approvals asked and answered.
//
// The log lives in $XDG_STATE_HOME/ttymux/audit.jsonl (~/.local/state when
// unset), mode 0600 in a 0700 directory, and is rotated by size: the
// current file and four older ones (audit.jsonl.1 … .4) of at most 10 MiB
// each are kept. It never holds a secret: callers pass secret text as
// Redacted.
//
// Each record carries the sha256 of the line before it (Prev): the first
// record of a log is anchored to Anchor, and the first record of a file
// made by rotation is a KindRotated event chained to the last line of the file
// before. Verify walks the chain and names the first line that does not
// fit: a line removed, edited or forged (written by anything but a Log).
// Several servers may append to one log: each write takes an exclusive
// flock and chains to the line actually last in the file.
//
// A *Log is safe for concurrent use; a nil *Log discards events.
package audit

import (
	"bufio"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/privdir"

	"github.com/ttymux/ttymux/internal/visible"
)

// Redacted stands for secret text.
const Redacted = "********"

// A Decision is what became of what an event records.
type Decision string

// Decisions.
const (
	Ran              Decision = "ran"                // typed: nothing held it
	Held             Decision = "held"               // held, not (yet) approved
	ApprovedByHuman  Decision = "approved_by_human"  // held, and the human accepted
	GrantedByHuman   Decision = "granted_by_human"   // held, and a grant the human gave earlier covers it
	DeclinedByHuman  Decision = "declined_by_human"  // held, and the human declined, cancelled or did not answer
	ConfirmedByModel Decision = "confirmed_by_model" // held, and the model's confirm: true ran it (no elicitation)
	DeniedByPolicy   Decision = "denied_by_policy"   // refused outright
	Typed            Decision = "typed"              // a secret from the human was typed
	Failed           Decision = "failed"             // the call failed for another reason
)

// A Kind is what an event is about.
type Kind string

// Kinds.
const (
	KindOpen             Kind = "open"
	KindSend             Kind = "send"
	KindClose            Kind = "close"
	KindUpload           Kind = "upload"
	KindDownload         Kind = "download"
	KindFanout           Kind = "fanout"
	KindForward          Kind = "forward"       // a port forward opened (forward tool)
	KindForwardClose     Kind = "forward_close" // and closed, with what it carried
	KindApprovalAsked    Kind = "approval_asked"
	KindApprovalAnswered Kind = "approval_answered"
	KindSecretAsked      Kind = "secret_asked"
	KindSecretAnswered   Kind = "secret_answered"
	KindRotated          Kind = "rotated" // the first record of a file made by rotation
)

// A Via is where the human was asked (an approval or a secret).
type Via string

// Ways of asking the human.
const (
	ViaElicitation Via = "elicitation" // the MCP client's form or URL
	ViaConsole     Via = "console"     // the console the human started (ttymux web)
)

// Anchor is the Prev of a log's first record.
const Anchor = "0000000000000000000000000000000000000000000000000000000000000000"

// An Event is one line of the log.
type Event struct {
	Time       time.Time `json:"time"`
	Event      Kind      `json:"event"`
	Session    string    `json:"session,omitempty"`
	Host       string    `json:"host,omitempty"`
	Command    string    `json:"command,omitempty"`
	LocalPath  string    `json:"local_path,omitempty"` // a transfer's file on this machine
	Decision   Decision  `json:"decision,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	Via        Via       `json:"via,omitempty"` // where the human was asked
	ExitCode   *int      `json:"exit_code,omitempty"`
	DurationMS int64     `json:"duration_ms,omitempty"`
	// Seq numbers the records from 1; Prev is the sha256 (hex) of the
	// line before this one, or Anchor for the first.
	Seq  int64  `json:"seq,omitempty"`
	Prev string `json:"prev,omitempty"`
}

// Hash is the chain hash of one stored line (without its newline).
func Hash(line []byte) string {
	h := sha256.Sum256(line)
	return hex.EncodeToString(h[:])
}

// Rotation limits.
const (
	MaxSize = 10 << 20 // bytes per file
	Keep    = 5        // files kept, the current one included
)

// A Log appends events to a file.
type Log struct {
	path    string
	maxSize int64
	now     func() time.Time

	mu   sync.Mutex // mu protects the following
	lock *os.File   // path+".lock": the flock every writer takes first
	f    *os.File
	size int64  // the size of f after this Log's last write
	prev string // the hash of f's last line as of size
	seq  int64  // that line's Seq
}

// DefaultPath is $XDG_STATE_HOME/ttymux/audit.jsonl.
func DefaultPath() string {
	d := os.Getenv("XDG_STATE_HOME")
	if d == "" || !filepath.IsAbs(d) {
		h, err := os.UserHomeDir()
		if err != nil {
			return ""
		}
		d = filepath.Join(h, ".local", "state")
	}
	return filepath.Join(d, "ttymux", "audit.jsonl")
}

// Open opens (creating) the log at path.
func Open(path string) (*Log, error) {
	return open(path, MaxSize)
}

func open(path string, maxSize int64) (*Log, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("audit log directory: %w", err)
	}
	l := &Log{path: path, maxSize: maxSize, now: time.Now}
	lock, err := os.OpenFile(path+".lock", os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open audit log's lock: %w", err)
	}
	l.lock = lock
	if err := l.openFile(); err != nil {
		_ = lock.Close() // the open error says why
		return nil, err
	}
	return l, nil
}

func (l *Log) openFile() error {
	f, err := os.OpenFile(l.path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return fmt.Errorf("open audit log: %w", err)
	}
	_ = f.Chmod(0o600) // an older file made with a wider umask
	st, err := f.Stat()
	if err != nil {
		_ = f.Close() // the stat error says why
		return fmt.Errorf("open audit log: %w", err)
	}
	l.f, l.size = f, st.Size()
	l.prev, l.seq, err = lastRecord(l.path)
	if err != nil {
		_ = f.Close() // the read error says why
		l.f = nil
		return fmt.Errorf("open audit log: %w", err)
	}
	return nil
}

// lastRecord is the hash and Seq of the log's last line: in the current
// file, else in the newest rotated one, else Anchor and 0. A last line that
// is not a record (a log from before the chain, or damage) counts as Seq 0.
func lastRecord(path string) (string, int64, error) {
	for _, p := range []string{path, path + ".1"} {
		line, err := lastLine(p)
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return "", 0, err
		}
		if line != nil {
			var r struct {
				Seq int64 `json:"seq"`
			}
			_ = json.Unmarshal(line, &r) // not a record: Seq 0
			return Hash(line), r.Seq, nil
		}
	}
	return Anchor, 0, nil
}

// lastLine reads the last complete line of the file at p (nil when empty),
// from its end.
func lastLine(p string) ([]byte, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	defer f.Close() // read only
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	end := st.Size()
	var tail []byte
	// A record is a few hundred bytes: read 4 KiB first, then 64 KiB at a
	// time. Every record a server writes after another server's reads
	// this, and a 64 KiB buffer each time was most of the record's cost.
	chunk := int64(4 << 10)
	for off := end; off > 0; chunk = 64 << 10 {
		n := min(chunk, off)
		off -= n
		buf := make([]byte, n)
		if _, err := f.ReadAt(buf, off); err != nil {
			return nil, err
		}
		tail = append(buf, tail...)
		t := tail
		if len(t) > 0 && t[len(t)-1] == '\n' {
			t = t[:len(t)-1]
		}
		if i := lastIndexByte(t, '\n'); i >= 0 || off == 0 {
			if len(t) == 0 {
				return nil, nil
			}
			return t[i+1:], nil
		}
		if len(tail) > 16<<20 {
			return nil, errors.New("the last line is over 16 MiB")
		}
	}
	return nil, nil
}

func lastIndexByte(b []byte, c byte) int {
	for i := len(b) - 1; i >= 0; i-- {
		if b[i] == c {
			return i
		}
	}
	return -1
}

// Path is where the log is written.
func (l *Log) Path() string {
	if l == nil {
		return ""
	}
	return l.path
}

// Write appends e, stamping its time when unset.
func (l *Log) Write(e Event) error {
	if l == nil {
		return nil
	}
	if e.Time.IsZero() {
		e.Time = l.now()
	}
	e.Time = e.Time.UTC()
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit log is closed")
	}
	// Another server may share the log: hold the file while chaining to
	// its real last line, and follow it to a file it rotated.
	unlock, err := l.lockShared()
	if err != nil {
		return err
	}
	defer unlock()
	// Every Prev has Anchor's length: this is about the record's size.
	e.Prev, e.Seq = Anchor, l.seq+1
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if l.size > 0 && l.size+int64(len(b))+1 > l.maxSize {
		if err := l.rotate(); err != nil {
			return err
		}
		if err := l.append(Event{Time: e.Time, Event: KindRotated}); err != nil {
			return err
		}
	}
	return l.append(e)
}

// append writes e chained to the last line; l.mu and the flock are held.
func (l *Log) append(e Event) error {
	e.Prev, e.Seq = l.prev, l.seq+1
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	n, err := l.f.Write(append(b, '\n'))
	l.size += int64(n)
	l.prev, l.seq = Hash(b), e.Seq
	return err
}

// lockShared takes the log's locks and, when another writer changed the
// file since this Log's last write (it appended, or rotated it away),
// catches up with it. l.mu is held.
//
// The lock file (path+".lock") is never rotated, so writers queue on it
// however often the log is replaced: locking the log file alone let one
// writer starve, finding the file it had waited for rotated away each time
// (TestVerifyIntact/two_writers). The log file's own flock is taken too, for
// writers of older versions that lock only it.
func (l *Log) lockShared() (unlock func(), err error) {
	if l.lock == nil {
		return nil, errors.New("audit log: closed")
	}
	if err := privdir.Flock(l.lock, unix.LOCK_EX); err != nil {
		return nil, fmt.Errorf("lock audit log: %w", err)
	}
	unlockFile, err := l.lockFile()
	if err != nil {
		_ = privdir.Flock(l.lock, unix.LOCK_UN)
		return nil, err
	}
	return func() {
		unlockFile()
		_ = privdir.Flock(l.lock, unix.LOCK_UN)
	}, nil
}

// lockFile takes the log file's flock, following it when it was rotated.
func (l *Log) lockFile() (unlock func(), err error) {
	for range 3 {
		if err := privdir.Flock(l.f, unix.LOCK_EX); err != nil {
			return nil, fmt.Errorf("lock audit log: %w", err)
		}
		fst, err1 := l.f.Stat()
		pst, err2 := os.Stat(l.path)
		if err1 == nil && err2 == nil && os.SameFile(fst, pst) {
			if fst.Size() != l.size {
				if l.prev, l.seq, err = lastRecord(l.path); err != nil {
					_ = privdir.Flock(l.f, unix.LOCK_UN)
					return nil, fmt.Errorf("audit log: %w", err)
				}
				l.size = fst.Size()
			}
			// l.mu is held until the unlock: l.f is then the file locked
			// last (rotate may have replaced it).
			return func() {
				if l.f != nil {
					_ = privdir.Flock(l.f, unix.LOCK_UN)
				}
			}, nil
		}
		// Rotated (or removed) by another writer: write to the new file.
		_ = privdir.Flock(l.f, unix.LOCK_UN)
		_ = l.f.Close() // reopened at once
		l.f = nil
		if err := l.openFile(); err != nil {
			return nil, err
		}
	}
	return nil, errors.New("audit log: the file keeps being replaced")
}

// rotate moves audit.jsonl to .1, .1 to .2 … and drops the oldest; the
// chain goes on from the last line written (l.prev). The caller holds the
// old file's flock, which closing it releases.
//
// The new file is made and locked under a temporary name first, then
// renamed over the path: the path always names a file, and the file it
// names is locked until this writer has chained to it. (Renaming the old
// file away first let another server create the path anew in between and
// write to it first, chained to the wrong line.)
func (l *Log) rotate() error {
	prev, seq, old := l.prev, l.seq, l.f
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	tmp := fmt.Sprintf("%s.new-%x", l.path, rnd)
	f, err := os.OpenFile(tmp, os.O_WRONLY|os.O_APPEND|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	if err := privdir.Flock(f, unix.LOCK_EX); err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("rotate audit log: %w", err)
	}
	_ = os.Remove(fmt.Sprintf("%s.%d", l.path, Keep-1)) // may not exist
	for i := Keep - 2; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", l.path, i), fmt.Sprintf("%s.%d", l.path, i+1)) // may not exist
	}
	err = os.Link(l.path, l.path+".1")
	if err == nil {
		err = os.Rename(tmp, l.path)
	}
	if err != nil {
		_ = f.Close()
		_ = os.Remove(tmp)
		return fmt.Errorf("rotate audit log: %w", err)
	}
	_ = old.Close() // releases its lock; written already
	l.f, l.size = f, 0
	l.prev, l.seq = prev, seq
	return nil
}

// Close closes the file; later writes fail.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.lock != nil {
		_ = l.lock.Close() // holds no data
		l.lock = nil
	}
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}

// Files returns the log's files that exist, oldest first.
func Files(path string) []string {
	var out []string
	for i := Keep - 1; i >= 1; i-- {
		p := fmt.Sprintf("%s.%d", path, i)
		if _, err := os.Stat(p); err == nil {
			out = append(out, p)
		}
	}
	if _, err := os.Stat(path); err == nil {
		out = append(out, path)
	}
	return out
}

// ReadAll calls fn for every event in the log's files, oldest first. A
// line that is not an event is passed with ok false.
func ReadAll(path string, fn func(e Event, line []byte, ok bool)) error {
	for _, p := range Files(path) {
		f, err := os.Open(p)
		if err != nil {
			return err
		}
		err = scan(f, fn)
		_ = f.Close() // read only
		if err != nil {
			return err
		}
	}
	return nil
}

func scan(r io.Reader, fn func(Event, []byte, bool)) error {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 4<<20)
	for sc.Scan() {
		var e Event
		err := json.Unmarshal(sc.Bytes(), &e)
		fn(e, sc.Bytes(), err == nil)
	}
	return sc.Err()
}

// Format is the one-line human form of e. Text a model may have written
// (the command, the session, the host, the reason) has its control
// characters and newlines made visible (internal/visible), so a record
// can neither drive the reader's terminal nor pass for two records.
func Format(e Event) string {
	s := e.Time.Local().Format("2006-01-02 15:04:05") + " " + visible.String(string(e.Event))
	if e.Session != "" {
		s += " " + visible.String(e.Session)
	}
	if e.Host != "" {
		s += " @" + visible.String(e.Host)
	}
	if e.Command != "" {
		s += " \"" + visible.String(e.Command) + "\""
	}
	if e.LocalPath != "" {
		s += " -> " + visible.String(e.LocalPath)
	}
	if e.Decision != "" {
		s += " " + visible.String(string(e.Decision))
	}
	if e.ExitCode != nil {
		s += fmt.Sprintf(" exit %d", *e.ExitCode)
	}
	if e.DurationMS > 0 {
		s += fmt.Sprintf(" %dms", e.DurationMS)
	}
	if e.Via != "" {
		s += " via " + visible.String(string(e.Via))
	}
	if e.Reason != "" {
		s += " (" + visible.String(e.Reason) + ")"
	}
	return s
}
