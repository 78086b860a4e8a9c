// Package agentd is the library of ttymux-agent, the small daemon that holds
// persistent terminal sessions for ttymux, locally or on a remote host. A
// session's program runs on a PTY owned by the agent, so it survives the
// ttymux server, the AI client and SSH connections coming and going;
// clients reattach and ask for "output from offset N".
//
// It owns, per session: a device, behind one interface (device.go): the
// child process and its PTY (internal/ptyproc) or, for a serial session,
// the open serial port and its link state (internal/serialport, serial.go);
// a bounded ring of the output addressed by
// absolute offset with a line index (internal/ring), the exit status once
// known, the window size, and opaque client metadata. It serves the protocol of agentd/agentproto on a
// Unix socket in a per-user 0700 directory, checks each peer's uid
// (SO_PEERCRED) and reports foreground-process changes. It does not own
// terminal emulation, completion detection, output reduction or anything
// about SSH: those live in the ttymux server, so every transport behaves
// the same, and this package stays small (it imports only the standard
// library, golang.org/x/sys, internal/ptyproc, internal/ring,
// internal/serialport, agentproto and the root of transport, for its
// shared ExitError). The protocol and the files the agent places are described
// in docs/agentd.md.
//
// Usage:
//
//	l, err := agentd.Listen(agentd.SocketPath(agentd.SocketDir()))
//	if err != nil { ... }
//	srv := agentd.NewServer(agentd.Options{Logger: log})
//	err = srv.Serve(l) // until Close, a Stop request or IdleExit
//
// # Concurrency
//
// Serve runs the accept loop and starts, and waits for before it returns:
// one janitor goroutine (reaps exited sessions after ExitedTTL, ends an idle
// agent), one goroutine per connection, one more per attached connection
// that reads the client's frames, and two per session: the PTY reader (the
// only reader of the PTY: it appends to the ring and, at the end, records the
// exit status) and the foreground monitor (polls the foreground process
// group and ECHO flag every 20 ms, and after output, while a client is
// attached; it sleeps otherwise). A serial session has the reader only, plus
// serialport's reconnect goroutine while its device is away (Close, from
// hangup, waits for it).
//
// Each session has one mutex guarding its ring, line index and state, and a
// broadcast channel that is closed and replaced whenever output arrives or
// the state changes. Each attached client has its own writer (the
// connection's goroutine) that reads the ring by offset under the lock,
// copies at most a batch, releases the lock and writes to the socket, so a
// slow client never blocks the PTY reader or other clients; if it falls
// behind the ring's start it is sent a Gap frame and continues from the
// start. No lock is held across I/O. The server's mutex guards the session
// table and the connection set and is taken before a session's, never
// after.
//
// Input from several clients is written to the PTY in arrival order, each
// frame whole. A client whose input the program does not read blocks in
// that write until the program reads, the session is hung up or the server
// closes.
//
// Teardown follows shared/STYLE.md: when the child exits and the PTY
// reports end of stream, the reader has drained the output into the ring;
// then the exit status is published (clients send Exit after the last
// output); then the master is closed. Kill and shutdown hang the PTY up
// (SIGHUP; SIGKILL a second later) and the same path follows. Close and a
// Stop request stop accepting, disconnect the clients, hang up every
// session and wait for every goroutine.
package agentd
