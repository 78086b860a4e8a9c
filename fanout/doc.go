// Package fanout runs one command on many SSH hosts at once: the `fanout`
// tool.
//
// Select turns what the caller names (ssh_config aliases, patterns matched
// against the literal Host aliases sshconf.HostAliases lists, negations,
// and groups from hosts.toml) into hosts. A Runner runs a Request on them:
// each host gets its own exec channel (no pty) on the pooled SSH
// connection (sshconn.Link.Exec), at most MaxParallel at once, each bounded
// by its own timeout; one unreachable or slow host never delays the others.
// Request.Check is the policy seam: it is asked per host, before that host
// connects, and a check that waits holds only its own host.
//
// The Runner holds each host's connection reference for Options.Idle after
// the last fanout that used it, so the next fanout needs no handshake
// (sshconn closes a pooled connection when its last reference goes). It
// counts the connections a fanout would open against RLIMIT_NOFILE first,
// and either releases them as hosts finish or refuses, naming the limit.
// It keeps the last Options.Keep fanouts (each host's output, capped to a
// head and a tail) for reading by id. Fanout.Report groups hosts with the
// same exit code and the same reduced output (session/reduce, as send
// uses) and hosts that failed the same way.
//
// It owns the goroutines of a Run (one per host for Check, MaxParallel
// workers, one for progress), which end before Run returns, and the idle
// timers, which Close stops. It does not own the SSH connections (sshconn
// does), the gate or the policy (the caller's Check), or MCP.
//
// Concurrency: a Runner's methods may be called from any goroutine, Run
// included; a Fanout may be read while its Run is under way.
package fanout
