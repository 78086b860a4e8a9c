package agentbuild

import (
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"time"
)

// checkout returns this repository's root and its git describe, as
// install.sh records them.
func checkout(t *testing.T) (string, string) {
	t.Helper()
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	out, err := exec.Command("git", "-C", root, "describe", "--always", "--dirty").Output()
	if err != nil {
		t.Skipf("not a git checkout with git on PATH: %v", err)
	}
	return root, strings.TrimSpace(string(out))
}

func writeSource(t *testing.T, dir, src, version string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, SourceFile), []byte(src+"\n"+version+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestBuildOnFirstNeed builds the agent for this machine's system from
// this checkout, as a server installed by install.sh does for a host that
// has none yet, and checks the binary runs and names the version.
func TestBuildOnFirstNeed(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	root, version := checkout(t)
	agents := t.TempDir()
	writeSource(t, agents, root, version)
	target := runtime.GOOS + "-" + runtime.GOARCH
	b := &Builder{AgentsDir: agents, Version: version}
	var said []string
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Minute)
	defer cancel()
	p, err := b.Build(ctx, target, func(s string) { said = append(said, s) })
	if err != nil {
		t.Fatal(err)
	}
	if p != filepath.Join(agents, target, "ttymux-agent") {
		t.Fatalf("built %s", p)
	}
	out, err := exec.Command(p, "version").CombinedOutput()
	if err != nil || !strings.Contains(string(out), version) {
		t.Fatalf("%s version: %s (%v), want %s", p, out, err, version)
	}
	if len(said) != 2 || !strings.Contains(said[0], "building") || !strings.Contains(said[1], "built") {
		t.Fatalf("progress %q", said)
	}
	// Built once: the next call finds it and says nothing.
	said = nil
	if p2, err := b.Build(ctx, target, func(s string) { said = append(said, s) }); err != nil || p2 != p || len(said) != 0 {
		t.Fatalf("second build: %s %v %q", p2, err, said)
	}
}

// TestBuildRefusals: without install.sh's record, with a record of another
// version, or with a checkout that moved on, Build refuses and says what to
// run.
func TestBuildRefusals(t *testing.T) {
	root, version := checkout(t)
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		source  string // "" = no source file
		srcVer  string
		want    string
		wantErr error
	}{
		{name: "no source", want: "./install.sh --agents linux-arm64", wantErr: ErrNoSource},
		{name: "other version", source: root, srcVer: "v0.0.1-old", want: "is at v0.0.1-old while this ttymux is " + version},
		{name: "bad record", source: "relative/path", srcVer: version, want: "not what install.sh writes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			agents := t.TempDir()
			if tc.source != "" {
				writeSource(t, agents, tc.source, tc.srcVer)
			}
			b := &Builder{AgentsDir: agents, Version: version}
			_, err := b.Build(ctx, "linux-arm64", nil)
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("err = %v, want it to say %q", err, tc.want)
			}
			if tc.wantErr != nil && !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
		})
	}
	t.Run("checkout moved on", func(t *testing.T) {
		agents := t.TempDir()
		writeSource(t, agents, root, "v9.9.9-elsewhere")
		b := &Builder{AgentsDir: agents, Version: "v9.9.9-elsewhere"}
		_, err := b.Build(ctx, "linux-arm64", nil)
		if err == nil || !strings.Contains(err.Error(), "has changed since install.sh built") {
			t.Fatalf("err = %v", err)
		}
	})
	t.Run("no go", func(t *testing.T) {
		agents := t.TempDir()
		writeSource(t, agents, root, version)
		b := &Builder{AgentsDir: agents, Version: version, Go: "no-such-go-toolchain"}
		_, err := b.Build(ctx, "linux-armv7", nil)
		if err == nil || !strings.Contains(err.Error(), "GOARCH=arm GOARM=7 go build") {
			t.Fatalf("err = %v", err)
		}
	})
}
