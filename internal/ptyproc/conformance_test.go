package ptyproc_test

import (
	"testing"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/transporttest"
)

// TestConformance runs the transport.Conn suite on a Proc running cat: a
// pending Read ends at Close (which needs the non-blocking master: STYLE.md
// section 5; creack/pty issues 88 and 114), Read and Write then fail with
// os.ErrClosed, and Wait reports cat killed by the hangup.
func TestConformance(t *testing.T) {
	transporttest.TestConn(t, func(t *testing.T) transport.Conn {
		return start(t, scriptSpec(t, "exec cat"))
	}, transporttest.Options{Waited: transporttest.HungUp})
}
