package session

import (
	"fmt"

	"github.com/ttymux/ttymux/internal/policy"
)

// The policy's serial rules (internal/policy, serial.go): which ports
// open_serial may open at all, and read-only consoles, into which nothing is
// typed.

// ReadOnlyError is returned by Send (and Borrow) for a serial console the
// policy makes read-only. It unwraps to a denied *GateError, so callers
// that audit the gate's refusals record it as one.
type ReadOnlyError struct {
	Host string // serial:PORT
	gate *GateError
}

func (e *ReadOnlyError) Error() string {
	return fmt.Sprintf("refused: %s is read-only in the policy (read_only = true): nothing is typed into it, not text, keys, hex, BREAK or DTR/RTS changes, and no file is sent through it; "+
		"read its output with read, or ask the user to change the policy", e.Host)
}

func (e *ReadOnlyError) Unwrap() error { return e.gate }

// inputRefused returns a *ReadOnlyError when the policy makes the session
// a read-only serial console.
func (s *Session) inputRefused() error {
	port := s.port
	if port == "" || !s.policy.SerialReadOnly(policy.SerialNames(port)) {
		return nil
	}
	host := s.PolicyHost() // serial:PORT, the serial kind's name for it
	return &ReadOnlyError{Host: host, gate: &GateError{
		Rule: "read_only", Reason: host + " is read-only: nothing may be typed into it",
		Session: s.id, Host: host, Denied: true,
	}}
}

// CheckWritable returns a *ReadOnlyError when nothing may be typed into
// the session (a serial console the policy makes read-only), so a caller
// can refuse before it asks anyone for anything.
func (s *Session) CheckWritable() error { return s.inputRefused() }

// checkInput runs before Send types anything: a read-only serial console
// refuses every input. (Bytes given in hex go through Send's gate with
// the text: there is no way around it.)
func (s *Session) checkInput(req SendRequest) error {
	if err := s.inputRefused(); err != nil {
		return err
	}
	if len(req.Bytes) > MaxSendBytes {
		return fmt.Errorf("hex is %d bytes, over the %d-byte limit for one send; split it", len(req.Bytes), MaxSendBytes)
	}
	return nil
}

// checkSerialOpen refuses to open a serial port the policy's [serial]
// ports do not list.
func (m *Manager) checkSerialOpen(req OpenRequest) error {
	k, ok := m.kind(req.Transport)
	port := k.port(req.Target)
	if !ok || port == "" {
		return nil
	}
	return m.opts.Policy.SerialPortAllowed(port, policy.SerialNames(port))
}
