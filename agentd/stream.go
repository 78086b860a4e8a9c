package agentd

import (
	"bufio"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"slices"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ring"
)

const (
	// writeBatch is about how many bytes of frames one write to a client
	// carries while it catches up.
	writeBatch = 128 << 10
	// exitLinger bounds how long the agent waits, after sending Exit, for
	// the client to close its end, so that input it sent concurrently is
	// read rather than reset.
	exitLinger = 5 * time.Second
	// floodBytes and floodHold make a flood one write per burst rather
	// than one per PTY read (the kernel hands a PTY's output over at most
	// 4 KiB a read): once a write carried floodBytes of output or more,
	// output that follows within floodHold waits until floodHold after
	// that write, and goes out with whatever else came meanwhile. A
	// command's few lines, its prompt and keystrokes' echoes are smaller
	// and go out at once. Each write wakes a goroutine here and the
	// server's reader there, which on two busy cores cost as much CPU as
	// the bytes themselves (issue #37: seq 1 1000000 through the agent).
	floodBytes = 2 << 10
	floodHold  = 2 * time.Millisecond
)

// client is one attached connection.
type client struct {
	conn net.Conn
	sess *session

	quit     chan struct{} // closed by the reader: stop streaming
	quitOnce sync.Once
	ctrl     chan struct{} // wakes the writer for queued replies (capacity 1)

	// typedBase is the session's typed count when the client attached,
	// own what the client wrote since (its reader adds to it before the
	// session's count grows): the rest is other clients' (Typed).
	typedBase int64
	own       atomic.Int64
	// model is set for a client that types for a model (Attach.Model):
	// its input is never in the session's typed count.
	model bool

	mu sync.Mutex
	// mu guards the following.
	replies []agentproto.Reply // answers to SetMeta, in order
}

// maxQueued bounds the replies waiting for a client that sends SetMeta
// without reading.
const maxQueued = 1024

func (cl *client) stop() { cl.quitOnce.Do(func() { close(cl.quit) }) }

// queue hands a reply to the writer, which sends it in order with the
// output. It reports false if the client has not read maxQueued replies.
func (cl *client) queue(r agentproto.Reply) bool {
	cl.mu.Lock()
	ok := len(cl.replies) < maxQueued
	if ok {
		cl.replies = append(cl.replies, r)
	}
	cl.mu.Unlock()
	select {
	case cl.ctrl <- struct{}{}:
	default:
	}
	return ok
}

// stream answers a successful Create or Attach with rep (sess.attach has
// registered the client) and then streams until the client detaches or
// goes, the session's Exit has been delivered, or the server shuts down.
// It runs in the connection's goroutine, which is the only writer; a
// second goroutine reads the client's frames.
func (s *Server) stream(c net.Conn, br *bufio.Reader, sess *session, rep agentproto.AttachReply, model bool) {
	cl := &client{conn: c, sess: sess, quit: make(chan struct{}), ctrl: make(chan struct{}, 1), model: model}
	rep.Caps = agentproto.AgentCaps
	// The reply and the current foreground go out in one write.
	sess.mu.Lock()
	fg, fgSeq, exited := sess.fg, sess.fgSeq, sess.exited
	link, linkSeq := sess.link, sess.linkSeq
	cl.typedBase = sess.typed
	sess.mu.Unlock()
	buf := appendMsg(nil, rep)
	if !exited && fg.Pgid > 0 {
		buf = appendMsg(buf, fg)
	}
	if !exited && link != "" {
		buf = appendMsg(buf, agentproto.Link{State: link})
	}
	if _, err := c.Write(buf); err != nil {
		sess.detach()
		sess.log.Debug("write attach reply", "err", err)
		return
	}
	sess.log.Info("client attached", "from", rep.From, "lost", rep.Lost, "status", rep.Status)
	s.event(EventAttached, sess.id, "")

	readerDone := make(chan struct{})
	var readWhy string // written by the reader before readerDone closes
	go func() {
		defer close(readerDone)
		readWhy = cl.readLoop(br)
		cl.stop()
		// A writer blocked on a client that stopped reading would never
		// see quit: fail its write now.
		_ = c.SetWriteDeadline(time.Unix(1, 0))
	}()
	why, err := cl.writeLoop(rep.From, fgSeq, linkSeq)
	switch why {
	case "exited":
		// Tell the client we are done writing, then let it finish: it
		// reads the Exit and closes (or detaches), and the reader ends.
		if uc, ok := c.(*net.UnixConn); ok {
			_ = uc.CloseWrite()
		}
		_ = c.SetReadDeadline(time.Now().Add(exitLinger))
	case "write failed":
		// The client went (or stopped reading) while output was on its
		// way. What it sent before it went is still in the socket: read
		// it first, so that a SetMeta just before its Detach (the read
		// position of a result) is kept rather than reset with the
		// connection. A client that is gone gives EOF after it.
		_ = c.SetReadDeadline(time.Now().Add(exitLinger))
	default:
		_ = c.Close() // ends the reader
	}
	<-readerDone
	_ = c.Close()
	sess.detach() // before the event: a test that saw it sees the count
	switch {
	case why == "exited":
	case s.isStopping():
		why, err = "agent shutting down", nil
	case why == "detached":
		why = readWhy
	}
	if err != nil {
		why += ": " + err.Error()
	}
	sess.log.Info("client detached", "why", why)
	s.event(EventDetached, sess.id, why)
}

// readLoop applies the client's frames to the session until the client
// detaches, closes or breaks. Input is written to the PTY in arrival order;
// while the program does not read its input this blocks (the session's
// hangup unblocks it). It returns why it stopped.
func (cl *client) readLoop(br *bufio.Reader) string {
	sess := cl.sess
	var buf []byte
	for {
		f, err := agentproto.ReadFrame(br, buf)
		if err != nil {
			if errors.Is(err, io.EOF) {
				return "disconnected"
			}
			return "read failed: " + err.Error()
		}
		buf = f.Payload[:0]
		switch f.Type {
		case agentproto.TypeInput, agentproto.TypePersonInput:
			// Written straight from the frame buffer: no copy. Counted
			// as this client's before the session's count grows; a
			// model's input is counted nowhere, unless a person typed it
			// through the model's client (PersonInput).
			counted := !cl.model || f.Type == agentproto.TypePersonInput
			if counted {
				cl.own.Add(int64(len(f.Payload)))
			}
			if n, err := sess.write(f.Payload, counted); err != nil {
				if counted {
					cl.own.Add(int64(n - len(f.Payload)))
				}
				sess.log.Debug("write input", "err", err)
			}
			continue
		case agentproto.TypeDetach:
			return "detach"
		case agentproto.TypeResize, agentproto.TypeSignal, agentproto.TypeSetMeta, agentproto.TypeBreak, agentproto.TypeModem, agentproto.TypeRedact:
		default:
			// A newer client of the same Version may send types this
			// agent does not know: skip them.
			sess.log.Debug("skipping frame", "type", f.Type)
			continue
		}
		m, err := agentproto.Unmarshal(f)
		if err != nil {
			sess.log.Debug("bad frame", "type", f.Type, "err", err)
			// Requests that are answered get an answer, so the client's
			// replies stay in step.
			answered := f.Type == agentproto.TypeSetMeta || f.Type == agentproto.TypeBreak || f.Type == agentproto.TypeModem
			if answered && !cl.queue(agentproto.Reply{Status: agentproto.StatusFailed, Message: err.Error()}) {
				return "too many unread replies"
			}
			continue
		}
		switch m := m.(type) {
		case agentproto.Resize:
			sess.resize(m.Rows, m.Cols)
		case agentproto.Signal:
			sess.signal(m.Name)
		case agentproto.SetMeta:
			if m.NoReply { // a client that read CapMetaNoReply in the AttachReply
				if r := sess.setMeta(m.Meta); r.Status != agentproto.StatusOK {
					sess.log.Warn("session metadata refused", "why", r.Message)
				}
				continue
			}
			if !cl.queue(sess.setMeta(m.Meta)) {
				sess.log.Warn("client does not read its replies; disconnecting")
				return "too many unread replies"
			}
		case agentproto.Break:
			// Input that follows the BREAK (a SysRq command letter) is
			// read only after it: the BREAK holds this reader.
			if !cl.queue(sess.sendBreak(m)) {
				return "too many unread replies"
			}
		case agentproto.Modem:
			if !cl.queue(sess.setModem(m)) {
				return "too many unread replies"
			}
		case agentproto.Redact:
			sess.redact(m.From, m.To)
		}
	}
}

// writeLoop sends output from offset off, in order and without duplicates,
// then live output, Foreground and Link changes and queued replies, until
// the Exit has been sent ("exited"), the client asked to stop ("detached"),
// or a write failed ("write failed" and the error). fgSeq and linkSeq are
// the foreground and link generations the client has already been sent.
func (cl *client) writeLoop(off int64, fgSeq, linkSeq uint64) (why string, err error) {
	sess := cl.sess
	var buf []byte
	hold := time.NewTimer(time.Hour)
	hold.Stop()
	defer hold.Stop()
	var held time.Time // until when output that follows a large write waits
	var typed int64    // the Others last sent
	for {
		buf = buf[:0]
		sess.mu.Lock()
		wake := sess.wake
		// Other clients' input goes ahead of the output read with it:
		// a client that has their echo knows they typed.
		if others := sess.typed - cl.typedBase - cl.own.Load(); others > typed && !sess.exited {
			buf = appendMsg(buf, agentproto.Typed{Others: others})
			typed = others
		}
		start, end := sess.ring.Start(), sess.ring.End()
		if off < start {
			// The client fell behind and the ring moved past it: say
			// so explicitly, then continue with what is held.
			buf = appendMsg(buf, agentproto.Gap{From: off, To: start})
			off = start
		}
		batch, mark := off, len(buf)
		for off < end && len(buf) < writeBatch {
			n := min(end-off, maxChunk)
			buf = appendOutput(buf, sess.ring, off, off+n)
			off += n
		}
		buf = stampBatch(buf, mark, sess.times, batch, off)
		caught := off == end
		fg, seq := sess.fg, sess.fgSeq
		link, lseq := sess.link, sess.linkSeq
		exited, exit := sess.exited, sess.exit
		sess.mu.Unlock()

		// A foreground change is sent once the client has the output
		// that preceded it, so "the shell is in the foreground" never
		// arrives ahead of the command's last output.
		if caught && seq != fgSeq && !exited {
			buf = appendMsg(buf, fg)
			fgSeq = seq
		}
		// Likewise a link change follows the output read before it.
		if caught && lseq != linkSeq && !exited {
			buf = appendMsg(buf, agentproto.Link{State: link})
			linkSeq = lseq
		}
		cl.mu.Lock()
		for _, r := range cl.replies {
			buf = appendMsg(buf, r)
		}
		cl.replies = cl.replies[:0]
		cl.mu.Unlock()
		// exited is set only after the reader has put the last output
		// in the ring, so caught means the client has all of it.
		finished := caught && exited
		if finished {
			buf = appendMsg(buf, exit)
		}
		if len(buf) > 0 {
			if _, err := cl.conn.Write(buf); err != nil {
				select {
				case <-cl.quit:
					return "detached", nil
				default:
					return "write failed", err
				}
			}
			if off-batch >= floodBytes {
				held = time.Now().Add(sess.srv.opts.floodHold)
			}
		}
		if finished {
			return "exited", nil
		}
		if !caught {
			select {
			case <-cl.quit:
				return "detached", nil
			default:
				continue
			}
		}
		if time.Until(held) > 0 {
			// A flood: what the next reads bring waits for the hold
			// anyway, so sleep it out rather than wake at each read
			// first (one wake-up per burst instead of two).
			if why := cl.holdFlood(hold, held); why != "" {
				return why, nil
			}
			continue
		}
		select {
		case <-wake:
			if why := cl.holdFlood(hold, held); why != "" {
				return why, nil
			}
		case <-cl.ctrl:
		case <-cl.quit:
			return "detached", nil
		}
	}
}

// holdFlood waits, after output woke the writer, until held (see
// floodHold), or until a reply is queued or the client stops. It returns
// "detached" if the client stopped, else "".
func (cl *client) holdFlood(t *time.Timer, held time.Time) string {
	d := time.Until(held)
	if d <= 0 {
		return ""
	}
	t.Reset(d)
	select {
	case <-t.C:
	case <-cl.ctrl:
		t.Stop()
	case <-cl.quit:
		t.Stop()
		return "detached"
	}
	return ""
}

// appendMsg appends m as a frame.
// stampBatch puts a Stamps frame at buf[mark:], ahead of the Output frames
// of [from, to) there: when those bytes arrived, so that a client
// attaching after a restart stamps lines with that. The last entry, at to
// with time 0, says that the stamps end there. Every batch carries them,
// live output too, so that all of a session's stamps come from one clock
// (the host's, for an agent on a remote host): a frame of a few bytes per
// batch of up to 128 KiB.
func stampBatch(buf []byte, mark int, times *ring.Times, from, to int64) []byte {
	if to <= from {
		return buf
	}
	offs, ns := times.Stamps(from, to)
	if len(offs) == 0 {
		return buf
	}
	st := appendMsg(nil, agentproto.Stamps{Offsets: append(offs, to), Times: append(ns, 0)})
	return slices.Insert(buf, mark, st...)
}

func appendMsg(dst []byte, m any) []byte {
	t, p := agentproto.Marshal(m)
	return appendFrame(dst, t, p)
}

func appendFrame(dst []byte, t agentproto.Type, p []byte) []byte {
	dst = append(dst, byte(t))
	dst = binary.BigEndian.AppendUint32(dst, uint32(len(p)))
	return append(dst, p...)
}

// appendOutput appends an Output frame for the ring's bytes [from, to),
// which it holds, encoding it as agentproto.Marshal(Output{...}) does
// (offset varint, then the data) without copying the data twice.
func appendOutput(dst []byte, r *ring.Ring, from, to int64) []byte {
	var vb [binary.MaxVarintLen64]byte
	vn := binary.PutVarint(vb[:], from)
	dst = append(dst, byte(agentproto.TypeOutput))
	dst = binary.BigEndian.AppendUint32(dst, uint32(vn+int(to-from)))
	dst = append(dst, vb[:vn]...)
	dst, gone := r.AppendRange(dst, from, to)
	if gone != 0 {
		panic("agent: appendOutput of bytes the ring no longer holds") // the caller holds the lock and checked Start
	}
	return dst
}
