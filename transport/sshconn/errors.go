package sshconn

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"time"
)

// The errors below are what Open, Read and Wait return. Each is a type with
// fields (check with errors.As) whose message says what to do next, because
// the tool layer hands it to a model as is. None of them ever holds a
// password: the password reaches only the SSH auth methods.

// ErrNoExitStatus is wrapped by Wait when the server closed the session
// without reporting an exit status or signal while the connection stayed up
// (allowed by RFC 4254 section 6.10, but unusual). Compare
// golang.org/x/crypto/ssh.ExitMissingError. A missing status because the
// link died is a *LinkError instead.
var ErrNoExitStatus = errors.New("ssh server closed the session without an exit status")

// ErrOpenerClosed is returned by Open after Close, and wrapped by Read and
// Wait of sessions whose connection Close shut down.
var ErrOpenerClosed = errors.New("ssh opener closed")

// NameError reports that the host name to dial could not be resolved (DNS).
type NameError struct {
	Host string // what the caller asked for (an alias or a name)
	Name string // the HostName that failed to resolve
	Err  error  // usually a *net.DNSError
}

func (e *NameError) Error() string {
	alias := ""
	if e.Host != "" && e.Host != e.Name {
		alias = fmt.Sprintf(" (HostName of %q)", e.Host)
	}
	return fmt.Sprintf("ssh: host name %q%s could not be resolved: %v; check the spelling, or define it as a Host alias with a HostName in ~/.ssh/config",
		e.Name, alias, e.Err)
}

func (e *NameError) Unwrap() error { return e.Err }

// RefusedError reports that nothing accepts connections at the address (TCP
// RST): no SSH server runs there, or the port is wrong.
type RefusedError struct {
	Host string
	Addr string // host:port dialled
	Err  error
}

func (e *RefusedError) Error() string {
	return fmt.Sprintf("ssh: connection to %s (%s) refused: no SSH server is listening there; check the port (Port in ~/.ssh/config or the port argument) and that sshd runs on the host",
		e.Host, e.Addr)
}

func (e *RefusedError) Unwrap() error { return e.Err }

// TimeoutError reports that connecting or the SSH handshake did not finish
// in time. Phase is "connect" (no TCP connection: a firewall dropping
// packets, a wrong address) or "handshake" (the TCP connection was accepted
// but the server did not complete the SSH handshake: not an SSH server, or an
// overloaded one).
type TimeoutError struct {
	Host  string
	Addr  string
	Phase string
	After time.Duration
	Err   error
}

func (e *TimeoutError) Error() string {
	if e.Phase == "handshake" {
		return fmt.Sprintf("ssh: %s (%s) accepted the connection but did not complete the SSH handshake within %s; check that this port runs an SSH server, or retry if the host is overloaded",
			e.Host, e.Addr, e.After.Round(time.Millisecond))
	}
	return fmt.Sprintf("ssh: no connection to %s (%s) within %s; the host may be down, or a firewall drops the packets; check the address and port",
		e.Host, e.Addr, e.After.Round(time.Millisecond))
}

func (e *TimeoutError) Unwrap() error { return e.Err }

// Timeout reports true, as net.Error does for timeouts.
func (e *TimeoutError) Timeout() bool { return true }

// DialError reports any other failure to reach the server (network
// unreachable, no route to host, a custom dialer's error).
type DialError struct {
	Host string
	Addr string
	Err  error
}

func (e *DialError) Error() string {
	return fmt.Sprintf("ssh: cannot connect to %s (%s): %v; check the address and this machine's network", e.Host, e.Addr, e.Err)
}

func (e *DialError) Unwrap() error { return e.Err }

// UnknownHostKeyError reports a server whose host key is in no known_hosts
// file. Nothing was recorded.
type UnknownHostKeyError struct {
	Host        string // alias asked for
	KnownAs     string // the known_hosts name: "host" or "[host]:port"
	KeyType     string // "ssh-ed25519"
	Fingerprint string // "SHA256:..."
	// File is where accepting the key would record it (the first
	// UserKnownHostsFile).
	File string
}

func (e *UnknownHostKeyError) Error() string {
	if e.File == "" {
		return fmt.Sprintf("ssh: the host key of %s (%s) is not known: the server offered %s %s, and no UserKnownHostsFile is configured to record it in; set UserKnownHostsFile in ~/.ssh/config",
			e.Host, e.KnownAs, e.KeyType, e.Fingerprint)
	}
	return fmt.Sprintf("ssh: the host key of %s (%s) is not known: the server offered %s %s. Verify that fingerprint with the host's owner (on the host: ssh-keygen -lf /etc/ssh/ssh_host_*_key.pub), then open again with accept_new_host_key: true to record it in %s",
		e.Host, e.KnownAs, e.KeyType, e.Fingerprint, e.File)
}

// KnownKey is one known_hosts entry that a HostKeyChangedError conflicts with.
type KnownKey struct {
	File        string
	Line        int
	KeyType     string
	Fingerprint string
}

// HostKeyChangedError reports a server whose host key differs from the one
// known_hosts holds for it. It is always refused, whatever
// accept_new_host_key or StrictHostKeyChecking say.
type HostKeyChangedError struct {
	Host        string
	KnownAs     string
	KeyType     string
	Fingerprint string
	Known       []KnownKey // the conflicting entries, at least one
}

func (e *HostKeyChangedError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ssh: HOST KEY CHANGED for %s (%s): the server offered %s %s, but ", e.Host, e.KnownAs, e.KeyType, e.Fingerprint)
	for i, k := range e.Known {
		if i > 0 {
			b.WriteString(" and ")
		}
		fmt.Fprintf(&b, "%s:%d holds %s %s", k.File, k.Line, k.KeyType, k.Fingerprint)
	}
	b.WriteString(". Someone may be intercepting the connection, or the host was reinstalled; ttymux refuses to connect (accept_new_host_key does not override this). If the host owner confirms the new key, remove the old entry")
	if len(e.Known) > 0 {
		fmt.Fprintf(&b, " (ssh-keygen -R '%s' -f %s)", e.KnownAs, e.Known[0].File)
	}
	b.WriteString(" and open again with accept_new_host_key: true")
	return b.String()
}

// AuthAttempt is one line of an AuthError: a method, what was tried with it
// and what happened.
type AuthAttempt struct {
	Method string // "publickey", "password", "keyboard-interactive"
	// What names the key ("~/.ssh/id_ed25519", "agent key me@laptop"); empty
	// for password methods and for notes about the method as a whole.
	What string
	// Result is "rejected", "accepted" or why it was not tried ("encrypted;
	// pass password to unlock", "no password given", "not offered by the
	// server").
	Result string
}

// AuthError reports that every authentication method failed. Attempts
// lists each method in the order tried; it never contains a secret.
type AuthError struct {
	User string
	Host string
	// Allowed is what the server said it accepts ("publickey,password").
	Allowed []string
	// Attempts are in order; notes about skipped keys and methods included.
	Attempts []AuthAttempt
	// Err is set when the server ended authentication itself (too many
	// failures) or the link broke during it.
	Err error
}

func (e *AuthError) Error() string {
	var b strings.Builder
	fmt.Fprintf(&b, "ssh: authentication as %q on %s failed", e.User, e.Host)
	if e.Err != nil {
		fmt.Fprintf(&b, " (%v)", e.Err)
	}
	b.WriteString(": ")
	b.WriteString(e.summary())
	needPassword := false
	for _, a := range e.Attempts {
		if strings.Contains(a.Result, "pass password") || a.Result == "no password given" {
			needPassword = true
		}
	}
	switch {
	case needPassword:
		b.WriteString(". Pass password (it answers password and keyboard-interactive prompts and unlocks encrypted keys), or add your public key to the server's authorized_keys")
	default:
		b.WriteString(". Check the user name, that your public key is in the server's authorized_keys, and the password")
	}
	return b.String()
}

// summary groups the attempts by method: "publickey: tried a (rejected), b
// (encrypted; ...); password: no password given".
func (e *AuthError) summary() string {
	var order []string
	byMethod := map[string][]string{}
	for _, a := range e.Attempts {
		if _, ok := byMethod[a.Method]; !ok {
			order = append(order, a.Method)
		}
		s := a.Result
		if a.What != "" {
			s = fmt.Sprintf("%s (%s)", a.What, a.Result)
		}
		byMethod[a.Method] = append(byMethod[a.Method], s)
	}
	parts := make([]string, 0, len(order))
	for _, m := range order {
		items := byMethod[m]
		prefix := ""
		if m == "publickey" {
			for _, a := range e.Attempts {
				if a.Method == m && a.What != "" {
					prefix = "tried "
					break
				}
			}
		}
		parts = append(parts, fmt.Sprintf("%s: %s%s", m, prefix, strings.Join(items, ", ")))
	}
	if len(parts) == 0 {
		return "no method to try"
	}
	s := strings.Join(parts, "; ")
	if len(e.Allowed) > 0 {
		s += fmt.Sprintf(" (the server accepts: %s)", strings.Join(e.Allowed, ", "))
	}
	return s
}

func (e *AuthError) Unwrap() error { return e.Err }

// JumpError reports that a ProxyJump hop failed: reaching, verifying or
// authenticating to hop number Hop (1-based, of Hops), or that hop failing
// to open the tunnel onward (then Next names the address it could not
// reach). Err is the underlying error (a *NameError, *AuthError, ...), so
// errors.As sees through it.
type JumpError struct {
	Hop  int
	Hops int
	Host string // the hop's alias
	Next string // set when the hop could not reach the next address
	Err  error
}

func (e *JumpError) Error() string {
	if e.Next != "" {
		return fmt.Sprintf("ssh: jump host %d of %d (%s) could not open a tunnel to %s: %v; check that address as seen from the jump host (HostName and Port of the next hop or target) and that the jump host allows TCP forwarding",
			e.Hop, e.Hops, e.Host, e.Next, e.Err)
	}
	return fmt.Sprintf("ssh: jump host %d of %d (%s): %v", e.Hop, e.Hops, e.Host, strings.TrimPrefix(e.Err.Error(), "ssh: "))
}

func (e *JumpError) Unwrap() error { return e.Err }

// LinkError reports that an established connection died: sessions on it
// end, and the remote programs may or may not still be running (sshd hangs
// them up when it notices). Read returns it instead of io.EOF, and Wait
// returns it when no exit status arrived.
type LinkError struct {
	Host string
	Addr string
	// BlackHoled is set when keepalives went unanswered: the network
	// silently drops the traffic (a sleeping laptop, a NAT that forgot the
	// flow, a dead host) rather than closing the connection.
	BlackHoled bool
	// Missed is how many keepalive intervals passed without a reply, and
	// Interval their length, when BlackHoled.
	Missed   int
	Interval time.Duration
	Err      error
}

func (e *LinkError) Error() string {
	if e.BlackHoled {
		return fmt.Sprintf("ssh: the link to %s (%s) died: the server did not answer keepalives for %s (%d × ServerAliveInterval %s), so the network is black-holing the connection; the remote program may still be running; open a new session when the host is reachable again",
			e.Host, e.Addr, time.Duration(e.Missed)*e.Interval, e.Missed, e.Interval)
	}
	cause := e.Err.Error()
	if errors.Is(e.Err, io.EOF) {
		cause = "the server closed the connection"
	}
	return fmt.Sprintf("ssh: the link to %s (%s) died: %s; the remote program may still be running; open a new session when the host is reachable again",
		e.Host, e.Addr, cause)
}

func (e *LinkError) Unwrap() error { return e.Err }

// errClosedConn is what Read, Write and Wait return after Close; it matches
// os.ErrClosed like the local transport's.
var errClosedConn = fmt.Errorf("ssh session closed: %w", os.ErrClosed)
