// Package sshconf resolves an OpenSSH host alias to the settings ttymux
// connects with, as ssh(1) would: through `ssh -G` when the ssh client is
// installed (full fidelity: Include, every Match form, defaults), otherwise
// by parsing the config files with kevinburke/ssh_config. It does no
// network I/O and uses only the standard library and that parser.
package sshconf

import "time"

// Config is the resolved connection settings for one host.
type Config struct {
	// Alias is the name the caller asked for; HostName is what to dial.
	Alias    string
	HostName string
	Port     int
	User     string
	// IdentityFiles are the candidate keys in order, with ~ and the %
	// tokens (%h %p %r %u %d %%) expanded.
	IdentityFiles  []string
	IdentitiesOnly bool
	// ProxyJump is the jump chain, first hop first; empty for a direct
	// connection. Each hop's own settings come from resolving its Host.
	ProxyJump []Jump
	// UserKnownHostsFiles and GlobalKnownHostsFiles, expanded.
	UserKnownHostsFiles   []string
	GlobalKnownHostsFiles []string
	// StrictHostKeyChecking is "yes", "no", "ask", "accept-new" or "off"
	// (lower case, as ssh -G prints it).
	StrictHostKeyChecking string
	HashKnownHosts        bool
	ServerAliveInterval   time.Duration // 0: no keepalive
	ServerAliveCountMax   int
	ConnectTimeout        time.Duration // 0: none configured
	// Source says how the config was resolved: "ssh -G" or "ssh_config".
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
type Overrides struct {
	User         string
	Port         int
	IdentityFile string
	// Jump replaces ProxyJump, in ProxyJump syntax ("a,b@c:2222"); "none"
	// disables a configured jump.
	Jump string
}

// Options say where the configuration comes from.
type Options struct {
	// ConfigFile is the user config; empty means $HOME/.ssh/config.
	ConfigFile string
	// SSHPath is the ssh client used for `ssh -G`; empty means "ssh" from
	// $PATH; "-" means never run it (parse the files instead).
	SSHPath string
	// Home is used for ~ expansion and the default files; empty means
	// $HOME, then os.UserHomeDir.
	Home string
	// LocalUser is %u and the default User; empty means the current user.
	LocalUser string
}
