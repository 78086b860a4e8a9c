package session

import (
	"errors"
	"testing"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/session/verdict"
)

// TestHumanWriteReadOnlySerial: a person's keys from the console reach a
// serial console unless the policy makes it read-only, as the model's do.
func TestHumanWriteReadOnlySerial(t *testing.T) {
	p, err := policy.Parse("p.toml", []byte("[[rule]]\nhosts = [\"serial:/dev/ttyLAB*\"]\nread_only = true\n"))
	if err != nil {
		t.Fatal(err)
	}
	w := &writeLog{}
	s := &Session{id: "t1", transport: "serial", command: "serial /dev/ttyLAB0", terminal: terminal{conn: w, det: verdict.NewDetector("", 0)}, input: input{policyHost: "serial:/dev/ttyLAB0", port: "/dev/ttyLAB0", policy: p}}
	var ro *ReadOnlyError
	if _, err := s.HumanWrite([]byte("reboot\r")); !errors.As(err, &ro) || len(w.writes) != 0 {
		t.Fatalf("a person's keys into a read-only console: err %v, written %v", err, w.writes)
	}
	s.port, s.policyHost = "/dev/ttyOTHER0", "serial:/dev/ttyOTHER0"
	if n, err := s.HumanWrite([]byte("root\r")); err != nil || n != 5 || len(w.writes) != 1 || s.human.keys != 5 {
		t.Fatalf("a person's keys into a writable console: n %d err %v written %v keys %d", n, err, w.writes, s.human.keys)
	}
}
