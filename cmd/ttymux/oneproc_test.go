package main

import (
	"bufio"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestServersRunOnOneP checks that `ttymux mcp` and `ttymux-agent serve`
// run on one P (internal/oneproc), and keep a GOMAXPROCS the user set: the
// runtime's scheduler trace (GODEBUG=schedtrace) says how many Ps a
// running process has.
func TestServersRunOnOneP(t *testing.T) {
	bin := ttymuxBinary(t)
	sock := filepath.Join(t.TempDir(), "agent", "a.sock") // the agent makes its directory private
	for _, c := range []struct {
		name string
		args []string
		env  string // GOMAXPROCS, if set
		want string
	}{
		{"mcp", []string{bin, "mcp", "-no-agent"}, "", "gomaxprocs=1 "},
		{"mcp with GOMAXPROCS", []string{bin, "mcp", "-no-agent"}, "2", "gomaxprocs=2 "},
		{"agent serve", []string{agentBinary(t), "serve", "--socket", sock}, "", "gomaxprocs=1 "},
	} {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, c.args[0], c.args[1:]...)
			cmd.Env = append(os.Environ(), "GODEBUG=schedtrace=20")
			if c.env != "" {
				cmd.Env = append(cmd.Env, "GOMAXPROCS="+c.env)
			} else {
				cmd.Env = withoutVar(cmd.Env, "GOMAXPROCS")
			}
			stdin, err := cmd.StdinPipe() // held open: the server waits for calls
			if err != nil {
				t.Fatal(err)
			}
			defer stdin.Close()
			stderr, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			defer func() { cmd.Process.Kill(); cmd.Wait() }()
			// The first trace lines may come before main sets GOMAXPROCS:
			// the fifth, 100 ms in, is the running server's.
			sc := bufio.NewScanner(stderr)
			n := 0
			var last string
			var other []string
			for sc.Scan() {
				l := sc.Text()
				if !strings.HasPrefix(l, "SCHED ") {
					other = append(other, l)
				}
				if strings.HasPrefix(l, "SCHED ") {
					if n++; n == 5 {
						last = l
						break
					}
				}
			}
			if !strings.Contains(last, c.want) {
				t.Fatalf("scheduler trace %q, want %q; the server said %q", last, c.want, other)
			}
		})
	}
}

// withoutVar returns env without the variable name.
func withoutVar(env []string, name string) []string {
	out := env[:0:0]
	for _, kv := range env {
		if !strings.HasPrefix(kv, name+"=") {
			out = append(out, kv)
		}
	}
	return out
}
