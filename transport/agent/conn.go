package agent

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/transport"
)

// maxInput bounds one Input frame, so a large paste never makes the agent
// hold a big frame while the terminal's input queue drains.
const maxInput = 32 << 10

// closeTimeout bounds how long Close spends trying to say Detach when a
// Write is stuck (the agent not reading).
const closeTimeout = 250 * time.Millisecond

var (
	_ transport.KeptConn     = (*Conn)(nil)
	_ transport.Resizer      = (*Conn)(nil)
	_ transport.Signaler     = (*Conn)(nil)
	_ transport.Foregrounder = (*Conn)(nil)
	_ transport.EchoReporter = (*Conn)(nil)
	_ transport.SharedInput  = (*Conn)(nil)
	_ transport.PersonWriter = (*Conn)(nil)
)

// Conn is an attachment to a session held by the agent. It implements
// transport.KeptConn, transport.Resizer, transport.Signaler,
// transport.Foregrounder and transport.EchoReporter.
//
// Read decodes the agent's frames itself, so exactly one goroutine may Read
// at a time; Foreground, Echo and Wait depend on that goroutine reading (the
// session's pump always does). Write, Resize, Signal, SetMeta, Close and the
// getters may run concurrently with Read and with each other.
type Conn struct {
	id   string
	l    *link
	log  *slog.Logger
	kind agentproto.Kind // set before the Conn is handed out; serial.go
	caps agentproto.Caps // the agent's, from its AttachReply; set likewise
	// countedFrom is the session's output end when this Conn attached:
	// Typed counts the input from then on (PersonCounted). Set likewise.
	countedFrom int64

	// The reader's own state: touched only by the goroutine in Read.
	rbuf    []byte              // frame buffer, reused
	pending []byte              // data Read has not returned yet, starting at off (may alias rbuf)
	gap     *transport.GapError // reported by the next Read
	rerr    error               // sticky: once set, Read returns it
	off     atomic.Int64        // offset of the next byte Read returns
	others  atomic.Int64        // input other clients wrote (Typed)
	// stamps says when output arrived at the agent (Stamps frames): the
	// bytes from stampOffs[i] on came at stampNs[i] (Unix ns). arrival is
	// that of the last Read's bytes.
	stampOffs, stampNs []int64
	arrival            time.Time
	arrivalOK          bool

	wmu  sync.Mutex // serialises frame writes; protects the following
	werr error      // sticky: a failed or partial write spoils the stream

	mu     sync.Mutex // protects the following
	fg     transport.Foreground
	echo   bool
	haveFg bool
	link   string                  // a serial session's link state, as last reported
	asked  []chan agentproto.Reply // one per request the agent answers on the stream, in order (nil: SetMeta)

	closed    atomic.Bool
	closeOnce sync.Once
	endOnce   sync.Once
	end       chan struct{} // closed when endErr is known
	endErr    error         // what Wait returns
}

func newConn(id string, l *link, from int64, log *slog.Logger) *Conn {
	c := &Conn{id: id, l: l, log: log, end: make(chan struct{})}
	c.off.Store(from)
	return c
}

// ID returns the session's id.
func (c *Conn) ID() string { return c.id }

// Offset returns the output offset of the next byte Read will return.
// After a Read that returned n bytes it has advanced by n; after a
// *transport.GapError it is the gap's To. It may be called from any
// goroutine.
func (c *Conn) Offset() int64 { return c.off.Load() }

// finish records what Wait returns, once.
func (c *Conn) finish(err error) {
	c.endOnce.Do(func() {
		c.endErr = err
		close(c.end)
	})
}

// Read returns the session's output in order from the attach offset. A
// *transport.GapError (with n == 0) reports output lost because this
// client fell behind the agent's ring; the next Read continues after it.
// After the program's exit and the last of its output, Read returns
// io.EOF. After Close it returns an error matching ErrDetached and
// net.ErrClosed; when the agent connection breaks, one matching
// ErrAgentLost.
func (c *Conn) Read(p []byte) (int, error) {
	for {
		if g := c.gap; g != nil {
			c.gap = nil
			return 0, g
		}
		if len(c.pending) > 0 {
			if len(p) > len(c.pending) {
				p = p[:len(c.pending)]
			}
			p = c.stampRead(p)
			n := copy(p, c.pending)
			c.pending = c.pending[n:]
			c.off.Add(int64(n))
			return n, nil
		}
		if c.rerr != nil {
			return 0, c.rerr
		}
		if len(p) == 0 {
			return 0, nil
		}
		if err := c.readFrame(); err != nil {
			c.rerr = err
		}
	}
}

// readFrame reads one frame and applies it to the reader's state.
func (c *Conn) readFrame() error {
	// c.rbuf may be reused: pending, which can alias it, is empty here.
	f, err := agentproto.ReadFrame(c.l.R, c.rbuf)
	if err != nil {
		return c.broken(err)
	}
	c.rbuf = f.Payload[:0]
	switch f.Type {
	case agentproto.TypeOutput:
		// Decoded in place, without Unmarshal's copy: the offset varint,
		// then the data to the end of the payload (agentproto's doc).
		off, n := binary.Varint(f.Payload)
		if n <= 0 {
			_ = c.l.Conn.Close() // the stream can't be trusted any more
			return c.broken(fmt.Errorf("%w: bad Output offset", agentproto.ErrBadFrame))
		}
		c.output(off, f.Payload[n:])
		return nil
	case agentproto.TypeGap, agentproto.TypeExit, agentproto.TypeForeground, agentproto.TypeReply, agentproto.TypeLink, agentproto.TypeStamps, agentproto.TypeTyped:
	default:
		c.log.Debug("skipping agent frame", "type", f.Type)
		return nil // an AttachReply or a type newer than this client
	}
	m, err := agentproto.Unmarshal(f)
	if err != nil {
		_ = c.l.Conn.Close() // the stream can't be trusted any more
		return c.broken(err)
	}
	switch m := m.(type) {
	case agentproto.Stamps:
		c.addStamps(m)
	case agentproto.Typed:
		c.others.Store(max(m.Others, c.others.Load()))
	case agentproto.Gap:
		next := c.off.Load()
		if m.To > next {
			c.gap = &transport.GapError{From: next, To: m.To}
			c.off.Store(m.To)
		}
	case agentproto.Exit:
		var err error
		switch {
		case m.Message != "": // a serial session's device went away
			err = errors.New(m.Message)
		case m.Status != 0 || m.Signal != "":
			err = &transport.ExitError{Status: m.Status, Signal: transport.Signal(m.Signal)}
		}
		c.finish(err)
		return io.EOF
	case agentproto.Foreground:
		c.mu.Lock()
		c.fg = transport.Foreground{Pgid: m.Pgid, Name: m.Name, IsShell: m.IsShell}
		c.echo = m.Echo
		c.haveFg = true
		c.mu.Unlock()
	case agentproto.Link:
		c.mu.Lock()
		c.link = m.State
		c.mu.Unlock()
	case agentproto.Reply: // the outcome of a SetMeta, Break or Modem, in order
		if c.answer(m) {
			break
		}
		if m.Status != agentproto.StatusOK {
			c.log.Warn("agent refused to store session metadata", "status", m.Status, "message", m.Message)
		}
	}
	return nil
}

// addStamps keeps the arrival times the agent sent, dropping those of
// bytes already returned (but the one covering the next byte).
func (c *Conn) addStamps(m agentproto.Stamps) {
	for i, off := range m.Offsets {
		if n := len(c.stampOffs); n > 0 && off <= c.stampOffs[n-1] {
			continue // out of order or repeated: keep the first
		}
		c.stampOffs = append(c.stampOffs, off)
		c.stampNs = append(c.stampNs, m.Times[i])
	}
	next := c.off.Load()
	i := sort.Search(len(c.stampOffs), func(i int) bool { return c.stampOffs[i] > next })
	if i > 1 {
		c.stampOffs = append(c.stampOffs[:0], c.stampOffs[i-1:]...)
		c.stampNs = append(c.stampNs[:0], c.stampNs[i-1:]...)
	}
}

// stampRead sets the arrival of a Read of p at the next offset and cuts p
// where the bytes of a later arrival begin, so that one Read's bytes share
// one arrival.
func (c *Conn) stampRead(p []byte) []byte {
	c.arrival, c.arrivalOK = time.Time{}, false
	if len(c.stampOffs) == 0 {
		return p
	}
	off := c.off.Load()
	i := sort.Search(len(c.stampOffs), func(i int) bool { return c.stampOffs[i] > off })
	if i > 0 && c.stampNs[i-1] != 0 { // 0: the agent's stamps end there
		c.arrival, c.arrivalOK = time.Unix(0, c.stampNs[i-1]), true
	}
	if i < len(c.stampOffs) {
		if lim := c.stampOffs[i] - off; lim < int64(len(p)) {
			p = p[:lim]
		}
	}
	return p
}

// Arrival reports when the bytes the last Read returned arrived at the
// agent, when the agent said (transport.ArrivalReporter). Only the
// goroutine that calls Read may call it.
func (c *Conn) Arrival() (time.Time, bool) { return c.arrival, c.arrivalOK }

// output queues data, which starts at offset off, for Read.
func (c *Conn) output(off int64, data []byte) {
	next := c.off.Load()
	if off < next { // overlap: drop what was already returned
		skip := next - off
		if skip >= int64(len(data)) {
			return
		}
		data = data[skip:]
	} else if off > next { // bytes skipped without a Gap frame
		c.gap = &transport.GapError{From: next, To: off}
		c.off.Store(off)
	}
	c.pending = data
}

// broken turns a failed read into Read's final error and Wait's answer.
func (c *Conn) broken(err error) error {
	if c.closed.Load() {
		return c.detachedErr()
	}
	lost := fmt.Errorf("session %s: %w (%v); the session may still be running in the agent: reattach with attach", c.id, ErrAgentLost, err)
	c.finish(lost)
	return lost
}

func (c *Conn) detachedErr() error {
	return fmt.Errorf("session %s: %w; it keeps running in the agent: %w", c.id, ErrDetached, net.ErrClosed)
}

// send writes one frame; frames from different goroutines never interleave.
func (c *Conn) send(t agentproto.Type, p []byte) error { return c.sendFrame(t, p, false, nil) }

// sendAsking sends a request that the agent answers with a Reply on the
// stream (SetMeta, Break, Modem). Replies come in request order: the Reply
// goes to ch, or is only logged when ch is nil.
func (c *Conn) sendAsking(t agentproto.Type, p []byte, ch chan agentproto.Reply) error {
	return c.sendFrame(t, p, true, ch)
}

func (c *Conn) sendFrame(t agentproto.Type, p []byte, asking bool, ch chan agentproto.Reply) error {
	c.wmu.Lock()
	defer c.wmu.Unlock()
	if c.closed.Load() {
		return c.detachedErr()
	}
	if c.werr != nil {
		return c.werr
	}
	if asking { // queued before the frame goes out, so before its Reply can arrive
		c.mu.Lock()
		c.asked = append(c.asked, ch)
		c.mu.Unlock()
	}
	if err := c.l.Send(t, p); err != nil {
		// A stream with a failed or partial frame is useless: the link
		// is as good as lost.
		c.werr = fmt.Errorf("session %s: %w (send: %v); the session may still be running in the agent: reattach with attach", c.id, ErrAgentLost, err)
		if c.closed.Load() {
			return c.detachedErr()
		}
		return c.werr
	}
	return nil
}

// Write sends p to the session's terminal as one or more Input frames of
// at most 32 KiB. It blocks while the agent does not keep up; Close
// unblocks it.
func (c *Conn) Write(p []byte) (int, error) { return c.write(agentproto.TypeInput, p) }

// WritePerson is Write for keys a person typed through this client (the
// console's take-over of a server's session): an agent with
// CapPersonInput counts them in the other clients' Typed, though this
// client types for a model. An older agent gets plain Input (it would
// skip a frame it does not know, and the keys would be lost).
func (c *Conn) WritePerson(p []byte) (int, error) {
	if c.caps&agentproto.CapPersonInput == 0 {
		return c.Write(p)
	}
	return c.write(agentproto.TypePersonInput, p)
}

// PersonCounted reports whether the agent counts a person's input apart
// from a model's (CapPersonInput), and the session's end when this Conn
// attached, from which Typed covers the input
// (transport.PersonWriter).
func (c *Conn) PersonCounted() (int64, bool) {
	return c.countedFrom, c.caps&agentproto.CapPersonInput != 0
}

func (c *Conn) write(t agentproto.Type, p []byte) (int, error) {
	if err := c.linkDown(); err != nil {
		return 0, err
	}
	n := 0
	for len(p) > 0 {
		chunk := p[:min(len(p), maxInput)]
		if err := c.send(t, chunk); err != nil {
			return n, err
		}
		n += len(chunk)
		p = p[len(chunk):]
	}
	return n, nil
}

// Resize changes the session's window size; its foreground program gets
// SIGWINCH. The agent applies it asynchronously.
func (c *Conn) Resize(ctx context.Context, sz transport.Size) error {
	if !sz.Valid() {
		return fmt.Errorf("invalid window size %dx%d", sz.Rows, sz.Cols)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.kind == agentproto.KindSerial {
		return fmt.Errorf("session %s is a serial port, which has no window size: %w", c.id, transport.ErrUnsupported)
	}
	t, p := agentproto.Marshal(agentproto.Resize{Rows: sz.Rows, Cols: sz.Cols})
	return c.send(t, p)
}

// Signal asks the agent to send sig ("INT", "TERM", ...) to the session's
// foreground process group.
func (c *Conn) Signal(ctx context.Context, sig transport.Signal) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if c.kind == agentproto.KindSerial {
		return fmt.Errorf("session %s is a serial port, which takes no signals; send a key such as ctrl+c instead: %w", c.id, transport.ErrUnsupported)
	}
	t, p := agentproto.Marshal(agentproto.Signal{Name: string(sig)})
	return c.send(t, p)
}

// SetMeta replaces the metadata the agent keeps with the session. It does
// not wait for the agent's answer: the frame is ordered with this
// connection's input, and a refusal is logged by Read. An agent that
// advertised CapMetaNoReply is asked not to answer at all (it logs a
// refusal itself): a session sets metadata twice per command, and each
// Reply was one more frame for the agent to write and this Conn to read
// (issue #17).
func (c *Conn) SetMeta(meta []byte) error {
	if c.caps&agentproto.CapMetaNoReply != 0 {
		t, p := agentproto.Marshal(agentproto.SetMeta{Meta: meta, NoReply: true})
		return c.send(t, p)
	}
	t, p := agentproto.Marshal(agentproto.SetMeta{Meta: meta})
	return c.sendAsking(t, p, nil)
}

// Redact asks the agent to mask the session's output [from, to) in its
// ring (a secret's echo), so that later replays carry '*' instead of it.
// There is no reply; an agent that predates Redact skips it.
func (c *Conn) Redact(from, to int64) error {
	t, p := agentproto.Marshal(agentproto.Redact{From: from, To: to})
	return c.send(t, p)
}

// TypedByOthers returns how many bytes of input the session's other
// clients wrote since this attachment began, as the agent last reported
// (0 from an agent that predates Typed).
func (c *Conn) TypedByOthers() int64 { return c.others.Load() }

// Foreground returns the foreground process the agent last reported. It
// is an error until the first report has been read.
func (c *Conn) Foreground() (transport.Foreground, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.haveFg {
		return transport.Foreground{}, errors.New("the agent has not reported the foreground process yet")
	}
	return c.fg, nil
}

// Echo returns the terminal's ECHO flag as the agent last reported it. It
// is an error until the first report has been read.
func (c *Conn) Echo() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.haveFg {
		return false, errors.New("the agent has not reported the echo flag yet")
	}
	return c.echo, nil
}

// Wait blocks until the session's program has ended and Read has returned
// all its output: nil for exit status 0, a *transport.ExitError otherwise.
// If the agent connection breaks first it returns an error matching
// ErrAgentLost, and after Close one matching ErrDetached; in both cases
// the session may still be running. Any number of goroutines may call it.
func (c *Conn) Wait() error {
	<-c.end
	return c.endErr
}

// Close detaches: it tells the agent to stop streaming and closes the
// connection. The session keeps running. Close unblocks a pending Read and
// Write, is idempotent and may run concurrently with other methods.
func (c *Conn) Close() error {
	var err error
	c.closeOnce.Do(func() {
		c.closed.Store(true) // from now on failures read as "detached"
		// Wake a Write stuck on a full socket so Detach can follow it.
		_ = c.l.Conn.SetWriteDeadline(time.Now().Add(closeTimeout))
		c.wmu.Lock()
		if c.werr == nil {
			_ = c.l.Send(agentproto.TypeDetach, nil) // best effort: closing detaches too
		}
		c.wmu.Unlock()
		err = c.l.Conn.Close()
		c.finish(c.detachedErr())
		c.log.Debug("detached")
	})
	return err
}
