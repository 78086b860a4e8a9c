package main

import (
	"io"
	"os"
	"syscall"

	"github.com/ttymux/ttymux/internal/rawio"
)

// pollableStdio returns the MCP stream's two ends, stdin and stdout, read
// and written through the Go runtime's poller with raw system calls when
// they are pipes or sockets, as every MCP client's are; a terminal or a
// file is returned as it is (O_NONBLOCK is a flag of the open file, which
// a terminal shares with the shell that started the server).
//
// A call that comes after a quiet spell (a model thinking) woke the
// runtime's monitor thread through stdin's blocking read and the os
// package's system calls (internal/rawio says how). On this project's
// 2-core VM a no-op call after 20 ms of quiet cost a go-sdk server
// 0.65-0.85 ms of CPU through blocking stdio, 0.52-0.57 ms through the
// poller, and 0.42-0.47 ms through the poller with raw calls
// (docs/performance.md, issue #37).
func pollableStdio() (in io.Reader, out io.Writer) {
	in, out = os.Stdin, os.Stdout
	if f := pollable(0, "stdin"); f != nil {
		in = newRawReader(f)
	}
	if f := pollable(1, "stdout"); f != nil {
		out = newRawWriter(f)
	}
	return in, out
}

// pollable puts fd in non-blocking mode and returns it as a File the
// poller waits on, when fd is a pipe or a socket; nil otherwise. The File
// owns fd from then on.
func pollable(fd int, name string) *os.File {
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil {
		return nil
	}
	if t := st.Mode & syscall.S_IFMT; t != syscall.S_IFIFO && t != syscall.S_IFSOCK {
		return nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		return nil
	}
	return os.NewFile(uintptr(fd), name) // non-blocking: registered with the poller
}

// rawReader reads a non-blocking descriptor with raw read(2) calls
// (internal/rawio); the poller waits while there is nothing to read.
type rawReader struct {
	f  *os.File // keeps the descriptor open while rc is in use
	rc syscall.RawConn
}

func newRawReader(f *os.File) rawReader {
	rc, _ := f.SyscallConn() // an *os.File always has one
	return rawReader{f, rc}
}

func (r rawReader) Read(p []byte) (int, error) {
	n, err := rawio.Read(r.rc, p)
	if errno, ok := err.(syscall.Errno); ok {
		return 0, &os.PathError{Op: "read", Path: r.f.Name(), Err: errno}
	}
	return n, err
}

// rawWriter writes all of p to a non-blocking descriptor with raw
// write(2) calls (internal/rawio); the poller waits while the reader is
// behind.
type rawWriter struct {
	f  *os.File
	rc syscall.RawConn
}

func newRawWriter(f *os.File) rawWriter {
	rc, _ := f.SyscallConn()
	return rawWriter{f, rc}
}

func (w rawWriter) Write(p []byte) (int, error) {
	n, err := rawio.Write(w.rc, p)
	if errno, ok := err.(syscall.Errno); ok {
		return n, &os.PathError{Op: "write", Path: w.f.Name(), Err: errno}
	}
	return n, err
}
