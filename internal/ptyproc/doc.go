// Package ptyproc starts a child process on a pseudo-terminal and gives the
// caller the master side as a byte stream, plus the few terminal controls a
// session needs: window size, the foreground process group, the ECHO flag and
// signals.
//
// It owns the PTY pair, the child process and one goroutine that waits for
// the child. It does not own what runs inside the terminal (grandchildren,
// background jobs), terminal emulation, or the policy of when to end a
// session. It is used by transport/local and by the remote agent, so it
// imports only the standard library, golang.org/x/sys/unix,
// github.com/creack/pty and github.com/landlock-lsm/go-landlock (a confined
// child, Spec.Confine: confine.go; about 64 KiB of the stripped agent).
//
// # The master is non-blocking
//
// creack/pty returns the master in blocking mode (it calls Fd on the
// *os.File it opened, which switches that File to blocking I/O): a pending
// Read then survives Close and ignores deadlines (see the (*os.File).Fd docs
// and creack/pty issues 88, 114 and 162). Start therefore duplicates the
// master, sets O_NONBLOCK and wraps it with os.NewFile, so that the runtime
// poller serves it. Every later ioctl runs inside SyscallConn().Control, and
// the package never calls Fd on the master. (As of Go 1.26, Fd on a File that
// os.NewFile made from an already non-blocking descriptor leaves it
// non-blocking, while Fd on one from os.OpenFile does not; the package does
// not depend on that detail.) TestConformance/CloseUnblocksRead and
// TestEOFWithBackgroundGrandchild fail with a blocking master.
//
// # End of stream
//
// On Linux, reading the master returns EIO once every slave descriptor is
// closed, that is, after the child and everything that inherited the
// terminal have exited; Read reports that as io.EOF. A background job that
// outlives the shell (`sleep 30 &`) keeps the slave open, so EIO may never
// come. Once the child has exited, Read therefore drains what is buffered
// and reports io.EOF as soon as the master has been quiet for a short grace
// period (200ms). Output a leftover background job writes after that is lost.
//
// # Concurrency
//
// Read, Write, Close, Wait, Resize, Foreground, Echo and Signal may be
// called from different goroutines. Exactly one goroutine should Read: Read
// uses the master's read deadline to notice the child's exit. Close is
// idempotent, unblocks pending Reads and Writes, and returns only once the
// child has been reaped and the goroutine that waits for it has ended (it
// kills a child that ignores the hangup). Wait may be called by any number
// of goroutines, any number of times.
package ptyproc
