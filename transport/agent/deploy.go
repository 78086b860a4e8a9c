package agent

import (
	"bufio"
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/user"
	"path"
	"path/filepath"
	"runtime"
	"slices"
	"strings"

	"github.com/pkg/sftp"
	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/transfer"
)

// AgentsDir is where install.sh puts the cross-built agents that ttymux
// uploads to remote hosts, one per target: <dir>/<goos>-<arch>/ttymux-agent
// ($XDG_DATA_HOME/ttymux/agents, by default ~/.local/share/ttymux/agents).
func AgentsDir() string {
	if d := os.Getenv("XDG_DATA_HOME"); d != "" {
		return filepath.Join(d, "ttymux", "agents")
	}
	if h, err := os.UserHomeDir(); err == nil {
		return filepath.Join(h, ".local", "share", "ttymux", "agents")
	}
	// Without HOME, the password database's home; never a shared
	// directory such as /tmp, where another user could plant the agents
	// this user uploads and runs on remote hosts (issue #14).
	if u, err := user.Current(); err == nil && filepath.IsAbs(u.HomeDir) {
		return filepath.Join(u.HomeDir, ".local", "share", "ttymux", "agents")
	}
	return ""
}

// Targets are the hosts install.sh cross-builds the agent for, as named in
// AgentsDir: GOOS-GOARCH, with armv7 for GOARCH=arm GOARM=7.
var Targets = []string{
	"linux-amd64", "linux-arm64", "linux-armv7", "linux-386", "linux-riscv64", "linux-mipsle",
	"darwin-amd64", "darwin-arm64", "freebsd-amd64",
}

// hostTarget maps `uname -sm` (and, for MIPS, the ELF data byte of
// /bin/sh: 01 little-endian, 02 big-endian) to a target name.
func hostTarget(uname, elf string) (string, error) {
	f := strings.Fields(uname)
	if len(f) < 2 {
		return "", fmt.Errorf("cannot tell the host's system from `uname -sm` = %q", uname)
	}
	osName, machine := strings.ToLower(f[0]), f[len(f)-1]
	var arch string
	switch machine {
	case "x86_64", "amd64":
		arch = "amd64"
	case "aarch64", "arm64", "aarch64_be":
		arch = "arm64"
	case "armv7l", "armv7", "armv8l":
		arch = "armv7"
	case "i386", "i486", "i586", "i686", "x86":
		arch = "386"
	case "riscv64":
		arch = "riscv64"
	case "mips", "mipsel", "mipsle":
		arch = "mipsle"
		if strings.TrimSpace(elf) == "02" {
			arch = "mips"
		}
	default:
		arch = machine
	}
	t := osName + "-" + arch
	if !knownTarget(t) {
		// Only a name from the fixed list ever becomes part of a local
		// path: the host's answer is not to be trusted (issue #14: a
		// `uname` of "Linux /../../x/evilpick" picked the file to upload).
		return "", fmt.Errorf("%w (%w): the host reports %q, a system ttymux builds no agent for (it builds %s); use open_ssh without persistent there",
			ErrUnsupportedHost, ErrAgentNotFound, truncate(uname, 100), strings.Join(Targets, ", "))
	}
	return t, nil
}

// ErrUnsupportedHost means the host's system is not one ttymux builds an
// agent for. Nothing is uploaded or cached.
var ErrUnsupportedHost = errors.New("unsupported host")

// knownTarget reports whether t is one of Targets or this machine's own
// system (served by the agent installed beside ttymux).
func knownTarget(t string) bool {
	return slices.Contains(Targets, t) || t == localTarget()
}

// localTarget names the machine ttymux runs on, as hostTarget would.
func localTarget() string {
	arch := runtime.GOARCH
	if arch == "arm" {
		arch = "armv7"
	}
	return runtime.GOOS + "-" + arch
}

// agentFor finds the agent binary to upload for target, which must be a
// known target.
func (r *Remote) agentFor(target, uname string) (string, error) {
	if !knownTarget(target) {
		return "", fmt.Errorf("%w (%w): host %s reports %q (%s), a system ttymux builds no agent for (it builds %s); use open_ssh without persistent there",
			ErrUnsupportedHost, ErrAgentNotFound, r.Host, truncate(uname, 100), target, strings.Join(Targets, ", "))
	}
	dir := r.Agents
	if dir == "" {
		dir = AgentsDir()
	}
	p := filepath.Join(dir, target, "ttymux-agent")
	if dir != "" && isExecutable(p) {
		return p, nil
	}
	if target == localTarget() {
		// The host runs what this machine runs: the agent installed next
		// to ttymux will do.
		c := Client{AgentPath: r.LocalAgent}
		if lp, err := c.agentPath(); err == nil {
			return lp, nil
		}
	}
	goos, arch, _ := strings.Cut(target, "-")
	env := "GOOS=" + goos + " GOARCH=" + arch
	if arch == "armv7" {
		env = "GOOS=" + goos + " GOARCH=arm GOARM=7"
	}
	known := false
	for _, t := range Targets {
		known = known || t == target
	}
	if !known {
		return "", fmt.Errorf("%w: host %s reports %q (%s), a system ttymux builds no agent for (it builds %s); use open_ssh without persistent there",
			ErrAgentNotFound, r.Host, uname, target, strings.Join(Targets, ", "))
	}
	return "", fmt.Errorf("%w for %s (host %s reports %q): looked for %s; build it with ./install.sh (which cross-builds every target), or: CGO_ENABLED=0 %s go build -trimpath -ldflags '-s -w' -o %s ./cmd/ttymux-agent",
		ErrAgentNotFound, target, r.Host, uname, p, env, p)
}

// probe is what one remote command learns about the host.
type probe struct {
	uname  string
	elf    string
	dir    string // absolute install directory for this version
	socket string // absolute socket path
	sum    string // sha256 of the installed agent, "" when absent
	noSum  bool   // the host has no sha256 tool
	// started: the probe found the expected agent and started it.
	started bool
	// target names the host's system (hostTarget).
	target string
	// tokenPath is the per-install token next to the agent (0600), token
	// its content: the agent proves it can read it in every hello.
	tokenPath string
	token     string
	// unsafe, when set, says why the socket directory or the socket on the
	// host is not the SSH user's own: nothing may be sent there.
	unsafe string
}

func (p probe) agent() string { return p.dir + "/ttymux-agent" }

// shq quotes s for a POSIX shell.
func shq(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// shPath renders a remote path for a shell command line ("~/" becomes
// "$HOME"/).
func shPath(p string) string { return transfer.ShellPath(p) }

// sumFunc defines ttymux_sum "$file": the sha256 with whichever tool the
// host has (shared with the file transfers).
const sumFunc = transfer.SumFunc

// chkFunc defines ttymux_chk TYPE PATH, which prints "unsafe=PATH PROBLEM"
// when PATH exists and is not a TYPE (d: directory, s: socket) owned by the
// user running it, or is a directory open to group or others. It reads
// `ls -ldn` (POSIX): mode, links, uid.
const chkFunc = `ttymux_chk() { [ -e "$2" ] || [ -L "$2" ] || return 0; set -- "$1" "$2" $(ls -ldn "$2" 2>/dev/null); ` +
	`case $3 in l*) echo "unsafe=$2 is a symbolic link"; return;; esac; ` +
	`case $3 in "$1"*) ;; *) if [ "$1" = d ]; then echo "unsafe=$2 is not a directory"; else echo "unsafe=$2 is not a socket"; fi; return;; esac; ` +
	`[ "$5" = "$(id -u)" ] || { echo "unsafe=$2 is owned by uid $5, not $(id -u)"; return; }; ` +
	`[ "$1" = d ] || return 0; case $3 in d???------*) ;; *) echo "unsafe=$2 has unsafe permissions $3";; esac; }; `

// probeScript returns the one command that describes the host and prepares
// the install directory. When the installed agent's sha256 is want (the
// agent this client would upload for the host it expects), it also starts
// it, saving a round trip.
func (r *Remote) probeScript(want string) string {
	dir := r.Dir
	if dir == "" {
		dir = "~/.cache/ttymux/agent"
	}
	sock := `/tmp/ttymux-$(id -u)`
	if r.SocketDir != "" {
		sock = shPath(r.SocketDir)
	}
	start := ""
	if want != "" {
		start = `[ -z "$u" ] && [ "$h" = ` + shq(want) + ` ] && "$d/ttymux-agent" serve --detach --socket "$s/agent-v` + protocolVersion() + `.sock" >/dev/null && echo started=1; `
	}
	return "umask 077; " + sumFunc + chkFunc +
		`d=` + shPath(path.Join(dir, r.versionDir())) + `; s=` + sock + `; ` +
		`mkdir -p "$d" && cd "$d" && d=$(pwd -P) || exit 1; ` +
		`echo "uname=$(uname -sm)"; echo "dir=$d"; echo "socket=$s/agent-v` + protocolVersion() + `.sock"; ` +
		// The socket directory and the socket must be the SSH user's own
		// before anything connects there (issue #14).
		`u=$(ttymux_chk d "$s"; ttymux_chk s "$s/agent-v` + protocolVersion() + `.sock"); [ -n "$u" ] && echo "$u"; ` +
		// The per-install token: made once from the random line on stdin,
		// 0600 (umask), read back by whoever deploys.
		`IFS= read -r t || :; tf="$d/agent.token"; if [ -L "$tf" ] || [ ! -s "$tf" ]; then rm -f "$tf"; (set -C; printf '%s\n' "$t" > "$tf") || exit 1; fi; chmod 600 "$tf"; ` +
		`echo "tokenpath=$tf"; echo "token=$(cat "$tf")"; ` +
		`case $(uname -m) in mips*) echo "elf=$(od -An -tx1 -j5 -N1 /bin/sh 2>/dev/null)";; esac; ` +
		`command -v sha256sum >/dev/null 2>&1 || command -v shasum >/dev/null 2>&1 || command -v openssl >/dev/null 2>&1 || echo nosum=1; ` +
		`h=; [ -f "$d/ttymux-agent" ] && h=$(ttymux_sum "$d/ttymux-agent") && echo "sum=$h"; ` + start + `exit 0`
}

func parseProbe(out string) (probe, error) {
	var p probe
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			continue
		}
		switch k {
		case "uname":
			p.uname = v
		case "elf":
			p.elf = v
		case "dir":
			p.dir = v
		case "socket":
			p.socket = v
		case "sum":
			p.sum = v
		case "nosum":
			p.noSum = true
		case "started":
			p.started = true
		case "tokenpath":
			p.tokenPath = v
		case "token":
			p.token = strings.TrimSpace(v)
		case "unsafe":
			if p.unsafe == "" {
				p.unsafe = v
			}
		}
	}
	if p.uname == "" || p.dir == "" || p.socket == "" || (p.unsafe == "" && (p.tokenPath == "" || p.token == "")) {
		return p, fmt.Errorf("unexpected answer from the host's shell: %q", truncate(out, 300))
	}
	return p, nil
}

func truncate(s string, n int) string {
	s = strings.TrimSpace(s)
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// fileSum returns the hex sha256 of a local file and its contents.
func fileSum(p string) (string, []byte, error) {
	b, err := os.ReadFile(p)
	if err != nil {
		return "", nil, err
	}
	h := sha256.Sum256(b)
	return hex.EncodeToString(h[:]), b, nil
}

// RemoteError is a command on the remote host that failed.
type RemoteError struct {
	Host   string
	Step   string // "probe", "upload", "verify", "start"
	Err    error
	Stderr string
}

func (e *RemoteError) Error() string {
	s := fmt.Sprintf("agent deploy on %s: %s: %v", e.Host, e.Step, e.Err)
	if e.Stderr != "" {
		s += ": " + truncate(e.Stderr, 500)
	}
	return s
}

func (e *RemoteError) Unwrap() error { return e.Err }

// ErrChecksum means the uploaded agent did not arrive intact; it was
// removed and never run.
var ErrChecksum = errors.New("uploaded agent failed its checksum")

// run runs cmd on the host, feeding stdin, and returns its output. ctx
// bounds it.
func run(ctx context.Context, c *ssh.Client, cmd string, stdin io.Reader) (string, string, error) {
	return transfer.Run(ctx, c, cmd, stdin)
}

// deploy makes sure this version's agent is installed on the host and
// running, and returns where its socket is.
func (r *Remote) deploy(ctx context.Context, c *ssh.Client) (probe, error) {
	// Expect the host to be what it was last time (or this machine's
	// system): if that agent is installed, the probe starts it.
	want := ""
	guess := r.lastTarget
	if guess == "" {
		guess = localTarget()
	}
	if local, err := r.agentFor(guess, ""); err == nil {
		want, _, _ = fileSum(local)
	}
	out, stderr, err := run(ctx, c, r.probeScript(want), strings.NewReader(newToken()+"\n"))
	if err != nil {
		return probe{}, &RemoteError{Host: r.Host, Step: "probe", Err: err, Stderr: stderr}
	}
	p, err := parseProbe(out)
	if err != nil {
		return p, &RemoteError{Host: r.Host, Step: "probe", Err: err, Stderr: stderr}
	}
	if p.unsafe != "" {
		return p, r.unsafeError(p.unsafe)
	}
	target, err := hostTarget(p.uname, p.elf)
	if err != nil {
		return p, &RemoteError{Host: r.Host, Step: "probe", Err: err}
	}
	p.target = target
	local, err := r.agentFor(target, p.uname)
	if err != nil && errors.Is(err, ErrAgentNotFound) && !errors.Is(err, ErrUnsupportedHost) && r.Build != nil {
		// Not built yet for this system: build it now (install.sh leaves
		// agents for other systems to their first use).
		if built, berr := r.Build(ctx, target); berr == nil {
			local, err = built, nil
		} else {
			err = fmt.Errorf("%w: %w", ErrAgentNotFound, berr)
		}
	}
	if err != nil {
		return p, err
	}
	sum, data, err := fileSum(local)
	if err != nil {
		return p, fmt.Errorf("read the agent to upload: %w", err)
	}
	if p.started && p.sum == sum {
		return p, nil
	}
	start := shq(p.agent()) + " serve --detach --socket " + shq(p.socket)
	if p.sum != sum {
		if p.noSum {
			return p, &RemoteError{Host: r.Host, Step: "verify", Err: errors.New("the host has none of sha256sum, shasum or openssl, so an uploaded agent cannot be verified; install one of them (coreutils or busybox provide sha256sum), or use open_ssh without persistent")}
		}
		tmp := p.dir + "/.ttymux-agent." + randomHex() + ".tmp"
		method, err := r.upload(ctx, c, tmp, data)
		if err != nil {
			_, _, _ = run(context.WithoutCancel(ctx), c, "rm -f "+shq(tmp), nil)
			return p, &RemoteError{Host: r.Host, Step: "upload", Err: err}
		}
		r.logger().Info("uploaded ttymux agent", "host", r.Host, "target", target, "bytes", len(data), "via", method)
		// Verify, install and start in one round trip; a corrupted
		// upload is removed and never runs.
		start = sumFunc + `t=` + shq(tmp) + `; if [ "$(ttymux_sum "$t")" != ` + shq(sum) + ` ]; then rm -f "$t"; echo ttymux-checksum-mismatch >&2; exit 86; fi; ` +
			`chmod 700 "$t" && mv -f "$t" ` + shq(p.agent()) + ` && ` + start
	}
	_, stderr, err = run(ctx, c, start, nil)
	if err != nil {
		var ee *ssh.ExitError
		if errors.As(err, &ee) && ee.ExitStatus() == 86 {
			return p, &RemoteError{Host: r.Host, Step: "verify", Err: fmt.Errorf("%w (sha256 differs from %s); it was removed and not run: the link may be corrupting data, try again", ErrChecksum, local)}
		}
		return p, &RemoteError{Host: r.Host, Step: "start", Err: err, Stderr: stderr}
	}
	return p, nil
}

// newToken returns a fresh per-install token: 32 random bytes in hex.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

func randomHex() string {
	var b [6]byte
	_, _ = rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// upload writes data to the remote path tmp: over SFTP, else the legacy
// scp sink, else `cat >`. It reports which one worked.
func (r *Remote) upload(ctx context.Context, c *ssh.Client, tmp string, data []byte) (string, error) {
	if r.uploadHook != nil {
		data = r.uploadHook(data)
	}
	var errs []error
	if !r.noSFTP {
		err := uploadSFTP(c, tmp, data)
		if err == nil {
			return "sftp", nil
		}
		errs = append(errs, fmt.Errorf("sftp: %w", err))
	}
	if !r.noSCP {
		err := uploadSCP(ctx, c, tmp, data)
		if err == nil {
			return "scp", nil
		}
		errs = append(errs, fmt.Errorf("scp: %w", err))
	}
	if _, stderr, err := run(ctx, c, "cat > "+shq(tmp), bytes.NewReader(data)); err == nil {
		return "cat", nil
	} else {
		errs = append(errs, fmt.Errorf("cat: %w %s", err, truncate(stderr, 200)))
	}
	return "", errors.Join(errs...)
}

func uploadSFTP(c *ssh.Client, tmp string, data []byte) error {
	sc, err := sftp.NewClient(c, sftp.UseConcurrentWrites(true))
	if err != nil {
		return err
	}
	defer sc.Close()
	f, err := sc.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL)
	if err != nil {
		return err
	}
	if _, err := f.ReadFrom(bytes.NewReader(data)); err != nil {
		_ = f.Close()
		return err
	}
	return f.Close()
}

// uploadSCP writes data to tmp with the legacy scp protocol's sink.
func uploadSCP(ctx context.Context, c *ssh.Client, tmp string, data []byte) error {
	return transfer.SCPSend(ctx, c, tmp, bytes.NewReader(data), int64(len(data)), 0o600)
}
