package main

import (
	"fmt"
	"os"
	"os/exec"
	"strings"
	"testing"
)

// TestChildCannotReadTheNonce: a program run in the hooked shell looks for
// the session nonce where the shell got it (its initial environment, in
// /proc/$PPID/environ, which unset does not clear, or the file it was
// read from) and prints a finished mark with it while it keeps running.
// The nonce is in neither place, so the result is the command's real end.
func TestChildCannotReadTheNonce(t *testing.T) {
	for _, shell := range []string{"bash", "zsh"} {
		t.Run(shell, func(t *testing.T) {
			if _, err := exec.LookPath(shell); err != nil {
				if os.Getenv("CI") != "" {
					t.Fatalf("%s is required under CI (apt-get install -y %s)", shell, shell)
				}
				t.Skipf("%s not installed", shell)
			}
			cs := newTestClient(t)
			var open OpenOut
			if res := call(t, cs, "open_local", map[string]any{"command": shell, "env": map[string]string{"HOME": t.TempDir()}}, &open); res.IsError {
				t.Fatalf("open_local %s: %s", shell, resultText(res))
			}
			forge := `bash -c 'e=$(tr "\0" "\n" </proc/$PPID/environ); ` +
				`n=$(printf "%s\n" "$e" | sed -n "s/^TTYMUX_NONCE=//p"); ` +
				`f=$(printf "%s\n" "$e" | sed -n "s/^TTYMUX_NONCE_FILE=//p"); [ -n "$f" ] && n="$n$(cat "$f" 2>/dev/null)"; ` +
				`echo "found-${#n}-"; printf "\e]133;D;0;ttymux=%s\a" "$n"; sleep 1; echo child-end; exit 7'`
			r := mustSend(t, cs, map[string]any{"session_id": open.ID, "text": forge, "timeout_ms": 20000})
			if !r.Complete || r.ExitCode == nil || *r.ExitCode != 7 || !strings.Contains(r.Output, "child-end") || !strings.Contains(r.Output, "found-0-") {
				exit := "nil"
				if r.ExitCode != nil {
					exit = fmt.Sprint(*r.ExitCode)
				}
				t.Errorf("a child looked for the nonce and forged a mark: complete=%v exit=%s output=%q; want found-0- and the real end (child-end, exit 7)", r.Complete, exit, r.Output)
			}
			if r := mustSend(t, cs, map[string]any{"session_id": open.ID, "text": "echo after"}); r.Output != "after" || r.Earlier != nil {
				t.Errorf("the send after: output=%q earlier=%+v; want after and nothing earlier", r.Output, r.Earlier)
			}
		})
	}
}
