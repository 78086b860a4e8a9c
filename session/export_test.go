package session

// Exported for the external tests.
var RemoteBootstrap = remoteBootstrap

const MaxBootstrap = maxBootstrap

// HookPrintsNoC reports whether s's hook said it prints no C marks.
func HookPrintsNoC(s *Session) bool { return s.hookPrintsNoC() }

// HookMarksNoPromptEnd reports whether s's hook said no B mark will come.
func HookMarksNoPromptEnd(s *Session) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.det.NoB()
}

// EvaluationsOfLast returns how many times await evaluated s's last command.
func EvaluationsOfLast(s *Session) int {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.cmd == nil {
		return 0
	}
	return s.cmd.evals
}
