package transfer

import (
	"bytes"
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"time"
)

// A Sink receives a download on this machine: Start, the bytes, then Commit
// or Abort (Abort after Commit does nothing).
type Sink interface {
	io.Writer
	// Start is called before the first byte, with the size (-1 when the
	// way cannot tell).
	Start(size int64) error
	// Commit keeps what was written, with mode and (when not zero) mtime.
	Commit(mode fs.FileMode, mtime time.Time) error
	// Abort discards what was written.
	Abort()
}

// FileSink writes a download to a local file: to a temporary name beside
// Path, renamed over it by Commit.
type FileSink struct {
	Path      string
	Overwrite bool

	f   *os.File
	tmp string
}

// Start checks the destination and creates the temporary file.
func (s *FileSink) Start(size int64) error {
	if fi, err := os.Stat(s.Path); err == nil {
		if fi.IsDir() {
			return &PathError{Side: "local", Op: "create", Path: s.Path, Err: ErrIsDir}
		}
		if !s.Overwrite {
			return &PathError{Side: "local", Op: "create", Path: s.Path, Err: ErrExists}
		}
	}
	s.tmp = tempName(s.Path, filepath.Join, filepath.Split)
	f, err := os.OpenFile(s.tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return &PathError{Side: "local", Op: "create", Path: s.Path, Err: err}
	}
	s.f = f
	return nil
}

func (s *FileSink) Write(p []byte) (int, error) {
	n, err := s.f.Write(p)
	if err != nil {
		return n, &PathError{Side: "local", Op: "write", Path: s.Path, Err: err}
	}
	return n, nil
}

// Commit closes the temporary file, sets mode and mtime, and renames it to
// Path; without Overwrite it never replaces a file that appeared meanwhile.
func (s *FileSink) Commit(mode fs.FileMode, mtime time.Time) error {
	if s.f == nil {
		return errors.New("sink not started")
	}
	err := s.f.Close()
	s.f = nil
	if err == nil {
		err = os.Chmod(s.tmp, mode.Perm())
	}
	if err == nil && !mtime.IsZero() {
		err = os.Chtimes(s.tmp, time.Now(), mtime)
	}
	if err == nil {
		err = renameLocal(s.tmp, s.Path, s.Overwrite)
	}
	if err != nil {
		_ = os.Remove(s.tmp) // best effort; err says why
		s.tmp = ""
		return &PathError{Side: "local", Op: "rename", Path: s.Path, Err: err}
	}
	s.tmp = ""
	return nil
}

// Abort removes the temporary file.
func (s *FileSink) Abort() {
	if s.f != nil {
		_ = s.f.Close() // discarded anyway
		s.f = nil
	}
	if s.tmp != "" {
		_ = os.Remove(s.tmp) // best effort
		s.tmp = ""
	}
}

// sum returns the sha256 of the temporary file as written (before Commit).
func (s *FileSink) sum() (string, error) {
	f, err := os.Open(s.tmp)
	if err != nil {
		return "", err
	}
	defer f.Close()
	h := sha256.New()
	if _, err := io.Copy(h, f); err != nil {
		return "", err
	}
	return hexSum(h), nil
}

// renameLocal moves tmp to dst; without overwrite it links (which fails
// when dst exists) and removes tmp, so a file created meanwhile is kept.
func renameLocal(tmp, dst string, overwrite bool) error {
	if overwrite {
		return os.Rename(tmp, dst)
	}
	if err := os.Link(tmp, dst); err != nil {
		if errors.Is(err, fs.ErrExist) {
			return ErrExists
		}
		// A file system without hard links: check, then rename.
		if _, serr := os.Lstat(dst); serr == nil {
			return ErrExists
		}
		return os.Rename(tmp, dst)
	}
	return os.Remove(tmp)
}

// MemSink keeps a download in memory, up to Limit bytes.
type MemSink struct {
	Limit int
	buf   bytes.Buffer
	done  bool
}

// Start refuses a file known to be over the limit.
func (m *MemSink) Start(size int64) error {
	if size > int64(m.Limit) {
		return fmt.Errorf("%w: %d bytes, over the %d-byte limit", ErrTooLarge, size, m.Limit)
	}
	return nil
}

func (m *MemSink) Write(p []byte) (int, error) {
	if m.buf.Len()+len(p) > m.Limit {
		return 0, fmt.Errorf("%w: over the %d-byte limit", ErrTooLarge, m.Limit)
	}
	return m.buf.Write(p)
}

// Commit does nothing: the bytes are in Bytes.
func (m *MemSink) Commit(fs.FileMode, time.Time) error { m.done = true; return nil }

// Abort drops the bytes, unless they were committed.
func (m *MemSink) Abort() {
	if !m.done {
		m.buf.Reset()
	}
}

// Bytes returns what was received.
func (m *MemSink) Bytes() []byte { return m.buf.Bytes() }

// ctxReader fails reads once ctx is done, so a copy loop stops on
// cancellation.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

// ctxWriter fails writes once ctx is done.
type ctxWriter struct {
	ctx context.Context
	w   io.Writer
}

func (c ctxWriter) Write(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.w.Write(p)
}

func errNoSpace(err error) bool {
	return errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT)
}

// Local moves files within this machine's file system, for sessions that
// run here. Paths must be absolute (the caller resolves them).
type Local struct{}

// Upload copies src to path.
func (Local) Upload(ctx context.Context, src Source, path string, o Options) (Result, error) {
	sink := &FileSink{Path: path, Overwrite: o.Overwrite}
	if err := sink.Start(src.Size); err != nil {
		return Result{}, err
	}
	defer sink.Abort()
	h := sha256.New()
	p := newProgress(o.Progress, src.Size)
	n, err := io.Copy(io.MultiWriter(sink, h, p), ctxReader{ctx, src.R})
	if err != nil {
		return Result{}, err
	}
	p.done()
	want := hexSum(h)
	got, err := sink.sum()
	if err != nil {
		return Result{}, &PathError{Side: "remote", Op: "verify", Path: path, Err: err}
	}
	if got != want {
		return Result{}, fmt.Errorf("%w: sent %s, %s has %s; nothing was kept", ErrChecksum, want, path, got)
	}
	if err := sink.Commit(defaultMode(o, src.Mode), src.ModTime); err != nil {
		return Result{}, err
	}
	return Result{Path: path, Bytes: n, SHA256: want, Via: "local"}, nil
}

// Download copies path into sink.
func (Local) Download(ctx context.Context, path string, sink Sink, o Options) (Result, error) {
	f, fi, err := openRegular(os.Open, path)
	if err != nil {
		return Result{}, err
	}
	defer f.Close()
	if err := sink.Start(fi.Size()); err != nil {
		return Result{}, err
	}
	defer sink.Abort()
	h := sha256.New()
	p := newProgress(o.Progress, fi.Size())
	n, err := io.Copy(io.MultiWriter(sink, h, p), ctxReader{ctx, f})
	if err != nil {
		return Result{}, err
	}
	p.done()
	sum := hexSum(h)
	if fs, ok := sink.(*FileSink); ok {
		got, err := fs.sum()
		if err != nil {
			return Result{}, err
		}
		if got != sum {
			return Result{}, fmt.Errorf("%w: %s has %s, the copy %s; nothing was kept", ErrChecksum, path, sum, got)
		}
	}
	if err := sink.Commit(defaultMode(o, fi.Mode()), fi.ModTime()); err != nil {
		return Result{}, err
	}
	return Result{Path: path, Bytes: n, SHA256: sum, Via: "local"}, nil
}

// A statFile is an open file on the far side: an *os.File or an
// *sftp.File.
type statFile interface {
	io.Closer
	Stat() (fs.FileInfo, error)
}

// openRegular opens path on the far side with open and refuses a directory,
// with errors that name the far side.
func openRegular[F statFile](open func(string) (F, error), path string) (F, fs.FileInfo, error) {
	var zero F
	f, err := open(path)
	if err != nil {
		return zero, nil, &PathError{Side: "remote", Op: "open", Path: path, Err: err}
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return zero, nil, &PathError{Side: "remote", Op: "stat", Path: path, Err: err}
	}
	if fi.IsDir() {
		f.Close()
		return zero, nil, &PathError{Side: "remote", Op: "open", Path: path, Err: ErrIsDir}
	}
	return f, fi, nil
}
