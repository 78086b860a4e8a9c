package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

// TestRCFilesThroughMCP is issue #30's "done when", through an MCP
// client: with the two lines pyenv-virtualenv leaves in ~/.bashrc,
// open_local is ready with the hook, and echo hello and (exit 3) come back
// by exit-code; with an rc file that leaves the hook out, open_local says
// so in its note and commands still complete. On the old code the first
// was not integrated and every send waited out its timeout.
func TestRCFilesThroughMCP(t *testing.T) {
	for _, tt := range []struct {
		name, rc   string
		integrated bool
		via, note  string
	}{
		{"pyenv-virtualenv", "_my_hook() { local ret=$?; return $ret; }\nPROMPT_COMMAND=\"_my_hook;${PROMPT_COMMAND-}\"\n", true, session.ViaExitCode, ""},
		{"an rc that execs another shell", "exec /bin/bash --norc --noprofile\n", false, "", "did not report at the first prompt"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			home := t.TempDir()
			if err := os.WriteFile(filepath.Join(home, ".bashrc"), []byte(tt.rc), 0o600); err != nil {
				t.Fatal(err)
			}
			m := session.NewManager(session.Options{
				Kinds:    testKinds(map[string]transport.Opener{"local": &local.Opener{}}),
				StateDir: t.TempDir(),
				Shell:    "/bin/bash",
			})
			t.Cleanup(m.CloseAll)
			cs := connect(t, newServer(m, nil), nil)
			var out OpenOut
			res := call(t, cs, "open_local", map[string]any{"env": map[string]string{"HOME": home, "PROMPT_COMMAND": ""}}, &out)
			if res.IsError || out.Integrated != tt.integrated || !strings.Contains(out.Note, tt.note) {
				t.Fatalf("open_local: integrated=%v note=%q (%s); want integrated=%v, note with %q", out.Integrated, out.Note, resultText(res), tt.integrated, tt.note)
			}
			for _, c := range []struct{ text, output, code string }{{"echo hello", "hello", "0"}, {"(exit 3)", "", "3"}} {
				var r session.Result
				call(t, cs, "send", map[string]any{"session_id": out.ID, "text": c.text, "timeout_ms": 10000}, &r)
				code := "<nil>"
				if r.ExitCode != nil {
					code = strconv.Itoa(*r.ExitCode)
				}
				if !r.Complete || r.Output != c.output || tt.via != "" && (r.Via != tt.via || code != c.code) {
					t.Fatalf("%q: complete=%v via=%q exit=%s output=%q note=%q", c.text, r.Complete, r.Via, code, r.Output, r.Note)
				}
			}
		})
	}
}
