package rawio

import (
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"
)

// pipe returns a pipe whose ends are Files in non-blocking mode (the
// poller's), closed at the end of the test, with their RawConns.
func pipe(t *testing.T) (r, w *os.File, rr, wr syscall.RawConn) {
	t.Helper()
	r, w, err := os.Pipe() // non-blocking, registered with the poller
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close(); w.Close() })
	if rr, err = r.SyscallConn(); err != nil {
		t.Fatal(err)
	}
	if wr, err = w.SyscallConn(); err != nil {
		t.Fatal(err)
	}
	return r, w, rr, wr
}

// TestReadWriteLarge: a write larger than the pipe holds waits for its
// reader, which reads it all, then EOF once the writer closes.
func TestReadWriteLarge(t *testing.T) {
	_, w, rr, wr := pipe(t)
	msg := make([]byte, 1<<20)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	werr := make(chan error, 1)
	go func() {
		n, err := Write(wr, msg)
		if err == nil && n != len(msg) {
			err = io.ErrShortWrite
		}
		w.Close()
		werr <- err
	}()
	var got []byte
	buf := make([]byte, 5000) // not a divisor of the pipe's buffer
	for {
		n, err := Read(rr, buf)
		got = append(got, buf[:n]...)
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("Read after %d bytes: %v", len(got), err)
		}
	}
	if err := <-werr; err != nil {
		t.Fatalf("Write: %v", err)
	}
	if !bytes.Equal(got, msg) {
		t.Fatalf("read %d bytes, not the %d written", len(got), len(msg))
	}
	if n, err := Read(rr, nil); n != 0 || err != nil {
		t.Fatalf("Read of nothing: %d, %v", n, err)
	}
}

// TestWriteBrokenPipe: a reader gone is EPIPE to the writer, not a signal.
func TestWriteBrokenPipe(t *testing.T) {
	r, _, _, wr := pipe(t)
	r.Close()
	if _, err := Write(wr, []byte("x")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a pipe without reader: %v, want EPIPE", err)
	}
}

// TestReadClosed: a read waiting in the poller ends when its File is
// closed, with the poller's own error (internal/poll's "use of closed
// file"), not an end of stream or a read(2) error.
func TestReadClosed(t *testing.T) {
	r, _, rr, _ := pipe(t)
	errc := make(chan error, 1)
	go func() {
		_, err := Read(rr, make([]byte, 10))
		errc <- err
	}()
	r.Close()
	var errno syscall.Errno
	if err := <-errc; err == nil || errors.Is(err, io.EOF) || errors.As(err, &errno) {
		t.Fatalf("a read when its file closed: %v, want the poller's error", err)
	}
}
