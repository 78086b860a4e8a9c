package session_test

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestPackageInitsAreLazy: the inits of the packages every ttymux process
// links build nothing a process may never use. A client waits for them at
// every start of `ttymux mcp` before its first tools/list (issue #37); the
// prompt and state patterns, the hook's error pattern and the policy's
// error pattern are compiled on first use. The test binary is run again
// with GODEBUG=inittrace=1, which reports each package init's allocations
// (a count, not a time, so load does not move it). Before: session 43,864
// bytes, session/verdict 105,184, internal/policy 15,336.
func TestPackageInitsAreLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	for pkg, limit := range map[string]int{
		"session":         8_000,
		"session/verdict": 8_000,
		"internal/policy": 4_000,
	} {
		re := regexp.MustCompile(`init github\.com/ttymux/ttymux/` + regexp.QuoteMeta(pkg) + ` @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs`)
		m := re.FindSubmatch(out)
		if m == nil {
			t.Errorf("no init trace for %s in:\n%s", pkg, out)
			continue
		}
		if n, _ := strconv.Atoi(string(m[1])); n > limit {
			t.Errorf("%s's package init allocates %d bytes in %s allocations (limit %d): build patterns and tables on first use", pkg, n, m[2], limit)
		}
	}
}
