package session

import (
	"bytes"
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// remoteBootstrap returns the command ttymux runs on a remote host (over
// SSH, or by the agent there) instead of a bare login shell, and the files
// its second stage asks for (remoteFiles). It writes ttymux's integration
// for the user's login shell into a private temporary directory, starts
// that shell as a login shell with the hook, and the hook removes the
// directory once loaded, so nothing is left behind and nothing is printed.
// BusyBox ash, dash and mksh get shellinit/shrc through ENV, fish
// shellinit/fish through --init-command; both travel in the command. bash
// and zsh get theirs, line keys included, as the command's input: the
// command asks for it with a P mark (rc=bash) once the terminal's echo is
// off (the two-stage bootstrap: Dropbear refuses an exec request over
// maxBootstrap bytes, and every shell's file, line keys included, is
// more). For another shell, or when the directory cannot be made, it
// starts the plain login shell after a mark that says no hook will load.
//
// The directory is made with a plain mkdir under umask 077 (in a subshell,
// so the user's shell keeps its own umask), never mkdir -p:
// in a shared /tmp another user could have made ttymux.<pid> (or a symlink
// by that name) first, and writing the rc file into it would let them
// change it before the shell reads it. mkdir fails then, the file is not
// asked for, and the plain login shell starts.
//
// sshd runs the command with the user's shell (`$SHELL -c`), which may be
// fish or csh, so everything is handed to /bin/sh inside one pair of single
// quotes; the integration files contain none.
func remoteBootstrap(nonce string) (string, map[string][]byte, error) {
	shrc, err := shellinit.ReadFile("shellinit/shrc")
	if err != nil {
		return "", nil, err
	}
	fish, err := shellinit.ReadFile("shellinit/fish")
	if err != nil {
		return "", nil, err
	}
	files, err := remoteFiles()
	if err != nil {
		return "", nil, err
	}
	shrc, fish = stripComments(shrc), stripComments(fish)
	for _, f := range [][]byte{shrc, fish} {
		if strings.ContainsRune(string(f), '\'') || strings.Contains(string(f), "\nTTYMUX_EOF\n") || strings.Contains(string(f), bootAbbrev) {
			return "", nil, fmt.Errorf("shell integration file cannot be sent inside single quotes")
		}
	}
	shrc, fish = abbreviate(shrc), abbreviate(fish)
	// zsh's other startup files in ttymux's ZDOTDIR (integration.go).
	// One loop, not a printf each: the bootstrap must fit Dropbear's
	// 9000-byte exec limit. zshWrapper(f) is the line before " "+f.
	head, _ := strings.CutSuffix(zshWrapper("F"), " F\n")
	wrappers := ` && for f in ` + strings.Join(zshWrappers, " ") + `; do printf "%s %s\n" "` + strings.ReplaceAll(head, "$", `\$`) + `" $f >"$d/zsh/$f"; done`
	var b strings.Builder
	b.WriteString("exec /bin/sh -c '")
	// g NAME FILE: the second stage. With the terminal's echo off (what
	// ttymux sends must not show), it asks for NAME's file with a P mark
	// and writes the lines that come, up to TTYMUX_EOF, into FILE; then
	// echo is on again, as ttymux's terminals start (sshconn asks for it,
	// the agent's PTYs have it): not stty -g and back, a process fewer
	// before the shell starts. Canonical input: each line is read whole,
	// and none is longer than the shortest line limit (remoteLineMax).
	b.WriteString(`s=${SHELL:-/bin/sh}
d=${TMPDIR:-/tmp}/ttymux.$$
g() {
	stty -echo 2>/dev/null
	printf "\033]133;P;rc=%s;ttymux=` + nonce + `\007" $1
	sed -n "/^TTYMUX_EOF\$/q;p" >"$2"
	stty echo 2>/dev/null
}
case ${s##*/} in
bash)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && g bash "$d/rc") && TTYMUX_NONCE_FILE="$d/n" TTYMUX_LOGIN=1 TTYMUX_RMDIR="$d" exec "$s" --rcfile "$d/rc" -i
	;;
zsh)
	(umask 077 && mkdir "$d" && mkdir "$d/zsh" && echo ` + nonce + ` >"$d/n" && g zsh "$d/zsh/.zshenv"` + wrappers + `) && TTYMUX_NONCE_FILE="$d/n" TTYMUX_ZDOTDIR="${ZDOTDIR:-}" ZDOTDIR="$d/zsh" TTYMUX_RMDIR="$d" exec "$s" -l
	;;
ash|dash|mksh|ksh|sh)
	(umask 077 && mkdir "$d" && echo ` + nonce + ` >"$d/n" && ` + bootExpand + ` >"$d/rc") <<"TTYMUX_EOF" && TTYMUX_ENV="${ENV:-}" ENV="$d/rc" TTYMUX_NONCE_FILE="$d/n" TTYMUX_LOGIN=1 TTYMUX_RMDIR="$d" exec "$s" -i
`)
	// ash, dash, mksh: ENV, read by an interactive POSIX shell, loads
	// shellinit/shrc, which reads the login files and the user's ENV
	// itself (/etc/profile may set ENV: OpenWrt's does).
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
	return b.String(), files, nil
}

// remoteFiles returns the integration files the bootstrap's second stage
// asks for, by shell name, each as it is typed: without comments and
// indentation, ended by the TTYMUX_EOF line.
func remoteFiles() (map[string][]byte, error) {
	files := map[string][]byte{}
	for name, file := range map[string]string{"bash": "shellinit/bashrc", "zsh": "shellinit/zshenv"} {
		b, err := shellinit.ReadFile(file)
		if err != nil {
			return nil, err
		}
		b = stripComments(b)
		for _, l := range strings.Split(string(b), "\n") {
			if len(l) > remoteLineMax || strings.ContainsFunc(l, func(r rune) bool { return r < ' ' && r != '\t' || r == 0x7f }) {
				return nil, fmt.Errorf("shell integration file %s has a line that cannot be typed in canonical mode: %.40q", file, l)
			}
		}
		if bytes.HasPrefix(b, []byte("TTYMUX_EOF\n")) || bytes.Contains(b, []byte("\nTTYMUX_EOF\n")) {
			return nil, fmt.Errorf("shell integration file %s holds its end line", file)
		}
		files[name] = append(b, "TTYMUX_EOF\n"...)
	}
	return files, nil
}

// remoteLineMax is the longest line the second stage may type: a terminal
// in canonical mode holds at most MAX_CANON bytes of a line (4096 on
// Linux, 1024 on macOS and the BSDs) and drops the rest.
const remoteLineMax = 1000

// rcRequest is the P mark by which the bootstrap asks for shell's file.
func rcRequest(shell, nonce string) string {
	return "\x1b]133;P;rc=" + shell + ";ttymux=" + nonce + "\a"
}

// sendRemoteFile types the file the remote bootstrap asked for, once, when
// its request has come, and says whether it did. The wait for the shell to
// be ready (waitReady) calls it, and so does every send (lateRemoteFile);
// it does nothing for any other session. t.mu must not be held.
func (t *terminal) sendRemoteFile() (bool, error) {
	t.mu.Lock()
	if t.ready || t.hookless {
		// The bootstrap asks before the shell starts: a shell whose hook
		// reported, or that said none loads, will not ask.
		t.remoteFiles = nil
	}
	if t.remoteFiles == nil {
		t.mu.Unlock()
		return false, nil
	}
	nonce := t.det.Nonce()
	end := t.ring.End()
	from := max(t.ring.Start(), t.remoteFrom-64)
	b, _ := t.ring.AppendRange(nil, from, end)
	t.remoteFrom = end
	var file []byte
	for shell, f := range t.remoteFiles {
		if bytes.Contains(b, []byte(rcRequest(shell, nonce))) {
			file = f
			t.remoteFiles = nil
			break
		}
	}
	t.mu.Unlock()
	if file == nil {
		return false, nil
	}
	if err := t.write(file); err != nil {
		return false, fmt.Errorf("send the shell integration file: %w", err)
	}
	return true, nil
}

// lateReady bounds how long a send waits for the shell a late file starts.
const lateReady = 5 * time.Second

// lateRemoteFile, before a send types, serves a remote bootstrap that asked
// for its file after the open stopped waiting (a host slower than the
// ready timeout): what the send typed would go into the file, unseen, and
// the shell's first prompt would end the command. The file goes first,
// and the send waits for the shell to be ready, as the open would have.
func (s *Session) lateRemoteFile(ctx context.Context) error {
	sent, err := s.sendRemoteFile()
	if err != nil || !sent {
		return err
	}
	t := time.NewTimer(lateReady)
	defer t.Stop()
	for {
		s.mu.Lock()
		done, ch := s.ready || s.exited || s.hookless, s.changedLocked()
		s.mu.Unlock()
		if done {
			break
		}
		select {
		case <-ch:
		case <-t.C:
			return nil // the send goes on; the verdict's lower layers decide
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	// The first prompt is not the send's output (as after an open).
	s.waitPromptDrawn(ctx, catchUpMax)
	s.mu.Lock()
	s.readOff = s.ring.End()
	s.mu.Unlock()
	return nil
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
// remote login shell with ttymux's integration, and returns the nonce and
// the files the bootstrap asks for (sendRemoteFile).
func integrateRemote(t *transport.Target) (string, map[string][]byte, error) {
	if t.Command != "" {
		return "", nil, nil
	}
	nonce := newNonce()
	cmd, files, err := remoteBootstrap(nonce)
	if err != nil {
		return "", nil, err
	}
	t.Command = cmd
	return nonce, files, nil
}
