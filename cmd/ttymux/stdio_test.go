package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// rawPipe returns a pipe's two descriptors (blocking). Whoever makes a
// File of one closes it through the File: a File's finalizer closes its
// descriptor, which may by then be another test's.
func rawPipe(t *testing.T) (r, w int) {
	t.Helper()
	var p [2]int
	if err := syscall.Pipe2(p[:], syscall.O_CLOEXEC); err != nil {
		t.Fatal(err)
	}
	return p[0], p[1]
}

func nonblocking(t *testing.T, fd int) bool {
	t.Helper()
	fl, _, e := syscall.Syscall(syscall.SYS_FCNTL, uintptr(fd), syscall.F_GETFL, 0)
	if e != 0 {
		t.Fatal(e)
	}
	return fl&syscall.O_NONBLOCK != 0
}

// TestPollableStdioPipe reads lines, one longer than the reader's buffer,
// through a pipe made pollable, to the end of the stream.
func TestPollableStdioPipe(t *testing.T) {
	r, w := rawPipe(t)
	f := pollable(r, "stdin")
	if f == nil || !nonblocking(t, r) {
		t.Fatal("a pipe was not made pollable")
	}
	defer f.Close()
	long := bytes.Repeat([]byte("x"), 200<<10) // over the pipe's and bufio's buffers
	want := [][]byte{[]byte(`{"a":1}`), long, []byte(`{"b":2}`)}
	go func() {
		wf := os.NewFile(uintptr(w), "w") // blocking: the writer side
		for _, l := range want {
			wf.Write(append(l, '\n'))
		}
		wf.Close()
	}()
	br := bufio.NewReaderSize(newRawReader(f), 64<<10)
	for i, l := range want {
		got, _, err := readLine(br, 1<<20)
		if err != nil || !bytes.Equal(got, l) {
			t.Fatalf("line %d: %d bytes, err %v; want %d bytes", i, len(got), err, len(l))
		}
	}
	if _, _, err := readLine(br, 1<<20); !errors.Is(err, io.EOF) {
		t.Fatalf("after the last line: %v, want EOF", err)
	}
}

// TestPollableStdioWriteWaits writes more than a pipe holds to a reader
// that reads slowly: the writer waits for room and loses nothing.
func TestPollableStdioWriteWaits(t *testing.T) {
	r, w := rawPipe(t)
	f := pollable(w, "stdout")
	if f == nil {
		t.Fatal("a pipe was not made pollable")
	}
	msg := make([]byte, 1<<20)
	for i := range msg {
		msg[i] = byte(i * 7)
	}
	got := make(chan []byte, 1)
	go func() {
		rf := os.NewFile(uintptr(r), "r")
		b, _ := io.ReadAll(rf)
		rf.Close()
		got <- b
	}()
	n, err := newRawWriter(f).Write(msg)
	if err != nil || n != len(msg) {
		t.Fatalf("Write: %d, %v", n, err)
	}
	f.Close()
	if b := <-got; !bytes.Equal(b, msg) {
		t.Fatalf("the reader got %d bytes, not the %d written", len(b), len(msg))
	}
}

// TestPollableStdioBrokenPipe: a client gone is an error to the writer,
// not a signal that kills the server mid-answer.
func TestPollableStdioBrokenPipe(t *testing.T) {
	r, w := rawPipe(t)
	f := pollable(w, "stdout")
	if f == nil {
		t.Fatal("a pipe was not made pollable")
	}
	defer f.Close()
	syscall.Close(r)
	if _, err := newRawWriter(f).Write([]byte("x\n")); !errors.Is(err, syscall.EPIPE) {
		t.Fatalf("write to a closed pipe: %v, want EPIPE", err)
	}
}

// TestPollableStdioLeavesTerminal: a terminal (ttymux mcp started by hand)
// and a file keep their mode; O_NONBLOCK would reach the shell that
// shares the terminal's open file.
func TestPollableStdioLeavesTerminal(t *testing.T) {
	ptmx, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptmx.Close()
	defer tty.Close()
	fd, _ := syscall.Dup(int(tty.Fd()))
	defer syscall.Close(fd)
	if f := pollable(fd, "stdin"); f != nil || nonblocking(t, fd) {
		t.Fatal("a terminal was made non-blocking")
	}
	f, err := os.Create(t.TempDir() + "/out")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if pollable(int(f.Fd()), "stdout") != nil {
		t.Fatal("a regular file was taken as a pipe")
	}
}
