package session

import (
	"context"
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
	s.mu.Lock()
	s.pace = p
	kept := s.kept
	s.mu.Unlock()
	if kept {
		s.persist()
	}
}

// typeBytes writes p to the far end, paced by override or, when it is
// nil, by the session's pacing. It stops early when ctx ends.
func (s *Session) typeBytes(ctx context.Context, p []byte, override *Pacing) error {
	s.mu.Lock()
	pace := s.pace
	s.mu.Unlock()
	if override != nil {
		pace = *override
	}
	if pace.IsZero() {
		_, err := s.conn.Write(p)
		return err
	}
	t := time.NewTimer(0)
	defer t.Stop()
	<-t.C
	for i := 0; i < len(p); {
		// One write per byte, or per line when only lines are paced.
		j := i + 1
		if pace.Char <= 0 {
			for j < len(p) && !lineEnd(p, j-1) {
				j++
			}
		}
		if _, err := s.conn.Write(p[i:j]); err != nil {
			return err
		}
		d := pace.Char
		if lineEnd(p, j-1) && pace.Line > 0 {
			d = pace.Line
		}
		i = j
		if d <= 0 || i == len(p) {
			continue
		}
		t.Reset(d)
		select {
		case <-t.C:
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// lineEnd reports whether p[i] ends a line: LF, or CR not followed by LF.
func lineEnd(p []byte, i int) bool {
	return p[i] == '\n' || p[i] == '\r' && (i+1 == len(p) || p[i+1] != '\n')
}

// Pacing returns how Send types into the session by default.
func (s *Session) Pacing() Pacing {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.pace
}
