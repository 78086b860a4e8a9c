package agent

import (
	"github.com/ttymux/ttymux/internal/agentsock"
)

// DefaultSocket returns the per-user socket the local agent listens on:
// $XDG_RUNTIME_DIR/ttymux/agent-v<N>.sock, or /tmp/ttymux-<euid>/agent-v<N>.sock
// when XDG_RUNTIME_DIR is unset, where N is agentproto.Version
// (agentsock.Default, the one rule the agent, its clients and doctor share).
func DefaultSocket() string { return agentsock.Default() }

// UnsafeDirError reports a socket directory that is not ours or that
// another user could write to. The Client refuses to use it, as tmux does
// ("has unsafe permissions"): a socket there could be someone else's.
type UnsafeDirError = agentsock.UnsafeDirError
