package session

import (
	"fmt"
	"strings"

	"github.com/ttymux/ttymux/transport"
)

// remoteBootstrap returns the command ttymux runs on a remote host (over
// SSH) instead of a bare login shell. It writes ttymux's integration for the
// user's login shell into a private temporary directory, starts that shell
// as a login shell with the hook, and the hook removes the directory once
// loaded, so nothing is left behind and nothing is printed. BusyBox ash,
// dash and mksh get shellinit/shrc through ENV, fish shellinit/fish
// through --init-command. For another shell, or when
// the directory cannot be made, it starts the plain login shell after a
// mark that says no hook will load.
//
// The directory is made with a plain mkdir under umask 077 (in a subshell,
// so the user's shell keeps its own umask), never mkdir -p:
// in a shared /tmp another user could have made ttymux.<pid> (or a symlink
// by that name) first, and writing the rc file into it would let them
// change it before the shell reads it. mkdir fails then, and the plain
// login shell starts.
//
// sshd runs the command with the user's shell (`$SHELL -c`), which may be
// fish or csh, so everything is handed to /bin/sh inside one pair of single
// quotes; the integration files contain none.
func remoteBootstrap(nonce string) (string, error) {
	bashrc, err := shellinit.ReadFile("shellinit/bashrc")
	if err != nil {
		return "", err
	}
	zshenv, err := shellinit.ReadFile("shellinit/zshenv")
	if err != nil {
		return "", err
	}
	shrc, err := shellinit.ReadFile("shellinit/shrc")
	if err != nil {
		return "", err
	}
	fish, err := shellinit.ReadFile("shellinit/fish")
	if err != nil {
		return "", err
	}
	bashrc, zshenv = dropLineKeys(bashrc), dropLineKeys(zshenv)
	bashrc, zshenv, shrc, fish = stripComments(bashrc), stripComments(zshenv), stripComments(shrc), stripComments(fish)
	for _, f := range [][]byte{bashrc, zshenv, shrc, fish} {
		if strings.ContainsRune(string(f), '\'') || strings.Contains(string(f), "\nTTYMUX_EOF\n") || strings.Contains(string(f), bootAbbrev) {
			return "", fmt.Errorf("shell integration file cannot be sent inside single quotes")
		}
	}
	bashrc, zshenv, shrc, fish = abbreviate(bashrc), abbreviate(zshenv), abbreviate(shrc), abbreviate(fish)
	// zsh's other startup files in ttymux's ZDOTDIR (integration.go).
	// One loop, not a printf each: the bootstrap must fit Dropbear's
	// 9000-byte exec limit. zshWrapper(f) is the line before " "+f.
	head, _ := strings.CutSuffix(zshWrapper("F"), " F\n")
	wrappers := ` && for f in ` + strings.Join(zshWrappers, " ") + `; do printf "%s %s\n" "` + strings.ReplaceAll(head, "$", `\$`) + `" $f >"$d/zsh/$f"; done`
	var b strings.Builder
	b.WriteString("exec /bin/sh -c '")
	b.WriteString(`s=${SHELL:-/bin/sh}
d=${TMPDIR:-/tmp}/ttymux.$$
case ${s##*/} in
bash)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && ` + bootExpand + ` >"$d/rc") <<"TTYMUX_EOF" && TTYMUX_NONCE_FILE="$d/n" TTYMUX_LOGIN=1 TTYMUX_RMDIR="$d" exec "$s" --rcfile "$d/rc" -i
`)
	b.Write(bashrc)
	b.WriteString(`TTYMUX_EOF
	;;
zsh)
	(umask 077 && mkdir "$d" && mkdir "$d/zsh" && echo ` + nonce + ` >"$d/n" && ` + bootExpand + ` >"$d/zsh/.zshenv"` + wrappers + `) <<"TTYMUX_EOF" && TTYMUX_NONCE_FILE="$d/n" TTYMUX_ZDOTDIR="${ZDOTDIR:-}" ZDOTDIR="$d/zsh" TTYMUX_RMDIR="$d" exec "$s" -l
`)
	b.Write(zshenv)
	// ash, dash, mksh: ENV, read by an interactive POSIX shell, loads
	// shellinit/shrc, which reads the login files and the user's ENV
	// itself (/etc/profile may set ENV: OpenWrt's does).
	b.WriteString(`TTYMUX_EOF
	;;
ash|dash|mksh|ksh|sh)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && ` + bootExpand + ` >"$d/rc") <<"TTYMUX_EOF" && TTYMUX_ENV="${ENV:-}" ENV="$d/rc" TTYMUX_NONCE_FILE="$d/n" TTYMUX_LOGIN=1 TTYMUX_RMDIR="$d" exec "$s" -i
`)
	b.Write(shrc)
	// fish runs --init-command after the user's config.
	b.WriteString(`TTYMUX_EOF
	;;
fish)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && ` + bootExpand + ` >"$d/rc") <<"TTYMUX_EOF" && TTYMUX_NONCE_FILE="$d/n" TTYMUX_RMDIR="$d" TTYMUX_RCFILE="$d/rc" exec "$s" -l --init-command "source \"\$TTYMUX_RCFILE\""
`)
	b.Write(fish)
	// Any other shell, or no private directory: no hook loads, and the
	// P mark says so at once, so the open does not wait for a mark.
	b.WriteString(`TTYMUX_EOF
	;;
esac
case ${s##*/} in
bash|zsh|ash|dash|mksh|ksh|sh|fish) r="no private dir in TMPDIR" ;;
*) r="no hook for ${s##*/}" ;;
esac
printf "\033]133;N;%s;ttymux=` + nonce + `\007" "$r"
exec "$s" -l
'`)
	return b.String(), nil
}

// bootAbbrev stands for "__ttymux_" (the prefix of every name the
// integration files define, nearly 200 times in them) in the bootstrap,
// and bootExpand, which writes each file on the remote host, puts it back:
// the bootstrap must fit Dropbear's exec limit (maxBootstrap). No
// integration file holds a "^"; not first in a basic regular expression,
// it stands for itself.
const (
	bootAbbrev = "_^"
	bootExpand = `sed "s/_^/__ttymux_/g"`
)

// abbreviate replaces "__ttymux_" in b with bootAbbrev.
func abbreviate(b []byte) []byte {
	return []byte(strings.ReplaceAll(string(b), "__ttymux_", bootAbbrev))
}

// maxBootstrap is the longest remote command the bootstrap may be:
// Dropbear refuses a longer exec request ("String too long", its
// MAX_CMD_LEN) and closes the whole connection.
const maxBootstrap = 9000

// dropLineKeys leaves out the parts between TTYMUX-LINEKEYS and
// TTYMUX-LINEKEYS-END lines: the keys that make a shell report the line it
// holds (editline.go). Dropbear refuses an exec request over 9000 bytes,
// and the bootstrap carries every shell's file; without the keys, an Enter
// after editing keys in a remote shell is refused (its line cannot be
// read) rather than run unchecked.
func dropLineKeys(b []byte) []byte {
	var out []byte
	skip := false
	for _, l := range strings.SplitAfter(string(b), "\n") {
		t := strings.TrimSpace(l)
		switch {
		case strings.HasPrefix(t, "# TTYMUX-LINEKEYS-END"):
			skip = false
			continue
		case strings.HasPrefix(t, "# TTYMUX-LINEKEYS"):
			skip = true
			continue
		}
		if !skip {
			out = append(out, l...)
		}
	}
	return out
}

// stripComments drops the comment lines and blank lines of a shell file
// that goes inside the bootstrap, which must stay under maxBootstrap. The
// files have no here-documents or multi-line strings whose lines could
// start with "#".
func stripComments(b []byte) []byte {
	var out []byte
	for _, l := range strings.SplitAfter(string(b), "\n") {
		t := strings.TrimSpace(l)
		if t == "" || strings.HasPrefix(t, "#") {
			continue
		}
		// Indentation too: no line of these files is inside a string
		// whose leading blanks matter (hookSection types them the same
		// way).
		out = append(out, strings.TrimLeft(l, " \t")...)
	}
	return out
}

// integrateRemote makes t, an SSH target without a command, start the
// remote login shell with ttymux's integration, and returns the nonce.
func integrateRemote(t *transport.Target) (string, error) {
	if t.Command != "" {
		return "", nil
	}
	nonce := newNonce()
	cmd, err := remoteBootstrap(nonce)
	if err != nil {
		return "", err
	}
	t.Command = cmd
	return nonce, nil
}
