package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/visible"
)

// loadPolicy reads the policy file: the one named (-policy, or
// TTYMUX_POLICY), which must exist, else the default path, which may not.
// A bad file is an error naming file, line and key: the server never runs
// with a half-read policy.
func loadPolicy(file string) (*policy.Policy, error) {
	if file != "" {
		return policy.Load(file, true)
	}
	if p := policy.DefaultPath(); p != "" {
		return policy.Load(p, false)
	}
	return policy.Default(), nil
}

// auditPath is where the audit log goes: -audit, else the default.
func auditPath(flagValue string) string {
	if flagValue != "" {
		return flagValue
	}
	return audit.DefaultPath()
}

const auditUsage = `usage: ttymux audit [-f] [--json] [-file PATH]
       ttymux audit verify [-file PATH]

Show ttymux's audit log ($XDG_STATE_HOME/ttymux/audit.jsonl): sessions
opened and closed, commands sent and what was decided (ran, held,
approved_by_human, declined_by_human, confirmed_by_model, denied_by_policy),
approvals and secrets asked of the human (never the secrets).

  -f       keep following the log as events are added (ctrl+c ends)
  --json   print the JSON lines as stored (control characters escaped)

Control characters, escape sequences and newlines in text a model wrote
are shown as escapes (\x1b, \n), long runs of spaces as ␠×N.

verify walks the hash chain (each record holds the sha256 of the line
before it) and names every line removed, edited or forged; it exits 1
when it finds one.
`

// cmdAudit is ttymux audit.
func cmdAudit(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage) }
	if len(args) > 0 && args[0] == "verify" {
		return cmdAuditVerify(args[1:], stdout, stderr)
	}
	follow := fs.Bool("f", false, "follow")
	asJSON := fs.Bool("json", false, "print JSON lines")
	file := fs.String("file", "", "the audit log (default $XDG_STATE_HOME/ttymux/audit.jsonl)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	path := auditPath(*file)
	print := func(e audit.Event, line []byte, ok bool) {
		switch {
		case *asJSON:
			fmt.Fprintln(stdout, visible.JSON(line))
		case ok:
			fmt.Fprintln(stdout, audit.Format(e))
		default:
			fmt.Fprintf(stdout, "(unreadable line) %s\n", visible.String(string(line)))
		}
	}
	if len(audit.Files(path)) == 0 && !*follow {
		fmt.Fprintf(stderr, "ttymux: no audit log at %s yet (ttymux mcp writes it)\n", path)
		return 0
	}
	if err := audit.ReadAll(path, print); err != nil {
		fmt.Fprintf(stderr, "ttymux: read %s: %v\n", path, err)
		return 1
	}
	if *follow {
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		if err := audit.Follow(ctx, path, 250*time.Millisecond, print); err != nil {
			fmt.Fprintf(stderr, "ttymux: follow %s: %v\n", path, err)
			return 1
		}
	}
	return 0
}

// cmdAuditVerify is ttymux audit verify.
func cmdAuditVerify(args []string, stdout, stderr io.Writer) int {
	fs := flag.NewFlagSet("audit verify", flag.ContinueOnError)
	fs.SetOutput(stderr)
	fs.Usage = func() { fmt.Fprint(stderr, auditUsage) }
	file := fs.String("file", "", "the audit log (default $XDG_STATE_HOME/ttymux/audit.jsonl)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	path := auditPath(*file)
	if len(audit.Files(path)) == 0 {
		fmt.Fprintf(stderr, "ttymux: no audit log at %s yet (ttymux mcp writes it)\n", path)
		return 0
	}
	r, err := audit.Verify(path)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux: verify %s: %v\n", path, err)
		return 1
	}
	for _, n := range r.Notes {
		fmt.Fprintf(stdout, "note: %s\n", n)
	}
	if r.Legacy > 0 {
		fmt.Fprintf(stdout, "note: the first %d records were written before the log was chained and cannot be checked\n", r.Legacy)
	}
	for _, b := range r.Breaks {
		fmt.Fprintf(stdout, "%s line %d: %s\n", b.File, b.Line, b.Why)
	}
	fmt.Fprintf(stdout, "%d records in %d files; last record %d, hash %s\n", r.Records, len(r.Files), r.LastSeq, r.Last)
	if len(r.Breaks) > 0 {
		fmt.Fprintf(stdout, "FAILED: %d line(s) do not fit the chain\n", len(r.Breaks))
		return 1
	}
	fmt.Fprintln(stdout, "ok: the chain holds (lines cut from the end cannot be seen: compare the last record with what you expect)")
	return 0
}

// checkPolicy is ttymux doctor's view of the policy in force.
func checkPolicy() check {
	c := check{Name: "policy"}
	p, err := loadPolicy(os.Getenv("TTYMUX_POLICY"))
	if err != nil {
		c.Status, c.Detail = "fail", err.Error()
		c.Fix = "fix the file (docs/security.md shows the format); ttymux mcp will not start with it"
		return c
	}
	c.Status, c.Detail = "ok", p.Describe()
	return c
}

// checkAuditLog is ttymux doctor's view of the audit log.
func checkAuditLog() check {
	c := check{Name: "audit-log", Status: "ok"}
	path := audit.DefaultPath()
	st, err := os.Stat(path)
	switch {
	case os.IsNotExist(err):
		c.Detail = path + " (not written yet)"
	case err != nil:
		c.Status, c.Detail = "warn", err.Error()
	case st.Mode().Perm()&0o077 != 0:
		c.Status, c.Detail, c.Fix = "warn", fmt.Sprintf("%s has mode %v", path, st.Mode().Perm()), "chmod 600 "+path
	default:
		c.Detail = fmt.Sprintf("%s (%d bytes; ttymux audit shows it)", path, st.Size())
	}
	return c
}
