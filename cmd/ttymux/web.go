package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/transport/agent"
)

// agentSource is the console's view of the local agent.
type agentSource struct{ c *agent.Client }

func (a agentSource) List(ctx context.Context) ([]console.Session, error) {
	ks, err := a.c.List(ctx)
	if err != nil {
		return nil, err
	}
	return console.KeptRows(ks), nil
}

func (a agentSource) AttachTail(ctx context.Context, id string, tail int64) (console.Stream, console.Session, error) {
	conn, ks, _, err := a.c.AttachTail(ctx, id, tail)
	if err != nil {
		return nil, console.Session{}, err
	}
	return conn, console.KeptRow(ks), nil
}

// webPoll is how often ttymux web looks at the sessions while a page
// watches the list: a session a server opens shows within it.
const webPoll = 500 * time.Millisecond

// cmdWeb implements "ttymux web": the console on a loopback address until
// interrupted. The URL, with its one token, is the first line it prints.
func cmdWeb(args []string, stdout, stderr io.Writer) int {
	fs, socket := agentFlags("web", "usage: ttymux web [--listen 127.0.0.1:PORT]\n\nServe the console on 127.0.0.1: every session the local agent and your ttymux mcp\nservers hold, live, with take-over; the commands ttymux servers hold for you (policy\nno_elicitation = \"console\") and the passwords they ask for; the audit log.\nThe first line printed is the URL to open (it carries the access token).\n\n", stderr)
	listen := fs.String("listen", "127.0.0.1:0", "the address to serve on (a loopback address; port 0 picks a free one)")
	if !parseArgs(fs, args, 0) {
		return 2
	}
	host, _, err := net.SplitHostPort(*listen)
	if ip := net.ParseIP(host); err != nil || (host != "localhost" && (ip == nil || !ip.IsLoopback())) {
		fmt.Fprintf(stderr, "ttymux web: --listen %s: give a loopback address (127.0.0.1:PORT or [::1]:PORT): the console types into your terminals\n", *listen)
		return 2
	}
	ln, err := net.Listen("tcp", *listen)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux web: %v\n", err)
		return 1
	}
	log := newLogger(stderr)
	holds, auditLog := webHolds(stderr, log.With("component", "console"))
	defer holds.Close()
	// The agent's sessions and those every ttymux mcp server offers
	// (console.Servers), looked at twice a second while a page watches.
	servers := &console.Servers{Dir: agentsock.Dir(), Logger: log.With("component", "console")}
	src := console.WithServers(agentSource{&agent.Client{Socket: *socket}}, servers)
	cs := console.New(console.Options{Source: src, Logger: log.With("component", "console"), Holds: holds, AuditLog: auditLog, Poll: webPoll})
	fmt.Fprintln(stdout, cs.URL(ln.Addr().String()))
	if f, ok := stdout.(*os.File); ok {
		f.Sync()
	}
	defer cs.Close()
	srv := &http.Server{Handler: cs, ReadHeaderTimeout: 10 * time.Second}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM, syscall.SIGHUP)
	defer stop()
	errc := make(chan error, 1)
	go func() { errc <- srv.Serve(ln) }()
	select {
	case <-ctx.Done():
		sctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		srv.Shutdown(sctx)
		return 0
	case err := <-errc:
		if errors.Is(err, http.ErrServerClosed) {
			return 0
		}
		fmt.Fprintf(stderr, "ttymux web: %v\n", err)
		return 1
	}
}
