package agent

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/internal/agentsock"
)

// TestUnsafeSocketThroughClient: a socket path that is not a socket is
// refused by internal/agentsock, and its one UnsafeSocketError reaches
// the Client's caller (wrapped by the Client) for errors.As; nothing is
// dialled.
func TestUnsafeSocketThroughClient(t *testing.T) {
	sock := filepath.Join(sockDir(t), "agent.sock")
	if err := os.WriteFile(sock, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c := &Client{Socket: sock, AgentPath: "/nonexistent/ttymux-agent"}
	for name, err := range map[string]error{
		"Ping": c.Ping(ctxT(t)),
		"Kill": c.Kill(ctxT(t), "s1"),
	} {
		var ue *agentsock.UnsafeSocketError
		if !errors.As(err, &ue) || ue.Path != sock || ue.Host != "" || ue.Problem != "is not a socket" {
			t.Errorf("%s = %v, want an *agentsock.UnsafeSocketError for %s", name, err, sock)
		}
	}
}

// TestUnsafeSocketRemote: the error a Remote makes of the host's complaint
// is the same type, and says which host and what to do.
func TestUnsafeSocketRemote(t *testing.T) {
	r := &Remote{Host: "db1"}
	err := r.unsafeError("agent socket /tmp/ttymux-0/agent.sock is owned by uid 1001")
	var ue *agentsock.UnsafeSocketError
	if !errors.As(err, &ue) || ue.Host != "db1" {
		t.Fatalf("unsafeError = %v, want an *agentsock.UnsafeSocketError for db1", err)
	}
	for _, want := range []string{"agent socket on db1 is not safe to use", "owned by uid 1001", "remove it as its owner or root"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("%q lacks %q", err, want)
		}
	}
}
