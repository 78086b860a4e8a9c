package main

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// passwordUser is a local account that sshd lets in by password only.
const passwordUser = "ttymuxhuman"

// ensurePasswordUser makes passwordUser with password planted (root only).
func ensurePasswordUser(t *testing.T) {
	t.Helper()
	if os.Geteuid() != 0 {
		t.Skip("needs root to make a password user for sshd")
	}
	if exec.Command("id", passwordUser).Run() != nil {
		if out, err := exec.Command("useradd", "-m", "-s", "/bin/bash", passwordUser).CombinedOutput(); err != nil {
			t.Skipf("useradd: %v %s", err, out)
		}
	}
	cmd := exec.Command("chpasswd")
	cmd.Stdin = strings.NewReader(passwordUser + ":" + planted + "\n")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Skipf("chpasswd: %v %s", err, out)
	}
}

// TestOpenSSHPasswordFromHuman: open_ssh to a password-only sshd with no
// password given asks the human through a one-time page (URL elicitation,
// both protocol revisions) and connects; the password is in no result or
// log line.
func TestOpenSSHPasswordFromHuman(t *testing.T) {
	ensurePasswordUser(t)
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{"PasswordAuthentication yes", "AuthenticationMethods password"}})
	home := t.TempDir()
	known := filepath.Join(home, "known_hosts")
	if err := os.WriteFile(known, []byte(d.KnownHostsLine()+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	block := strings.Replace(d.ConfigBlock("pwbox", known), "User "+d.User, "User "+passwordUser, 1)
	cfg := filepath.Join(home, "config")
	if err := os.WriteFile(cfg, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("SSH_AUTH_SOCK", "")
	for _, version := range protocols {
		t.Run(version, func(t *testing.T) {
			log, buf := debugLogger()
			ssh := &sshconn.Opener{Config: sshconf.Options{ConfigFile: cfg, Home: home}, Logger: log}
			t.Cleanup(func() { _ = ssh.Close() })
			var asked []*mcp.ElicitParams
			rig := newHumanRigOpts(t, version, rigOptions{log: log, openers: map[string]transport.Opener{"ssh": ssh},
				answer: func(_ context.Context, p *mcp.ElicitParams) (*mcp.ElicitResult, error) {
					asked = append(asked, p)
					postSecret(t, p.URL, planted)
					return &mcp.ElicitResult{Action: "accept"}, nil
				}})
			l := &leakCheck{t: t, cs: rig.cs, log: buf}
			res := l.call("open_ssh", map[string]any{"host": "pwbox"})
			if res.IsError {
				t.Fatalf("open_ssh: %s\n%s", resultText(res), d.Log())
			}
			if len(asked) != 1 || asked[0].Mode != "url" || !strings.Contains(asked[0].Message, "pwbox") {
				t.Fatalf("asked %+v", asked)
			}
			var open OpenOut
			decode(t, res, &open)
			r := l.result("send", map[string]any{"session_id": open.ID, "text": "whoami"})
			if r.Output != passwordUser {
				t.Fatalf("whoami: %+v", r)
			}
			l.call("close", map[string]any{"session_id": open.ID})
			l.check()
			searchFiles(t, filepath.Dir(rig.audit))
		})
	}
}
