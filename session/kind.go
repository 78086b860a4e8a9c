package session

import (
	"context"
	"errors"
	"log/slog"
	"strings"
	"unicode"

	"github.com/ttymux/ttymux/transport"
)

// A Kind is one sort of transport as the session layer sees it: the Opener
// that makes its Conns and everything else that differs between a local
// shell, an SSH login and a serial console. The Manager knows kinds only
// through these values (Options.Kinds); cmd/ttymux registers one per
// transport (LocalKind, SSHKind, SerialKind, AgentKind), and a new transport
// is one more value. Every func field may be nil: the comments say what nil
// means.
type Kind struct {
	// Name is the transport's name: OpenRequest.Transport and
	// Info.Transport ("local", "ssh", …).
	Name string
	// Opener makes its Conns; nil for a kind that is only ever attached
	// (sessions an agent holds that no ttymux opened).
	Opener transport.Opener
	// Prepare readies an open: it may rewrite o.Target (the program to
	// start, the shell integration) and set how the session is shown
	// (o.Command), whether it is a shell and the integration's nonce. nil
	// opens the target as given.
	Prepare func(o *Opening)
	// Keep chooses the keeper that holds a persistent session of this kind
	// from those the server has, and says what to create there. host is ""
	// for the local agent; for an agent on another host the session id is
	// "<host>/<agent's id>" (JoinID). An error says why the session is not
	// persistent (it then lives in this process). nil: the kind cannot be
	// kept.
	Keep func(ctx context.Context, k Keepers, o *Opening) (keeper transport.Keeper, kt transport.Target, host string, err error)
	// PolicyHost is the name the policy matches a session of this kind by,
	// from what it was opened with (for a kept session an earlier server
	// opened: its Command is the keeper's). nil means Name.
	PolicyHost func(t transport.Target) string
	// PolicyNames returns every name a policy host of this kind goes by,
	// host first, when they are several (a serial device's paths: a rule
	// for any of them applies); nil for a host that is not this kind's, or
	// of one name. nil: one name each.
	PolicyNames func(host string) []string
	// OpenLine is the command line an open runs as the policy sees it; ""
	// (and nil) for an interactive shell.
	OpenLine func(t transport.Target) string
	// GateArgs makes an open's gate also read each argument and environment
	// value: a program started directly can take a command line in either
	// (sh -c, PROMPT_COMMAND).
	GateArgs bool
	// RecordEnv is the "env" of an asciicast recording's header (TERM,
	// SHELL); nil records none.
	RecordEnv func(o *Opening) map[string]string
	// Port is the device a session of this kind talks to at a baud rate,
	// from what it was opened with: the policy's [serial] ports and
	// read-only rules match it, and output that is mostly not text gets the
	// wrong-baud note. nil: the kind opens no device.
	Port func(t transport.Target) string
	// Secrets are the secrets in what a session of this kind was opened
	// with (a password): never shown in results or recordings, should the
	// far end echo them. nil: none.
	Secrets func(t transport.Target) []string
	// Files are the ways upload and download reach a session of this
	// kind besides its terminal.
	Files Files
	// KeptCommand shows a kept session an earlier server opened, from what
	// its keeper on host says; nil shows the keeper's command.
	KeptCommand func(ks transport.KeptSession, host string) string
}

// Files are the ways files move to and from a kind's sessions (cmd/ttymux,
// files.go) besides through the terminal (inband, XMODEM, YMODEM), which
// every kind has. The zero Files moves them through the terminal only.
type Files struct {
	// Here: the session runs on this machine, and files are read and
	// written directly (protocol local).
	Here bool
	// SSH: the session's SSH connection (its Opener's pool, reached with
	// Target.SSH()) carries files over SFTP (protocol sftp) and port
	// forwards.
	SSH bool
	// InbandChunk is the size of an inband transfer's chunks; 0 is the
	// transfer package's default. A slow line (a serial console) takes
	// smaller ones.
	InbandChunk int
}

// Auto is the protocol a transfer to a session of this kind takes when
// the call names none and no remote frontend (ssh, docker exec) runs in its
// foreground: local when the files are here, sftp over its SSH
// connection, else through the terminal.
func (f Files) Auto() string {
	switch {
	case f.Here:
		return "local"
	case f.SSH:
		return "sftp"
	}
	return "inband"
}

// An Opening is an open in progress, as a Kind's Prepare and Keep see it.
type Opening struct {
	// Target is what the Opener (or a keeper) gets: a copy of the request's
	// target with its size filled in.
	Target transport.Target
	// Command is how Info and list show the session; the Manager starts it
	// as the program and its arguments.
	Command string
	// Shell says the far end is an interactive shell (it draws prompts);
	// the Manager starts it from the program's name.
	Shell bool
	// Nonce marks the shell integration's sequences; "" when not
	// integrated.
	Nonce string
	// RemoteFiles are the integration files a remote bootstrap asks for by
	// shell name (its second stage, remote.go): the session types the one
	// asked for while it waits for the shell to be ready.
	RemoteFiles map[string][]byte
	// Input is how the session is typed into unless the open or a send
	// says otherwise: the kind's input options.
	Input Input

	// Read only: the Manager's options that preparing needs.
	StateDir     string // where shell integration files are written
	NoRC         bool   // keep users' startup files out of integrated shells
	DefaultShell string // the shell to start when no command is given
	Log          *slog.Logger
}

// Input are a kind's input options: how its sessions are typed into by
// default. What an open or a send asks for wins (OpenRequest.Input and
// LineEnding, Session.SetPacing, SendRequest.Pacing).
type Input struct {
	// Enter is what Enter sends: "\r" when empty.
	Enter string
	// Pacing is how fast text is typed (a console that drops what comes
	// too fast); the zero Pacing types everything at once.
	Pacing Pacing
}

// Keepers are what can hold persistent sessions for this server.
type Keepers struct {
	// Local is the local agent; nil when the server runs without one.
	Local transport.Keeper
	// Remote returns the agent on t.Host (Options.Remote); nil when the
	// server runs without remote agents.
	Remote func(ctx context.Context, t transport.Target) (transport.Keeper, error)
}

// ErrNoAgent is a Keep error: the server runs without the agent that would
// hold the session.
var ErrNoAgent = errors.New("this server runs without an agent")

// ErrNoRemoteAgents is a Keep error: the server runs without agents on
// other hosts (Options.Remote is nil).
var ErrNoRemoteAgents = errors.New("this server runs without remote agents")

// JoinID is the session id of the session id an agent on host holds; a
// session of the local agent or of this process ("" host) keeps its id.
func JoinID(host, id string) string {
	if host == "" {
		return id
	}
	return host + "/" + id
}

// SplitID splits a session id "<host>/<id>" of a session an agent on
// another host holds; remote is false for every other id.
// Only a well-formed id is split: a host name (idHost) and an agent's id
// or a session name, so an id such as "../x" or "host/../s1" never makes
// the server connect anywhere.
func SplitID(id string) (host, rid string, remote bool) {
	host, rid, ok := strings.Cut(id, "/")
	if !ok || !idHost(host) || !idPart(rid) {
		return "", "", false
	}
	return host, rid, true
}

// maxIDLen bounds a session id or name worth looking up.
const maxIDLen = 256

// wellFormedID reports whether id can name a session at all: an id or
// name of this server or its agent, or "<host>/<id>".
func wellFormedID(id string) bool {
	if len(id) > maxIDLen {
		return false
	}
	if _, _, remote := SplitID(id); remote {
		return true
	}
	return idPart(id)
}

// idPart: a session id ("s3") or name: letters, digits, '-', '_', '.',
// not "." or "..".
func idPart(p string) bool {
	if p == "" || p == "." || p == ".." || len(p) > maxIDLen {
		return false
	}
	for _, r := range p {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return false
		}
	}
	return true
}

// idHost: a host as open_ssh takes it (sshconf's checkHostArg, and
// user@host), and no "..": no '/', white space, control characters or shell metacharacters,
// no leading '.' or '-'.
func idHost(h string) bool {
	if h == "" || len(h) > maxIDLen || h[0] == '.' || h[0] == '-' || strings.Contains(h, "..") ||
		strings.ContainsAny(h, "/'`\"$\\;&<>|(){},") {
		return false
	}
	return strings.IndexFunc(h, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) < 0
}

// policyHost is the policy's name for a session of kind k opened with t,
// held by the agent on host ("" for here): a session on another host is
// matched by that host whatever its kind.
func (k Kind) policyHost(t transport.Target, host string) string {
	switch {
	case host != "":
		return host
	case k.PolicyHost != nil:
		return k.PolicyHost(t)
	}
	return k.Name
}

// policyNames is the policy's Names: what the first kind that knows a host
// calls it.
func policyNames(kinds []Kind) func(host string) []string {
	var fs []func(string) []string
	for _, k := range kinds {
		if k.PolicyNames != nil {
			fs = append(fs, k.PolicyNames)
		}
	}
	return func(host string) []string {
		for _, f := range fs {
			if names := f(host); len(names) > 0 {
				return names
			}
		}
		return nil
	}
}

// port is the device of a session of kind k opened with t, or "".
func (k Kind) port(t transport.Target) string {
	if k.Port == nil {
		return ""
	}
	return k.Port(t)
}

func (k Kind) openLine(t transport.Target) string {
	if k.OpenLine == nil {
		return ""
	}
	return k.OpenLine(t)
}

func (k Kind) secrets(t transport.Target) []string {
	if k.Secrets == nil {
		return nil
	}
	var out []string
	for _, s := range k.Secrets(t) {
		if s != "" {
			out = append(out, s)
		}
	}
	return out
}

func (k Kind) keptCommand(ks transport.KeptSession, host string) string {
	if k.KeptCommand == nil {
		return ks.Command
	}
	return k.KeptCommand(ks, host)
}

// Kind returns the registered kind called name, or a bare Kind of that
// name and false.
func (m *Manager) Kind(name string) (Kind, bool) { return m.kind(name) }

// kind returns the registered kind called name, or a bare Kind of that
// name (a kept session of a transport this server does not register).
func (m *Manager) kind(name string) (Kind, bool) {
	k, ok := m.kinds[name]
	if !ok {
		return Kind{Name: name}, false
	}
	return k, true
}
