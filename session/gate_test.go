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
