package sshconf

import (
	"context"
	"crypto/sha1"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"unicode"
)

// systemConfigFile is OpenSSH's system-wide client configuration
// (pathnames.h _PATH_HOST_CONFIG_FILE).
const systemConfigFile = "/etc/ssh/ssh_config"

// Resolve returns the settings for connecting to host (an alias from the
// config, a host name or an address; not user@host), with o applied as
// ssh's -l, -p, -i and -J flags would be. It runs `ssh -G` when the ssh
// client is available (ctx bounds it, with a cap of 10 s) and otherwise
// parses the config files (see the package documentation and
// docs/ssh.md). Config.Source says which.
//
// A config ssh rejects is a *ConfigError; one the parser path cannot
// evaluate wraps ErrNeedsSSH.
func Resolve(ctx context.Context, host string, o Overrides, opts Options) (Config, error) {
	if err := checkHostArg(host); err != nil {
		return Config{}, err
	}
	if err := checkOverrides(o); err != nil {
		return Config{}, err
	}
	r, err := newResolver(opts)
	if err != nil {
		return Config{}, err
	}
	return r.resolve(ctx, host, o)
}

// resolver is one Resolve call's view of the local system.
type resolver struct {
	sshPath string // "" for the parser path
	plan    plan
	system  string // the system-wide file the parser reads (tests move it)
	parse   *env   // expansion for the parser path (Options.Home, LocalUser)
	ssh     *env   // expansion after ssh -G (the account, as ssh itself uses)
}

// plan says which files are read, the same way on both paths.
type plan struct {
	home       string // Options.Home resolved: relative Include and ssh's $HOME
	userFile   string // "" for none
	useF       bool   // pass -F (userFile, or "none" when it is "")
	explicit   bool   // the user file must exist (Options.ConfigFile)
	readSystem bool   // also read systemConfigFile (only without -F)
	checkPerm  bool   // ssh checks the user file's owner and mode (only without -F)
}

func newResolver(opts Options) (*resolver, error) {
	acct, _ := user.Current() // nil if the account is unknown: ssh fails too
	home := opts.Home
	if home == "" {
		home = os.Getenv("HOME")
	}
	if home == "" && acct != nil {
		home = acct.HomeDir
	}
	if home == "" {
		return nil, errors.New("no home directory (set HOME)")
	}
	localUser := opts.LocalUser
	if localUser == "" && acct != nil {
		localUser = acct.Username
	}
	if localUser == "" {
		localUser = firstNonEmpty(os.Getenv("USER"), os.Getenv("LOGNAME"))
	}
	if localUser == "" {
		return nil, errors.New("unknown local user (set USER)")
	}
	hostname, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("local host name: %w", err)
	}
	lookupEnv := func(k string) (string, bool) {
		if k == "HOME" {
			return home, true // ssh -G runs with HOME set to it, too
		}
		return os.LookupEnv(k)
	}
	uid := strconv.Itoa(os.Getuid())
	r := &resolver{
		system: systemConfigFile,
		parse:  &env{home: home, localUser: localUser, uid: uid, hostname: hostname, lookupEnv: lookupEnv},
	}
	r.ssh = r.parse
	acctHome := ""
	if acct != nil {
		acctHome = acct.HomeDir
		r.ssh = &env{home: acct.HomeDir, localUser: acct.Username, uid: acct.Uid, hostname: hostname, lookupEnv: lookupEnv}
	}
	if r.plan, err = makePlan(opts.ConfigFile, home, acctHome); err != nil {
		return nil, err
	}
	switch opts.SSHPath {
	case "-":
	case "":
		r.sshPath, _ = exec.LookPath("ssh") // none installed: parse instead
	default:
		if r.sshPath, err = exec.LookPath(opts.SSHPath); err != nil {
			return nil, fmt.Errorf("ssh client %q: %w", opts.SSHPath, err)
		}
	}
	return r, nil
}

func firstNonEmpty(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// makePlan decides which files ssh reads. ssh(1) reads ~/.ssh/config from
// the account's home directory (not $HOME) and then /etc/ssh/ssh_config;
// with -F it reads only the given file ("-F none": nothing). So:
//
//   - ConfigFile set: -F ConfigFile, as the caller asked.
//   - ConfigFile empty and home is the account's home: no -F, exactly what
//     plain `ssh host` reads, system file included.
//   - otherwise (a scratch HOME, as in tests): -F $HOME/.ssh/config, or
//     -F none when it does not exist; the system file is not read.
func makePlan(configFile, home, acctHome string) (plan, error) {
	p := plan{home: home}
	if configFile != "" {
		f, err := tildeExpand(configFile, home)
		if err != nil {
			return plan{}, fmt.Errorf("config file: %w", err)
		}
		p.useF, p.explicit = true, true
		if f != "none" {
			p.userFile = f
		}
		return p, nil
	}
	p.userFile = filepath.Join(home, ".ssh", "config")
	if acctHome != "" && filepath.Clean(home) == filepath.Clean(acctHome) {
		p.readSystem, p.checkPerm = true, true
		return p, nil
	}
	p.useF = true
	if _, err := os.Stat(p.userFile); err != nil {
		p.userFile = ""
	}
	return p, nil
}

func (r *resolver) resolve(ctx context.Context, host string, o Overrides) (Config, error) {
	var identity string
	if o.IdentityFile != "" {
		// ssh -i expands ~ and ignores a file it cannot stat; an explicit
		// key that is missing is almost certainly a mistake, so say so.
		home := r.parse.home
		if r.sshPath != "" {
			home = r.ssh.home // what ssh -i itself uses
		}
		var err error
		identity, err = tildeExpand(o.IdentityFile, home)
		if err != nil {
			return Config{}, fmt.Errorf("identity file override: %w", err)
		}
		if _, err := os.Stat(identity); err != nil {
			return Config{}, fmt.Errorf("identity file override: %w", err)
		}
	}
	var (
		cfg Config
		err error
	)
	if r.sshPath != "" {
		cfg, err = r.resolveSSH(ctx, host, o, identity)
	} else if err = ctx.Err(); err == nil {
		cfg, err = r.resolveParser(host, o, identity)
	}
	if err != nil {
		return Config{}, err // the caller names the host
	}
	if err := applyOverrides(&cfg, o, identity); err != nil {
		return Config{}, err
	}
	return cfg, nil
}

// applyOverrides puts o into cfg after resolution. ssh already applied
// them as flags (and the parser seeded them), so this only pins the
// result: the override identity first, the override jump in place of the
// configured one.
func applyOverrides(cfg *Config, o Overrides, identity string) error {
	if o.User != "" {
		cfg.User = o.User
	}
	if o.Port != 0 {
		cfg.Port = o.Port
	}
	// A path with tokens is first already, expanded (ssh -i, or seeded).
	if identity != "" && !strings.ContainsAny(identity, "%$") && (len(cfg.IdentityFiles) == 0 || cfg.IdentityFiles[0] != identity) {
		cfg.IdentityFiles = dedupe(append([]string{identity}, cfg.IdentityFiles...))
	}
	if o.Jump != "" {
		hops, err := ParseJump(o.Jump)
		if err != nil {
			return fmt.Errorf("jump override: %w", err)
		}
		cfg.ProxyJump = hops
		cfg.ProxyCommand = "" // ssh -J, "none" included, turns ProxyCommand off

	}
	return nil
}

// checkHostArg rejects what ssh.c valid_hostname rejects on the command
// line (shell metacharacters, white space, a leading '-'), so both paths
// refuse the same hosts, and user@host and URIs, which ssh would take
// apart but an alias cannot be.
func checkHostArg(host string) error {
	switch {
	case host == "":
		return errors.New("empty host")
	case strings.HasPrefix(host, "-"):
		return fmt.Errorf("host %q starts with '-'", host)
	case strings.Contains(host, "@"):
		return fmt.Errorf("host %q contains '@'; pass the user separately", host)
	case strings.Contains(host, "://"):
		return fmt.Errorf("host %q is a URI; pass the host name, user and port separately", host)
	case strings.ContainsAny(host, "'`\"$\\;&<>|(){},"),
		strings.IndexFunc(host, func(r rune) bool { return unicode.IsSpace(r) || unicode.IsControl(r) }) >= 0:
		return fmt.Errorf("host %q contains white space, a comma or shell metacharacters", host)
	}
	return nil
}

// checkOverrides validates o; the user as ssh.c valid_ruser does for -l.
func checkOverrides(o Overrides) error {
	if o.Port < 0 || o.Port > 65535 {
		return fmt.Errorf("port override %d out of range", o.Port)
	}
	if strings.HasPrefix(o.User, "-") || strings.ContainsAny(o.User, "'`\";&<>|(){}") ||
		strings.HasSuffix(o.User, "\\") || strings.IndexFunc(o.User, unicode.IsControl) >= 0 {
		return fmt.Errorf("user override %q contains shell metacharacters or starts with '-'", o.User)
	}
	if strings.IndexFunc(o.IdentityFile, unicode.IsControl) >= 0 {
		return fmt.Errorf("bad identity file override %q", o.IdentityFile)
	}
	if o.Jump != "" {
		if _, err := ParseJump(o.Jump); err != nil {
			return fmt.Errorf("jump override: %w", err)
		}
	}
	return nil
}

// env is what token expansion and the defaults need from the local system.
type env struct {
	home      string // ~ and %d
	localUser string // %u, the default User, Match localuser
	uid       string // %i
	hostname  string // %l, and %L up to the first dot
	lookupEnv func(string) (string, bool)
}

// connInfo is ssh.c's ssh_conn_info: the values of the % tokens for
// IdentityFile and UserKnownHostsFile.
type connInfo struct {
	alias, hostname, user, keyAlias, jumpHost string
	port                                      int
}

func (e *env) tokens(c connInfo) map[byte]string {
	port := strconv.Itoa(c.port)
	keyAlias := c.keyAlias
	if keyAlias == "" {
		keyAlias = c.alias
	}
	short, _, _ := strings.Cut(e.hostname, ".")
	// %C: ssh_connection_hash, SHA-1 of %l%h%p%r%j (OpenSSH 9.2 leaves out
	// %j; they agree without a ProxyJump).
	sum := sha1.Sum([]byte(e.hostname + c.hostname + port + c.user + c.jumpHost))
	return map[byte]string{
		'C': hex.EncodeToString(sum[:]),
		'L': short,
		'i': e.uid,
		'k': keyAlias,
		'l': e.hostname,
		'n': c.alias,
		'p': port,
		'd': e.home,
		'h': c.hostname,
		'r': c.user,
		'u': e.localUser,
		'j': c.jumpHost,
	}
}

// expandPaths expands ~ and then the % tokens and ${VAR} in each path, as
// ssh.c does for IdentityFile and UserKnownHostsFile, dropping duplicates.
func (e *env) expandPaths(paths []string, tokens map[byte]string) ([]string, error) {
	out := make([]string, 0, len(paths))
	for _, p := range paths {
		t, err := tildeExpand(p, e.home)
		if err != nil {
			return nil, err
		}
		x, err := percentExpand(t, tokens, e.lookupEnv)
		if err != nil {
			return nil, err
		}
		out = append(out, x)
	}
	return dedupe(out), nil
}

func dedupe(s []string) []string {
	out := s[:0:0]
	seen := make(map[string]bool, len(s))
	for _, v := range s {
		if !seen[v] {
			seen[v] = true
			out = append(out, v)
		}
	}
	return out
}

// lastHopHost is %j: the host of the hop ssh connects through last.
func lastHopHost(hops []Jump) string {
	if len(hops) == 0 {
		return ""
	}
	return hops[len(hops)-1].Host
}

// Defaults from readconf.c fill_default_options and pathnames.h.
var (
	defaultIdentityFiles = []string{
		"~/.ssh/id_rsa", "~/.ssh/id_ecdsa", "~/.ssh/id_ecdsa_sk",
		"~/.ssh/id_ed25519", "~/.ssh/id_ed25519_sk", "~/.ssh/id_xmss", "~/.ssh/id_dsa",
	}
	defaultUserKnownHosts   = []string{"~/.ssh/known_hosts", "~/.ssh/known_hosts2"}
	defaultGlobalKnownHosts = []string{"/etc/ssh/ssh_known_hosts", "/etc/ssh/ssh_known_hosts2"}
)

const (
	defaultPort                = 22
	defaultServerAliveCountMax = 3
	defaultStrictHostKey       = "ask"
)
