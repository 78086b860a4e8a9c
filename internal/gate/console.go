package gate

import "strings"

// RuleConsole holds a line that starts ttymux's console (ttymux web). The
// console is where the human approves held commands: one started from a
// session would be the AI's, holding a token the AI read from its output,
// and could approve the AI's own holds. Servers refuse a console that runs
// inside a session (cmd/ttymux consolehold.go); this rule also catches the
// console started so that it leaves the session's process tree (setsid, a
// double fork), which that check cannot see. It reads text: a renamed copy
// of the binary passes (docs/security.md).
const RuleConsole = "starting ttymux's console (ttymux web), where held commands are approved, from a session the AI types into"

// startsConsole reports whether argv runs ttymux web.
func startsConsole(argv []string) bool {
	if name := base(argv[0]); name != "ttymux" && !strings.HasPrefix(name, "ttymux.") {
		return false
	}
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		return a == "web"
	}
	return false
}
