package main

// "ttymux doctor": check what ttymux's features need on this machine and
// say how to fix what is missing. Every check only looks: doctor creates,
// starts and changes nothing (the agent is pinged, never started), but for
// one shell of the user's, started with ttymux's hook from a scratch
// directory and ended (doctor_hook.go).

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentbuild"
	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/privdir"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/serial"
)

// Check outcomes. Only statusFail makes doctor exit 1: a warning is a
// feature that works in a reduced way (or not at all) and is not needed by
// everyone.
const (
	statusOK   = "ok"
	statusWarn = "warn"
	statusFail = "fail"
)

// probeTimeout bounds each program doctor runs and the agent ping.
const probeTimeout = 5 * time.Second

// check is one line of doctor's report. The JSON names are a contract for
// scripts (ttymux doctor --json).
type check struct {
	Name   string `json:"name"`
	Status string `json:"status"` // ok, warn or fail
	Detail string `json:"detail"` // what was found
	Fix    string `json:"fix,omitempty"`
}

// doctorReport is the --json output.
type doctorReport struct {
	OK     bool    `json:"ok"` // no check failed
	Checks []check `json:"checks"`
}

const doctorUsage = `usage: ttymux doctor [--json]

Check what ttymux needs on this machine: the shell (and, on a terminal,
that ttymux's hook survives your startup files), the ttymux-agent binary
and its socket directory, the console (ttymux web) and the servers that
offer it their sessions, the ssh client and its configuration, the agents
for remote hosts, serial port permissions, the state directory, the policy,
the audit log, and which configuration directories are in use. Each
line says ok, warn or fail, and how to fix what is missing. Nothing is
changed and no agent is started.

Exit status: 0 when no check fails, 1 otherwise.

`

// cmdDoctor implements "ttymux doctor".
func cmdDoctor(args []string, stdout, stderr io.Writer) int {
	flags := flag.NewFlagSet("doctor", flag.ContinueOnError)
	flags.SetOutput(stderr)
	asJSON := flags.Bool("json", false, "print the report as JSON")
	flags.Usage = func() {
		fmt.Fprint(flags.Output(), doctorUsage)
		flags.PrintDefaults()
	}
	if err := flags.Parse(args); err != nil {
		return 2
	}
	if flags.NArg() != 0 {
		flags.Usage()
		return 2
	}
	ctx, cancel := context.WithTimeout(context.Background(), 6*probeTimeout)
	defer cancel()
	// The checks below then look where a server would (xdgenv.go).
	xdg, xdgErr := adoptXDG()
	checks := append(runChecks(ctx), checkXDG(xdg, xdgErr))
	rep := doctorReport{OK: true, Checks: checks}
	for _, c := range checks {
		rep.OK = rep.OK && c.Status != statusFail
	}
	if *asJSON {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		_ = enc.Encode(rep) // a failed write to stdout has nowhere better to go
	} else {
		writeChecks(stdout, checks)
	}
	if !rep.OK {
		return 1
	}
	return 0
}

// writeChecks prints one line per check: status, name, what was found and,
// for a warning or a failure, the fix.
func writeChecks(w io.Writer, checks []check) {
	var n = map[string]int{}
	for _, c := range checks {
		line := fmt.Sprintf("%-4s  %-16s %s", c.Status, c.Name, c.Detail)
		if c.Fix != "" {
			line += "; fix: " + c.Fix
		}
		fmt.Fprintln(w, line)
		n[c.Status]++
	}
	fmt.Fprintf(w, "%d ok, %d warn, %d fail\n", n[statusOK], n[statusWarn], n[statusFail])
}

// runChecks runs every check in the order of the report.
func runChecks(ctx context.Context) []check {
	agentBin := checkAgentBinary(ctx)
	sshClient, sshPath := checkSSHClient(ctx)
	sshCfg, known := checkSSHConfig(ctx, sshPath)
	return []check{
		checkShell(ctx),
		checkShellHook(ctx),
		agentBin,
		checkSocketDir(),
		checkAgentRunning(ctx),
		checkConsole(ctx), // doctor_console.go
		sshClient,
		sshCfg,
		known,
		checkRemoteAgents(),
		checkSerial(),
		checkStateDir(),
		checkPolicy(),
		checkKernel(),
		checkAuditLog(),
	}
}

// runProbe runs a program with a bounded time and returns its trimmed combined
// output.
func runProbe(ctx context.Context, name string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return strings.TrimSpace(string(out)), err
}

// checkShell: exact exit codes need ttymux's hook, which exists for bash
// (4.4 or newer: PS0 and the array PROMPT_COMMAND it relies on appeared in
// 4.4) and zsh. open_local starts $SHELL, then /bin/bash.
func checkShell(ctx context.Context) check {
	c := check{Name: "shell"}
	sh, origin := os.Getenv("SHELL"), "$SHELL"
	if sh == "" {
		sh, origin = "/bin/bash", "$SHELL is unset, so open_local uses"
	}
	path, err := exec.LookPath(sh)
	if err != nil {
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s %s: not found", origin, sh)
		c.Fix = "set SHELL to an installed bash or zsh in the MCP client's environment (claude mcp add -e SHELL=/bin/bash ...)"
		return c
	}
	other := "install bash or zsh"
	if p := findShell(); p != "" {
		other = "start the MCP server with SHELL=" + p + " (claude mcp add -e SHELL=" + p + " ...)"
	}
	switch filepath.Base(path) {
	case "bash":
		v, err := runProbe(ctx, path, "-c", `printf '%s.%s' "${BASH_VERSINFO[0]}" "${BASH_VERSINFO[1]}"`)
		major, minor, ok := parseVersion(v)
		switch {
		case err != nil || !ok:
			c.Status, c.Detail = statusWarn, fmt.Sprintf("%s %s: cannot tell its version (%v %q)", origin, path, err, v)
			c.Fix = "check that " + path + " runs"
		case major < 4 || major == 4 && minor < 4:
			c.Status, c.Detail = statusWarn, fmt.Sprintf("%s %s is bash %s: exact exit codes need bash 4.4 or newer (or zsh)", origin, path, v)
			c.Fix = "install a newer bash (macOS: brew install bash) and " + strings.Replace(other, "install bash or zsh", "use it", 1)
		default:
			c.Status, c.Detail = statusOK, fmt.Sprintf("%s %s (bash %s): exact exit codes", origin, path, v)
		}
	case "zsh":
		v, err := runProbe(ctx, path, "-fc", `print -rn -- $ZSH_VERSION`)
		if err != nil {
			c.Status, c.Detail = statusWarn, fmt.Sprintf("%s %s does not run: %v", origin, path, err)
			c.Fix = "check that " + path + " runs, or " + other
			return c
		}
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s %s (zsh %s): exact exit codes", origin, path, v)
	default:
		c.Status = statusWarn
		c.Detail = fmt.Sprintf("%s %s has no ttymux hook: commands complete by prompt and quiet, without exit codes (send mark: true gets them)", origin, path)
		c.Fix = other
	}
	return c
}

// findShell returns an installed bash or zsh: from $PATH, else from the
// usual places.
func findShell() string {
	for _, s := range []string{"bash", "zsh"} {
		if p, err := exec.LookPath(s); err == nil {
			return p
		}
	}
	for _, p := range []string{"/bin/bash", "/usr/bin/bash", "/usr/local/bin/bash", "/opt/homebrew/bin/bash", "/bin/zsh", "/usr/bin/zsh"} {
		if isExecutable(p) {
			return p
		}
	}
	return ""
}

// parseVersion reads "major.minor".
func parseVersion(s string) (major, minor int, ok bool) {
	a, b, found := strings.Cut(s, ".")
	if !found {
		return 0, 0, false
	}
	major, err1 := strconv.Atoi(a)
	minor, err2 := strconv.Atoi(b)
	return major, minor, err1 == nil && err2 == nil
}

// findAgent looks for ttymux-agent where the server does
// (transport/agent.FindAgent): -agent or $TTYMUX_AGENT, then beside this
// program, then $PATH.
func findAgent() (string, error) { return agent.FindAgent(os.Getenv("TTYMUX_AGENT")) }

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}

// checkAgentBinary: persistent local sessions (the default) run in
// ttymux-agent, which must speak this build's protocol.
func checkAgentBinary(ctx context.Context) check {
	c := check{Name: "agent-binary"}
	path, err := findAgent()
	if err != nil {
		looked := strings.TrimPrefix(err.Error(), agent.ErrAgentNotFound.Error())
		looked, _, _ = strings.Cut(looked, ";")
		c.Status, c.Detail = statusFail, "ttymux-agent not found ("+strings.Trim(looked, " :")+"): open_local cannot keep sessions across restarts"
		c.Fix = "run ./install.sh from the ttymux source tree (it installs ttymux and ttymux-agent side by side)"
		return c
	}
	out, err := runProbe(ctx, path, "version")
	var agentVer string
	var proto int
	if err == nil {
		_, err = fmt.Sscanf(out, "ttymux-agent %s protocol %d", &agentVer, &proto)
	}
	if err != nil {
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s version: %v (%q)", path, err, out)
		c.Fix = "reinstall it with ./install.sh"
		return c
	}
	mine := version()
	switch {
	case proto != agentproto.Version:
		c.Status = statusFail
		c.Detail = fmt.Sprintf("%s speaks agent protocol %d, this ttymux %d", path, proto, agentproto.Version)
		c.Fix = "install both from the same tree with ./install.sh"
	case agentVer != mine && stamped(agentVer) && stamped(mine):
		c.Status = statusWarn
		c.Detail = fmt.Sprintf("%s is %s, ttymux is %s (both protocol %d)", path, agentVer, mine, proto)
		c.Fix = "install both from the same tree with ./install.sh; a running agent keeps the old version until ttymux-agent stop"
	default:
		c.Status = statusOK
		c.Detail = fmt.Sprintf("%s %s, protocol %d", path, agentVer, proto)
		if agentVer != mine {
			c.Detail += " (development builds: versions not stamped)"
		}
	}
	return c
}

// stamped reports whether a version identifies a build (a plain "devel"
// build without VCS information could be anything).
func stamped(v string) bool { return v != "devel" && v != "dev" && v != "" }

// checkSocketDir: the agent refuses a socket directory that is not ours or
// that others can enter (tmux's "has unsafe permissions"). A missing one is
// created on first use when its parent is writable.
func checkSocketDir() (c check) {
	c = check{Name: "agent-socket-dir"}
	dir, why := agentsock.DirWhy()
	defer func() { c.Detail += "; " + why }()
	if _, err := os.Lstat(dir); errors.Is(err, fs.ErrNotExist) {
		parent, perr := existingAncestor(filepath.Dir(dir))
		if perr != nil {
			c.Status, c.Detail = statusFail, fmt.Sprintf("%s is missing and cannot be created: %v", dir, perr)
			c.Fix = "set XDG_RUNTIME_DIR to a directory of yours (or unset it to use /tmp/ttymux-<uid>)"
			return c
		}
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s will be created (mode 0700) on first use under %s", dir, parent)
		return c
	}
	var unsafe *agentsock.UnsafeDirError
	switch err := agentsock.CheckDir(dir); {
	case err == nil:
		c.Status, c.Detail = statusOK, dir+" (mode 0700, yours)"
	case !errors.As(err, &unsafe):
		c.Status, c.Detail, c.Fix = statusFail, err.Error(), "check the permissions of "+filepath.Dir(dir)
	case strings.HasPrefix(unsafe.Problem, "is owned by"):
		c.Status, c.Detail = statusFail, err.Error()
		c.Fix = "remove it as its owner or root, or set XDG_RUNTIME_DIR to a directory of yours"
	case strings.HasPrefix(unsafe.Problem, "has unsafe permissions"):
		c.Status, c.Detail = statusFail, err.Error()+"; the agent refuses it"
		c.Fix = "chmod 700 " + dir
	default: // a symbolic link, not a directory
		c.Status, c.Detail = statusFail, err.Error()
		c.Fix = "remove it (rm " + dir + "); ttymux recreates it as a directory"
	}
	return c
}

// existingAncestor returns dir or its nearest existing ancestor, which must
// be a directory we may write to (so dir can be created).
func existingAncestor(dir string) (string, error) {
	for d := filepath.Clean(dir); ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if errors.Is(err, fs.ErrNotExist) && d != filepath.Dir(d) {
			continue
		}
		if err != nil {
			return "", err
		}
		if !fi.IsDir() {
			return "", fmt.Errorf("%s is not a directory", d)
		}
		if err := unix.Access(d, unix.W_OK|unix.X_OK); err != nil {
			return "", fmt.Errorf("%s is not writable: %w", d, err)
		}
		return d, nil
	}
}

// checkAgentRunning pings the agent without starting one.
func checkAgentRunning(ctx context.Context) check {
	c := check{Name: "agent"}
	sock := agentsock.Default()
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cl := &agent.Client{Socket: sock}
	err := cl.Ping(ctx)
	var unsafe *agent.UnsafeDirError
	switch {
	case err == nil:
		n := "its sessions"
		if ss, err := cl.List(ctx); err == nil {
			n = fmt.Sprintf("%d session(s)", len(ss))
		}
		c.Status, c.Detail = statusOK, fmt.Sprintf("running on %s, %s (ttymux ls lists them)", sock, n)
	case errors.Is(err, agent.ErrNoAgent):
		c.Status, c.Detail = statusOK, "not running; open_local starts it on demand"
	case errors.As(err, &unsafe):
		c.Status, c.Detail = statusFail, err.Error()
		c.Fix = "see agent-socket-dir above"
	default:
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s does not answer: %v", sock, err)
		c.Fix = "stop it with ttymux-agent stop --force (its sessions end), or remove a stale " + sock
	}
	return c
}

// checkSSHClient: open_ssh does not need the ssh program, but resolves
// ssh_config with `ssh -G` when it is there (full fidelity: Match exec,
// every Match criterion, system defaults). It returns the path for the
// config check.
func checkSSHClient(ctx context.Context) (check, string) {
	c := check{Name: "ssh-client"}
	path, err := exec.LookPath("ssh")
	if err != nil {
		c.Status = statusWarn
		c.Detail = "no ssh on PATH: open_ssh parses ssh_config itself (no Match exec)"
		c.Fix = "install the OpenSSH client (Debian: apt-get install openssh-client; Fedora: dnf install openssh-clients)"
		return c, ""
	}
	out, err := runProbe(ctx, path, "-V") // prints to stderr, exit 0
	if err != nil {
		c.Status, c.Detail = statusWarn, fmt.Sprintf("%s -V: %v %s", path, err, out)
		c.Fix = "reinstall the OpenSSH client"
		return c, path
	}
	c.Status, c.Detail = statusOK, fmt.Sprintf("%s (%s): ssh_config resolved with ssh -G", path, firstLine(out))
	return c, path
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

// checkSSHConfig resolves a placeholder host the way open_ssh does, which
// reads and evaluates ~/.ssh/config (Include, Match and all), then looks
// for the known_hosts files the configuration names.
func checkSSHConfig(ctx context.Context, sshPath string) (check, check) {
	c := check{Name: "ssh-config"}
	k := check{Name: "known-hosts"}
	home := os.Getenv("HOME")
	if home == "" {
		if u, err := user.Current(); err == nil {
			home = u.HomeDir
		}
	}
	file := filepath.Join(home, ".ssh", "config")
	opts := sshconf.Options{}
	if sshPath == "" {
		opts.SSHPath = "-"
	}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	cfg, err := sshconf.Resolve(ctx, "ttymux-doctor", sshconf.Overrides{}, opts)
	var known []string
	switch _, serr := os.Stat(file); {
	case err != nil:
		c.Status, c.Detail = statusFail, "ssh_config: "+err.Error()
		c.Fix = "correct that line of " + file + " (ssh -G -F " + file + " somehost shows what ssh makes of it)"
		if errors.Is(err, sshconf.ErrNeedsSSH) {
			c.Fix = "install the OpenSSH client (apt-get install openssh-client), which evaluates it"
		}
		known = []string{filepath.Join(home, ".ssh", "known_hosts")}
	case errors.Is(serr, fs.ErrNotExist):
		c.Status, c.Detail = statusOK, fmt.Sprintf("no %s: OpenSSH defaults (resolved via %s)", file, cfg.Source)
		known = cfg.UserKnownHostsFiles
	default:
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s parses (resolved via %s)", file, cfg.Source)
		known = cfg.UserKnownHostsFiles
	}
	var found []string
	for _, f := range known {
		if fi, err := os.Stat(f); err == nil && fi.Mode().IsRegular() {
			found = append(found, fmt.Sprintf("%s (%d entries)", f, countKnownHosts(f)))
		}
	}
	if len(found) > 0 {
		k.Status, k.Detail = statusOK, strings.Join(found, ", ")
		return c, k
	}
	k.Status = statusWarn
	k.Detail = "no known_hosts file (" + strings.Join(known, ", ") + "): every host is unknown, and open_ssh refuses unknown hosts"
	k.Fix = "ssh to each host once and accept its key, or pass accept_new_host_key: true to the first open_ssh"
	return c, k
}

// countKnownHosts counts the non-comment lines of a known_hosts file.
func countKnownHosts(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if l := strings.TrimSpace(sc.Text()); l != "" && !strings.HasPrefix(l, "#") {
			n++
		}
	}
	return n
}

// agentsDir is where the cross-built agents for remote hosts live, one per
// target: <dir>/<goos>-<arch>/ttymux-agent. It is the directory open_ssh
// {persistent: true} deploys from.
func agentsDir() string { return agent.AgentsDir() }

// checkRemoteAgents lists the targets open_ssh {persistent: true} can
// deploy an agent to.
func checkRemoteAgents() check {
	c := check{Name: "remote-agents"}
	dir := agentsDir()
	var have, missing []string
	for _, t := range agent.Targets {
		if isExecutable(filepath.Join(dir, t, "ttymux-agent")) {
			have = append(have, t)
		} else {
			missing = append(missing, t)
		}
	}
	local := runtime.GOOS + "-" + runtime.GOARCH
	if runtime.GOARCH == "arm" {
		local = runtime.GOOS + "-armv7"
	}
	switch {
	case len(missing) == 0:
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s: all %d targets (%s)", dir, len(have), strings.Join(have, " "))
	case canBuildAgents(dir):
		// install.sh builds only this system's agent by default; ttymux
		// builds another system's from the recorded checkout when a host
		// first needs it (agentbuild).
		c.Status = statusOK
		c.Detail = fmt.Sprintf("%s has %s; the others (%s) are built from the checkout install.sh recorded the first time a host needs one", dir, orNone(have), strings.Join(missing, " "))
	default:
		c.Status = statusWarn
		c.Detail = fmt.Sprintf("%s has %s; missing %s, and they cannot be built when needed (no checkout recorded by install.sh, or no go on PATH): open_ssh {persistent: true} works only with hosts like this one (%s, from the local ttymux-agent) and those", dir, orNone(have), strings.Join(missing, " "), local)
		c.Fix = "in a ttymux checkout, run ./install.sh --agents all (every target now) or ./install.sh (the others built when first needed)"
	}
	return c
}

// canBuildAgents reports whether ttymux can build a missing agent when a
// host needs it: install.sh recorded a checkout at this version and go is
// on PATH.
func canBuildAgents(dir string) bool {
	src, err := agentbuild.ReadSource(dir)
	if err != nil || src.Version != version() {
		return false
	}
	if fi, err := os.Stat(src.Dir); err != nil || !fi.IsDir() {
		return false
	}
	_, err = exec.LookPath("go")
	return err == nil
}

func orNone(l []string) string {
	if len(l) == 0 {
		return "none"
	}
	return strings.Join(l, " ")
}

// serialGroups are the groups that own serial devices: dialout on Debian,
// Ubuntu and Fedora, uucp on Arch and openSUSE.
var serialGroups = []string{"dialout", "uucp"}

// checkSerial lists the serial ports and whether this user may open them.
func checkSerial() check {
	c := check{Name: "serial"}
	ports, err := serial.Ports()
	if err != nil {
		c.Status, c.Detail = statusWarn, err.Error()
		c.Fix = "serial_ports cannot list ports; open_serial still opens a device by path"
		return c
	}
	u, _ := user.Current()
	name := "$USER"
	if u != nil {
		name = u.Username
	}
	groups := myGroups()
	var open, denied []string
	deniedGroups := map[string]bool{}
	for _, p := range ports {
		if unix.Access(p.Name, unix.R_OK|unix.W_OK) == nil {
			open = append(open, p.Name)
			continue
		}
		denied = append(denied, p.Name)
		if fi, err := os.Stat(p.Name); err == nil {
			if st, ok := fi.Sys().(*syscall.Stat_t); ok {
				if g, err := user.LookupGroupId(strconv.Itoa(int(st.Gid))); err == nil {
					deniedGroups[g.Name] = true
				}
			}
		}
	}
	var member []string
	for _, g := range serialGroups {
		if gr, err := user.LookupGroup(g); err == nil && slices.Contains(groups, gr.Gid) {
			member = append(member, g)
		}
	}
	in := "not in group " + strings.Join(serialGroups, " or ")
	if len(member) > 0 {
		in = "in group " + strings.Join(member, ", ")
	}
	if os.Geteuid() == 0 {
		in = "root"
	}
	switch {
	case len(denied) > 0:
		grp := "dialout"
		for g := range deniedGroups {
			if g != "root" {
				grp = g
			}
		}
		c.Status = statusWarn
		c.Detail = fmt.Sprintf("cannot open %s (%s)", strings.Join(denied, " "), in)
		if len(open) > 0 {
			c.Detail += "; can open " + strings.Join(open, " ")
		}
		c.Fix = fmt.Sprintf("sudo usermod -aG %s %s, then log in again", grp, name)
	case len(ports) == 0:
		c.Status, c.Detail = statusOK, "no serial ports found ("+in+"); USB adapters appear as /dev/ttyUSB* or /dev/ttyACM*"
	default:
		c.Status, c.Detail = statusOK, fmt.Sprintf("can open %s (%s)", strings.Join(open, " "), in)
	}
	return c
}

// myGroups returns the ids of the groups of this process, as strings.
func myGroups() []string {
	ids := []string{strconv.Itoa(os.Getegid())}
	gs, _ := os.Getgroups()
	for _, g := range gs {
		ids = append(ids, strconv.Itoa(g))
	}
	return ids
}

// stateDir is where the server keeps its shell integration files
// (session.DefaultStateDir, what session.NewManager uses).
func stateDir() string { return session.DefaultStateDir() }

// checkStateDir: the integration hook for bash and zsh is written to the
// state directory before the shell starts.
func checkStateDir() check {
	c := check{Name: "state-dir"}
	dir := stateDir()
	var unsafe *privdir.UnsafeDirError
	if err := privdir.CheckNoWrite(dir, "state directory"); errors.As(err, &unsafe) {
		c.Status, c.Detail = statusFail, err.Error()+"; ttymux refuses to write its shell start-up files there"
		c.Fix = "set XDG_CACHE_HOME (or HOME) to a directory of yours; if it is yours, chmod go-w " + dir
		return c
	}
	d, err := existingAncestor(dir)
	if err != nil {
		c.Status, c.Detail = statusFail, fmt.Sprintf("%s is not writable: %v", dir, err)
		c.Fix = "make it writable, or set XDG_CACHE_HOME to a writable directory (the state directory is $XDG_CACHE_HOME/ttymux)"
		return c
	}
	if d == filepath.Clean(dir) {
		c.Status, c.Detail = statusOK, dir+" is writable"
	} else {
		c.Status, c.Detail = statusOK, fmt.Sprintf("%s will be created under %s", dir, d)
	}
	return c
}
