// Package agentbuild builds the ttymux agent for a remote host's system the
// first time one is needed, from the checkout install.sh built ttymux from,
// so that installing ttymux costs one build and not one per system.
//
// install.sh records the checkout and the version it stamped in
// <agents dir>/source; Builder.Build cross-compiles cmd/ttymux-agent there
// for one target (CGO_ENABLED=0, the same flags as install.sh) into
// <agents dir>/<target>/ttymux-agent. It refuses when the checkout is no
// longer at the version this ttymux was built from, so an agent never
// differs from its server. Build calls for one Builder are serialised.
package agentbuild

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
)

// SourceFile names the file in the agents directory where install.sh
// writes the checkout's absolute path (first line) and the version it
// stamped (second line).
const SourceFile = "source"

// ErrNoSource is returned when ttymux was not installed by install.sh (or
// the source file is gone): nothing says where to build from.
var ErrNoSource = errors.New("no source checkout recorded")

// A Source is what install.sh recorded.
type Source struct {
	Dir     string // the checkout
	Version string // the version install.sh stamped into ttymux and its agents
}

// ReadSource reads agentsDir/SourceFile.
func ReadSource(agentsDir string) (Source, error) {
	b, err := os.ReadFile(filepath.Join(agentsDir, SourceFile))
	if errors.Is(err, os.ErrNotExist) {
		return Source{}, ErrNoSource
	}
	if err != nil {
		return Source{}, err
	}
	sc := bufio.NewScanner(bytes.NewReader(b))
	var lines []string
	for sc.Scan() && len(lines) < 2 {
		lines = append(lines, strings.TrimSpace(sc.Text()))
	}
	if len(lines) < 2 || !filepath.IsAbs(lines[0]) || lines[1] == "" {
		return Source{}, fmt.Errorf("%s is not what install.sh writes (a checkout path, then a version); run ./install.sh again", filepath.Join(agentsDir, SourceFile))
	}
	return Source{Dir: lines[0], Version: lines[1]}, nil
}

// A Builder builds agents into AgentsDir.
type Builder struct {
	// AgentsDir holds the agents, one directory per target, and the
	// source file.
	AgentsDir string
	// Version is the running ttymux's version: the recorded source must
	// be at it.
	Version string
	// Go is the go command; empty means "go" from PATH.
	Go string

	mu sync.Mutex // one build at a time
}

// GoEnv returns the environment that selects target ("linux-armv7" is
// GOARCH=arm GOARM=7), for go build and for messages.
func GoEnv(target string) ([]string, error) {
	goos, arch, ok := strings.Cut(target, "-")
	if !ok || goos == "" || arch == "" {
		return nil, fmt.Errorf("target %q is not os-arch", target)
	}
	env := []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=" + arch}
	if arch == "armv7" {
		env = []string{"CGO_ENABLED=0", "GOOS=" + goos, "GOARCH=arm", "GOARM=7"}
	}
	return env, nil
}

// Command is the shell command that builds target's agent into dest from
// the checkout dir, for error messages that tell a person what to run.
func Command(dir, target, dest, version string) string {
	env, err := GoEnv(target)
	if err != nil {
		return ""
	}
	return fmt.Sprintf("cd %s && %s go build -trimpath -ldflags '%s' -o %s ./cmd/ttymux-agent",
		dir, strings.Join(env, " "), ldflags(version), dest)
}

func ldflags(version string) string {
	return "-s -w -X main.version=" + version + " -X main.stampedVersion=" + version
}

// Build compiles the agent for target (an os-arch name the caller has
// checked against its list) and returns its path. progress, if not nil,
// hears what is happening (the first build of a target takes a minute on
// a small machine). The error says what to run instead when Build cannot.
func (b *Builder) Build(ctx context.Context, target string, progress func(string)) (string, error) {
	if progress == nil {
		progress = func(string) {}
	}
	env, err := GoEnv(target)
	if err != nil {
		return "", err
	}
	dest := filepath.Join(b.AgentsDir, target, "ttymux-agent")
	if built(dest) {
		return dest, nil // built before (by install.sh or a first use)
	}
	src, err := ReadSource(b.AgentsDir)
	if err != nil {
		return "", fmt.Errorf("the agent for %s is not built, and it cannot be built here: %w; run ./install.sh --agents %s in a ttymux checkout", target, err, target)
	}
	if src.Version != b.Version {
		return "", fmt.Errorf("the agent for %s is not built, and the checkout recorded by install.sh (%s) is at %s while this ttymux is %s; run ./install.sh --agents %s there again", target, src.Dir, src.Version, b.Version, target)
	}
	goCmd := b.Go
	if goCmd == "" {
		goCmd = "go"
	}
	if _, err := exec.LookPath(goCmd); err != nil {
		return "", fmt.Errorf("the agent for %s is not built, and no Go toolchain is on PATH to build it; on a machine with Go 1.26+: %s", target, Command(src.Dir, target, dest, src.Version))
	}
	if err := b.checkCheckout(ctx, src); err != nil {
		return "", err
	}

	b.mu.Lock()
	defer b.mu.Unlock()
	if built(dest) {
		return dest, nil // another call built it meanwhile
	}
	if err := os.MkdirAll(filepath.Dir(dest), 0o755); err != nil {
		return "", err
	}
	progress(fmt.Sprintf("building the ttymux agent for %s (once per system; about a minute)", target))
	tmp := dest + ".tmp"
	cmd := exec.CommandContext(ctx, goCmd, "build", "-trimpath", "-ldflags", ldflags(src.Version), "-o", tmp, "./cmd/ttymux-agent")
	cmd.Dir = src.Dir
	cmd.Env = append(os.Environ(), env...)
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		os.Remove(tmp)
		if ctx.Err() != nil {
			return "", ctx.Err()
		}
		return "", fmt.Errorf("building the agent for %s failed: %v: %s", target, err, truncate(out.String(), 2000))
	}
	if err := os.Rename(tmp, dest); err != nil {
		os.Remove(tmp)
		return "", err
	}
	progress(fmt.Sprintf("built the ttymux agent for %s", target))
	return dest, nil
}

// checkCheckout makes sure the checkout still holds the version install.sh
// built: an edited or updated checkout would give an agent that differs
// from its server.
func (b *Builder) checkCheckout(ctx context.Context, src Source) error {
	if _, err := os.Stat(filepath.Join(src.Dir, "cmd", "ttymux-agent")); err != nil {
		return fmt.Errorf("the checkout recorded by install.sh (%s) is gone or has no cmd/ttymux-agent; run ./install.sh in a ttymux checkout again", src.Dir)
	}
	if _, err := exec.LookPath("git"); err != nil {
		return nil // nothing to compare with; the recorded version stands
	}
	cmd := exec.CommandContext(ctx, "git", "describe", "--always", "--dirty")
	cmd.Dir = src.Dir
	out, err := cmd.Output()
	if err != nil {
		return nil // not a git checkout (a source archive): as above
	}
	if now := strings.TrimSpace(string(out)); now != src.Version {
		return fmt.Errorf("the checkout %s has changed since install.sh built ttymux %s (it is now %s); run ./install.sh there again so ttymux and its agents match", src.Dir, src.Version, now)
	}
	return nil
}

// built reports whether an executable agent is at dest.
func built(dest string) bool {
	st, err := os.Stat(dest)
	return err == nil && st.Mode().IsRegular() && st.Mode()&0o111 != 0
}

func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}
