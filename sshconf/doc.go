// Package sshconf resolves an OpenSSH host alias to the settings ttymux
// connects with, as ssh(1) would. It owns reading the OpenSSH client
// configuration and nothing else: it does no network I/O, loads no keys
// and reads no known_hosts files (transport/sshconn does).
//
// Resolve takes one of two paths:
//
//   - With the ssh client installed it runs `ssh -G` and parses what ssh
//     prints. That is full fidelity: every Match form (including exec,
//     which runs its command as ssh would), Include, CanonicalizeHostname,
//     the system-wide file and OpenSSH's own defaults.
//   - Without it, sshconf parses the files itself: github.com/kevinburke/ssh_config
//     reads the lines and Host blocks, and sshconf evaluates them with
//     OpenSSH's rules (first value wins, IdentityFile accumulates, Include
//     and Match handled as readconf.c does, defaults and % tokens applied).
//     Match exec cannot be evaluated without a shell and ssh's own token
//     set, so a config that needs it fails with an error wrapping
//     ErrNeedsSSH.
//
// HostAliases lists the literal aliases of the Host lines (Include'd files
// too) by reading the files itself, on either path: ssh has no way to list
// them. The fanout tool matches host patterns against them (MatchPattern).
//
// docs/ssh.md ("Configuration") lists where the two paths differ; the
// golden tests in testdata/resolve run every case through both and
// compare them with each other when ssh is installed.
//
// Everything in the package is safe for concurrent use: Resolve keeps no
// state between calls.
package sshconf
