package ptyproc_test

import (
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/ptyproc"
)

// needLandlock skips where the kernel has no Landlock (the confinement is
// then absent by design), except under CI, whose kernel has it.
func needLandlock(t *testing.T) {
	t.Helper()
	if ptyproc.ConfineLevel() == 0 {
		if os.Getenv("CI") == "true" {
			t.Fatal("this kernel has no Landlock; CI's must")
		}
		t.Skip("the kernel has no Landlock")
	}
}

// confineScript tries what a confined child must not do (write a file
// outside its scratch directory, signal a process outside its tree, reach
// an abstract unix socket) and what it must still do (its scratch
// directory, its terminal, /dev/null, reading).
func confineScript(dir, abstract string) string {
	return fmt.Sprintf(`touch %[1]q/made; echo "touch=$?"
echo x > "$TMPDIR/s" && echo scratch=ok
echo x > /dev/tty && echo tty=ok
echo x > /dev/null && echo null=ok
cat /etc/passwd > /dev/null && echo read=ok
kill -0 %[2]d 2>/dev/null; echo "kill=$?"
python3 -c 'import socket; socket.socket(socket.AF_UNIX).connect("\0%[3]s")' 2>/dev/null; echo "abstract=$?"
grep NoNewPrivs /proc/self/status
`, dir, os.Getpid(), abstract)
}

// TestConfinedChild: a child started with Confine cannot create a file
// outside its scratch directory (EACCES), signal this process or connect to
// its abstract socket, while its terminal, /dev/null and its TMPDIR work;
// the same script unconfined does all of it.
func TestConfinedChild(t *testing.T) {
	needLandlock(t)
	abstract := "ttymux-test-" + strconv.Itoa(os.Getpid())
	l, err := net.Listen("unix", "@"+abstract)
	if err != nil {
		t.Fatalf("listen on an abstract socket: %v", err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	for _, confine := range []bool{true, false} {
		t.Run(fmt.Sprintf("confine=%v", confine), func(t *testing.T) {
			dir := t.TempDir()
			spec := scriptSpec(t, confineScript(dir, abstract))
			spec.Confine = confine
			p := start(t, spec)
			got, _ := pump(t, p).Wait(t)
			got = crlf(got)
			_, statErr := os.Stat(filepath.Join(dir, "made"))
			if confine {
				if p.Confined() == 0 {
					t.Errorf("Confined() = 0 on a kernel with Landlock ABI %d", ptyproc.ConfineLevel())
				}
				for _, want := range []string{"Permission denied", "touch=1", "scratch=ok", "tty=ok", "null=ok", "read=ok", "NoNewPrivs:\t1"} {
					if !strings.Contains(got, want) {
						t.Errorf("confined output lacks %q:\n%s", want, got)
					}
				}
				if statErr == nil {
					t.Errorf("a confined child created %s/made", dir)
				}
				if ptyproc.ConfineLevel() >= 6 {
					for _, want := range []string{"kill=1", "abstract=1"} {
						if !strings.Contains(got, want) {
							t.Errorf("confined output lacks %q (ABI 6 scoping):\n%s", want, got)
						}
					}
				}
				return
			}
			if p.Confined() != 0 {
				t.Errorf("Confined() = %d for an unconfined child", p.Confined())
			}
			for _, want := range []string{"touch=0", "kill=0", "abstract=0", "NoNewPrivs:\t0"} {
				if !strings.Contains(got, want) {
					t.Errorf("unconfined output lacks %q:\n%s", want, got)
				}
			}
			if statErr != nil {
				t.Errorf("an unconfined child did not create its file: %v", statErr)
			}
		})
	}
}

// TestConfinedScratchRemoved: Close removes the scratch directory.
func TestConfinedScratchRemoved(t *testing.T) {
	needLandlock(t)
	spec := scriptSpec(t, `echo "tmp=$TMPDIR ."; sleep 30`)
	spec.Confine = true
	p := start(t, spec)
	out := pump(t, p)
	out.Expect(t, "tmp=")
	out.Expect(t, " .")
	line := ""
	for _, f := range strings.Fields(crlf(out.String())) {
		if s, ok := strings.CutPrefix(f, "tmp="); ok {
			line = s
		}
	}
	if _, err := os.Stat(line); err != nil {
		t.Fatalf("scratch directory %q: %v", line, err)
	}
	_ = p.Close()
	if _, err := os.Stat(line); !os.IsNotExist(err) {
		t.Errorf("scratch directory %q after Close: %v, want it gone", line, err)
	}
}
