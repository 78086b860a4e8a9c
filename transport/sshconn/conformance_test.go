package sshconn_test

import (
	"testing"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/transporttest"
)

// TestConformance runs the transport.Conn suite on cat in a pty over a real
// sshd, every Conn on the one pooled connection. Once closed, Read and
// Write fail with os.ErrClosed; what Wait returns depends on whether sshd's
// exit status beat Close (TestCloseUnblocks pins os.ErrClosed where Close
// comes first).
func TestConformance(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	e := newSSHDEnv(t, d.ConfigBlock("box", "KNOWN_HOSTS"))
	e.trust(t, d)
	transporttest.TestConn(t, func(t *testing.T) transport.Conn {
		return e.mustOpen(t, transport.Target{Command: "exec cat", Spec: transport.SSHParams{Host: "box"}})
	}, transporttest.Options{})
}
