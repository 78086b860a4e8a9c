package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
)

const (
	// startTimeout bounds how long Create retries connecting to an agent
	// it started, and Stop waits for a stopped agent to go away.
	startTimeout = 3 * time.Second
	// starterTimeout bounds "ttymux-agent serve --detach", which itself
	// waits up to 5 s for the daemon it forks to accept connections.
	starterTimeout = 6 * time.Second
	// lockTimeout bounds waiting for another client that is starting the
	// agent: its starter and its retries.
	lockTimeout = starterTimeout + startTimeout + time.Second
)

// dialStart connects to the agent, starting it when nothing listens on the
// socket. Concurrent starts (two ttymux servers launched together) are
// serialised with an flock on <socket>.lock: the loser of the race finds
// the winner's agent when it gets the lock.
func (c *Client) dialStart(ctx context.Context) (*link, error) {
	if c.Dial != nil || c.dialLink != nil {
		return c.dialFunc(ctx)
	}
	sock := c.socket()
	l, err := connect(ctx, sock)
	if err == nil {
		return l, nil
	}
	if !absent(err) {
		return nil, fmt.Errorf("connect to agent on %s: %w", sock, err)
	}
	if err := agentsock.PrepareDir(filepath.Dir(sock)); err != nil {
		return nil, err
	}
	unlock, err := agentsock.Lock(ctx, sock+".lock", lockTimeout)
	if err != nil {
		return nil, fmt.Errorf("wait for another client starting the agent: %w", err)
	}
	defer unlock()
	if l, err := connect(ctx, sock); err == nil || !absent(err) {
		if err != nil {
			return nil, fmt.Errorf("connect to agent on %s: %w", sock, err)
		}
		return l, nil // another client started it while we waited
	}
	if err := c.startAgent(ctx, sock); err != nil {
		return nil, err
	}
	return waitListening(ctx, sock)
}

// waitListening retries connecting with a short backoff for up to
// startTimeout.
func waitListening(ctx context.Context, sock string) (*link, error) {
	ctx, cancel := context.WithTimeout(ctx, startTimeout)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(2*delay, 50*time.Millisecond) {
		l, err := connect(ctx, sock)
		if err == nil {
			return l, nil
		}
		if !absent(err) {
			return nil, fmt.Errorf("connect to the agent just started on %s: %w", sock, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			return nil, fmt.Errorf("the agent started on %s did not accept connections within %v: %w", sock, startTimeout, ctx.Err())
		}
	}
}

// startAgent runs "ttymux-agent serve --detach --socket sock". The
// starter returns once the daemon it forked is on its way; the daemon runs
// in its own session, so signals for this process group (ctrl+c in the
// terminal that ran the MCP client) don't reach it.
func (c *Client) startAgent(ctx context.Context, sock string) error {
	path, err := c.agentPath()
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, starterTimeout)
	defer cancel()
	args := append([]string{"serve", "--detach", "--socket", sock}, c.StartArgs...)
	cmd := exec.CommandContext(ctx, path, args...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr // stdin and stdout are /dev/null: our stdout may be the MCP stream
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true}
	// If the daemon kept the starter's stderr open, Wait would wait for it.
	cmd.WaitDelay = 500 * time.Millisecond
	c.logger().Info("starting ttymux agent", "path", path, "args", args)
	if err := cmd.Run(); err != nil && !errors.Is(err, exec.ErrWaitDelay) {
		msg := strings.TrimSpace(stderr.String())
		if len(msg) > 2000 {
			msg = "…" + msg[len(msg)-2000:]
		}
		if msg != "" {
			return fmt.Errorf("start agent %s: %w: %s", path, err, msg)
		}
		return fmt.Errorf("start agent %s: %w", path, err)
	}
	return nil
}

// agentPath finds the ttymux-agent binary (FindAgent).
func (c *Client) agentPath() (string, error) { return FindAgent(c.AgentPath) }

// FindAgent finds the ttymux-agent binary as the server does: explicit
// (Client.AgentPath, the -agent flag or $TTYMUX_AGENT) when not empty,
// otherwise next to this program, then in $PATH. The error matches
// ErrAgentNotFound and says where it looked.
func FindAgent(explicit string) (string, error) {
	if explicit != "" {
		if !isExecutable(explicit) {
			return "", fmt.Errorf("%w at %s; build and install it with ./install.sh from the ttymux source tree", ErrAgentNotFound, explicit)
		}
		return explicit, nil
	}
	var looked string
	if exe, err := os.Executable(); err == nil {
		p := filepath.Join(filepath.Dir(exe), "ttymux-agent")
		if isExecutable(p) {
			return p, nil
		}
		looked = p + " and "
	}
	if p, err := exec.LookPath("ttymux-agent"); err == nil {
		return p, nil
	}
	return "", fmt.Errorf("%w: looked for %s$PATH; install it with ./install.sh from the ttymux source tree (it installs ttymux and ttymux-agent side by side)", ErrAgentNotFound, looked)
}

func isExecutable(p string) bool {
	fi, err := os.Stat(p)
	return err == nil && fi.Mode().IsRegular() && fi.Mode().Perm()&0o111 != 0
}
