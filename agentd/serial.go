package agentd

import (
	"errors"
	"strconv"
	"strings"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/serialport"
)

// maxBreak bounds a BREAK's length: the client's reader waits for it, and
// no console needs more than a second or so (SysRq takes 0.25 s).
const maxBreak = 10 * time.Second

// startSerial opens the serial port of a KindSerial Create: req.Command is
// its path and req.Serial its line settings. The session's output is what
// the device sends, in the same ring as a program's; it has no process
// (Pid 0, no foreground monitor). The caller holds s.mu.
func (s *Server) startSerial(id string, seq int, req agentproto.Create) (*session, error) {
	sess := s.newSession(id, seq, req)
	sess.kind, sess.command, sess.link = agentproto.KindSerial, clip("serial "+req.Command), agentproto.LinkUp
	line := req.Serial
	port, err := serialport.Open(req.Command, serialport.Params{
		Baud: line.Baud, DataBits: line.DataBits, Parity: line.Parity, StopBits: line.StopBits, FlowControl: line.FlowControl,
	}, serialport.Options{Reconnect: line.Reconnect, Logger: sess.log, OnLinkState: sess.setLink})
	if err != nil {
		return nil, err
	}
	sess.dev = &serialDevice{port: port, log: sess.log}
	s.wg.Add(1)
	go sess.readLoop()
	return sess, nil
}

// setLink records a serial link change and wakes the clients' writers,
// which send it as a Link frame once they have sent the output before it.
// serialport calls it on the goroutine that noticed the change.
func (sess *session) setLink(state string) {
	sess.mu.Lock()
	sess.link = state
	sess.linkSeq++
	sess.broadcastLocked()
	sess.mu.Unlock()
	sess.srv.event(EventLink, sess.id, state)
}

// breakLength checks a BREAK's length in milliseconds.
func breakLength(millis int64) (time.Duration, error) {
	d := time.Duration(millis) * time.Millisecond
	if millis < 0 || d > maxBreak {
		return 0, errors.New("a BREAK of " + strconv.FormatInt(millis, 10) + " ms is out of range: give 1 to " + strconv.FormatInt(maxBreak.Milliseconds(), 10) + " ms, or 0 for 250 ms")
	}
	return d, nil
}

// notSerial answers a serial-only request on a PTY session.
func (sess *session) notSerial(what string) agentproto.Reply {
	return agentproto.Reply{Status: agentproto.StatusUnsupported,
		Message: "session " + sess.id + " runs a program on a terminal, not a serial port: " + what + " applies to serial sessions only"}
}

// sendBreak sends a line BREAK and answers once it has ended.
func (sess *session) sendBreak(m agentproto.Break) agentproto.Reply {
	switch err := sess.dev.sendBreak(m.Millis); {
	case errors.Is(err, errNoSuch):
		return sess.notSerial("BREAK")
	case err != nil:
		return agentproto.Reply{Status: agentproto.StatusFailed, Message: err.Error()}
	}
	return agentproto.Reply{Status: agentproto.StatusOK}
}

// setModem sets DTR or RTS. A device without the line answers
// StatusUnsupported with serialport's explanation.
func (sess *session) setModem(m agentproto.Modem) agentproto.Reply {
	err := sess.dev.setModem(m.Line, m.On)
	switch {
	case errors.Is(err, errNoSuch):
		return sess.notSerial(strings.ToUpper(m.Line))
	case err == nil:
		return agentproto.Reply{Status: agentproto.StatusOK}
	case errors.Is(err, serialport.ErrUnsupported):
		return agentproto.Reply{Status: agentproto.StatusUnsupported, Message: err.Error()}
	}
	return agentproto.Reply{Status: agentproto.StatusFailed, Message: err.Error()}
}
