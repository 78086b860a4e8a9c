// Package session holds ttymux's terminal sessions: the Manager that opens,
// names, finds, attaches and closes them, and the Session that owns one
// transport.Conn, reads it with one goroutine (the pump) and answers Send
// and Read with rendered, reduced output and a verdict on whether the
// command finished and how.
//
// What it owns:
//   - the registry (manager.go) and the lifecycle of a session: open through
//     a Kind, keep it with an agent (persist.go), attach it again after a
//     restart, close or detach it;
//   - transports as values (kind.go, kinds.go): a Kind says everything that
//     differs between a local shell, an SSH login and a serial console, so
//     the Manager never names a transport;
//   - typing (io.go, keys.go, linectl.go): the gate (gate.go) first, a held
//     line settled by the one Approver under the input lock (approver.go),
//     then text, keys, pastes, line controls and secrets;
//   - waiting for a command's verdict (wait.go): the command record Send
//     makes, the pump's broadcast channels, timers, polling and coalescing
//     around the engine in session/verdict, which owns every rule of when a
//     command is done; the shell integration the engine relies on
//     (integration.go, remote.go, shellinit/);
//   - which output belongs to which result (io.go: earlier, typed-ahead
//     commands);
//   - redaction of secrets' echoes (redact.go) and file-transfer support
//     (transfer.go).
//
// What it does not own: concrete transports (transport/*, wired by
// cmd/ttymux), the completion verdict and the mark detector
// (session/verdict), the terminal emulator (session/screen), output reduction
// (session/reduce), the asciicast writer (session/asciicast), policy rules
// (internal/policy) and MCP (cmd/ttymux).
//
// Concurrency: Manager and Session methods are safe for concurrent use.
// Sends on one session are serialised; reads may run beside them. Every
// session's pump runs until the Conn ends; Close, Kill, Detach and
// Manager.CloseAll wait for it.
package session
