// Package sshconn is the SSH transport: a remote login shell or command on
// a pty, over golang.org/x/crypto/ssh, set up the way ssh(1) would.
//
// An Opener resolves Target.Host through sshconf (Target.User, Port,
// IdentityFile and Jump override the config), connects (through each
// ProxyJump hop over direct-tcpip), checks the host key against known_hosts
// and authenticates: ssh-agent keys, identity files, then password and
// keyboard-interactive with Target.Password. Open then starts a session with
// a pty: the login shell, or Target.Command. The returned *Conn implements
// transport.Conn, transport.Resizer and transport.Signaler. docs/ssh.md
// ("Authentication and host keys") describes the rules and where they
// differ from OpenSSH.
//
// The package owns the SSH connections, their keepalive, and each session's
// channel and goroutines. Connections are pooled: sessions to the same user,
// host, port and jump chain share one connection when they also agree on the
// host-key lookup (HostKeyAlias, known_hosts files, StrictHostKeyChecking) and
// the identity files, so every alias gets its own known_hosts check;
// a connection is closed when its
// last session closes (or when the server refuses more sessions on it,
// sshd's MaxSessions, new sessions get a new one). It does not own the
// remote programs (sshd hangs them up when their channel closes), the
// screen, or deciding when a command has finished. Target.Dir and
// Target.Args do not apply to SSH.
//
// Link hands out a reference to a pooled connection for other uses: file
// transfers, the agent's socket, and Link.Exec, which runs a command in an
// exec channel without a pty (the fanout tool) and, when its context ends,
// sends SIGKILL and closes the channel (*StoppedError says whether sshd
// delivered the signal).
//
// Errors from Open are typed and say what to do next: *NameError,
// *RefusedError, *TimeoutError, *DialError, *UnknownHostKeyError,
// *HostKeyChangedError, *AuthError, each possibly inside a *JumpError
// naming the hop. A connection that dies later (reset, or black-holed as
// detected by ServerAliveInterval keepalives) ends its sessions with a
// *LinkError from Read and Wait. No error or log line contains the password.
//
// Concurrency: Open and Close of an Opener may be called from any
// goroutine. A Conn's Read, Write, Close, Wait, Resize and Signal may run
// concurrently; exactly one goroutine should Read, and it must keep reading:
// output is handed over through a pipe without buffering, and Wait returns
// only after the output has been read to its end. Close is idempotent and
// unblocks Read and Write at once.
//
// Teardown order, per session (after tailssh): the remote program exits,
// the server sends its output, exit status and channel close; the two
// copiers (stdout, stderr) drain into the pipe; then the exit status is
// published for Wait; then Read sees io.EOF (or the *LinkError if the link
// died first). Conn.Close instead closes the pipe (Read and Write fail with
// os.ErrClosed), closes the channel, waits up to two seconds for the server
// to confirm, and drops the connection reference; the last reference
// closes the connection, which stops its keepalive and waits for every
// goroutine it owns. Opener.Close closes every connection the same way.
package sshconn
