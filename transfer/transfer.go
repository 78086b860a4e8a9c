package transfer

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"strings"
	"sync"
	"time"
)

// Result describes a finished transfer.
type Result struct {
	// Path is the far end's path (absolute when the way could tell).
	Path string
	// Bytes is the file's size.
	Bytes int64
	// SHA256 is the hex digest both ends agreed on.
	SHA256 string
	// Via names the way: local, sftp, scp, cat, inband, xmodem or ymodem.
	Via string
	// Note says what a caller should know: a fallback, a kept attribute
	// that could not be kept.
	Note string
}

// Options adjust a transfer. The zero value works.
type Options struct {
	// Overwrite allows replacing an existing destination.
	Overwrite bool
	// Mode is the destination's permission bits; zero keeps the source's
	// (0644 for content that has none).
	Mode fs.FileMode
	// Progress, when not nil, is called as bytes move (at most about ten
	// times a second, and once at the end); total is -1 when unknown.
	Progress func(done, total int64)
}

// Source is what an upload reads.
type Source struct {
	R    io.Reader
	Size int64 // exact size in bytes
	// Mode and ModTime are the source file's, when it has them; ModTime is
	// kept on the destination when set.
	Mode    fs.FileMode
	ModTime time.Time
}

// Errors that callers check with errors.Is; the messages carry the path.
var (
	// ErrExists: the destination exists and Options.Overwrite is false.
	ErrExists = errors.New("destination exists")
	// ErrChecksum: the sha256 of the two ends differ; nothing was kept.
	ErrChecksum = errors.New("sha256 of the two ends differ")
	// ErrTooLarge: a memory sink's limit was exceeded.
	ErrTooLarge = errors.New("file too large")
	// ErrIsDir: a directory where a file was expected.
	ErrIsDir = errors.New("is a directory")
)

// PathError is a transfer error about one path on one side ("local" or the
// way's far end), with a message that says what to do.
type PathError struct {
	Side string // "local" or "remote"
	Op   string // "open", "create", "write", "rename", …
	Path string
	Err  error
}

func (e *PathError) Error() string {
	what := ""
	switch {
	case errors.Is(e.Err, fs.ErrNotExist):
		what = "no such file or directory"
	case errors.Is(e.Err, fs.ErrPermission):
		what = "permission denied"
	case errors.Is(e.Err, ErrExists):
		what = "already exists; pass overwrite: true to replace it"
	case errors.Is(e.Err, ErrIsDir):
		what = "is a directory; give a file path"
	case isNoSpace(e.Err):
		what = "no space left on device (disk full or over quota); free space there and retry"
	default:
		what = e.Err.Error()
	}
	if e.Side == "local" {
		return fmt.Sprintf("%s local file %s: %s", e.Op, e.Path, what)
	}
	return fmt.Sprintf("%s %s: %s", e.Op, e.Path, what)
}

func (e *PathError) Unwrap() error { return e.Err }

// isNoSpace recognises a full disk on either side: ENOSPC/EDQUOT locally,
// or the far end's message (OpenSSH's sftp-server reports it as a generic
// failure whose text names it).
func isNoSpace(err error) bool {
	if err == nil {
		return false
	}
	if errNoSpace(err) {
		return true
	}
	s := strings.ToLower(err.Error())
	return strings.Contains(s, "no space left") || strings.Contains(s, "quota exceeded") || strings.Contains(s, "disk quota")
}

// hexSum returns the hex digest of h.
func hexSum(h hash.Hash) string { return hex.EncodeToString(h.Sum(nil)) }

// SumBytes returns the hex sha256 of b.
func SumBytes(b []byte) string {
	s := sha256.Sum256(b)
	return hex.EncodeToString(s[:])
}

// tempName returns the temporary name a write to p goes to: hidden, beside
// it, so the final rename stays within one directory (and file system).
func tempName(p string, join func(...string) string, split func(string) (string, string)) string {
	dir, base := split(p)
	var b [6]byte
	_, _ = rand.Read(b[:]) // never fails (Go 1.24+)
	return join(dir, "."+base+".ttymux-"+hex.EncodeToString(b[:])+".part")
}

// progress calls fn as bytes pass, at most every 100 ms, and once more from
// done.
type progress struct {
	fn    func(done, total int64)
	total int64

	mu   sync.Mutex
	n    int64
	last time.Time
}

func newProgress(fn func(done, total int64), total int64) *progress {
	return &progress{fn: fn, total: total}
}

func (p *progress) Write(b []byte) (int, error) {
	if p == nil || p.fn == nil {
		return len(b), nil
	}
	p.mu.Lock()
	p.n += int64(len(b))
	now := time.Now()
	call := now.Sub(p.last) >= 100*time.Millisecond
	if call {
		p.last = now
	}
	n := p.n
	p.mu.Unlock()
	if call {
		p.fn(n, p.total)
	}
	return len(b), nil
}

func (p *progress) done() {
	if p == nil || p.fn == nil {
		return
	}
	p.mu.Lock()
	n := p.n
	p.mu.Unlock()
	p.fn(n, p.total)
}

// shq quotes s for a POSIX shell.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// ShellPath renders a remote path for a shell command line: a leading "~/"
// becomes "$HOME"/, the rest is quoted.
func ShellPath(p string) string {
	if rest, ok := strings.CutPrefix(p, "~/"); ok {
		return `"$HOME"/` + shq(rest)
	}
	if p == "~" {
		return `"$HOME"`
	}
	return shq(p)
}

// SumFunc defines the shell function ttymux_sum, which prints the sha256 of
// the file "$1" with whichever tool the host has (coreutils or busybox
// sha256sum, perl's shasum, openssl), or nothing.
const SumFunc = `ttymux_sum() { { sha256sum "$1" || shasum -a 256 "$1" || openssl dgst -sha256 -r "$1"; } 2>/dev/null | cut -c1-64; }; `

func defaultMode(o Options, src fs.FileMode) fs.FileMode {
	switch {
	case o.Mode != 0:
		return o.Mode.Perm()
	case src.Perm() != 0:
		return src.Perm()
	}
	return 0o644
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
