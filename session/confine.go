package session

// Confined returns the Landlock ABI version the session's program runs
// under (its host is read-only in the policy and the kernel could hold it:
// a local PTY or the agent on a Linux host), 0 when only the command checks
// hold it.
func (s *Session) Confined() int { return s.confined }
