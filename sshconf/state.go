package sshconf

import (
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"
)

// state holds the options found so far; nil means unset, and the first
// value found wins (ssh_config(5)), except IdentityFile, which
// accumulates.
type state struct {
	hostname, user, proxyJump, proxyCommand, hostKeyAlias *string
	strict, canonicalize                                  *string
	port, aliveInterval, aliveCountMax, connectTimeout    *int
	identitiesOnly, hashKnownHosts                        *bool
	userKnownHosts, globalKnownHosts                      []string
	userKnownHostsSet, globalKnownHostsSet                bool
	identities                                            []identityFile
}

type identityFile struct {
	path     string
	userConf bool
}

// apply records one key/value line (readconf.c process_config_line). The
// value is checked even when the block is inactive, as OpenSSH does, but
// only for the keys ttymux uses; others are ignored.
func (st *state) apply(key string, la lineArgs, active, userConf bool) error {
	switch key {
	case "hostname", "user", "port", "identityfile", "identitiesonly", "hashknownhosts",
		"stricthostkeychecking", "canonicalizehostname", "serveraliveinterval",
		"connecttimeout", "serveralivecountmax", "hostkeyalias", "proxyjump",
		"userknownhostsfile", "globalknownhostsfile", "proxycommand":
	default:
		return nil
	}
	if la.err != nil {
		return la.err
	}
	if key == "proxycommand" {
		if la.raw == "" {
			return errors.New("ProxyCommand: missing argument")
		}
		if active && st.proxyCommand == nil {
			v := la.raw
			st.proxyCommand = &v
		}
		return nil
	}
	if key == "userknownhostsfile" || key == "globalknownhostsfile" {
		return st.applyList(key, la.args, active)
	}
	if key == "proxyjump" {
		// readconf.c hands parse_jump the raw rest of the line, which
		// ends it at '#' and (in OpenSSH 9.2) uses its first word, quotes
		// and all; further words are ignored.
		raw, _, _ := strings.Cut(la.raw, "#")
		f := strings.Fields(raw)
		if len(f) == 0 {
			return errors.New("proxyjump: missing argument")
		}
		if _, err := ParseJump(f[0]); err != nil {
			return err
		}
		if active && st.proxyJump == nil && st.proxyCommand == nil {
			st.setJump(f[0])
		}
		return nil
	}
	switch {
	case len(la.args) == 0 || la.args[0] == "":
		return fmt.Errorf("%s: missing argument", key)
	case len(la.args) > 1:
		return fmt.Errorf("%s: extra arguments at end of line", key)
	}
	v := la.args[0]
	setStr := func(dst **string, v string) {
		if active && *dst == nil {
			*dst = &v
		}
	}
	setInt := func(dst **int, v int) {
		if active && *dst == nil {
			*dst = &v
		}
	}
	setBool := func(dst **bool, v bool) {
		if active && *dst == nil {
			*dst = &v
		}
	}
	switch key {
	case "hostname":
		setStr(&st.hostname, v)
	case "user":
		setStr(&st.user, v)
	case "hostkeyalias":
		setStr(&st.hostKeyAlias, v)
	case "port":
		p, err := parsePort(v)
		if err != nil {
			return err
		}
		setInt(&st.port, p)
	case "identityfile":
		if active {
			id := identityFile{path: v, userConf: userConf}
			if !slices.Contains(st.identities, id) {
				st.identities = append(st.identities, id)
			}
		}
	case "identitiesonly", "hashknownhosts":
		b, err := parseFlag(v)
		if err != nil {
			return err
		}
		if key == "identitiesonly" {
			setBool(&st.identitiesOnly, b)
		} else {
			setBool(&st.hashKnownHosts, b)
		}
	case "stricthostkeychecking":
		s, err := parseStrict(v)
		if err != nil {
			return err
		}
		setStr(&st.strict, s)
	case "canonicalizehostname":
		s, err := parseCanonicalize(v)
		if err != nil {
			return err
		}
		setStr(&st.canonicalize, s)
	case "serveraliveinterval", "connecttimeout":
		n, err := convtime(v)
		if err != nil {
			return err
		}
		if key == "serveraliveinterval" {
			setInt(&st.aliveInterval, n)
		} else {
			setInt(&st.connectTimeout, n)
		}
	case "serveralivecountmax":
		n, err := parseCount(v)
		if err != nil {
			return err
		}
		setInt(&st.aliveCountMax, n)
	}
	return nil
}

// setJump records a ProxyJump (readconf.c parse_jump). Of ProxyJump and
// ProxyCommand the first wins: a jump sets ProxyCommand to "none". A jump
// of "none" only keeps later ProxyJump lines out; a later ProxyCommand
// still applies (checked against OpenSSH 9.2). ssh -J none is different:
// the command line turns ProxyCommand off for every -J (see resolve).
func (st *state) setJump(v string) {
	st.proxyJump = &v
	if !strings.EqualFold(v, "none") {
		none := "none"
		st.proxyCommand = &none
	}
}

// applyList records UserKnownHostsFile or GlobalKnownHostsFile
// (readconf.c parse_char_array): "none" only alone.
func (st *state) applyList(key string, args []string, active bool) error {
	if len(args) == 0 {
		return fmt.Errorf("%s: missing argument", key)
	}
	for _, a := range args {
		if a == "" {
			return fmt.Errorf("%s: empty argument", key)
		}
		if strings.EqualFold(a, "none") && len(args) > 1 {
			return fmt.Errorf("%s: \"none\" argument must appear alone", key)
		}
	}
	dst, set := &st.userKnownHosts, &st.userKnownHostsSet
	if key == "globalknownhostsfile" {
		dst, set = &st.globalKnownHosts, &st.globalKnownHostsSet
	}
	if active && !*set {
		*dst, *set = slices.Clone(args), true
	}
	return nil
}

// build fills in OpenSSH's defaults (readconf.c fill_default_options) and
// expands what ssh.c expands.
func (e *env) build(st *state, alias, hostname string) (Config, error) {
	c := Config{
		Alias:                 alias,
		HostName:              hostname,
		Port:                  defaultPort,
		User:                  e.localUser,
		StrictHostKeyChecking: defaultStrictHostKey,
		ServerAliveCountMax:   defaultServerAliveCountMax,
		Source:                SourceParser,
	}
	if st.port != nil {
		c.Port = *st.port
	}
	if st.user != nil {
		c.User = *st.user
	}
	if st.identitiesOnly != nil {
		c.IdentitiesOnly = *st.identitiesOnly
	}
	if st.hashKnownHosts != nil {
		c.HashKnownHosts = *st.hashKnownHosts
	}
	if st.strict != nil {
		c.StrictHostKeyChecking = *st.strict
	}
	if st.aliveInterval != nil {
		c.ServerAliveInterval = time.Duration(*st.aliveInterval) * time.Second
	}
	if st.aliveCountMax != nil {
		c.ServerAliveCountMax = *st.aliveCountMax
	}
	if st.connectTimeout != nil {
		c.ConnectTimeout = time.Duration(*st.connectTimeout) * time.Second
	}
	if st.hostKeyAlias != nil {
		c.HostKeyAlias = asciiLower(*st.hostKeyAlias)
	}
	var err error
	if st.proxyJump != nil {
		if c.ProxyJump, err = ParseJump(*st.proxyJump); err != nil {
			return Config{}, err
		}
	}
	if st.proxyCommand != nil && *st.proxyCommand != "none" && len(c.ProxyJump) == 0 {
		c.ProxyCommand = *st.proxyCommand
	}
	tokens := e.tokens(connInfo{
		alias: alias, hostname: hostname, user: c.User, port: c.Port,
		keyAlias: c.HostKeyAlias, jumpHost: lastHopHost(c.ProxyJump),
	})
	ids := defaultIdentityFiles
	if len(st.identities) > 0 {
		ids = make([]string, len(st.identities))
		for i, id := range st.identities {
			ids[i] = id.path
		}
	}
	if c.IdentityFiles, err = e.expandPaths(ids, tokens); err != nil {
		return Config{}, fmt.Errorf("identity file: %w", err)
	}
	user := defaultUserKnownHosts
	if st.userKnownHostsSet {
		user = st.userKnownHosts
	}
	if c.UserKnownHostsFiles, err = e.expandPaths(noneList(user), tokens); err != nil {
		return Config{}, fmt.Errorf("user known hosts file: %w", err)
	}
	global := defaultGlobalKnownHosts
	if st.globalKnownHostsSet {
		global = st.globalKnownHosts
	}
	if c.GlobalKnownHostsFiles, err = tildeAll(noneList(global), e.home); err != nil {
		return Config{}, err
	}
	return c, nil
}

// noneList maps ["none"] to no files.
func noneList(l []string) []string {
	if len(l) == 1 && strings.EqualFold(l[0], "none") {
		return []string{}
	}
	return l
}
