// Package agent is the client of the ttymux agent (cmd/ttymux-agent), the
// small daemon that holds persistent sessions: it keeps each program on its
// PTY, a bounded ring of its output addressed by absolute offset, and its
// exit status, while ttymux servers and humans come and go.
//
// A Client implements transport.Keeper over the agent's Unix socket
// (protocol: agentd/agentproto, docs/agentd.md). Every call
// dials the socket and exchanges the version headers; a *agentproto.VersionError
// comes back unchanged (wrapped). Create and Attach keep their connection
// as a *Conn that streams the session's output; List, Kill, Stop and Ping
// use one connection per request.
//
// A Target whose Spec is transport.SerialParams makes the agent hold a serial port
// instead of a program (serial.go): its Conn then also sends BREAK and sets
// DTR and RTS through the agent (transport.Breaker, ModemController) and
// reports the link the agent sees (transport.LinkStater).
//
// Only Create starts an agent: when nothing listens on the socket it runs
// "ttymux-agent serve --detach --socket PATH", serialising concurrent
// starts with an flock on PATH.lock, and retries the dial for up to 3 s.
// Attach and Kill report a missing agent as transport.ErrNoSession (and
// ErrNoAgent), List as no sessions, Ping and Stop as ErrNoAgent.
//
// Before dialling, the socket's directory must be ours and closed to
// group and others (mode 0700, as tmux insists) and the socket ours;
// otherwise the Client refuses with an *UnsafeDirError naming it. After
// dialling, the process listening must run as us (SO_PEERCRED). The agent
// in turn checks our uid. These rules live in internal/agentsock.
//
// A Remote (remote.go) cannot see who listens on a remote socket, so it
// checks the socket's directory and the socket in the probe exec and in the
// bridge, and on every connection has the agent prove, with a Hello, that
// it can read the per-install token only the SSH user can read
// (*NotYoursError, *agentsock.UnsafeSocketError otherwise; issue #14).
//
// The package owns the connections it makes and the short-lived starter
// process. It does not own the agent (which outlives every client), the
// sessions, the screen, or deciding when a command has finished.
//
// Concurrency: a Client is safe for concurrent use. A Conn's Read decodes
// the agent's frames, so exactly one goroutine reads; Foreground, Echo and
// Wait learn what that goroutine reads. Write, Resize, Signal, SetMeta and
// Close may be called from any goroutine; frame writes are serialised.
// Close detaches (the session keeps running), is idempotent and unblocks
// Read and Write.
package agent
