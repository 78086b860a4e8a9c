package sshconf

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// sshTimeout caps one `ssh -G`: it normally takes a few milliseconds, but a
// Match exec command in the config can hang.
const sshTimeout = 10 * time.Second

// sshArgs builds the command line: the overrides go in as flags so that
// Match user and the rest see them, and "--" keeps a host from being read
// as an option.
func (r *resolver) sshArgs(host string, o Overrides, identity string) []string {
	args := []string{"-G", "-T"}
	if r.plan.useF {
		f := r.plan.userFile
		if f == "" {
			f = "none" // ssh(1) -F none: read no configuration files
		}
		args = append(args, "-F", f)
	}
	if o.User != "" {
		args = append(args, "-l", o.User)
	}
	if o.Port != 0 {
		args = append(args, "-p", strconv.Itoa(o.Port))
	}
	if identity != "" {
		args = append(args, "-i", identity)
	}
	if o.Jump != "" {
		args = append(args, "-J", o.Jump)
	}
	return append(args, "--", host)
}

func (r *resolver) resolveSSH(ctx context.Context, host string, o Overrides, identity string) (Config, error) {
	ctx, cancel := context.WithTimeout(ctx, sshTimeout)
	defer cancel()
	args := r.sshArgs(host, o, identity)
	cmd := exec.CommandContext(ctx, r.sshPath, args...)
	// Relative Include paths and ${HOME} follow $HOME in ssh (glob(3)
	// GLOB_TILDE), so give it the home the parser path uses.
	cmd.Env = append(os.Environ(), "HOME="+r.plan.home)
	var stdout bytes.Buffer
	stderr := &capped{max: 16 << 10}
	cmd.Stdout, cmd.Stderr = &stdout, stderr
	// A Match exec child may hold the pipes after ssh exits: stop waiting
	// for them after a while. Not too soon: on a busy machine the
	// goroutine copying ssh's output may not run for a second after ssh
	// exits (seen with 28 resolves at once under -race at load 20:
	// "exec: WaitDelay expired before I/O complete").
	cmd.WaitDelay = 5 * time.Second
	setProcessGroup(cmd)
	err := cmd.Run()
	if ctx.Err() != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) {
			return Config{}, fmt.Errorf("ssh -G did not finish in time (it may take %v at most; a Match exec command in the config may hang): %w", sshTimeout, ctx.Err())
		}
		return Config{}, ctx.Err()
	}
	if err != nil {
		if ee := (*exec.ExitError)(nil); errors.As(err, &ee) {
			msg := strings.TrimSpace(stderr.String())
			if msg == "" {
				msg = ee.String()
			}
			return Config{}, &ConfigError{Msg: "ssh -G: " + msg}
		}
		return Config{}, fmt.Errorf("run %s: %w", r.sshPath, err)
	}
	return r.parseSSHOutput(host, stdout.Bytes())
}

// parseSSHOutput reads ssh -G's "keyword value" lines (readconf.c
// dump_client_config). ssh prints IdentityFile as configured and expands
// it only when connecting, so it is expanded here, with the account's
// home and user as ssh would.
func (r *resolver) parseSSHOutput(host string, out []byte) (Config, error) {
	vals := make(map[string]string)
	var ids []string
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), " ")
		if k == "identityfile" {
			ids = append(ids, v)
		} else if _, ok := vals[k]; !ok {
			vals[k] = v
		}
	}
	if err := sc.Err(); err != nil {
		return Config{}, fmt.Errorf("read ssh -G output: %w", err)
	}
	bad := func(k string, err error) (Config, error) {
		return Config{}, fmt.Errorf("ssh -G printed %s %q: %w", k, vals[k], err)
	}
	c := Config{
		Alias:                 host,
		HostName:              vals["hostname"],
		User:                  vals["user"],
		StrictHostKeyChecking: defaultStrictHostKey,
		ServerAliveCountMax:   defaultServerAliveCountMax,
		HostKeyAlias:          vals["hostkeyalias"],
		Source:                SourceSSH,
	}
	if c.HostName == "" || c.User == "" {
		return Config{}, fmt.Errorf("ssh -G printed no hostname or user (output %q)", truncate(out, 200))
	}
	var err error
	if c.Port, err = parsePort(vals["port"]); err != nil {
		return bad("port", err)
	}
	for _, k := range []string{"identitiesonly", "hashknownhosts"} {
		if v, ok := vals[k]; ok {
			f, err := parseFlag(v)
			if err != nil {
				return bad(k, err)
			}
			if k == "identitiesonly" {
				c.IdentitiesOnly = f
			} else {
				c.HashKnownHosts = f
			}
		}
	}
	if v, ok := vals["stricthostkeychecking"]; ok {
		if c.StrictHostKeyChecking, err = parseStrict(v); err != nil {
			return bad("stricthostkeychecking", err)
		}
	}
	for k, dst := range map[string]*time.Duration{"serveraliveinterval": &c.ServerAliveInterval, "connecttimeout": &c.ConnectTimeout} {
		v, ok := vals[k]
		if !ok || v == "none" {
			continue
		}
		n, err := convtime(v)
		if err != nil {
			return bad(k, err)
		}
		*dst = time.Duration(n) * time.Second
	}
	if v, ok := vals["serveralivecountmax"]; ok {
		if c.ServerAliveCountMax, err = parseCount(v); err != nil {
			return bad("serveralivecountmax", err)
		}
	}
	if v, ok := vals["proxyjump"]; ok {
		if c.ProxyJump, err = ParseJump(v); err != nil {
			return bad("proxyjump", err)
		}
	}
	if v := vals["proxycommand"]; len(c.ProxyJump) == 0 && v != "none" {
		c.ProxyCommand = v
	}
	// ssh prints the lists joined by spaces: a path with a space in it
	// cannot be told apart (docs/ssh.md).
	c.UserKnownHostsFiles = dedupe(splitList(vals["userknownhostsfile"]))
	if c.GlobalKnownHostsFiles, err = tildeAll(splitList(vals["globalknownhostsfile"]), r.ssh.home); err != nil {
		return Config{}, err
	}
	tokens := r.ssh.tokens(connInfo{
		alias: host, hostname: c.HostName, user: c.User, port: c.Port,
		keyAlias: c.HostKeyAlias, jumpHost: lastHopHost(c.ProxyJump),
	})
	if c.IdentityFiles, err = r.ssh.expandPaths(ids, tokens); err != nil {
		return Config{}, fmt.Errorf("identity file: %w", err)
	}
	return c, nil
}

// splitList splits a space-separated file list; "none" is the empty list.
func splitList(s string) []string {
	f := strings.Fields(s)
	if len(f) == 1 && strings.EqualFold(f[0], "none") {
		return []string{}
	}
	if f == nil {
		return []string{}
	}
	return f
}

// tildeAll expands ~ in each path: ssh.c tilde_expand_paths, which is all
// it does to GlobalKnownHostsFile.
func tildeAll(paths []string, home string) ([]string, error) {
	out := make([]string, len(paths))
	for i, p := range paths {
		x, err := tildeExpand(p, home)
		if err != nil {
			return nil, fmt.Errorf("known hosts file: %w", err)
		}
		out[i] = x
	}
	return out, nil
}

func truncate(b []byte, n int) string {
	if len(b) > n {
		return string(b[:n]) + "…"
	}
	return string(b)
}

// capped keeps the first max bytes written to it and discards the rest,
// so a chatty Match exec command cannot grow memory without bound.
type capped struct {
	buf bytes.Buffer
	max int
}

func (c *capped) Write(p []byte) (int, error) {
	if room := c.max - c.buf.Len(); room > 0 {
		c.buf.Write(p[:min(room, len(p))])
	}
	return len(p), nil
}

func (c *capped) String() string { return c.buf.String() }
