package agent

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ptytest"
	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/transport"
)

func serialTarget(path string, reconnect bool) transport.Target {
	return transport.Target{
		Command: path,
		Spec:    transport.SerialParams{Baud: 115200, DataBits: 8, Parity: "none", StopBits: "1", Reconnect: reconnect},
	}
}

// TestSerialConn drives a serial session held by the agent through the
// client: output and input, BREAK, a DTR line the pseudo-terminal does not
// have, no window size or signals, and an unplug and replug seen through
// LinkState, with Write refused while the device is away.
func TestSerialConn(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	path := filepath.Join(t.TempDir(), "ttyUSB0")
	dev := serialtest.New(t, path)
	kc, ks, err := c.Create(ctxT(t), serialTarget(path, true), []byte(`{"transport":"serial"}`))
	if err != nil {
		t.Fatal(err)
	}
	if ks.Command != "serial "+path || ks.Pid != 0 {
		t.Errorf("kept session %+v", ks)
	}
	conn := kc.(*Conn)
	p := startPump(t, kc)
	fromDev := ptytest.Pump(t, dev.Master, waitTimeout)
	dev.Write(t, "U-Boot 2024.01\r\n=> ")
	p.waitFor(t, "=> ")
	if _, err := kc.Write([]byte("printenv\r")); err != nil {
		t.Fatal(err)
	}
	fromDev.Expect(t, "printenv\r")

	// SetMeta's answer and BREAK's share the stream: each goes to its own
	// request.
	if err := conn.SetMeta([]byte(`{"transport":"serial","read_off":5}`)); err != nil {
		t.Fatal(err)
	}
	if err := conn.Break(ctxT(t), 0); err != nil {
		t.Errorf("Break: %v", err)
	}
	err = conn.SetModemLine(transport.DTR, true)
	if !errors.Is(err, transport.ErrUnsupported) || err.Error() != "this device has no DTR line (a pseudo-terminal?)" {
		t.Errorf("SetModemLine(DTR) on a pty: %v", err)
	}
	if err := conn.Resize(ctxT(t), transport.Size{Rows: 30, Cols: 90}); !errors.Is(err, transport.ErrUnsupported) {
		t.Errorf("Resize: %v", err)
	}
	if err := conn.Signal(ctxT(t), "INT"); !errors.Is(err, transport.ErrUnsupported) {
		t.Errorf("Signal: %v", err)
	}
	if got := conn.LinkState(); got != transport.LinkUp {
		t.Errorf("LinkState %q", got)
	}

	dev.Unplug()
	td.ev.wait(t, agentd.EventLink, ks.ID)
	waitUntil(t, "link down", func() bool { return conn.LinkState() == transport.LinkDisconnected })
	if _, err := kc.Write([]byte("lost\r")); err == nil || !strings.Contains(err.Error(), "disconnected") {
		t.Errorf("Write while unplugged: %v", err)
	}
	dev2 := serialtest.New(t, path)
	waitUntil(t, "link up", func() bool { return conn.LinkState() == transport.LinkUp })
	dev2.Write(t, "\r\n=> ")
	if got := p.waitFor(t, "=> "); got != "\r\n=> " {
		t.Errorf("output after replug %q", got)
	}
	if ks, ok := find(t, c, ks.ID); !ok || string(ks.Meta) != `{"transport":"serial","read_off":5}` {
		t.Errorf("meta %q (listed %v)", ks.Meta, ok)
	}
}

// TestSerialGone: without reconnect, the device going away ends the
// session; Wait says why, in the agent's words.
func TestSerialGone(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	path := filepath.Join(t.TempDir(), "ttyS1")
	dev := serialtest.New(t, path)
	kc, _, err := td.client().Create(ctxT(t), serialTarget(path, false), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc)
	dev.Write(t, "last words\r\n")
	p.waitFor(t, "last words\r\n")
	dev.Unplug()
	if _, err := p.finish(t); !errors.Is(err, io.EOF) {
		t.Errorf("Read's end: %v", err)
	}
	if err := kc.Wait(); err == nil || !strings.Contains(err.Error(), "disappeared") {
		t.Errorf("Wait: %v", err)
	}
	if err := kc.(*Conn).Break(ctxT(t), 0); err == nil {
		t.Error("Break after the end succeeded")
	}
}

// TestSerialOnProgramSession: on a program's session, Break and
// SetModemLine say the session is not a serial port without asking the
// agent (which an older one would not answer), and the link is always up.
func TestSerialOnProgramSession(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	kc, _, err := td.client().Create(ctxT(t), testShell(), nil)
	if err != nil {
		t.Fatal(err)
	}
	startPump(t, kc)
	conn := kc.(*Conn)
	if err := conn.Break(ctxT(t), 0); !errors.Is(err, transport.ErrUnsupported) || !strings.Contains(err.Error(), "not a serial port") {
		t.Errorf("Break: %v", err)
	}
	if err := conn.SetModemLine(transport.RTS, true); !errors.Is(err, transport.ErrUnsupported) {
		t.Errorf("SetModemLine: %v", err)
	}
	if got := conn.LinkState(); got != transport.LinkUp {
		t.Errorf("LinkState %q", got)
	}
}

// TestSerialOlderAgent: an agent that predates serial sessions takes the
// port's path for a program. Whether it fails to run it (a device node is
// not executable) or, against the odds, starts something, Create fails
// with an error that says what to do, and a stray session is killed.
func TestSerialOlderAgent(t *testing.T) {
	tests := []struct {
		name   string
		reply  agentproto.AttachReply
		want   string
		killed bool
	}{
		{"exec fails", agentproto.AttachReply{Status: agentproto.StatusFailed, Message: "fork/exec /dev/ttyUSB0: permission denied"},
			"it answered: agent create failed (status failed): fork/exec /dev/ttyUSB0: permission denied", false},
		{"started something", agentproto.AttachReply{Status: agentproto.StatusCreated,
			Session: agentproto.SessionInfo{ID: "s3", Command: "/dev/ttyUSB0"}}, "it started /dev/ttyUSB0", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var mu sync.Mutex
			var kills []string
			fa := startFake(t, func(f *fakeLink) {
				m, _, err := f.recv()
				if err != nil {
					return
				}
				switch m := m.(type) {
				case agentproto.Create:
					if m.Kind != agentproto.KindSerial || m.Command != "/dev/ttyUSB0" || m.Serial.Baud != 115200 {
						t.Errorf("Create %+v", m)
					}
					f.send(tt.reply) // without a Kind, as an older agent does
					_, _, _ = f.recv()
				case agentproto.Kill:
					mu.Lock()
					kills = append(kills, m.ID)
					mu.Unlock()
					f.send(agentproto.Reply{Status: agentproto.StatusOK})
				}
			})
			c := &Client{Socket: fa.sock}
			_, _, err := c.Create(ctxT(t), serialTarget("/dev/ttyUSB0", true), nil)
			if err == nil || !strings.Contains(err.Error(), "predates serial sessions") || !strings.Contains(err.Error(), tt.want) ||
				!strings.Contains(err.Error(), "without persistent") {
				t.Fatalf("Create: %v", err)
			}
			mu.Lock()
			defer mu.Unlock()
			if tt.killed != (len(kills) == 1 && kills[0] == "s3") {
				t.Errorf("kills %v", kills)
			}
		})
	}
}
