package session

import (
	"errors"
	"testing"

	"github.com/ttymux/ttymux/transport"
)

// TestGate: the session's gate is internal/gate's (whose TestCheck holds
// the disguise corpus); a few lines here pin the wiring.
func TestGate(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		refused bool
	}{
		{"rm -rf /", "rm -rf /", true},
		{"bash -c", "bash -c 'rm -rf /'", true},
		{"quotes split the name", `r""m -rf /`, true},
		{"unfinished quote", `echo "x`, true},
		{"echo mentions rm", "echo 'do not rm -rf /'", false},
		{"ls", "ls -la /", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := gateOnly(tt.text)
			var ge *GateError
			if got := errors.As(err, &ge); got != tt.refused {
				t.Fatalf("gateOnly(%q) = %v, want refused=%v", tt.text, err, tt.refused)
			}
		})
	}
}

// TestPolicyHost: the name the policy matches each kind of session by,
// opened here (target) or kept by an agent (host; the kept session's
// command as its keeper reports it).
func TestPolicyHost(t *testing.T) {
	for _, tt := range []struct {
		name string
		kind Kind
		t    transport.Target
		host string
		want string
	}{
		{"local shell", LocalKind(nil), transport.Target{Command: "/bin/bash"}, "", "local"},
		{"local kept", LocalKind(nil), transport.Target{Command: "bash"}, "", "local"},
		{"ssh", SSHKind(nil), transport.SSHTarget("prod-web"), "", "prod-web"},
		{"ssh command", SSHKind(nil), transport.Target{Command: "uptime", Spec: transport.SSHParams{Host: "prod-web"}}, "", "prod-web"},
		{"ssh kept on its host", SSHKind(nil), transport.Target{Command: "/bin/sh"}, "box", "box"},
		{"serial", SerialKind(nil), transport.Target{Command: "/dev/ttyUSB0"}, "", "serial:/dev/ttyUSB0"},
		{"serial kept", SerialKind(nil), transport.Target{Command: "/dev/ttyACM0"}, "", "serial:/dev/ttyACM0"},
		{"unregistered kept on a host", Kind{Name: "local"}, transport.Target{Command: "bash"}, "box", "box"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			s := &Session{id: JoinID(tt.host, "s1"), transport: tt.kind.Name, input: input{policyHost: tt.kind.policyHost(tt.t, tt.host)}}
			if got := s.PolicyHost(); got != tt.want {
				t.Errorf("%s %+v on %q: %q, want %q", tt.kind.Name, tt.t, tt.host, got, tt.want)
			}
		})
	}
}
