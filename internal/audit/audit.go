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
// A *Log is safe for concurrent use; a nil *Log discards events.
package audit

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"
)

// Redacted stands for secret text.
const Redacted = "********"

// Decisions.
const (
	Ran              = "ran"                // typed: nothing held it
	Held             = "held"               // held, not (yet) approved
	ApprovedByHuman  = "approved_by_human"  // held, and the human accepted
	DeclinedByHuman  = "declined_by_human"  // held, and the human declined, cancelled or did not answer
	ConfirmedByModel = "confirmed_by_model" // held, and the model's confirm: true ran it (no elicitation)
	DeniedByPolicy   = "denied_by_policy"   // refused outright
	Failed           = "failed"             // the call failed for another reason
)

// An Event is one line of the log.
type Event struct {
	Time       time.Time `json:"time"`
	Event      string    `json:"event"` // open, send, approval_asked, approval_answered, secret_asked, secret_answered, close
	Session    string    `json:"session,omitempty"`
	Host       string    `json:"host,omitempty"`
	Command    string    `json:"command,omitempty"`
	Decision   string    `json:"decision,omitempty"`
	Reason     string    `json:"reason,omitempty"`
	ExitCode   *int      `json:"exit_code,omitempty"`
	DurationMS int64     `json:"duration_ms,omitempty"`
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
	f    *os.File
	size int64
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
	if err := l.openFile(); err != nil {
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
	return nil
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
	b, err := json.Marshal(e)
	if err != nil {
		return err
	}
	b = append(b, '\n')
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return errors.New("audit log is closed")
	}
	if l.size > 0 && l.size+int64(len(b)) > l.maxSize {
		if err := l.rotate(); err != nil {
			return err
		}
	}
	n, err := l.f.Write(b)
	l.size += int64(n)
	return err
}

// rotate moves audit.jsonl to .1, .1 to .2 … and drops the oldest.
func (l *Log) rotate() error {
	_ = l.f.Close() // reopened below; a write error would show there
	l.f = nil
	_ = os.Remove(fmt.Sprintf("%s.%d", l.path, Keep-1)) // may not exist
	for i := Keep - 2; i >= 1; i-- {
		_ = os.Rename(fmt.Sprintf("%s.%d", l.path, i), fmt.Sprintf("%s.%d", l.path, i+1)) // may not exist
	}
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("rotate audit log: %w", err)
	}
	return l.openFile()
}

// Close closes the file; later writes fail.
func (l *Log) Close() error {
	if l == nil {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
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

// Format is the one-line human form of e.
func Format(e Event) string {
	s := e.Time.Local().Format("2006-01-02 15:04:05") + " " + e.Event
	if e.Session != "" {
		s += " " + e.Session
	}
	if e.Host != "" {
		s += " @" + e.Host
	}
	if e.Command != "" {
		s += fmt.Sprintf(" %q", e.Command)
	}
	if e.Decision != "" {
		s += " " + e.Decision
	}
	if e.ExitCode != nil {
		s += fmt.Sprintf(" exit %d", *e.ExitCode)
	}
	if e.DurationMS > 0 {
		s += fmt.Sprintf(" %dms", e.DurationMS)
	}
	if e.Reason != "" {
		s += " (" + e.Reason + ")"
	}
	return s
}
