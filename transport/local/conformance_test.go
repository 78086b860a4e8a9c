package local_test

import (
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/transporttest"
)

// TestConformance runs the transport.Conn suite on a PTY running cat.
// Close hangs the terminal up, so Wait then reports cat killed by SIGHUP.
func TestConformance(t *testing.T) {
	transporttest.TestConn(t, func(t *testing.T) transport.Conn {
		return open(t, transport.Target{Command: "cat", Term: "dumb"})
	}, transporttest.Options{Waited: transporttest.HungUp})
}
