package agentd

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ptytest"
	"github.com/ttymux/ttymux/internal/serialport"
	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/internal/testwait"
)

// serialReq is a Create for the serial port at path.
func serialReq(path string, reconnect bool) agentproto.Create {
	return agentproto.Create{Command: path, Rows: 24, Cols: 80, Meta: []byte(`{"transport":"serial"}`),
		Kind: agentproto.KindSerial, Serial: agentproto.SerialLine{Baud: 115200, Reconnect: reconnect}}
}

// waitLink waits for a Link frame with state, after the ones an earlier
// waitLink consumed.
func (tc *tconn) waitLink(state string) {
	tc.t.Helper()
	tc.until("link "+state, func() bool {
		for ; tc.linkNx < len(tc.links); tc.linkNx++ {
			if tc.links[tc.linkNx] == state {
				tc.linkNx++
				return true
			}
		}
		return false
	})
}

// waitReplies reads until n replies have arrived.
func (tc *tconn) waitReplies(n int) []agentproto.Reply {
	tc.t.Helper()
	tc.until(fmt.Sprintf("%d replies", n), func() bool { return len(tc.replies) >= n })
	return tc.replies
}

// TestSerialSession is issue #6 at the agent: a serial port held by the
// agent. Output the device printed before the port was opened and while no
// client was attached arrives once each, at absolute offsets; BREAK works
// and DTR is answered honestly on a pseudo-terminal; unplugging reports the
// link down and plugging the device back in brings it up with output
// continuing in the same session; Kill closes the port and releases it.
func TestSerialSession(t *testing.T) {
	ta := startAgent(t, Options{})
	path := filepath.Join(t.TempDir(), "ttyUSB0")
	dev := serialtest.New(t, path)
	dev.Write(t, "boot-1\r\n") // before the port opens: the tty keeps it

	tc := ta.create(t, serialReq(path, true))
	id := tc.rep.Session.ID
	if tc.rep.Kind != agentproto.KindSerial || tc.rep.Session.Command != "serial "+path || tc.rep.Session.Pid != 0 {
		t.Fatalf("AttachReply: kind %s, session %+v", tc.rep.Kind, tc.rep.Session)
	}
	tc.waitLink(agentproto.LinkUp)
	tc.waitOutput("boot-1\r\n")
	if tc.frames[1] != agentproto.TypeLink {
		t.Errorf("frames %v: the link state should follow the AttachReply", tc.frames)
	}
	fromDev := ptytest.Pump(t, dev.Master, waitTimeout)
	tc.input("root\r")
	fromDev.Expect(t, "root\r")

	// BREAK works on a pseudo-terminal; it has no DTR line, and the
	// answer says so. Replies come in request order, SetMeta's too.
	tc.send(agentproto.Break{Millis: 1})
	tc.send(agentproto.Modem{Line: "dtr", On: true})
	tc.send(agentproto.SetMeta{Meta: []byte(`{"read_off":3}`)})
	tc.send(agentproto.Break{Millis: -1})
	tc.send(agentproto.Break{Millis: 60_000})
	rs := tc.waitReplies(5)
	if rs[0].Status != agentproto.StatusOK {
		t.Errorf("Break: %+v", rs[0])
	}
	if rs[1].Status != agentproto.StatusUnsupported || !strings.Contains(rs[1].Message, "no DTR line") {
		t.Errorf("Modem dtr on a pty: %+v", rs[1])
	}
	if rs[2].Status != agentproto.StatusOK {
		t.Errorf("SetMeta: %+v", rs[2])
	}
	for _, r := range rs[3:] {
		if r.Status != agentproto.StatusFailed || !strings.Contains(r.Message, "out of range") {
			t.Errorf("Break out of range: %+v", r)
		}
	}
	// A window size and signals mean nothing to a port: ignored.
	tc.send(agentproto.Resize{Rows: 50, Cols: 100})
	tc.send(agentproto.Signal{Name: "INT"})
	dev.Write(t, "line-1\r\n")
	tc.waitOutput("line-1\r\n")
	if si, _ := ta.info(t, id); si.Rows != 24 || si.Cols != 80 || string(si.Meta) != `{"read_off":3}` {
		t.Errorf("session after Resize and SetMeta: %+v", si)
	}

	// Unplug: the session stays, its link goes down.
	dev.Unplug()
	tc.waitLink(agentproto.LinkDisconnected)
	if ev := ta.ev.wait(t, EventLink, id); ev.Detail != agentproto.LinkDisconnected {
		t.Errorf("first link event %v", ev)
	}
	tc.input("lost\r") // the device is away: dropped
	if si, ok := ta.info(t, id); !ok || si.Exited {
		t.Fatalf("session while unplugged: %+v (listed %v)", si, ok)
	}

	// Plug it back in at the same path: output continues in the session.
	dev2 := serialtest.New(t, path)
	tc.waitLink(agentproto.LinkUp)
	fromDev2 := ptytest.Pump(t, dev2.Master, waitTimeout)
	dev2.Write(t, "line-2\r\n")
	tc.waitOutput("line-2\r\n")
	tc.input("after\r")
	fromDev2.Expect(t, "after\r")

	// Detach; the device prints while nobody is attached; attaching from
	// where the client left off gets every line exactly once.
	next := tc.next
	tc.sendFrame(agentproto.TypeDetach, nil)
	ta.ev.wait(t, EventDetached, id)
	const lines = 300
	var want strings.Builder
	for i := 3; i <= lines; i++ {
		fmt.Fprintf(&want, "line-%d\r\n", i)
	}
	dev2.Write(t, want.String())
	end := next + int64(want.Len())
	var got int64
	// Polling List: there is no event for output.
	if !testwait.Poll(t.Context(), waitTimeout, func() bool { si, _ := ta.info(t, id); got = si.End; return got >= end }) {
		t.Fatalf("the agent captured up to offset %d of %d while detached", got, end)
	}
	tc2 := ta.attach(t, agentproto.Attach{ID: id, From: next}, agentproto.StatusAttached)
	if tc2.rep.From != next || tc2.rep.Lost != 0 || tc2.rep.Kind != agentproto.KindSerial {
		t.Fatalf("reattach: %+v", tc2.rep)
	}
	tc2.waitLink(agentproto.LinkUp)
	tc2.waitOutput(fmt.Sprintf("line-%d\r\n", lines))
	if got := string(tc2.out); got != want.String() {
		t.Fatalf("replay after detach:\n got %q\nwant %q", tail([]byte(got)), tail([]byte(want.String())))
	}
	counts := countLines(string(tc2.out))
	for i := 3; i <= lines; i++ {
		if n := counts[fmt.Sprintf("line-%d", i)]; n != 1 {
			t.Fatalf("line-%d arrived %d times", i, n)
		}
	}

	// Kill: the attached client gets a plain Exit, the port is released.
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	if err := Kill(ctx, ta.sock, id); err != nil {
		t.Fatal(err)
	}
	if exit := tc2.waitExit(); exit != (agentproto.Exit{}) {
		t.Errorf("Exit after Kill: %+v", exit)
	}
	p, err := serialport.Open(path, serialport.Params{}, serialport.Options{})
	if err != nil {
		t.Fatalf("the port is still held after Kill: %v", err)
	}
	_ = p.Close()
}

// TestSerialGoneWithoutReconnect: without Reconnect, a device that goes
// away ends the session like a program that exits, and the Exit says why.
func TestSerialGoneWithoutReconnect(t *testing.T) {
	ta := startAgent(t, Options{})
	path := filepath.Join(t.TempDir(), "ttyACM0")
	dev := serialtest.New(t, path)
	tc := ta.create(t, serialReq(path, false))
	id := tc.rep.Session.ID
	dev.Write(t, "bye\r\n")
	tc.waitOutput("bye\r\n")
	dev.Unplug()
	exit := tc.waitExit()
	if exit.Status != 255 || !strings.Contains(exit.Message, "disappeared") || !strings.Contains(exit.Message, path) {
		t.Errorf("Exit: %+v", exit)
	}
	ta.ev.wait(t, EventChildExited, id)
	si, ok := ta.info(t, id)
	if !ok || !si.Exited || si.ExitStatus != 255 {
		t.Errorf("session after the device went: %+v", si)
	}
	// An exited serial session is attachable like an exited program's.
	tc2 := ta.attach(t, agentproto.Attach{ID: id, FromStart: true}, agentproto.StatusAttached)
	tc2.waitOutput("bye\r\n")
	if exit2 := tc2.waitExit(); exit2 != exit {
		t.Errorf("Exit on reattach %+v, want %+v", exit2, exit)
	}
}

// TestSerialRequestsOnPTY: Break and Modem on a program's session are
// answered StatusUnsupported, in order.
func TestSerialRequestsOnPTY(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	if tc.rep.Kind != agentproto.KindPTY {
		t.Errorf("kind %s", tc.rep.Kind)
	}
	tc.send(agentproto.Break{})
	tc.send(agentproto.Modem{Line: "rts"})
	for i, r := range tc.waitReplies(2) {
		if r.Status != agentproto.StatusUnsupported || !strings.Contains(r.Message, "not a serial port") {
			t.Errorf("reply %d: %+v", i, r)
		}
	}
	for _, l := range tc.links {
		t.Errorf("Link frame %q on a PTY session", l)
	}
	tc.input("exit\n")
	tc.waitExit()
}

// TestSerialCreateRefused: a port that cannot be opened fails the Create
// with the reason, and the reply still names the serial kind, so a client
// can tell this agent from one that predates serial sessions; a kind the
// agent does not know is refused naming it.
func TestSerialCreateRefused(t *testing.T) {
	ta := startAgent(t, Options{})
	dir := t.TempDir()
	busy := filepath.Join(dir, "busy")
	serialtest.New(t, busy)
	held, err := serialport.Open(busy, serialport.Params{}, serialport.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = held.Close() })
	bad := serialReq(filepath.Join(dir, "ttyUSB7"), true)
	serialtest.New(t, bad.Command)
	bad.Serial.DataBits = 9
	unknown := testShell()
	unknown.Kind = 7
	tests := []struct {
		name string
		req  agentproto.Create
		kind agentproto.Kind
		want string
	}{
		{"missing", serialReq(filepath.Join(dir, "ttyUSB9"), true), agentproto.KindSerial, "does not exist"},
		{"busy", serialReq(busy, false), agentproto.KindSerial, "in use by another program"},
		{"bad settings", bad, agentproto.KindSerial, "data bits 9"},
		{"unknown kind", unknown, agentproto.KindPTY, "kind(7)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			tc := ta.dial(t)
			tc.send(tt.req)
			rep := tc.reply(agentproto.StatusFailed)
			if rep.Kind != tt.kind || !strings.Contains(rep.Message, tt.want) {
				t.Errorf("reply kind %s, message %q; want kind %s and %q", rep.Kind, rep.Message, tt.kind, tt.want)
			}
		})
	}
	if ss := ta.list(t); len(ss) != 0 {
		t.Errorf("sessions after refused creates: %+v", ss)
	}
}
