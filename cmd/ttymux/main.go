// Command ttymux is an MCP stdio server that gives AI agents real terminals,
// and the command line humans use around it.
//
//	ttymux            run the MCP server on stdin/stdout (same as ttymux mcp)
//	ttymux mcp        run the MCP server on stdin/stdout (--http ADDR: over HTTP)
//	ttymux ls         list the sessions the local agent keeps
//	ttymux attach ID  watch and type in a session (detach with ctrl+])
//	ttymux web        the human's console in a browser (prints its URL)
//	ttymux doctor     check what the features need on this machine
//	ttymux audit      show the audit log (-f to follow, --json; verify checks its chain)
//	ttymux tools-doc  print the tool reference (docs/tools.md) as Markdown
//	ttymux version    print the version
//
// stdout of the server is the MCP protocol: every log line goes to stderr.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/internal/agentbuild"
	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/buildinfo"
	"github.com/ttymux/ttymux/internal/oneproc"
	"github.com/ttymux/ttymux/internal/secretpage"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/serial"
	"github.com/ttymux/ttymux/transport/sshconn"
)

func main() {
	if len(os.Args) < 2 || os.Args[1] == "mcp" {
		// A server of calls: one P, unless GOMAXPROCS is set. Here, not
		// in run, which tests call in their own process.
		oneproc.Set()
	}
	os.Exit(run(os.Args[1:], os.Stdin, os.Stdout, os.Stderr))
}

func usage(w io.Writer) {
	fmt.Fprint(w, `usage: ttymux [command]

commands:
  mcp        run the MCP stdio server (the default); --http 127.0.0.1:PORT serves it over HTTP
  ls         list the persistent sessions the local ttymux agent keeps
  attach ID  attach this terminal to a session; detach with ctrl+]
  web        serve the human's console on 127.0.0.1 and print its URL (--listen ADDR)
  doctor     check this machine for what ttymux needs (--json for scripts)
  audit      show the audit log of commands, approvals and sessions (-f follows, --json; audit verify checks its hash chain)
  tools-doc  print the MCP tool reference as Markdown
  version    print the version

Register with Claude Code:  claude mcp add --scope user ttymux -- ttymux
Environment: TTYMUX_LOG=debug|info|warn|error (stderr log level, default warn)
`)
}

func run(args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	cmd := "mcp"
	if len(args) > 0 {
		cmd, args = args[0], args[1:]
	}
	switch cmd {
	case "mcp":
		return serve(args, stderr)
	case "ls":
		return cmdLs(args, stdout, stderr)
	case "attach":
		return cmdAttach(args, os.Stdin, stdout, stderr)
	case "web":
		return cmdWeb(args, stdout, stderr)
	case "doctor":
		return cmdDoctor(args, stdout, stderr)
	case "audit":
		return cmdAudit(args, stdout, stderr)
	case "tools-doc":
		fmt.Fprint(stdout, toolsDoc())
		return 0
	case "version", "--version", "-version":
		fmt.Fprintln(stdout, "ttymux", version())
		fmt.Fprintln(stdout, "MCP protocol revisions:", strings.Join(mcp.SupportedProtocolVersions(), ", "))
		return 0
	case "help", "-h", "--help", "-help":
		usage(stdout)
		return 0
	}
	fmt.Fprintf(stderr, "ttymux: unknown command %q\n", cmd)
	usage(stderr)
	return 2
}

// stampedVersion is set at build time (install.sh passes
// -ldflags "-X main.stampedVersion=…", the same version it gives the
// agents); otherwise the version comes from the build info.
var stampedVersion string

func version() string { return buildinfo.Version(stampedVersion) }

func newLogger(w io.Writer) *slog.Logger {
	var lvl slog.Level
	switch os.Getenv("TTYMUX_LOG") {
	case "debug":
		lvl = slog.LevelDebug
	case "info":
		lvl = slog.LevelInfo
	case "error":
		lvl = slog.LevelError
	default:
		lvl = slog.LevelWarn
	}
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: lvl}))
}

// maxRequestLine bounds one JSON-RPC line read from stdin (see serve).
const maxRequestLine = 64 << 20

// kinds are the transports the server opens sessions with, one value each
// (session.Kind): a new transport is one more line here.
func kinds(ssh *sshconn.Opener, log *slog.Logger) []session.Kind {
	return []session.Kind{
		session.LocalKind(&local.Opener{}),
		session.SSHKind(ssh),
		session.SerialKind(&serial.Opener{Logger: log.With("component", "serial")}),
		session.AgentKind(),
	}
}

// flagSet reports whether the flag name was given.
func flagSet(fs *flag.FlagSet, name string) bool {
	set := false
	fs.Visit(func(f *flag.Flag) { set = set || f.Name == name })
	return set
}

func serve(args []string, stderr io.Writer) int {
	fs := flag.NewFlagSet("mcp", flag.ContinueOnError)
	fs.SetOutput(stderr)
	limit := fs.Int("max-sessions", session.DefaultLimit, "maximum sessions open at once")
	ringMiB := fs.Int("log-mib", 8, "output kept per session, in MiB")
	noAgent := fs.Bool("no-agent", false, "keep every session in this process (no persistence, no human attach)")
	agentPath := fs.String("agent", os.Getenv("TTYMUX_AGENT"), "the ttymux-agent binary (default: beside ttymux, then $PATH)")
	fanoutIdle := fs.Duration("fanout-idle", fanout.DefaultIdle, "keep each host's SSH connection this long after the last fanout used it, so the next needs no handshake (negative: close at once)")
	hostsFile := fs.String("hosts", fanout.GroupsFile(), "host groups for fanout ([groups] in TOML)")
	var hc httpConfig
	fs.StringVar(&hc.addr, "http", "", "serve MCP over Streamable HTTP on this host:port (loopback only unless --listen-any) instead of stdio; the endpoint is /mcp")
	fs.BoolVar(&hc.listenAny, "listen-any", false, "with --http: allow a non-loopback address")
	fs.StringVar(&hc.tokenFile, "token-file", "", "with --http: the bearer token file (default $XDG_STATE_HOME/ttymux/http-token, made 0600 on first use)")
	policyFile := fs.String("policy", os.Getenv("TTYMUX_POLICY"), "the policy file (default $XDG_CONFIG_HOME/ttymux/policy.toml, if it exists)")
	auditFile := fs.String("audit", "", "the audit log (default $XDG_STATE_HOME/ttymux/audit.jsonl)")
	if err := fs.Parse(args); err != nil {
		return 2
	}
	log := newLogger(stderr)
	// Before anything reads a config or state path (xdgenv.go). The flag
	// defaults above were computed from the environment as started: the
	// hosts file follows the adopted XDG_CONFIG_HOME too unless given.
	syncXDG(log)
	if !flagSet(fs, "hosts") {
		*hostsFile = fanout.GroupsFile()
	}
	pol, err := loadPolicy(*policyFile)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux: bad policy, not starting: %v\n", err)
		return 2
	}
	al, err := audit.Open(auditPath(*auditFile))
	if err != nil {
		log.Warn("no audit log", "err", err)
	}
	defer al.Close()
	pages := secretpage.New(secretpage.Options{})
	defer pages.Close()
	sshOpener := &sshconn.Opener{Logger: log.With("component", "ssh")}
	defer sshOpener.Close()
	opts := session.Options{
		Kinds:    kinds(sshOpener, log),
		Policy:   pol,
		Limit:    *limit,
		RingSize: *ringMiB << 20,
		Logger:   log,
		Flood:    floodHook(), // floodgc.go
	}
	if !*noAgent {
		opts.Keeper = &agent.Client{AgentPath: *agentPath, Logger: log.With("component", "agent-client")}
	}
	rs := &remotes{ssh: sshOpener, localAgent: *agentPath, log: log.With("component", "remote-agent")}
	if d := agent.AgentsDir(); d != "" {
		rs.build = &agentbuild.Builder{AgentsDir: d, Version: version()}
	}
	if d, err := os.UserCacheDir(); err == nil {
		rs.cacheDir = filepath.Join(d, "ttymux", "remote-agents")
	}
	opts.Remote = rs.keeper
	mgr := session.NewManager(opts)
	defer mgr.CloseAll()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	fan := newFanoutTool(sshOpener, *fanoutIdle, *hostsFile, log.With("component", "fanout"))
	defer fan.Close() // before the opener closes: it releases its references
	fwd := newForwardTool(sshOpener, log.With("component", "forward"))
	defer fwd.Close() // before the opener closes: it releases its links
	srv := newServerWith(mgr, log, humanConfig{audit: al, pages: pages}, fan, fwd)
	// consolesrc.go: ttymux web shows this server's sessions, from the
	// first tool call on.
	offer := newLazyOffer(mgr, srv, log)
	srv.AddReceivingMiddleware(offer.middleware)
	defer offer.close()
	if hc.addr != "" {
		hc.console = managerSource{mgr} // consolesrc.go
		if err := serveHTTP(ctx, srv, hc, stderr, log); err != nil {
			fmt.Fprintln(stderr, "ttymux:", err)
			return 1
		}
		return 0
	}
	// A request line over the SDK's limit ends the whole connection, not
	// just that call: allow room for the largest send (session.MaxSendBytes)
	// even when JSON escaping makes every byte six ("\u0000"), so an
	// oversized paste gets send's own error instead (issue #8).
	// lineTransport (wire.go), not mcp.StdioTransport: a malformed line
	// gets a JSON-RPC error instead of ending the server.
	in, out := pollableStdio() // stdio.go: through the poller, with raw system calls
	if err := srv.Run(ctx, &lineTransport{in: in, out: out, maxLine: maxRequestLine, log: log}); err != nil && ctx.Err() == nil && !errors.Is(err, io.EOF) {
		log.Error("server stopped", "err", err)
		return 1
	}
	return 0
}
