// Package local is the transport for a shell or program on this machine,
// running on a pseudo-terminal.
//
// An Opener starts the child with internal/ptyproc: the user's shell when
// Target.Command is empty, otherwise the command, looked up in the PATH of
// the environment the child will get. The child inherits this process's
// environment with TERM set (Target.Term, default "xterm-256color") and
// Target.Env layered on top. The returned *Conn implements transport.Conn,
// Resizer, Signaler, Foregrounder and EchoReporter.
//
// The package owns the child, its PTY and the goroutine that waits for it,
// all of which end with Close. It does not own what the child starts
// (background jobs may outlive it), the screen, or deciding when a command
// has finished.
//
// Concurrency: Read, Write, Close, Wait, Resize, Signal, Foreground and Echo
// may be called from different goroutines; exactly one goroutine should
// Read. Close is idempotent, unblocks pending Reads and Writes, hangs up the
// terminal (SIGHUP) and kills the child if it is still there a second
// later. Read returns io.EOF after the child has exited and its output is
// drained; see internal/ptyproc for how a background job that keeps the
// terminal open is handled.
package local
