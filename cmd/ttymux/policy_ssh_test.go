package main

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

const prodPolicy = `
[[rule]]
hosts = ["prod-*"]
read_only = true
deny = ['^systemctl (stop|disable)\b', '^reboot$']
`

// TestReadOnlyHostOverSSH is issue #16's read-only acceptance test against
// a real OpenSSH sshd reached by the ssh_config alias prod-web: cat and
// systemctl status run without asking; touch, sed -i, a redirection and
// sh -c 'rm …' are held (the human declines, and nothing runs); deny
// patterns are refused without asking, even though this human would accept.
func TestReadOnlyHostOverSSH(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	home := t.TempDir()
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cfg := filepath.Join(home, "config")
	if err := os.WriteFile(cfg, []byte(d.ConfigBlock("prod-web", known)), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}}
			t.Cleanup(func() { _ = ssh.Close() })
			answer := "decline"
			rig := newHumanRig(t, version, prodPolicy, map[string]transport.Opener{"ssh": ssh}, func(context.Context, *mcp.ElicitParams) (*mcp.ElicitResult, error) {
				return &mcp.ElicitResult{Action: answer}, nil
			})
			var open OpenOut
			if res := call(t, rig.cs, "open_ssh", map[string]any{"host": "prod-web"}, &open); res.IsError {
				t.Fatalf("open_ssh: %s", resultText(res))
			}
			scratch := t.TempDir()
			f := filepath.Join(scratch, "f")
			os.WriteFile(f, []byte("a\n"), 0o644)
			for _, line := range []string{"cat /etc/hostname", "systemctl status ssh"} {
				res := call(t, rig.cs, "send", map[string]any{"session_id": open.ID, "text": line}, nil)
				if res.IsError {
					t.Fatalf("%q was not run: %s", line, resultText(res))
				}
				t.Logf("%q: %s", line, resultText(res))
			}
			if n := len(rig.questions()); n != 0 {
				t.Fatalf("read-only commands asked the human %d times", n)
			}
			held := []string{"touch " + filepath.Join(scratch, "x"), "sed -i s/a/b/ " + f, "echo x > " + f, "sh -c 'rm -f " + f + "'"}
			// Issue #31's families: each would create scratch/bN on the old
			// read-only check.
			b := func(n int) string { return filepath.Join(scratch, "b"+strconv.Itoa(n)) }
			bypasses := []string{
				"sed -n '1e touch " + b(1) + "' " + f,
				"sort -o" + b(2) + " " + f,
				"env -vS'touch " + b(3) + "'",
				"echo x >& " + b(4),
				"x='a[$(touch " + b(5) + ")]'; echo $((x))",
				"test -v 'a[$(touch " + b(6) + ")]'",
				"sed --expr='1e touch " + b(7) + "' " + f,
				"sort --compress-program=sh -S 1 " + f + " >/dev/null; cp " + f + " " + b(8),
			}
			held = append(held, bypasses...)
			for i, line := range held {
				res := call(t, rig.cs, "send", map[string]any{"session_id": open.ID, "text": line}, nil)
				if !res.IsError || !strings.Contains(resultText(res), "declined") {
					t.Fatalf("%q: %s", line, resultText(res))
				}
				qs := rig.questions()
				if len(qs) != i+1 || !strings.Contains(qs[i].Message, "prod-web is read-only") || !strings.Contains(qs[i].Message, "on prod-web") {
					t.Fatalf("%q: questions %d, last %v", line, len(qs), qs[len(qs)-1].Message)
				}
			}
			if b, _ := os.ReadFile(f); string(b) != "a\n" {
				t.Fatalf("f changed: %q", b)
			}
			if _, err := os.Stat(filepath.Join(scratch, "x")); err == nil {
				t.Fatal("touch ran")
			}
			for i := range bypasses {
				if _, err := os.Stat(b(i + 1)); err == nil {
					t.Errorf("%q ran on a read-only host", bypasses[i])
				}
			}
			// open_ssh's command is held the same way.
			if res := call(t, rig.cs, "open_ssh", map[string]any{"host": "prod-web", "command": "touch " + filepath.Join(scratch, "z")}, nil); !res.IsError || !strings.Contains(resultText(res), "declined") {
				t.Fatalf("open_ssh with a command: %s", resultText(res))
			}
			if _, err := os.Stat(filepath.Join(scratch, "z")); err == nil {
				t.Fatal("open_ssh's held command ran")
			}
			answer = "accept"
			n := len(rig.questions())
			for _, line := range []string{"systemctl stop ssh", "sudo systemctl disable ssh", "reboot"} {
				res := call(t, rig.cs, "send", map[string]any{"session_id": open.ID, "text": line}, nil)
				if !res.IsError || !strings.Contains(resultText(res), "not allowed") {
					t.Fatalf("%q: %s", line, resultText(res))
				}
			}
			if len(rig.questions()) != n {
				t.Fatal("a denied command was put to the human")
			}
			var r session.Result
			call(t, rig.cs, "send", map[string]any{"session_id": open.ID, "text": "touch " + filepath.Join(scratch, "y")}, &r)
			// The result may come before the shell ran it when late output of
			// an earlier command ends the wait (a verdict matter, not the
			// policy's): wait for the effect.
			if !testwait.Poll(t.Context(), 10*time.Second, func() bool { _, err := os.Stat(filepath.Join(scratch, "y")); return err == nil }) {
				var scr session.Result
				call(t, rig.cs, "read", map[string]any{"session_id": open.ID, "mode": "screen"}, &scr)
				t.Fatalf("an accepted command did not run: %+v\n%s", r, scr.Output)
			}
			got := map[audit.Decision]int{}
			for _, e := range rig.events() {
				if e.Event == "send" {
					got[e.Decision]++
					if e.Host != "prod-web" {
						t.Fatalf("audit host %q", e.Host)
					}
				}
			}
			if d := rig.decisions("open"); len(d) != 2 || d[1] != audit.DeclinedByHuman {
				t.Fatalf("audit open decisions %v", d)
			}
			if got[audit.Ran] != 2 || got[audit.DeclinedByHuman] != 4+len(bypasses) || got[audit.DeniedByPolicy] != 3 || got[audit.ApprovedByHuman] != 1 {
				t.Fatalf("audit decisions %v", got)
			}
		})
	}
}
