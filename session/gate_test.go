package session

import (
	"errors"
	"testing"
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

// TestPolicyHost: the name the policy matches each kind of session by.
func TestPolicyHost(t *testing.T) {
	for _, tt := range []struct {
		s    *Session
		want string
	}{
		{&Session{id: "t1", transport: "local", command: "/bin/bash"}, "local"},
		{&Session{id: "s3", transport: "local", command: "bash"}, "local"},
		{&Session{id: "t2", transport: "ssh", command: "ssh prod-web"}, "prod-web"},
		{&Session{id: "t2", transport: "ssh", command: "ssh prod-web uptime"}, "prod-web"},
		{&Session{id: "box/s1", transport: "ssh", command: "ssh box"}, "box"},
		{&Session{id: "t4", transport: "serial", command: "serial /dev/ttyUSB0"}, "serial:/dev/ttyUSB0"},
		{&Session{id: "s5", transport: "serial", command: "/dev/ttyACM0"}, "serial:/dev/ttyACM0"},
	} {
		if got := tt.s.PolicyHost(); got != tt.want {
			t.Errorf("%s %q: %q, want %q", tt.s.transport, tt.s.command, got, tt.want)
		}
	}
}
