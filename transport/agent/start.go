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

	"golang.org/x/sys/unix"
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
	if c.Dial != nil {
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
	if err := prepareDir(filepath.Dir(sock)); err != nil {
		return nil, err
	}
	unlock, err := lockFile(ctx, sock+".lock")
	if err != nil {
		return nil, err
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

// agentPath finds the ttymux-agent binary.
func (c *Client) agentPath() (string, error) {
	if c.AgentPath != "" {
		if !isExecutable(c.AgentPath) {
			return "", fmt.Errorf("%w at %s (Client.AgentPath); build and install it with ./install.sh from the ttymux source tree", ErrAgentNotFound, c.AgentPath)
		}
		return c.AgentPath, nil
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

// lockFile takes an exclusive flock on path, polling so that ctx (or
// lockTimeout) bounds the wait. The returned func releases it.
func lockFile(ctx context.Context, path string) (unlock func(), err error) {
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("open agent start lock: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, lockTimeout)
	defer cancel()
	for delay := time.Millisecond; ; delay = min(2*delay, 20*time.Millisecond) {
		err := flock(f, unix.LOCK_EX|unix.LOCK_NB)
		if err == nil {
			return func() {
				_ = flock(f, unix.LOCK_UN) // closing releases it too
				_ = f.Close()
			}, nil
		}
		if !errors.Is(err, unix.EWOULDBLOCK) && !errors.Is(err, unix.EINTR) {
			_ = f.Close()
			return nil, fmt.Errorf("lock %s: %w", path, err)
		}
		t := time.NewTimer(delay)
		select {
		case <-t.C:
		case <-ctx.Done():
			t.Stop()
			_ = f.Close()
			return nil, fmt.Errorf("wait for another client starting the agent (lock %s): %w", path, ctx.Err())
		}
	}
}

// flock runs flock(2) through SyscallConn, keeping f's descriptor mode as
// it is (shared/STYLE.md §5: avoid (*os.File).Fd).
func flock(f *os.File, how int) error {
	rc, err := f.SyscallConn()
	if err != nil {
		return err
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = unix.Flock(int(fd), how) }); err != nil {
		return err
	}
	return ferr
}
