package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/ptyproc"
)

// TestBadPolicyStopsServer: ttymux mcp with a bad policy file does not
// start, and says which file, line and key.
func TestBadPolicyStopsServer(t *testing.T) {
	dir := t.TempDir()
	f := filepath.Join(dir, "policy.toml")
	os.WriteFile(f, []byte("[defaults]\nheld = \"ask\"\n\n[[rule]]\nhosts = [\"prod-*\"]\nreadonly = true\n"), 0o600)
	var stderr bytes.Buffer
	if code := run([]string{"mcp", "-policy", f}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 2 {
		t.Fatalf("exit %d, want 2", code)
	}
	if msg := stderr.String(); !strings.Contains(msg, f+":6: key rule[1].readonly") {
		t.Fatalf("stderr: %s", msg)
	}
	// A missing file named explicitly is an error too.
	stderr.Reset()
	if code := run([]string{"mcp", "-policy", filepath.Join(dir, "none.toml")}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 2 {
		t.Fatalf("missing policy: exit %d", code)
	}
	// The same file in the default place stops it too.
	t.Setenv("XDG_CONFIG_HOME", dir)
	os.MkdirAll(filepath.Join(dir, "ttymux"), 0o700)
	os.Rename(f, filepath.Join(dir, "ttymux", "policy.toml"))
	stderr.Reset()
	if code := run([]string{"mcp"}, strings.NewReader(""), &bytes.Buffer{}, &stderr); code != 2 || !strings.Contains(stderr.String(), "policy.toml:6") {
		t.Fatalf("default policy: exit %d: %s", code, stderr.String())
	}
	c := checkPolicy()
	if c.Status != "fail" || !strings.Contains(c.Detail, "rule[1].readonly") {
		t.Fatalf("doctor: %+v", c)
	}
}

// TestDoctorShowsPolicy: doctor names the policy in force and its rules.
func TestDoctorShowsPolicy(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", dir)
	t.Setenv("TTYMUX_POLICY", "")
	if c := checkPolicy(); c.Status != "ok" || !strings.Contains(c.Detail, "built-in default") {
		t.Fatalf("%+v", c)
	}
	os.MkdirAll(filepath.Join(dir, "ttymux"), 0o700)
	os.WriteFile(filepath.Join(dir, "ttymux", "policy.toml"), []byte(prodPolicy), 0o600)
	c := checkPolicy()
	if c.Status != "ok" || !strings.Contains(c.Detail, "hosts prod-*; read_only = true; deny 2 pattern(s)") {
		t.Fatalf("%+v", c)
	}
	// The kernel line names the read-only hosts and, where the kernel has
	// it, the Landlock ABI the confined sessions get.
	k := checkKernel()
	if !strings.Contains(k.Detail, "read-only in the policy: prod-*") {
		t.Errorf("kernel check: %+v", k)
	}
	if abi := ptyproc.ConfineLevel(); abi > 0 && (k.Status != "ok" || !strings.Contains(k.Detail, fmt.Sprintf("Landlock ABI %d", abi))) {
		t.Errorf("kernel check with Landlock ABI %d: %+v", abi, k)
	}
}

// TestAuditCommand: ttymux audit prints the log for humans and as JSON.
func TestAuditCommand(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	l, err := audit.Open(audit.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	code := 3
	l.Write(audit.Event{Event: "send", Session: "t1", Host: "prod-web", Command: "touch x", Decision: audit.DeclinedByHuman})
	l.Write(audit.Event{Event: "send", Session: "t1", Host: "prod-web", Command: "false", Decision: audit.Ran, ExitCode: &code})
	l.Close()
	var out, errb bytes.Buffer
	if c := run([]string{"audit"}, nil, &out, &errb); c != 0 {
		t.Fatalf("exit %d: %s", c, errb.String())
	}
	if !strings.Contains(out.String(), `send t1 @prod-web "touch x" declined_by_human`) || !strings.Contains(out.String(), "exit 3") {
		t.Fatalf("%s", out.String())
	}
	out.Reset()
	run([]string{"audit", "--json"}, nil, &out, &errb)
	if n := strings.Count(out.String(), `"decision":`); n != 2 {
		t.Fatalf("json: %s", out.String())
	}
	if c := checkAuditLog(); c.Status != "ok" {
		t.Fatalf("%+v", c)
	}
}

// TestAuditShowsControlsVisible is issue #31.7's "ttymux audit prints
// model-written escape sequences and newlines raw": a command with an
// escape sequence, a newline, DEL and a C1 CSI, and a line that is not
// JSON at all, are printed made visible in both forms. The old CLI printed
// --json lines and unreadable lines as stored (DEL, U+009B and the raw
// escape reached the terminal).
func TestAuditShowsControlsVisible(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("XDG_STATE_HOME", dir)
	l, err := audit.Open(audit.DefaultPath())
	if err != nil {
		t.Fatal(err)
	}
	l.Write(audit.Event{Event: audit.KindSend, Session: "t1", Host: "h", Command: "echo \x1b[2J\nfake 2026-01-01 send ok\x7f\u009b31m", Decision: audit.Ran})
	l.Close()
	f, err := os.OpenFile(audit.DefaultPath(), os.O_APPEND|os.O_WRONLY, 0)
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString("\x1b]0;owned\x07 not json\n")
	f.Close()
	for _, args := range [][]string{{"audit"}, {"audit", "--json"}} {
		var out, errb bytes.Buffer
		run(args, nil, &out, &errb)
		s := strings.TrimSuffix(out.String(), "\n")
		if strings.ContainsAny(s, "\x1b\x07\x7f\u009b") || strings.Count(s, "\n") != 1 {
			t.Errorf("%v printed raw controls or an extra line:\n%q", args, s)
		}
		if !strings.Contains(s, `\x1b]0;owned`) && !strings.Contains(s, `\u001b]0;owned`) {
			t.Errorf("%v: the unreadable line is not shown made visible:\n%q", args, s)
		}
	}
}
