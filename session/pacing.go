package session

import (
	"fmt"
	"time"
)

// MaxPace bounds a pacing delay: a second per character is already slower
// than anyone types.
const MaxPace = time.Second

// Pacing spaces out what Send types, for devices that read their input
// slower than a serial line delivers it (a bootloader polling its UART
// with a 16-byte FIFO drops what arrives while it is busy). The zero value
// types everything at once.
type Pacing struct {
	// Char is the pause after each byte.
	Char time.Duration
	// Line is the pause after each line ending (CR, LF, or CRLF as one),
	// instead of Char: time for the device to act on the line.
	Line time.Duration
}

// Validate checks the delays' range; its error names the parameters.
func (p Pacing) Validate() error {
	if p.Char < 0 || p.Line < 0 || p.Char > MaxPace || p.Line > 10*MaxPace {
		return fmt.Errorf("char_delay_ms must be 0-%d and line_delay_ms 0-%d", MaxPace.Milliseconds(), 10*MaxPace.Milliseconds())
	}
	return nil
}

// IsZero reports whether p types everything at once.
func (p Pacing) IsZero() bool { return p.Char <= 0 && p.Line <= 0 }

// SetPacing sets how Send types into the session when a SendRequest gives
// no Pacing of its own.
// A kept session stores it with its agent, so that a restarted server
// types at the same pace.
func (s *Session) SetPacing(p Pacing) {
	s.pace.Store(&p)
	if s.kept {
		s.persist()
	}
}

// Pacing returns how Send types into the session by default.
func (s *Session) Pacing() Pacing { return s.pacing() }
