// Package transport defines what ttymux needs from a byte stream to a shell,
// device or process, and the types shared by every transport.
//
// It owns interfaces and plain data only. Concrete transports live in
// sub-packages (local, sshconn, serial, agent) and never import the session
// layer; the session layer never imports them. cmd/ttymux wires the two.
//
// A Target holds what every kind of transport reads; what one kind alone
// needs is a Spec of that kind's type (SSHParams, SerialParams, or a new
// transport's own), so that adding a transport adds no field here.
//
// Concurrency: a Conn's Read, Write and Close may be called from different
// goroutines. Exactly one goroutine should Read (the session's pump).
package transport

import (
	"context"
	"errors"
	"fmt"
	"io"
	"time"
)

// A Conn is a live byte stream to a shell, device or process. Read, Write and
// Close may run on different goroutines; Close unblocks pending Reads and
// Writes and may be called more than once.
type Conn interface {
	io.ReadWriteCloser
	// Wait blocks until the far end is gone: nil for a clean exit,
	// *ExitError for a non-zero status or signal, another error if the
	// link broke first.
	Wait() error
}

// An Opener makes Conns of one kind. ctx bounds setup only: once Open
// returns, the Conn lives until Close (as with net.Dialer.DialContext).
type Opener interface {
	Open(ctx context.Context, t Target) (Conn, error)
}

// Size is a terminal window size in character cells.
type Size struct {
	Rows int `json:"rows"`
	Cols int `json:"cols"`
}

// Valid reports whether both dimensions are usable by a terminal.
func (s Size) Valid() bool { return s.Rows > 0 && s.Cols > 0 && s.Rows <= 1000 && s.Cols <= 1000 }

// DefaultSize is used when a caller gives none. 40x120 keeps long command
// lines unwrapped while staying cheap to render.
var DefaultSize = Size{Rows: 40, Cols: 120}

// Target describes what to open: what every kind of transport reads, and
// in Spec what only one kind reads. A zero Target opens the user's login
// shell.
type Target struct {
	// Command is the program to run; empty means the user's shell. For
	// SSH it is a remote command line run instead of the login shell (Args
	// are ignored); for a serial port it is the port's path.
	Command string
	// Args are passed to Command (not including argv[0]).
	Args []string
	// Dir is the working directory; empty means the current one.
	Dir string
	// Env holds extra "KEY=value" entries layered over the inherited
	// environment (later entries win).
	Env []string
	// Size is the initial window size; the zero value means DefaultSize.
	Size Size
	// Term is the TERM value for the far end; empty means "xterm-256color".
	Term string

	// Confine asks for the program to run under the kernel's read-only
	// confinement (Landlock: no filesystem writes outside its terminal and
	// a scratch directory, no signals beyond its own process tree) where
	// the far end can apply it: a local PTY, or one the agent holds on a
	// Linux host. Other transports ignore it; Confiner says what applied.
	Confine bool

	// Spec is what only this target's kind reads, of that kind's own
	// type: SSHParams for an SSH login, SerialParams for a serial port,
	// nil for a program on a PTY. A new transport brings its own type;
	// nothing else needs to know it.
	Spec Spec
}

// A Spec is the part of a Target that one kind of transport reads.
type Spec interface {
	// TransportKind names the kind ("ssh", "serial"): a Keeper that holds
	// more than one kind of session tells them apart by it.
	TransportKind() string
}

// SSH returns t's SSH parameters; the zero SSHParams when t is not an
// SSH target.
func (t Target) SSH() SSHParams {
	p, _ := t.Spec.(SSHParams)
	return p
}

// Serial returns t's serial line settings, and whether t is a serial
// port at all.
func (t Target) Serial() (SerialParams, bool) {
	p, ok := t.Spec.(SerialParams)
	return p, ok
}

// SSHTarget is the Target of a login on host, configured by ssh_config.
func SSHTarget(host string) Target { return Target{Spec: SSHParams{Host: host}} }

// SSHParams say where and how an SSH login connects. Host is an ssh_config
// alias or a host name; the other fields override what the config says.
type SSHParams struct {
	Host         string
	User         string
	Port         int
	IdentityFile string
	Jump         string // ProxyJump syntax; "none" disables a configured jump
	// Password answers password and keyboard-interactive prompts and
	// unlocks encrypted keys. It is a secret: never logged or returned.
	Password         string
	AcceptNewHostKey bool
}

// TransportKind is "ssh".
func (SSHParams) TransportKind() string { return "ssh" }

// KindSerial is the TransportKind of SerialParams: a Keeper given a
// Target whose Spec is SerialParams holds the serial port Target.Command.
const KindSerial = "serial"

// SerialParams are a serial port's line settings. Zero values mean 115200
// baud, 8 data bits, no parity, 1 stop bit, no flow control.
type SerialParams struct {
	Baud     int
	DataBits int    // 5–8
	Parity   string // "none", "odd", "even", "mark", "space"
	StopBits string // "1", "1.5", "2"
	// FlowControl is "none" or "rtscts" (hardware), where supported.
	FlowControl string
	// Reconnect reopens the port when the device comes back after being
	// unplugged, keeping the session.
	Reconnect bool
	// DTR and RTS say what opening the port does to those lines: "on"
	// (default), "off" or "keep" (internal/serialport, modem.go).
	DTR, RTS string
}

// TransportKind is KindSerial.
func (SerialParams) TransportKind() string { return KindSerial }

// An ArrivalReporter knows when the bytes its last Read returned arrived
// at the far end: an agent that held them while no reader was attached
// (a server restarted) says when they came, which the reader's clock
// cannot. Arrival is called by the reading goroutine, after a Read; ok is
// false when the far end did not say (an older agent, live output).
type ArrivalReporter interface {
	Arrival() (at time.Time, ok bool)
}

// Resizer is implemented by Conns whose far end has a window size
// (a PTY or an SSH pty-req). Resize delivers SIGWINCH or window-change.
type Resizer interface {
	Resize(ctx context.Context, sz Size) error
}

// Signal names a POSIX signal without the SIG prefix, as in RFC 4254
// section 6.10: "INT", "TERM", "KILL", "HUP", "QUIT", "TSTP", "CONT",
// "USR1", "USR2", "WINCH".
type Signal string

// Signaler is implemented by Conns that can deliver a signal to the far
// end's foreground process group (local and agent PTYs) or process (SSH).
type Signaler interface {
	Signal(ctx context.Context, sig Signal) error
}

// Foreground describes the process that currently owns the terminal.
type Foreground struct {
	// Pgid is the foreground process group id, 0 when unknown.
	Pgid int
	// Name is the program name of the group leader (as in /proc/PID/comm).
	Name string
	// IsShell reports whether the foreground group is the session's own
	// top-level process (the shell) rather than a program it started.
	IsShell bool
}

// Foregrounder is implemented by Conns that can tell which process group
// owns the terminal (local and agent PTYs). It must be cheap: the completion
// detector may call it every few milliseconds while a command runs.
type Foregrounder interface {
	Foreground() (Foreground, error)
}

// Confiner is implemented by Conns that can say whether their program runs
// under the kernel's confinement (Target.Confine): the Landlock ABI version
// applied, 0 for none.
type Confiner interface {
	Confined() int
}

// EchoReporter is implemented by Conns that can read the terminal's ECHO
// flag. Echo off while a program waits for input usually means a password
// prompt.
type EchoReporter interface {
	Echo() (bool, error)
}

// SharedInput is implemented by Conns whose far end other clients may
// type into too (a session the agent holds, which ttymux attach and the
// console of ttymux web attach as well). TypedByOthers counts the bytes
// of input other clients wrote since this Conn attached; it only grows,
// and must be cheap.
type SharedInput interface {
	TypedByOthers() int64
}

// PersonWriter is implemented by Conns whose far end may count a person's
// input apart from a model's (a session an agent with CapPersonInput
// holds). WritePerson writes keys a person typed through this server (the
// console's take-over), which the far end counts in the other clients'
// TypedByOthers. PersonCounted reports whether the far end tells them
// apart, and from which output offset its counts cover the input (the
// session's end when this Conn attached; keys typed before went
// uncounted): a command line that starts at or after it and that no
// counted keys explain came from another model's client (a second server
// on the session), not from a person.
type PersonWriter interface {
	WritePerson(p []byte) (int, error)
	PersonCounted() (from int64, ok bool)
}

// ExitError reports that the far end ended with a non-zero status or was
// killed by a signal. Modelled on golang.org/x/crypto/ssh.ExitError.
type ExitError struct {
	// Status is the exit status; for a signal it is 128+signal number, as
	// shells report it.
	Status int
	// Signal is set when the process was killed by a signal ("KILL").
	Signal Signal
}

func (e *ExitError) Error() string {
	if e.Signal != "" {
		return fmt.Sprintf("killed by signal %s", e.Signal)
	}
	return fmt.Sprintf("exit status %d", e.Status)
}

// ExitStatus returns the status as a shell's $? would show it.
func (e *ExitError) ExitStatus() int { return e.Status }

// Breaker is implemented by Conns that can send a line BREAK (serial ports:
// a BREAK drops a board into its monitor or bootloader).
type Breaker interface {
	Break(ctx context.Context, d time.Duration) error
}

// ModemLine names a modem control line.
type ModemLine string

const (
	DTR ModemLine = "dtr"
	RTS ModemLine = "rts"
)

// ModemController is implemented by Conns with modem control lines (serial
// ports). Boards are commonly reset, or put into their bootloader, by
// toggling DTR and RTS. A device that has no such lines (a pseudo-terminal)
// returns an error wrapping ErrUnsupported.
type ModemController interface {
	SetModemLine(line ModemLine, on bool) error
}

// Backlog is implemented by a Conn that can tell how much output the far
// end has already produced that Read has not returned yet: a local PTY or a
// serial port, where the kernel holds it. A session waits for its reader
// to take those bytes before it types, so that output made before a send
// is never taken for the send's.
type Backlog interface {
	Unread() (int, error)
}

// ErrUnsupported is wrapped by errors for operations the far end cannot do.
var ErrUnsupported = errors.New("not supported by this device")

// Link states reported by LinkStater.
const (
	LinkUp           = "up"
	LinkDisconnected = "disconnected"
)

// LinkStater is implemented by Conns whose link can drop and come back
// without ending the session (a serial device unplugged and plugged in
// again). Read blocks while the link is down.
type LinkStater interface {
	LinkState() string
}
