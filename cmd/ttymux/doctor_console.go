package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"sort"
	"strings"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/console"
)

// checkConsole: is a console (ttymux web) open, would the servers trust
// it (the same checks a server makes before it asks: this binary, not
// inside a session), and how many servers offer it their sessions. It
// only connects: nothing is asked, listed beyond the servers' lists, or
// typed.
func checkConsole(ctx context.Context) check {
	c := check{Name: "console", Status: statusOK}
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	sock := console.DefaultSocket()
	var words []string
	switch pid, err := consolePeer(ctx, sock); {
	case errors.Is(err, fs.ErrNotExist) || errors.Is(err, errNoConsole):
		words = append(words, "not open (ttymux web opens it: your sessions in a browser, and the place held commands wait under no_elicitation = \"console\")")
	case err != nil:
		c.Status = statusWarn
		words = append(words, fmt.Sprintf("%s: %v", sock, err))
		c.Fix = "stop the process listening there and start ttymux web from a terminal of your own, with this ttymux"
	default:
		words = append(words, fmt.Sprintf("ttymux web is open (pid %d) and trusted: this ttymux binary, not inside a session", pid))
	}
	v := &console.Servers{Dir: agentsock.Dir()}
	offers := v.Offers(ctx)
	n := 0
	for _, o := range offers {
		n += len(o.Sessions)
	}
	words = append(words, fmt.Sprintf("%d server(s) offer it %d session(s) of their own", len(offers), n))
	if by := v.RefusedBy(); len(by) > 0 {
		words = append(words, fmt.Sprintf("%d more did not answer doctor, which they do not trust (does it run inside a ttymux session?)", len(by)))
	}
	if bad := v.Untrusted(); len(bad) > 0 {
		c.Status = statusWarn
		pids := make([]int, 0, len(bad))
		for p := range bad {
			pids = append(pids, p)
		}
		sort.Ints(pids)
		for _, p := range pids {
			words = append(words, fmt.Sprintf("not trusted on a server's socket: %s", bad[p]))
		}
		if c.Fix == "" {
			c.Fix = "a ttymux server started inside a ttymux session (or another program on its socket) is not shown in the console; start the MCP client from a terminal of your own"
		}
	}
	c.Detail = strings.Join(words, "; ")
	return c
}

// consolePeer connects to the console's socket and checks the process
// listening there as a server does before it asks (consoleConfig.verify);
// it sends nothing and hangs up.
func consolePeer(ctx context.Context, sock string) (int, error) {
	if err := agentsock.CheckSocket(sock); err != nil {
		return 0, err
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", sock)
	if err != nil {
		return 0, fmt.Errorf("%w (%s does not answer: a stale socket)", errNoConsole, sock)
	}
	defer nc.Close()
	return consoleConfig{socket: sock}.verify(nc.(*net.UnixConn))
}
