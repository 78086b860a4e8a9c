package gate

import (
	"os"
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// TestInitIsLazy: the package's init builds nothing a process may never
// use (the read-only grammars, the patterns): every ttymux process links
// the gate, and a client waits for the server's start-up (issue #37). The
// test binary is run again with GODEBUG=inittrace=1, which reports each
// package init's allocations: a count, not a time, so load does not move
// it. It was 1.1 MB in 7,755 allocations before.
func TestInitIsLazy(t *testing.T) {
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), "GODEBUG=inittrace=1")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	m := regexp.MustCompile(`init github\.com/ttymux/ttymux/internal/gate @\S+ ms, \S+ ms clock, (\d+) bytes, (\d+) allocs`).FindSubmatch(out)
	if m == nil {
		t.Fatalf("no init trace for the gate in:\n%s", out)
	}
	bytes, _ := strconv.Atoi(string(m[1]))
	if bytes > 100_000 {
		t.Errorf("the gate's package init allocates %d bytes in %s allocations; build tables and patterns on first use", bytes, m[2])
	}
	// What init no longer builds is still there when asked for.
	if ok, why := ReadOnly("ls -la /tmp"); !ok {
		t.Errorf("ReadOnly(ls -la /tmp) = false: %s", why)
	}
	if f := Check("mkfs.ext4 /dev/sda1"); f == nil {
		t.Error("Check(mkfs.ext4 /dev/sda1) found nothing")
	}
}
