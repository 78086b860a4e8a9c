package audit

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"time"
)

// Follow calls fn for each event appended to the log at path after the
// call, until ctx ends, reopening the file when it is rotated (like tail
// -F). It polls every interval.
func Follow(ctx context.Context, path string, interval time.Duration, fn func(Event, []byte, bool)) error {
	var f *os.File
	var r *bufio.Reader
	var ino os.FileInfo
	defer func() {
		if f != nil {
			_ = f.Close() // read only
		}
	}()
	reopen := func(atEnd bool) {
		if f != nil {
			_ = f.Close() // read only
			f = nil
		}
		nf, err := os.Open(path)
		if err != nil {
			return
		}
		if atEnd {
			_, _ = nf.Seek(0, io.SeekEnd) // start at the end; a failure rereads
		}
		f, r = nf, bufio.NewReader(nf)
		ino, _ = nf.Stat()
	}
	reopen(true)
	var partial []byte
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		if f != nil {
			for {
				line, err := r.ReadBytes('\n')
				if errors.Is(err, io.EOF) {
					partial = append(partial, line...)
					break
				}
				if err != nil {
					return err
				}
				line = append(partial, line...)
				partial = nil
				if err := scan(bytes.NewReader(line), fn); err != nil {
					return err
				}
			}
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		st, err := os.Stat(path)
		if err == nil && (f == nil || ino == nil || !os.SameFile(st, ino)) {
			reopen(false) // rotated, or created: read the new file from its start
			partial = nil
		}
	}
}
