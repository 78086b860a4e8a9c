// Command ttymux-agent is the small daemon that holds ttymux's persistent
// terminal sessions, on the local machine or on a remote host (where ttymux
// uploads it). It is a thin command line over the agentd library:
//
//	ttymux-agent serve [--socket PATH] [--detach] [--log FILE] [--idle-exit DUR]
//	                   [--ring-mib N] [--max-sessions N]
//	ttymux-agent ls [--socket PATH]
//	ttymux-agent stop [--socket PATH] [--force]
//	ttymux-agent bridge [--socket PATH]
//	ttymux-agent version
//
// The protocol, the files it places and how to remove it are described in
// docs/agentd.md. Build it small: CGO_ENABLED=0 go build -trimpath
// -ldflags '-s -w'.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"text/tabwriter"
	"time"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/buildinfo"
	"github.com/ttymux/ttymux/internal/oneproc"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3";
// otherwise it comes from the build info.
var version string

const (
	// startTimeout bounds how long "serve --detach" waits for the daemon
	// it started to accept connections.
	startTimeout = 5 * time.Second
	// stopTimeout bounds how long "stop" waits for the agent to go away
	// (a forced stop hangs up sessions, which may take a second).
	stopTimeout = 10 * time.Second
	// maxLog is the size past which the log is moved aside at startup.
	maxLog = 1 << 20
)

const usage = `usage:
  ttymux-agent serve [--socket PATH] [--detach] [--log FILE] [--idle-exit DUR] [--ring-mib N] [--max-sessions N]
  ttymux-agent ls [--socket PATH]
  ttymux-agent stop [--socket PATH] [--force]
  ttymux-agent bridge [--socket PATH]
  ttymux-agent version
`

func main() {
	if len(os.Args) > 1 && os.Args[1] == "serve" {
		// A server of sessions: one P, unless GOMAXPROCS is set. Here,
		// not in run, which tests call in their own process.
		oneproc.Set()
	}
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 {
		fmt.Fprint(stderr, usage)
		return 2
	}
	switch args[0] {
	case "serve":
		return serve(args[1:], stdout, stderr)
	case "ls", "list":
		return ls(args[1:], stdout, stderr)
	case "stop":
		return stop(args[1:], stdout, stderr)
	case "bridge":
		return bridge(args[1:], os.Stdin, stdout, stderr)
	case "version", "--version", "-v":
		fmt.Fprintf(stdout, "ttymux-agent %s protocol %d\n", versionString(), agentproto.Version)
		return 0
	case "help", "--help", "-h":
		fmt.Fprint(stdout, usage)
		return 0
	}
	fmt.Fprintf(stderr, "ttymux-agent: unknown command %q\n%s", args[0], usage)
	return 2
}

func versionString() string { return buildinfo.Version(version) }

func newFlags(name string, stderr io.Writer) (*flag.FlagSet, *string) {
	fs := flag.NewFlagSet("ttymux-agent "+name, flag.ContinueOnError)
	fs.SetOutput(stderr)
	sock := fs.String("socket", "", "the agent's socket (default "+agentsock.Default()+")")
	return fs, sock
}

func socketOr(p string) string {
	if p != "" {
		return p
	}
	return agentsock.Default()
}

func serve(args []string, stdout, stderr io.Writer) int {
	fs, sockFlag := newFlags("serve", stderr)
	detach := fs.Bool("detach", false, "run in the background (new session, stdio on /dev/null) and return once it accepts connections")
	logFile := fs.String("log", "", "log to this file (default: stderr; with --detach, agent.log in the socket's directory)")
	idle := fs.Duration("idle-exit", 0, "exit after having no sessions and no clients this long (0: never)")
	ringMiB := fs.Int("ring-mib", 8, "output kept per session, in MiB")
	maxSessions := fs.Int("max-sessions", agentd.DefaultMaxSessions, "sessions held at once (at most "+strconv.Itoa(agentd.MaxSessionsLimit)+")")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	if fs.NArg() > 0 {
		fmt.Fprintf(stderr, "ttymux-agent serve: unexpected argument %q\n", fs.Arg(0))
		return 2
	}
	if *ringMiB <= 0 || *ringMiB > 1024 || *maxSessions <= 0 || *idle < 0 {
		fmt.Fprintln(stderr, "ttymux-agent serve: --ring-mib must be 1..1024, --max-sessions positive, --idle-exit not negative")
		return 2
	}
	sock, err := filepath.Abs(socketOr(*sockFlag))
	if err != nil {
		fmt.Fprintln(stderr, "ttymux-agent:", err)
		return 1
	}
	if *detach {
		logf := *logFile
		if logf == "" {
			logf = filepath.Join(filepath.Dir(sock), "agent.log")
		}
		// The daemon runs in /, and its stderr is /dev/null: resolve the
		// log here, and check the directory here so that an unsafe one is
		// reported to the caller rather than into the void.
		if logf, err = filepath.Abs(logf); err != nil {
			fmt.Fprintln(stderr, "ttymux-agent:", err)
			return 1
		}
		if err := agentsock.PrepareDir(filepath.Dir(sock)); err != nil {
			fmt.Fprintln(stderr, "ttymux-agent:", err)
			return 1
		}
		return startDetached(sock, logf, []string{
			"--idle-exit", idle.String(), "--ring-mib", strconv.Itoa(*ringMiB), "--max-sessions", strconv.Itoa(*maxSessions),
		}, stdout, stderr)
	}

	logw := stderr
	if *logFile != "" {
		// The log usually lives in the socket's directory: make sure it
		// is ours and private before creating a file in it.
		if filepath.Dir(*logFile) == filepath.Dir(sock) {
			if err := agentsock.PrepareDir(filepath.Dir(sock)); err != nil {
				fmt.Fprintln(stderr, "ttymux-agent:", err)
				return 1
			}
		}
		f, err := openLog(*logFile)
		if err != nil {
			fmt.Fprintln(stderr, "ttymux-agent:", err)
			return 1
		}
		defer f.Close()
		logw = f
	}
	log := slog.New(slog.NewTextHandler(logw, nil))
	l, err := agentd.Listen(sock)
	if err != nil {
		log.Error("cannot listen", "err", err)
		if logw != stderr {
			fmt.Fprintln(stderr, "ttymux-agent:", err)
		}
		return 1
	}
	srv := agentd.NewServer(agentd.Options{
		RingSize:    *ringMiB << 20,
		MaxSessions: *maxSessions,
		IdleExit:    *idle,
		Epoch:       agentd.NewEpoch(),
		Logger:      log,
	})
	ctx, stopSignals := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stopSignals()
	go func() {
		<-ctx.Done()
		_ = srv.Close() // returns at once if Serve has already returned
	}()
	if err := srv.Serve(l); err != nil {
		log.Error("agent failed", "err", err)
		return 1
	}
	return 0
}

// openLog opens the log for appending, moving a log over maxLog aside first
// so that it cannot grow without bound across restarts.
func openLog(path string) (*os.File, error) {
	if fi, err := os.Stat(path); err == nil && fi.Size() > maxLog {
		_ = os.Rename(path, path+".old") // best effort
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open log: %w", err)
	}
	return f, nil
}

// startDetached re-executes this program as "serve" in a new session
// (setsid), with stdin, stdout and stderr on /dev/null and its log in logf,
// and returns once the socket accepts connections. If an agent already
// answers there, it succeeds without starting another.
func startDetached(sock, logf string, extra []string, stdout, stderr io.Writer) int {
	if answers(sock) {
		fmt.Fprintf(stdout, "ttymux-agent: already running on %s\n", sock)
		return 0
	}
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintln(stderr, "ttymux-agent: find own executable:", err)
		return 1
	}
	args := append([]string{"serve", "--socket", sock, "--log", logf}, extra...)
	cmd := exec.Command(exe, args...)
	cmd.Dir = "/" // hold no directory busy (sessions default to $HOME)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// Stdin, Stdout and Stderr stay nil: /dev/null. Nothing of the
	// starter's (a pipe to an MCP client, a terminal) is kept open.
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(stderr, "ttymux-agent: start daemon:", err)
		return 1
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.NewTimer(startTimeout)
	defer deadline.Stop()
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		if answers(sock) {
			fmt.Fprintf(stdout, "ttymux-agent: serving on %s (pid %d, log %s)\n", sock, cmd.Process.Pid, logf)
			return 0
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case werr := <-exited:
			t.Stop()
			if answers(sock) { // another agent won a concurrent start
				fmt.Fprintf(stdout, "ttymux-agent: already running on %s\n", sock)
				return 0
			}
			fmt.Fprintf(stderr, "ttymux-agent: the daemon exited (%v) before accepting connections on %s%s\n", werr, sock, logTail(logf))
			return 1
		case <-deadline.C:
			t.Stop()
			fmt.Fprintf(stderr, "ttymux-agent: the daemon (pid %d) did not accept connections on %s within %v; see %s\n",
				cmd.Process.Pid, sock, startTimeout, logf)
			return 1
		}
	}
}

// logTail returns the last line of the log, to explain a failed start.
func logTail(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return "; see " + path
	}
	s := strings.TrimSpace(string(b))
	if i := strings.LastIndexByte(s, '\n'); i >= 0 {
		s = s[i+1:]
	}
	if s == "" {
		return "; see " + path
	}
	return ": " + s + " (from " + path + ")"
}

func answers(sock string) bool {
	c, err := net.DialTimeout("unix", sock, time.Second)
	if err != nil {
		return false
	}
	_ = c.Close() // only probing
	return true
}

// notRunning explains a failed dial the way tmux does ("no server running
// on ...").
func notRunning(err error, sock string, stderr io.Writer) int {
	if errors.Is(err, os.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
		fmt.Fprintf(stderr, "ttymux-agent: no agent running on %s\n", sock)
	} else {
		fmt.Fprintln(stderr, "ttymux-agent:", err)
	}
	return 1
}

func ls(args []string, stdout, stderr io.Writer) int {
	fs, sockFlag := newFlags("ls", stderr)
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sock := socketOr(*sockFlag)
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	l, err := agentlink.Dial(ctx, sock)
	if err != nil {
		return notRunning(err, sock, stderr)
	}
	sessions, err := l.List(ctx)
	_ = l.Close() // one request per connection
	if err != nil {
		return notRunning(err, sock, stderr)
	}
	tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "ID\tPID\tSTATE\tCOMMAND\tCLIENTS\tBYTES")
	for _, s := range sessions {
		state := "running"
		switch {
		case s.Exited && s.ExitSignal != "":
			state = "killed (" + s.ExitSignal + ")"
		case s.Exited:
			state = "exited " + strconv.Itoa(s.ExitStatus)
		case s.Foreground != "":
			state = "running (" + s.Foreground + ")"
		}
		cmd := s.Command
		if r := []rune(cmd); len(r) > 40 {
			cmd = string(r[:39]) + "…"
		}
		fmt.Fprintf(tw, "%s\t%d\t%s\t%s\t%d\t%d\n", s.ID, s.Pid, state, cmd, s.Clients, s.End)
	}
	if err := tw.Flush(); err != nil {
		return 1
	}
	return 0
}

// stopAgent asks the agent on sock to exit; it returns once the agent has
// acknowledged.
func stopAgent(ctx context.Context, sock string, force bool) error {
	l, err := agentlink.Dial(ctx, sock)
	if err != nil {
		return err
	}
	defer l.Close()
	return l.Stop(ctx, force)
}

func stop(args []string, stdout, stderr io.Writer) int {
	fs, sockFlag := newFlags("stop", stderr)
	force := fs.Bool("force", false, "stop even if sessions are running (their programs are hung up)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	sock := socketOr(*sockFlag)
	ctx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if err := stopAgent(ctx, sock, *force); err != nil {
		var se *agentlink.StatusError
		if errors.As(err, &se) && se.Status == agentproto.StatusBusy {
			fmt.Fprintf(stderr, "ttymux-agent: not stopped: %s\n", se.Message)
			return 1
		}
		return notRunning(err, sock, stderr)
	}
	// Wait until it no longer answers, so that "stop; serve" works.
	for delay := time.Millisecond; answers(sock); delay = min(2*delay, 50*time.Millisecond) {
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			fmt.Fprintf(stderr, "ttymux-agent: the agent on %s acknowledged stop but still answers\n", sock)
			return 1
		}
	}
	fmt.Fprintln(stdout, "ttymux-agent: stopped")
	return 0
}
