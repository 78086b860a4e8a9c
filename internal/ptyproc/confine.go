package ptyproc

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// Confinement: a child started with Spec.Confine runs without filesystem
// writes outside its terminal and a scratch directory, and without signals
// or abstract unix sockets reaching outside its own process tree, where the
// kernel offers Landlock (confine_linux.go).
//
// A Landlock domain restricts the thread that enforces it and everything
// that thread later execs; it can only be applied from inside. A Go program
// cannot run code between fork and exec, so Start execs this same binary
// (/proc/self/exe) with argv[0] launcherName: the package's init sees that,
// restricts itself and execs the real child. Every binary that imports this
// package (ttymux, ttymux-agent, their test binaries) is thus its own
// launcher; the launcher keeps the child's pid, session and terminal, so
// nothing else about the child changes.

// launcherName is argv[0] of the launcher. Its arguments are the scratch
// directory, the program's path, the child's argv[0] and its arguments.
const launcherName = "ttymux-confine"

func init() {
	if len(os.Args) >= 4 && os.Args[0] == launcherName {
		launch(os.Args[1], os.Args[2], os.Args[3:]) // never returns
	}
}

// handedOver names the environment variables that point at a file the
// child reads and then removes (ttymux's shell hook: its nonce file, in a
// directory the confined child may not change). The launcher moves each
// into the scratch directory first, where the child can remove it.
var handedOver = []string{"TTYMUX_NONCE_FILE"}

// launch confines the current process and execs path with argv. It fails
// closed: a shell it could not confine is never started.
func launch(scratch, path string, argv []string) {
	for _, k := range handedOver {
		if err := handOver(k, scratch); err != nil {
			fmt.Fprintf(os.Stderr, "ttymux: cannot confine %s: %v\r\n", path, err)
			os.Exit(126)
		}
	}
	if err := confineSelf(scratch); err != nil {
		fmt.Fprintf(os.Stderr, "ttymux: cannot confine %s: %v\r\n", path, err)
		os.Exit(126)
	}
	err := execve(path, argv, os.Environ())
	fmt.Fprintf(os.Stderr, "ttymux: cannot start %s: %v\r\n", path, err)
	os.Exit(127)
}

// handOver moves the file $k names into scratch and points $k at the copy.
func handOver(k, scratch string) error {
	from := os.Getenv(k)
	if from == "" {
		return nil
	}
	b, err := os.ReadFile(from)
	if err != nil {
		return fmt.Errorf("hand over $%s: %w", k, err)
	}
	to := filepath.Join(scratch, filepath.Base(from))
	if err := os.WriteFile(to, b, 0o600); err != nil {
		return fmt.Errorf("hand over $%s: %w", k, err)
	}
	_ = os.Remove(from) // the copy is what the child reads; the original must not stay
	return os.Setenv(k, to)
}

// ConfineLevel is the Landlock ABI version a confined child gets on this
// machine, at most the one ttymux asks for (0: the kernel has no Landlock,
// the child runs unconfined and only the command checks hold).
func ConfineLevel() int { return confineLevel() }

// confinedStart rewrites cmd's program, arguments and environment so that
// the launcher starts it confined to scratch, a fresh directory the caller
// removes once the child is gone. TMPDIR points at scratch: here-documents
// and temporary files still work.
func confinedStart(path string, args, env []string) (string, []string, []string, string, error) {
	scratch, err := os.MkdirTemp("", "ttymux-ro-")
	if err != nil {
		return "", nil, nil, "", fmt.Errorf("make the scratch directory of a confined session: %w", err)
	}
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	out = append(out, "TMPDIR="+scratch)
	largs := append([]string{launcherName, scratch, path}, args...)
	return "/proc/self/exe", largs, out, scratch, nil
}
