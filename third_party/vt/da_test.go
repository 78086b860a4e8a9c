package vt

import (
	"io"
	"testing"
)

// The primary device attributes claim only what the emulator does: a
// program told of 132 columns switches to them with DECCOLM and lays its
// screen out for a width the emulator does not have.
func TestPrimaryDeviceAttributesClaimNo132Columns(t *testing.T) {
	term := newTestTerminal(t, 10, 1)
	go term.WriteString("\x1b[c")
	buf := make([]byte, 64)
	n, err := term.Read(buf)
	if err != nil && err != io.EOF {
		t.Fatal(err)
	}
	if got, want := string(buf[:n]), "\x1b[?62;22c"; got != want {
		t.Errorf("DA1 answer %q, want %q", got, want)
	}
}
