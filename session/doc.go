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
//   - typing (io.go, keys.go, linectl.go): the gate (gate.go) first, then
//     text, keys, pastes, line controls and secrets;
//   - the verdict engine (verdict.go, detect.go, prompt.go, state.go): when a
//     command is done, from shell integration marks, the sentinel, the
//     prompt or the foreground process; the shell integration it relies on
//     (integration.go, remote.go, shellinit/);
//   - redaction of secrets' echoes (redact.go) and file-transfer support
//     (transfer.go).
//
// What it does not own: concrete transports (transport/*, wired by
// cmd/ttymux), the terminal emulator (session/screen), output reduction
// (session/reduce), the asciicast writer (session/asciicast), policy rules
// (internal/policy) and MCP (cmd/ttymux).
//
// Concurrency: Manager and Session methods are safe for concurrent use.
// Sends on one session are serialised; reads may run beside them. Every
// session's pump runs until the Conn ends; Close, Kill, Detach and
// Manager.CloseAll wait for it.
package session
