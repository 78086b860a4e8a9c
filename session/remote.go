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
// loaded, so nothing is left behind and nothing is printed. For a shell
// other than bash or zsh, or when the directory cannot be made, it starts
// the plain login shell.
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
	for _, f := range [][]byte{bashrc, zshenv} {
		if strings.ContainsRune(string(f), '\'') || strings.Contains(string(f), "\nTTYMUX_EOF\n") {
			return "", fmt.Errorf("shell integration file cannot be sent inside single quotes")
		}
	}
	// zsh's other startup files in ttymux's ZDOTDIR (integration.go).
	wrappers := ""
	for _, f := range zshWrappers {
		wrappers += ` && printf "%s\n" "` + strings.ReplaceAll(strings.TrimSuffix(zshWrapper(f), "\n"), "$", `\$`) + `" >"$d/zsh/` + f + `"`
	}
	var b strings.Builder
	b.WriteString("exec /bin/sh -c '")
	b.WriteString(`s=${SHELL:-/bin/sh}
d=${TMPDIR:-/tmp}/ttymux.$$
case ${s##*/} in
bash)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && cat >"$d/rc") <<"TTYMUX_EOF" && TTYMUX_NONCE_FILE="$d/n" TTYMUX_LOGIN=1 TTYMUX_RMDIR="$d" exec "$s" --rcfile "$d/rc" -i
`)
	b.Write(bashrc)
	b.WriteString(`TTYMUX_EOF
	;;
zsh)
	(umask 077 && mkdir "$d" && mkdir "$d/zsh" && echo ` + nonce + ` >"$d/n" && cat >"$d/zsh/.zshenv"` + wrappers + `) <<"TTYMUX_EOF" && TTYMUX_NONCE_FILE="$d/n" TTYMUX_ZDOTDIR="${ZDOTDIR:-}" ZDOTDIR="$d/zsh" TTYMUX_RMDIR="$d" exec "$s" -l
`)
	b.Write(zshenv)
	b.WriteString(`TTYMUX_EOF
	;;
esac
case ${s##*/} in
bash|zsh) r="no private directory for its startup file could be made in TMPDIR" ;;
*) r="the login shell is ${s##*/}, not bash or zsh" ;;
esac
printf "\033]133;N;%s;ttymux=` + nonce + `\007" "$r"
exec "$s" -l
'`)
	return b.String(), nil
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
