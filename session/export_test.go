package session

// Exported for the external tests.
var RemoteBootstrap = remoteBootstrap

const MaxBootstrap = maxBootstrap

// HookPrintsNoC reports whether s's hook said it prints no C marks.
func HookPrintsNoC(s *Session) bool { return s.hookPrintsNoC() }
