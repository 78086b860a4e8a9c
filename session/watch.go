package session

// A person watching a session this server holds (the console of ttymux mcp
// --http) reads its output as the terminal got it: raw bytes from the log,
// followed live.

// OutputEnd returns the log offset one past the last output byte.
func (s *Session) OutputEnd() int64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.ring.End()
}

// OutputFrom returns up to limit bytes of raw output from offset from, the
// offset after them, how many bytes from from on had left the log already
// (skipped), and whether the session has ended with nothing left to read.
// Secrets the session knows are masked, as in every result. Wait on
// Changed for more.
func (s *Session) OutputFrom(from int64, limit int) (b []byte, next, lost int64, ended bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if st := s.ring.Start(); from < st {
		lost, from = st-from, st
	}
	to := min(s.ring.End(), from+int64(limit))
	b, _ = s.ring.AppendRange(nil, from, to)
	if len(s.secrets) > 0 && len(b) > 0 {
		b = []byte(redact(string(b), s.secrets))
	}
	return b, to, lost, to == s.ring.End() && (s.exited || s.closed)
}
