package secretpage

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestInitIsLazy: the package's init parses no page: every ttymux process
// links it, few ever serve a page, and a client waits for the server's
// start-up (issue #37). The test binary is run again with
// GODEBUG=inittrace=1, which reports each package init's allocations (a
// count, not a time, so load does not move it). Parsing both templates at
// init allocated 9,328 bytes in 109 allocations.
func TestInitIsLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`init github\.com/ttymux/ttymux/internal/secretpage @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs`).FindSubmatch(out)
	if m != nil {
		if n, _ := strconv.Atoi(string(m[1])); n > 2_000 {
			t.Errorf("the package init allocates %d bytes in %s allocations: parse the pages on first use", n, m[2])
		}
	}
	// The pages parse when asked for.
	if formPage().Lookup("form") == nil || donePage().Lookup("done") == nil {
		t.Error("a page did not parse")
	}
}
