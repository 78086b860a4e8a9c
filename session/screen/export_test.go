package screen

// caughtUp reports whether the emulator exists and has been fed all output
// written so far, or the Screen has decided not to follow it (the output is
// waiting for a reader).
func (s *Screen) caughtUp() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return !s.armed && !s.urgent
}
