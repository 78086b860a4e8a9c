package verdict

import (
	"math/rand/v2"
	"regexp"
	"testing"
)

// TestPatternPrefilters holds each is*Line check to its pattern alone:
// the same answer for lines a terminal shows (prompts of shells and
// REPLs, password and confirmation questions, output) and for random
// lines made of the bytes the patterns turn on.
func TestPatternPrefilters(t *testing.T) {
	checks := []struct {
		name string
		is   func(string) bool
		re   func() *regexp.Regexp
	}{
		{"prompt", isPromptLine, knownPromptRe},
		{"password", isPasswordLine, passwordRe},
		{"confirm", isConfirmLine, confirmRe},
		{"input prompt", isInputPromptLine, inputPromptRe},
	}
	lines := []string{
		"", " ", "$", "$ ", "$  ", "user@host:~$ ", "root@h:/# ", "% ", "> ", ">>> ", "... ", "In [3]: ",
		"irb(main):001:0> ", "irb(main):001:0* ", "postgres=# ", "postgres-> ", "mysql> ", "MariaDB [db]> ",
		"sqlite> ", "ghci> ", "=> ", "(gdb) ", "(Pdb) ", "redis 127.0.0.1:6379> ", "bash-5.2$ ", "[user@h ~]$ ",
		"[sudo] password for me: ", "Password:", "Password:  \t", "Enter passphrase for key '/k': ", "PIN: ",
		"Continue? [y/N] ", "Proceed (y/n)? ", "Are you sure you want to continue connecting (yes/no/[fingerprint])? ",
		"Do you want to continue? [Y/n]", "Name: ", "Overwrite? ", "total 12", "HEAD -> main", "a => b",
		"hello\n", "x:\r", "x:\f", "x ]\t", "café> ", "日本$ ",
	}
	r := rand.New(rand.NewPCG(1, 2))
	alphabet := []byte("ab yYnN/[]()?:>.*#$%=-_\t\r\f\n" + "password")
	for range 20000 {
		b := make([]byte, r.IntN(16))
		for i := range b {
			b[i] = alphabet[r.IntN(len(alphabet))]
		}
		lines = append(lines, string(b))
	}
	for _, c := range checks {
		for _, l := range lines {
			if got, want := c.is(l), c.re().MatchString(l); got != want {
				t.Errorf("%s %q: %v, the pattern %v", c.name, l, got, want)
			}
		}
	}
}
