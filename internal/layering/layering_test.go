package layering

import (
	"encoding/json"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/ttymux/ttymux"

// pkg is what go list says of one package.
type pkg struct {
	ImportPath string
	Imports    []string
	Deps       []string
}

// list runs go list -json over the module's packages (tests excluded: a
// test may import whatever it exercises).
func list(t *testing.T, args ...string) []pkg {
	t.Helper()
	cmd := exec.Command("go", append([]string{"list", "-json"}, args...)...)
	cmd.Dir = "../.."
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Skipf("go list: %v", err)
	}
	var ps []pkg
	dec := json.NewDecoder(out)
	for {
		var p pkg
		if err := dec.Decode(&p); err == io.EOF {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		ps = append(ps, p)
	}
	if err := cmd.Wait(); err != nil {
		t.Fatalf("go list: %v", err)
	}
	return ps
}

// rel is a package's path inside the module ("session/verdict"), or "" for
// packages outside it.
func rel(path string) string {
	if path == module {
		return "."
	}
	r, ok := strings.CutPrefix(path, module+"/")
	if !ok {
		return ""
	}
	return r
}

func under(p, dir string) bool { return p == dir || strings.HasPrefix(p, dir+"/") }

// rule says whether package from may import package to (both module paths
// relative to the module root); a non-empty answer is why not.
func rule(from, to string) string {
	concrete := []string{"transport/local", "transport/sshconn", "transport/serial", "transport/agent"}
	switch {
	case to == "session" && !under(from, "cmd"):
		return "only cmd imports session"
	case under(from, "session"):
		for _, c := range concrete {
			if under(to, c) {
				return "session never imports a concrete transport"
			}
		}
		if from == "session/verdict" && to == "session" {
			return "session/verdict never imports session"
		}
	case under(from, "transport"):
		if under(to, "session") || under(to, "cmd") || to == "fanout" {
			return "a transport never imports session, cmd or fanout"
		}
	case from == "transfer":
		if under(to, "session") || under(to, "transport") {
			return "transfer is handed a connection or a terminal: it imports neither session nor a transport"
		}
	case from == "fanout":
		if under(to, "session") && to != "session/reduce" {
			return "fanout imports session/reduce only, never session"
		}
	case under(from, "agentd") || from == "cmd/ttymux-agent":
		if !under(to, "agentd") && !under(to, "internal") && to != "transport" {
			return "the agent imports only its own packages, internal/* and transport's shared types (no MCP, session or SSH client code: it is copied to hosts)"
		}
		for _, no := range []string{"internal/gate", "internal/policy", "internal/audit", "internal/secretpage", "internal/console", "internal/agentbuild"} {
			if under(to, no) {
				return "the agent stays small: " + no + " belongs to the server"
			}
		}
	case under(from, "internal") && !under(from, "internal/layering"):
		if under(to, "cmd") || to == "session" {
			return "internal packages are leaves: never cmd or session"
		}
		if under(to, "transport") && to != "transport" {
			return "internal packages use transport's shared types, never a concrete transport"
		}
	}
	if under(to, "cmd") {
		return "nothing imports cmd"
	}
	return ""
}

// TestImportRules checks every import between the module's packages
// against docs/architecture.md's rules.
func TestImportRules(t *testing.T) {
	ps := list(t, "./...")
	if len(ps) < 20 {
		t.Fatalf("go list found only %d packages", len(ps))
	}
	for _, p := range ps {
		from := rel(p.ImportPath)
		for _, imp := range p.Imports {
			to := rel(imp)
			if to == "" {
				continue
			}
			if why := rule(from, to); why != "" {
				t.Errorf("%s imports %s: %s", from, to, why)
			}
		}
	}
}

// TestAgentDeps: the agent binary, copied to every host, links no MCP,
// SSH-client, emulator or TOML code, and of the module only agentd,
// internal/* and transport's root (the shared types: ExitError, GapError).
func TestAgentDeps(t *testing.T) {
	ps := list(t, "-deps", "./cmd/ttymux-agent")
	for _, p := range ps {
		if r := rel(p.ImportPath); r != "" && !under(r, "agentd") && !under(r, "internal") && r != "transport" && r != "cmd/ttymux-agent" {
			t.Errorf("the agent links %s: of the module only agentd, internal/* and transport's shared types", p.ImportPath)
		}
		for _, no := range []string{"github.com/modelcontextprotocol/", "golang.org/x/crypto/ssh", "github.com/pkg/sftp", "github.com/charmbracelet/", "github.com/BurntSushi/toml", "mvdan.cc/sh", module + "/session", module + "/transport/sshconn"} {
			if strings.HasPrefix(p.ImportPath, no) {
				t.Errorf("the agent links %s", p.ImportPath)
			}
		}
	}
}

// TestRuleCatches keeps the rules able to fail: each line is a import the
// architecture forbids.
func TestRuleCatches(t *testing.T) {
	for _, c := range [][2]string{
		{"transport/sshconn", "session"},
		{"session", "transport/local"},
		{"session/verdict", "session"},
		{"agentd", "transport/sshconn"},
		{"agentd", "internal/policy"},
		{"agentd", "transport/local"},
		{"internal/ring", "transport/agent"},
		{"transfer", "session"},
		{"fanout", "session"},
		{"internal/gate", "cmd/ttymux"},
		{"sshconf", "session"},
	} {
		if rule(c[0], c[1]) == "" {
			t.Errorf("%s → %s allowed", c[0], c[1])
		}
	}
	for _, c := range [][2]string{
		{"cmd/ttymux", "session"},
		{"session", "transport"},
		{"fanout", "session/reduce"},
		{"agentd", "internal/ptyproc"},
		{"agentd", "transport"},
		{"internal/ptyproc", "transport"},
		{"transport/agent", "transfer"},
	} {
		if why := rule(c[0], c[1]); why != "" {
			t.Errorf("%s → %s refused: %s", c[0], c[1], why)
		}
	}
}
