package sshconf

import "time"

// Source values say how a Config was resolved.
const (
	SourceSSH    = "ssh -G"     // the OpenSSH client printed the configuration
	SourceParser = "ssh_config" // sshconf parsed the files itself
)

// Config is the resolved connection settings for one host.
type Config struct {
	// Alias is the name the caller asked for; HostName is what to dial
	// (lower case, as ssh(1) uses it, unless it is an IP address).
	Alias    string
	HostName string
	Port     int
	User     string
	// IdentityFiles are the candidate keys in order, with ~, ${VAR} and the
	// % tokens (%C %d %h %i %j %k %L %l %n %p %r %u %%) expanded and
	// duplicates removed. Without an IdentityFile in the config (or an
	// override) they are OpenSSH's default candidates; files may not exist.
	IdentityFiles  []string
	IdentitiesOnly bool
	// ProxyJump is the jump chain, first hop first; empty for a direct
	// connection. Each hop's own settings come from resolving its Host.
	ProxyJump []Jump
	// UserKnownHostsFiles and GlobalKnownHostsFiles, expanded. Empty means
	// "none" was configured.
	UserKnownHostsFiles   []string
	GlobalKnownHostsFiles []string
	// StrictHostKeyChecking is "yes", "no", "ask" or "accept-new" (ssh -G
	// prints "true" and "false", and "off" means "no": both are normalised).
	StrictHostKeyChecking string
	HashKnownHosts        bool
	ServerAliveInterval   time.Duration // 0: no keepalive
	ServerAliveCountMax   int
	ConnectTimeout        time.Duration // 0: none configured
	// HostKeyAlias is the name to look up in known_hosts instead of the
	// host name; empty when not configured. Lower case, as ssh(1) uses it.
	HostKeyAlias string
	// ProxyCommand is the configured command, unexpanded, or empty. It is
	// empty whenever ProxyJump is set: OpenSSH uses the first of the two
	// it finds, and a jump override other than "none" disables it.
	ProxyCommand string
	// Source says how the config was resolved: SourceSSH or SourceParser.
	Source string
}

// Jump is one hop of a ProxyJump chain as written: [user@]host[:port].
// Port 0 and an empty User mean "from that host's own config".
type Jump struct {
	User string
	Host string
	Port int
}

// Overrides are explicit tool arguments; set fields win over the config.
// They act like ssh's -l, -p, -i and -J flags: they are in force while the
// config is evaluated (so Match user sees User) and are applied again to
// the result.
type Overrides struct {
	User string
	Port int
	// IdentityFile is tried before the configured keys, as with ssh -i,
	// and replaces OpenSSH's default candidates. ~ is expanded; the file
	// must exist.
	IdentityFile string
	// Jump replaces ProxyJump, in ProxyJump syntax ("a,b@c:2222"); "none"
	// disables a configured jump. Any jump, "none" included, disables a
	// configured ProxyCommand (as ssh -J does).
	Jump string
}

// Options say where the configuration comes from.
type Options struct {
	// ConfigFile is the user config, like ssh -F: when set, only that file
	// is read and it must exist. Empty means $HOME/.ssh/config (skipped if
	// missing), read together with /etc/ssh/ssh_config when $HOME is the
	// account's home directory, as plain ssh(1) does; see docs/ssh.md.
	ConfigFile string
	// SSHPath is the ssh client used for `ssh -G`; empty means "ssh" from
	// $PATH, and the parser if there is none; "-" means never run it
	// (parse the files instead).
	SSHPath string
	// Home is used for ~ expansion, relative Include paths and the default
	// files; empty means $HOME, then the account's home directory. ssh -G
	// itself expands ~ and %d from the account's home directory; sshconf
	// follows it there (docs/ssh.md).
	Home string
	// LocalUser is %u and the default User when parsing; empty means the
	// current user. ssh -G always uses the account it runs as.
	LocalUser string
}
