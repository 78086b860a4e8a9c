package main

import (
	"context"
	"fmt"
	"log/slog"
	"sync"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/agentbuild"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// remotes hands out one agent keeper per SSH destination, deployed on
// first use and shared by every persistent session on that host.
type remotes struct {
	ssh        *sshconn.Opener
	localAgent string
	log        *slog.Logger
	// Where agents go on hosts and where their sockets are; empty means
	// the defaults (tests point them at temporary directories).
	dir, socketDir, agents string
	// cacheDir remembers where each host's agent is, across restarts.
	cacheDir string
	// build builds an agent a host needs that is not built yet; nil
	// means such a host gets an error naming the command.
	build *agentbuild.Builder

	mu   sync.Mutex
	byTo map[string]*agent.Remote
}

// keeper returns the keeper for t's host (user, port and jump count too:
// the agent runs as the login user).
func (r *remotes) keeper(ctx context.Context, t transport.Target) (transport.Keeper, error) {
	p := t.SSH()
	key := fmt.Sprintf("%s\x00%s\x00%d\x00%s", p.Host, p.User, p.Port, p.Jump)
	r.mu.Lock()
	defer r.mu.Unlock()
	if k := r.byTo[key]; k != nil {
		return k, nil
	}
	// Reconnects dial with what the session was opened with (the password
	// included, kept in memory only).
	st := transport.Target{Spec: p}
	k := &agent.Remote{
		Host: p.Host,
		Connect: func(ctx context.Context) (agent.SSHLink, error) {
			return r.ssh.Link(ctx, st)
		},
		Version:    version(),
		LocalAgent: r.localAgent,
		Agents:     r.agents,
		CacheDir:   r.cacheDir,
		Dir:        r.dir,
		SocketDir:  r.socketDir,
		Logger:     r.log,
	}
	if r.build != nil {
		k.Build = func(ctx context.Context, target string) (string, error) {
			return r.build.Build(ctx, target, progressNotes(ctx))
		}
	}
	if r.byTo == nil {
		r.byTo = map[string]*agent.Remote{}
	}
	r.byTo[key] = k
	return k, nil
}

// progressKey carries a call's progress notifier in its context, so that
// slow work deep below a handler (building an agent) can say what it does.
type progressKey struct{}

// withProgressNotes returns ctx carrying a notifier that sends progress
// notifications for req, when the request asked for them.
func withProgressNotes(ctx context.Context, req *mcp.CallToolRequest) context.Context {
	if req == nil || req.Session == nil || req.Params == nil {
		return ctx
	}
	token := req.Params.GetProgressToken()
	if token == nil {
		return ctx
	}
	n := 0
	return context.WithValue(ctx, progressKey{}, func(msg string) {
		n++
		_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ // best effort
			ProgressToken: token, Progress: float64(n), Message: msg,
		})
	})
}

// progressNotes returns ctx's notifier, or nil.
func progressNotes(ctx context.Context) func(string) {
	f, _ := ctx.Value(progressKey{}).(func(string))
	return f
}
