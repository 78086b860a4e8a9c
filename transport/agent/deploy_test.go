package agent

import (
	"errors"
	"strings"
	"testing"
)

func TestHostTarget(t *testing.T) {
	for _, c := range []struct{ uname, elf, want string }{
		{"Linux x86_64", "", "linux-amd64"},
		{"Linux aarch64", "", "linux-arm64"},
		{"Linux armv7l", "", "linux-armv7"},
		{"Linux i686", "", "linux-386"},
		{"Linux riscv64", "", "linux-riscv64"},
		{"Linux mips", " 01", "linux-mipsle"},
		{"Darwin arm64", "", "darwin-arm64"},
		{"Darwin x86_64", "", "darwin-amd64"},
		{"FreeBSD amd64", "", "freebsd-amd64"},
	} {
		got, err := hostTarget(c.uname, c.elf)
		if err != nil || got != c.want {
			t.Errorf("hostTarget(%q, %q) = %q, %v; want %q", c.uname, c.elf, got, err, c.want)
		}
	}
	if _, err := hostTarget("", ""); err == nil {
		t.Error("empty uname accepted")
	}
}

// TestHostTargetUnsupported pins issue #14 finding 6: the host's `uname`
// answer never becomes a path. Anything but a known os-arch pair is an
// "unsupported host" error, so nothing is picked, uploaded or cached.
func TestHostTargetUnsupported(t *testing.T) {
	for _, c := range []struct{ uname, elf string }{
		{"Linux /../../x/evilpick", ""},
		{"Linux ../../../../tmp/evil", ""},
		{"../.. x86_64", ""},
		{"Linux mips", " 02"}, // big-endian MIPS: not built
		{"Linux armv6l", ""},
		{"Plan9 x86_64", ""},
	} {
		got, err := hostTarget(c.uname, c.elf)
		if !errors.Is(err, ErrUnsupportedHost) || !strings.Contains(err.Error(), "unsupported host") {
			t.Errorf("hostTarget(%q, %q) = %q, %v; want an unsupported host error", c.uname, c.elf, got, err)
		}
	}
	r := &Remote{Host: "evil", Agents: t.TempDir()}
	if _, err := r.agentFor("linux-/../../x/evilpick", "Linux /../../x/evilpick"); !errors.Is(err, ErrUnsupportedHost) {
		t.Errorf("agentFor of a made-up target = %v", err)
	}
}

// TestAgentForMissing: a missing cross-built agent is an error that names
// the target and the command that builds it; a system ttymux builds no
// agent for says so.
func TestAgentForMissing(t *testing.T) {
	r := &Remote{Host: "router", Agents: t.TempDir(), LocalAgent: "/nonexistent/ttymux-agent"}
	_, err := r.agentFor("linux-riscv64", "Linux riscv64")
	if !errors.Is(err, ErrAgentNotFound) || !strings.Contains(err.Error(), "linux-riscv64") ||
		!strings.Contains(err.Error(), "GOOS=linux GOARCH=riscv64 go build") || !strings.Contains(err.Error(), "install.sh") {
		t.Errorf("missing riscv64 agent: %v", err)
	}
	_, err = r.agentFor("linux-armv7", "Linux armv7l")
	if err == nil || !strings.Contains(err.Error(), "GOARCH=arm GOARM=7") {
		t.Errorf("missing armv7 agent: %v", err)
	}
	_, err = r.agentFor("linux-armv6l", "Linux armv6l")
	if !errors.Is(err, ErrAgentNotFound) || !strings.Contains(err.Error(), "builds no agent") {
		t.Errorf("unsupported system: %v", err)
	}
}

func TestShellQuote(t *testing.T) {
	for in, want := range map[string]string{
		"plain":       "'plain'",
		"it's":        `'it'\''s'`,
		"$(rm -rf /)": "'$(rm -rf /)'",
		"~/x y":       `"$HOME"/'x y'`,
	} {
		got := shq(in)
		if strings.HasPrefix(in, "~/") {
			got = shPath(in)
		}
		if got != want {
			t.Errorf("quote(%q) = %s, want %s", in, got, want)
		}
	}
}
