package agentlink

import (
	"errors"
	"io"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TestRawReaderAsConn: the raw reader of a Unix socket returns what
// net.Conn's Read does: the bytes, a timeout past a deadline, io.EOF once
// the peer closed, and net.ErrClosed after Close.
func TestRawReaderAsConn(t *testing.T) {
	dir, err := os.MkdirTemp("", "rawread")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	ln, err := net.Listen("unix", filepath.Join(dir, "s"))
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, _ := ln.Accept()
		accepted <- c
	}()
	c, err := net.Dial("unix", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	peer := <-accepted
	if peer == nil {
		t.Fatal("accept failed")
	}
	r := reader(c)
	if _, ok := r.(*rawReader); !ok {
		t.Fatalf("reader of a Unix socket is %T, want *rawReader", r)
	}
	if _, err := peer.Write([]byte("hello")); err != nil {
		t.Fatal(err)
	}
	b := make([]byte, 16)
	if n, err := r.Read(b); err != nil || string(b[:n]) != "hello" {
		t.Fatalf("read %q, %v", b[:n], err)
	}
	_ = c.SetReadDeadline(time.Now().Add(10 * time.Millisecond))
	var ne net.Error
	if _, err := r.Read(b); !errors.As(err, &ne) || !ne.Timeout() {
		t.Fatalf("read past the deadline: %v, want a timeout", err)
	}
	_ = c.SetReadDeadline(time.Time{})
	_ = peer.Close()
	if _, err := r.Read(b); err != io.EOF {
		t.Fatalf("read after the peer closed: %v, want io.EOF", err)
	}
	_ = c.Close()
	if _, err := r.Read(b); !errors.Is(err, net.ErrClosed) {
		t.Fatalf("read after Close: %v, want net.ErrClosed", err)
	}
}
