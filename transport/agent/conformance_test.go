package agent

import (
	"errors"
	"net"
	"testing"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/transporttest"
)

// TestConformance runs the transport.Conn suite on an agent session running
// cat. Closing an agent Conn detaches (the session keeps running), so Read
// then ends with ErrDetached (and net.ErrClosed), and so does Wait.
func TestConformance(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	transporttest.TestConn(t, func(t *testing.T) transport.Conn {
		kc, ks, err := c.Create(ctxT(t), transport.Target{Command: "cat", Term: "dumb"}, nil)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { c.Kill(ctxT(t), ks.ID) })
		return kc
	}, transporttest.Options{
		Closed: func(err error) bool { return errors.Is(err, ErrDetached) && errors.Is(err, net.ErrClosed) },
		Waited: func(err error) bool { return errors.Is(err, ErrDetached) },
	})
}
