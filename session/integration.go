package session

import (
	"crypto/rand"
	"embed"
	"encoding/hex"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/ttymux/ttymux/internal/privdir"
	"github.com/ttymux/ttymux/transport"
)

//go:embed shellinit/bashrc shellinit/zshenv shellinit/shrc shellinit/fish
var shellinit embed.FS

// shellKind names the shells ttymux knows, by the base name of their
// program: bash, zsh and fish (their own hooks), "posix" for those that
// read $ENV and expand $? in PS1 (shellinit/shrc), "shell" for other
// shells.
func shellKind(program string) string {
	base := filepath.Base(program)
	base = strings.TrimPrefix(base, "-")
	switch base {
	case "bash", "zsh", "fish":
		return base
	case "sh", "dash", "ash", "ksh", "mksh", "busybox":
		return "posix"
	case "tcsh", "csh":
		return "shell"
	}
	return ""
}

// newNonce returns a random token that marks this session's integration
// sequences.
func newNonce() string {
	var b [8]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never fails (Go 1.24+)
	return hex.EncodeToString(b[:])
}

// writeShellInit writes the integration files under dir and returns their
// directory. The files hold no secrets (each session's nonce has a file
// of its own, written by integrate and removed by the shell), but bash and zsh run them: dir must be ours and writable
// by nobody else, dir/shellinit and dir/shellinit/zsh private (created
// 0700; either refused if another user's or open to others), and each file is kept only
// if one no-follow open of it shows our regular file with the expected
// content, else replaced by a new file (privdir.WriteFile). A FIFO or a
// symbolic link planted there never reaches the shell (issue #14).
func writeShellInit(dir string) (string, error) {
	d := filepath.Join(dir, "shellinit")
	if err := privdir.EnsureNoWrite(dir, "state directory"); err != nil {
		return "", fmt.Errorf("shell integration: %w", err)
	}
	for _, p := range []string{d, filepath.Join(d, "zsh")} {
		if err := privdir.Ensure(p, "state directory"); err != nil {
			return "", fmt.Errorf("shell integration: %w", err)
		}
	}
	files := map[string][]byte{}
	for name, dst := range map[string]string{"shellinit/bashrc": "bashrc", "shellinit/zshenv": "zsh/.zshenv", "shellinit/shrc": "shrc", "shellinit/fish": "fish.fish"} {
		b, err := shellinit.ReadFile(name)
		if err != nil {
			return "", err
		}
		files[dst] = b
	}
	for _, f := range zshWrappers {
		files["zsh/"+f] = []byte(zshWrapper(f))
	}
	for dst, b := range files {
		if _, err := privdir.WriteFile(filepath.Join(d, filepath.Dir(dst)), filepath.Base(dst), b); err != nil {
			return "", fmt.Errorf("write shell integration: %w", err)
		}
	}
	return d, nil
}

// zshWrappers are the startup files zsh reads from ZDOTDIR after .zshenv;
// ttymux's own load the user's and install the hook after the last
// (shellinit/zshenv).
var zshWrappers = []string{".zprofile", ".zshrc", ".zlogin"}

// zshWrapper is ttymux's startup file f for zsh.
func zshWrapper(f string) string {
	return "(( ${+functions[__ttymux_next]} )) && __ttymux_next " + f + "\n"
}

// hookSection returns the part of a shell integration file that installs
// the hook (from its TTYMUX-HOOK line to TTYMUX-HOOK-END or the end),
// compacted for typing: no comment lines, no indentation.
func hookSection(file string) string {
	b, err := shellinit.ReadFile(file)
	if err != nil {
		panic(err) // embedded at build time
	}
	text := string(b)
	_, text, _ = strings.Cut(text, "# TTYMUX-HOOK:")
	text, _, _ = strings.Cut(text, "# TTYMUX-HOOK-END")
	var out []string
	for line := range strings.Lines(text) {
		line = strings.TrimLeft(strings.TrimRight(line, "\n"), "\t")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	// The first line was the rest of the TTYMUX-HOOK comment.
	return strings.Join(out[1:], "\n")
}

// ansiCQuote quotes s as a $'...' string, which bash and zsh read as one
// word holding s.
func ansiCQuote(s string) string {
	r := strings.NewReplacer(`\`, `\\`, `'`, `\'`, "\n", `\n`, "\t", `\t`)
	return "$'" + r.Replace(s) + "'"
}

// integrate rewrites t so that the bash or zsh it starts loads ttymux's hook
// (after the user's own startup files) and returns the nonce the hook marks
// its sequences with. It returns "" and leaves t alone for other programs, or
// when the caller passed arguments that choose the shell's startup files
// itself. norc keeps the user's rc files out (tests want a deterministic
// shell).
func integrate(t *transport.Target, dir string, norc bool) (string, error) {
	kind := shellKind(t.Command)
	switch kind {
	case "posix":
		return integratePOSIX(t, dir, norc)
	case "fish":
		return integrateFish(t, dir, norc)
	}
	if kind != "bash" && kind != "zsh" {
		return "", nil
	}
	for _, a := range t.Args {
		switch a {
		case "-c", "--rcfile", "--init-file", "--norc", "--posix", "-s", "--noprofile", "-f", "--no-rcs":
			return "", nil
		}
	}
	d, err := writeShellInit(dir)
	if err != nil {
		return "", err
	}
	nonce := newNonce()
	// The nonce goes in a file of its own that the shell reads and
	// removes (not the environment: see shellinit/bashrc).
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	nf := "nonce-" + hex.EncodeToString(rnd[:])
	if _, err := privdir.WriteFile(d, nf, []byte(nonce+"\n")); err != nil {
		return "", fmt.Errorf("write shell integration: %w", err)
	}
	t.Env = append(slices.Clip(t.Env), "TTYMUX_NONCE_FILE="+filepath.Join(d, nf))
	if norc {
		t.Env = append(t.Env, "TTYMUX_NORC=1")
	}
	switch kind {
	case "bash":
		var login bool
		if t.Args, login = dropLogin(t.Args); login {
			t.Env = append(t.Env, "TTYMUX_LOGIN=1")
		}
		t.Args = append([]string{"--rcfile", filepath.Join(d, "bashrc")}, t.Args...)
		if norc {
			t.Args = append([]string{"--noprofile"}, t.Args...)
		}
	case "zsh":
		orig := os.Getenv("ZDOTDIR")
		for _, kv := range t.Env {
			if v, ok := strings.CutPrefix(kv, "ZDOTDIR="); ok {
				orig = v
			}
		}
		t.Env = append(t.Env, "TTYMUX_ZDOTDIR="+orig, "ZDOTDIR="+filepath.Join(d, "zsh"))
	}
	return nonce, nil
}

// dropLogin removes bash's login option from args (-l, --login, or l in a
// cluster of single-letter options such as -il) and reports whether it was
// there. A login bash ignores --rcfile, so ttymux starts an interactive one
// whose rc file reads the login files in bash -l's order (TTYMUX_LOGIN,
// shellinit/bashrc).
func dropLogin(args []string) ([]string, bool) {
	var out []string
	login := false
	for i, a := range args {
		switch {
		case a == "--":
			return append(out, args[i:]...), login
		case a == "-l" || a == "--login":
			login = true
			continue
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && strings.Trim(a[1:], "abcdefhiklmnprtuvxBCEHPT") == "" && strings.Contains(a, "l"):
			login = true
			a = strings.ReplaceAll(a, "l", "")
		}
		out = append(out, a)
	}
	return out, login
}

// nestedHook returns a command line that installs ttymux's hook into the
// bash, zsh or other POSIX shell (ash, dash, mksh: a D mark in PS1)
// reading it (a shell typed into the session), marking with the session's
// nonce, which is made now if the session had none. fish and csh cannot
// parse it.
func (s *Session) nestedHook() string {
	s.mu.Lock()
	if !s.det.Hooked() {
		s.det.SetNonce(newNonce())
	}
	nonce := s.det.Nonce()
	s.mu.Unlock()
	return `if [ -n "${BASH_VERSION-}" ]; then __ttymux_nonce=` + nonce + `; eval ` + ansiCQuote(hookSection("shellinit/bashrc")) +
		`; elif [ -n "${ZSH_VERSION-}" ]; then typeset -g __ttymux_nonce=` + nonce + `; eval ` + ansiCQuote(hookSection("shellinit/zshenv")) + `; __ttymux_install; ` +
		// Any other POSIX shell (ash, dash, mksh): the D mark with $? in
		// PS1, as shellinit/shrc puts it there (c=0: no C mark comes).
		`else __ttymux_nonce=` + nonce + `; PS1="$(printf '\033]133;D;')\$?;c=0;ttymux=\${__ttymux_nonce}$(printf '\007')${PS1-}$(printf '\033]133;B;ttymux=')\${__ttymux_nonce}$(printf '\007')"; fi`
}

// integratePOSIX makes the POSIX shell t starts (BusyBox ash, dash, mksh)
// read shellinit/shrc through ENV, which restores the user's ENV and reads
// it before it puts the marks into PS1. Arguments other than -i choose
// what the shell runs (-c, a script), and busybox needs its shell applet
// named first; otherwise t is left alone.
func integratePOSIX(t *transport.Target, dir string, norc bool) (string, error) {
	args := t.Args
	if filepath.Base(t.Command) == "busybox" {
		if len(args) == 0 || args[0] != "ash" && args[0] != "sh" {
			return "", nil
		}
		args = args[1:]
	}
	for _, a := range args {
		if a != "-i" {
			return "", nil
		}
	}
	d, nf, nonce, err := writeNonce(dir)
	if err != nil {
		return "", err
	}
	userEnv, _ := os.LookupEnv("ENV")
	for _, kv := range t.Env {
		if v, ok := strings.CutPrefix(kv, "ENV="); ok {
			userEnv = v
		}
	}
	t.Env = append(slices.Clip(t.Env), "TTYMUX_NONCE_FILE="+nf, "TTYMUX_ENV="+userEnv, "ENV="+filepath.Join(d, "shrc"))
	if norc {
		t.Env = append(t.Env, "TTYMUX_NORC=1")
	}
	return nonce, nil
}

// writeNonce writes the integration files under dir and a new nonce into a
// file of its own there, which the hook reads and removes (see
// shellinit/bashrc: in the environment it would be readable by every
// program the shell runs). It returns the files' directory, the nonce
// file's path and the nonce.
func writeNonce(dir string) (d, file, nonce string, err error) {
	d, err = writeShellInit(dir)
	if err != nil {
		return "", "", "", err
	}
	nonce = newNonce()
	var rnd [8]byte
	_, _ = rand.Read(rnd[:])
	nf := "nonce-" + hex.EncodeToString(rnd[:])
	if _, err := privdir.WriteFile(d, nf, []byte(nonce+"\n")); err != nil {
		return "", "", "", fmt.Errorf("write shell integration: %w", err)
	}
	return d, filepath.Join(d, nf), nonce, nil
}

// integrateFish makes the fish t starts load shellinit/fish with
// --init-command, which fish runs after the user's config. Arguments
// other than -i and -l choose what fish runs, and t is left alone.
func integrateFish(t *transport.Target, dir string, norc bool) (string, error) {
	for _, a := range t.Args {
		switch a {
		case "-i", "--interactive", "-l", "--login":
		default:
			return "", nil
		}
	}
	d, nf, nonce, err := writeNonce(dir)
	if err != nil {
		return "", err
	}
	t.Env = append(slices.Clip(t.Env), "TTYMUX_NONCE_FILE="+nf, "TTYMUX_RCFILE="+filepath.Join(d, "fish.fish"))
	args := []string{"--init-command", `source "$TTYMUX_RCFILE"`}
	if norc {
		args = append(args, "--no-config")
	}
	t.Args = append(args, t.Args...)
	return nonce, nil
}
