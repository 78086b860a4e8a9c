package agent

import (
	"context"
	"fmt"
	"strings"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/transport"
)

// Serial sessions: Create with a transport.SerialParams Target.Spec asks
// the agent to hold the serial port Target.Command (with those settings) instead of running a program, so that the console keeps
// being captured while no ttymux server is attached. The Conn of such a
// session implements transport.Breaker, ModemController and LinkStater
// through the agent; on a PTY session Break and SetModemLine fail with an
// error wrapping transport.ErrUnsupported, without asking the agent.

var (
	_ transport.Breaker         = (*Conn)(nil)
	_ transport.ModemController = (*Conn)(nil)
	_ transport.LinkStater      = (*Conn)(nil)
)

// serialCreate is the Create for a serial Target.
func serialCreate(t transport.Target, p transport.SerialParams, size transport.Size, meta []byte) agentproto.Create {
	return agentproto.Create{
		// An agent that predates serial sessions takes Command for a
		// program and fails to run a device node; see kindUnknown.
		Command: t.Command,
		Rows:    size.Rows, Cols: size.Cols, Meta: meta,
		Kind: agentproto.KindSerial,
		Serial: agentproto.SerialLine{Baud: p.Baud, DataBits: p.DataBits, Parity: p.Parity, StopBits: p.StopBits,
			FlowControl: p.FlowControl, Reconnect: p.Reconnect},
	}
}

// kindUnknown reports whether m, the agent's AttachReply to req, comes from
// an agent that does not know req's session kind: an agent that does
// echoes the kind in every reply to a Create (agentproto's doc, "Session
// kinds"). No reply (m nil) tells nothing.
func kindUnknown(req, m any) bool {
	cr, ok := req.(agentproto.Create)
	r, ok2 := m.(agentproto.AttachReply)
	return ok && ok2 && cr.Kind != agentproto.KindPTY && r.Kind != cr.Kind
}

// olderAgent is the error for a Create the agent did not understand (err
// is call's). If the agent made a session of it anyway, it is ended.
func (c *Client) olderAgent(ctx context.Context, req, m any, err error) error {
	cr := req.(agentproto.Create)
	r := m.(agentproto.AttachReply)
	answer := ""
	if err == nil {
		if kerr := c.Kill(ctx, r.Session.ID); kerr != nil {
			c.logger().Warn("end the session an older agent started by mistake", "session", r.Session.ID, "err", kerr)
		}
		answer = "it started " + r.Session.Command
	} else {
		answer = "it answered: " + err.Error()
	}
	return fmt.Errorf("the running ttymux agent predates %s sessions (%s); once its sessions are done, stop it with ttymux-agent stop so that a current one starts, or open the port without persistent",
		cr.Kind, answer)
}

// answer hands a Reply to the request waiting for it; false means nobody
// waits (a SetMeta, or a Reply nobody asked for).
func (c *Conn) answer(r agentproto.Reply) bool {
	c.mu.Lock()
	var ch chan agentproto.Reply
	if len(c.asked) > 0 {
		ch = c.asked[0]
		c.asked = c.asked[1:]
	}
	c.mu.Unlock()
	if ch == nil {
		return false
	}
	ch <- r // buffered
	return true
}

// ask sends a request the agent answers on the stream and waits for the
// answer, ctx, or the end of the stream. Read must be running (the
// session's pump is).
func (c *Conn) ask(ctx context.Context, op string, m any) error {
	ch := make(chan agentproto.Reply, 1)
	t, p := agentproto.Marshal(m)
	if err := c.sendAsking(t, p, ch); err != nil {
		return err
	}
	var r agentproto.Reply
	select {
	case r = <-ch:
	case <-c.end:
		if err := c.Wait(); err != nil {
			return fmt.Errorf("%s on session %s: %w", op, c.id, err)
		}
		return fmt.Errorf("%s on session %s: the session has ended", op, c.id)
	case <-ctx.Done():
		return fmt.Errorf("%s on session %s: no answer from the agent: %w", op, c.id, ctx.Err())
	}
	switch r.Status {
	case agentproto.StatusOK:
		return nil
	case agentproto.StatusUnsupported:
		return &unsupportedError{r.Message}
	}
	return refused(&agentlink.StatusError{Op: op, ID: c.id, Status: r.Status, Message: r.Message})
}

// Break sends a line BREAK of d (0: 0.25 s) on a serial session and
// returns once it has ended. On a PTY session it fails with an error
// wrapping transport.ErrUnsupported.
func (c *Conn) Break(ctx context.Context, d time.Duration) error {
	if c.kind != agentproto.KindSerial {
		return fmt.Errorf("session %s runs a program, not a serial port: BREAK applies to serial consoles only; for a shell send ctrl+c: %w", c.id, transport.ErrUnsupported)
	}
	if d < 0 {
		return fmt.Errorf("break duration %v is negative", d)
	}
	ms := d.Milliseconds()
	if d > 0 && ms == 0 {
		ms = 1
	}
	return c.ask(ctx, "send BREAK", agentproto.Break{Millis: ms})
}

// SetModemLine asserts (on) or clears DTR or RTS on a serial session. A
// device without the line (a pseudo-terminal), or a PTY session, gives an
// error wrapping transport.ErrUnsupported.
func (c *Conn) SetModemLine(line transport.ModemLine, on bool) error {
	name := strings.ToUpper(string(line))
	if c.kind != agentproto.KindSerial {
		return fmt.Errorf("session %s runs a program, not a serial port: %s applies to serial consoles only: %w", c.id, name, transport.ErrUnsupported)
	}
	ctx, cancel := context.WithTimeout(context.Background(), agentlink.SetupTimeout)
	defer cancel()
	return c.ask(ctx, "set "+name, agentproto.Modem{Line: string(line), On: on})
}

// LinkState reports a serial session's link as the agent last reported it:
// transport.LinkUp or transport.LinkDisconnected. A PTY session's is
// always LinkUp.
func (c *Conn) LinkState() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.link == agentproto.LinkDisconnected {
		return transport.LinkDisconnected
	}
	return transport.LinkUp
}

// linkDown is Write's error while a serial session's device is away: the
// agent would drop the input.
func (c *Conn) linkDown() error {
	if c.kind != agentproto.KindSerial || c.LinkState() != transport.LinkDisconnected {
		return nil
	}
	return fmt.Errorf("the serial port of session %s is disconnected (device unplugged?); the agent reopens it when it comes back", c.id)
}

// unsupportedError carries the agent's explanation of a StatusUnsupported
// ("this device has no DTR line (a pseudo-terminal?)") and matches
// transport.ErrUnsupported.
type unsupportedError struct{ msg string }

func (e *unsupportedError) Error() string { return e.msg }
func (e *unsupportedError) Unwrap() error { return transport.ErrUnsupported }
