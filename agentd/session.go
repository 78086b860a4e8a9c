package agentd

import (
	"errors"
	"log/slog"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/transport"
)

const (
	// fgPoll is how often the foreground process group and the ECHO flag
	// are checked while a client is attached and the session is busy:
	// until fgBurst after its last output or input. A program that starts
	// or ends without printing is noticed within this time then.
	fgPoll = 20 * time.Millisecond
	// fgBurst is how long fast polling goes on after the last output or
	// input. Nearly every foreground change comes with one or the other
	// (a command typed, a prompt drawn, a program's first screen).
	fgBurst = 2 * time.Second
	// fgIdle is how often an idle session is checked, for the rare change
	// with no output or input around it (sleep 3; cat). One timer serves
	// every idle session (idleSweep).
	fgIdle = time.Second
	// fgMinGap spaces checks prompted by output, so a flood of output
	// costs at most one check (an ioctl, a /proc read, a TCGETS) per
	// millisecond rather than one per read.
	fgMinGap = time.Millisecond
	// floodKicks is how many kicks in a row may come within fgMinGap of the
	// last check before output counts as a flood and checks are spaced
	// further apart (monitor).
	floodKicks = 8
)

// A session is one device held by the agent: a program on a PTY, or a
// serial port (device.go).
type session struct {
	id      string
	seq     int
	srv     *Server
	log     *slog.Logger
	kind    agentproto.Kind
	dev     device // the PTY or the port (device.go)
	pid     int
	command string // the command line, for humans
	created time.Time

	done    chan struct{} // closed once the exit is recorded (exited is true)
	kickMon chan struct{} // wakes the monitor (capacity 1)
	fgMu    sync.Mutex    // serialises checkForeground, so a stale result never overwrites a newer one

	mu sync.Mutex
	// mu guards the following. Never hold it across blocking I/O.
	ring       *ring.Ring
	ix         *ring.LineIndex
	times      *ring.Times   // when each chunk of ring arrived, sent as Stamps
	wake       chan struct{} // closed and replaced when any of these change
	rows, cols int
	meta       []byte
	clients    int
	fg         agentproto.Foreground
	fgSeq      uint64 // incremented when fg changes
	reads      int64  // reads of the device that returned output (tests count writes against them)
	exited     bool   // the reader has seen the end and the child was waited for
	exit       agentproto.Exit
	exitTime   time.Time
	link       string // KindSerial: agentproto.LinkUp or LinkDisconnected
	linkSeq    uint64 // incremented when link changes
	typed      int64  // bytes of input all clients but models' wrote (Typed)
}

// startSession starts the child and the session's goroutines. The caller
// holds s.mu and has checked that s is not closing.
func (s *Server) startSession(id string, seq int, req agentproto.Create) (*session, error) {
	if req.Kind == agentproto.KindSerial {
		return s.startSerial(id, seq, req)
	}
	path, args := req.Command, req.Args
	if path == "" {
		path, args = s.opts.Shell, nil
	}
	sess := s.newSession(id, seq, req)
	dir := req.Dir
	if dir == "" {
		// Like an SSH login: the agent's own directory is an accident of
		// who started it first.
		dir, _ = os.UserHomeDir()
		if dir == "" {
			dir = "/"
		}
	}
	env := append(os.Environ(), req.Env...)
	switch {
	case req.Term != "":
		env = append(env, "TERM="+req.Term)
	case !hasKey(req.Env, "TERM"):
		env = append(env, "TERM=xterm-256color")
	}
	proc, err := ptyproc.Start(ptyproc.Spec{Path: path, Args: args, Dir: dir, Env: env, Rows: sess.rows, Cols: sess.cols, Confine: req.Confine})
	if err != nil {
		return nil, err
	}
	sess.dev, sess.kind = &ptyDevice{proc: proc, log: sess.log}, agentproto.KindPTY
	sess.pid = proc.Pid()
	sess.command = clip(strings.Join(append([]string{path}, args...), " "))
	s.wg.Add(2)
	go sess.readLoop()
	go sess.monitor()
	return sess, nil
}

// newSession is the session req asks for before its device is open: the
// caller sets the device, its kind and how it is shown.
func (s *Server) newSession(id string, seq int, req agentproto.Create) *session {
	rows, cols := req.Rows, req.Cols
	if rows <= 0 {
		rows = defaultRows
	}
	if cols <= 0 {
		cols = defaultCols
	}
	r := ring.New(s.opts.RingSize)
	return &session{
		id:      id,
		seq:     seq,
		srv:     s,
		log:     s.log.With("session", id),
		created: time.Now(),
		done:    make(chan struct{}),
		kickMon: make(chan struct{}, 1),
		ring:    r,
		ix:      ring.NewLineIndex(r),
		times:   ring.NewTimes(r),
		wake:    make(chan struct{}),
		rows:    rows,
		cols:    cols,
		meta:    req.Meta,
	}
}

// clip bounds a command line for SessionInfo.Command.
func clip(command string) string {
	if len(command) > maxCommand {
		cut := maxCommand - len("…")
		for cut > 0 && !utf8.RuneStart(command[cut]) {
			cut--
		}
		command = command[:cut] + "…"
	}
	return command
}

// hasKey reports whether env ("KEY=value" entries) sets key.
func hasKey(env []string, key string) bool {
	for _, kv := range env {
		if k, _, ok := strings.Cut(kv, "="); ok && k == key {
			return true
		}
	}
	return false
}

// broadcastLocked wakes every client writer waiting on the session.
func (sess *session) broadcastLocked() {
	close(sess.wake)
	sess.wake = make(chan struct{})
}

func (sess *session) kickMonitor() {
	select {
	case sess.kickMon <- struct{}{}:
	default:
	}
}

// readLoop is the session's only PTY (or serial port) reader. It copies
// output into the ring, and when the output ends it records the exit, in the
// teardown order of shared/STYLE.md: the child exits and its side of the PTY
// closes (Read reports io.EOF), the output is drained into the ring, the
// exit status is published, and then the master is closed.
func (sess *session) readLoop() {
	defer sess.srv.wg.Done()
	buf := make([]byte, maxChunk)
	var rerr error
	for {
		n, err := sess.read(buf)
		if n > 0 {
			sess.mu.Lock()
			at := time.Now()
			sess.ring.Write(buf[:n])
			sess.ix.Write(buf[:n])
			sess.times.Write(buf[:n], at)
			sess.reads++
			sess.broadcastLocked()
			watched := sess.clients > 0
			sess.mu.Unlock()
			if watched {
				sess.kickMonitor()
			}
		}
		if err != nil {
			rerr = err
			break
		}
	}
	exit := sess.end(rerr)
	sess.mu.Lock()
	sess.exited = true
	sess.exit = exit
	sess.exitTime = time.Now()
	sess.fg = agentproto.Foreground{}
	sess.broadcastLocked()
	end := sess.ring.End()
	sess.mu.Unlock()
	close(sess.done)
	detail := "status " + strconv.Itoa(exit.Status)
	if exit.Signal != "" {
		detail = "signal " + exit.Signal
	}
	sess.dev.ended(exit, end)
	sess.srv.event(EventChildExited, sess.id, detail)
	sess.srv.kickJanitor()
	sess.hangup() // releases the master; the child is already reaped
}

func (sess *session) read(p []byte) (int, error) { return sess.dev.Read(p) }

// write writes a client's input to the device. Input starts a burst of
// foreground checks: a typed command may start a program before it prints
// anything. The input is counted before it is written, so the other
// clients' writers send Typed ahead of its echo (less what was not
// written, after). Input a model's client wrote is not counted.
func (sess *session) write(p []byte, counted bool) (int, error) {
	if counted {
		sess.mu.Lock()
		sess.typed += int64(len(p))
		sess.broadcastLocked()
		sess.mu.Unlock()
	}
	n, err := sess.dev.Write(p)
	sess.kickMonitor()
	if counted && n < len(p) {
		sess.mu.Lock()
		sess.typed -= int64(len(p) - n)
		sess.mu.Unlock()
	}
	return n, err
}

// end works out the Exit once the reader has seen the end of the output
// (rerr).
func (sess *session) end(rerr error) agentproto.Exit { return sess.dev.end(rerr) }

// exitOf turns ptyproc's Wait result into an Exit message. Status is
// 128+n for signal n, as shells report it in $?.
func exitOf(err error) agentproto.Exit {
	var ee *transport.ExitError
	switch {
	case err == nil:
		return agentproto.Exit{}
	case errors.As(err, &ee):
		return agentproto.Exit{Status: ee.Status, Signal: string(ee.Signal)}
	default:
		// Waiting itself failed; 255 is what ssh(1) reports when the
		// remote status is unknown.
		return agentproto.Exit{Status: 255}
	}
}

// hangup releases the device (device.hangup). For a PTY it returns once
// the child has been reaped.
func (sess *session) hangup() { sess.dev.hangup() }

// monitor watches the foreground process group and the ECHO flag while at
// least one client is attached: after output or input (at most every
// fgMinGap), every fgPoll until fgBurst after the last of them, and when
// idleSweep calls (every fgIdle) after that. It ends when the session's exit
// is recorded.
func (sess *session) monitor() {
	defer sess.srv.wg.Done()
	idle := make(chan struct{}, 1)
	idleSweep.add(idle)
	defer idleSweep.remove(idle)
	tick := time.NewTimer(fgPoll)
	tick.Stop()
	defer tick.Stop()
	gap := time.NewTimer(fgMinGap)
	gap.Stop()
	defer gap.Stop()
	var last, active time.Time // the last check; the last output or input
	// spacing is the least time between checks prompted by output: fgMinGap,
	// doubled (up to fgPoll) for each kick that finds the monitor still
	// inside it once more than floodKicks did in a row, so that a flood of
	// output, which kicks on every read, costs 50 checks a second rather
	// than 1,000 (about a tenth of the agent's CPU for seq 1 1000000, issue
	// #17), while a command's output, its prompt and the ECHO toggles
	// around it are still checked a millisecond apart. A kick after a pause
	// of at least the current spacing starts again at fgMinGap.
	spacing, quick := fgMinGap, 0
	for {
		kicked := false
		select {
		case <-sess.done:
			return
		case <-sess.kickMon:
			kicked = true
		case <-tick.C:
		case <-idle:
		}
		sess.mu.Lock()
		watched := sess.clients > 0 && !sess.exited
		sess.mu.Unlock()
		tick.Stop()
		if !watched {
			continue // an attach kicks the monitor again
		}
		now := time.Now()
		if kicked {
			active = now
			if now.Sub(last) >= spacing {
				spacing, quick = fgMinGap, 0
			} else if quick++; quick > floodKicks {
				spacing = min(2*spacing, fgPoll)
			}
		}
		if now.Sub(active) < fgBurst {
			tick.Reset(fgPoll) // busy: its own timer; idle: the sweep's
		}
		if d := spacing - now.Sub(last); d > 0 {
			gap.Reset(d)
			select {
			case <-sess.done:
				return
			case <-gap.C:
			}
		}
		last = time.Now()
		sess.checkForeground()
	}
}

// idleSweep wakes every session's monitor once per fgIdle from one timer,
// so that idle sessions cost the agent one wake-up a second between them
// rather than one each. Its goroutine runs while a session exists.
var idleSweep sweeper

type sweeper struct {
	mu    sync.Mutex
	chans map[chan struct{}]struct{}
	stop  chan struct{} // closes the running loop; nil when none runs
}

func (w *sweeper) add(c chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.chans == nil {
		w.chans = map[chan struct{}]struct{}{}
	}
	w.chans[c] = struct{}{}
	if w.stop == nil {
		w.stop = make(chan struct{})
		go w.loop(w.stop)
	}
}

func (w *sweeper) remove(c chan struct{}) {
	w.mu.Lock()
	defer w.mu.Unlock()
	delete(w.chans, c)
	if len(w.chans) == 0 && w.stop != nil {
		close(w.stop)
		w.stop = nil
	}
}

func (w *sweeper) loop(stop chan struct{}) {
	t := time.NewTicker(fgIdle)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		w.mu.Lock()
		for c := range w.chans {
			select {
			case c <- struct{}{}:
			default:
			}
		}
		w.mu.Unlock()
	}
}

// checkForeground reads the foreground process group and the ECHO flag and,
// if they changed, publishes them to the clients.
func (sess *session) checkForeground() {
	sess.fgMu.Lock()
	defer sess.fgMu.Unlock()
	pgid, name, echo, ok := sess.dev.foreground()
	if !ok {
		return // no processes (a port), hung up or exited
	}
	fg := agentproto.Foreground{Pgid: pgid, Name: name, IsShell: pgid == sess.pid, Echo: echo}
	sess.mu.Lock()
	if !sess.exited && fg != sess.fg {
		sess.fg = fg
		sess.fgSeq++
		sess.broadcastLocked()
	}
	sess.mu.Unlock()
}

// exitedAt returns when the session's exit was recorded, or zero while it
// runs.
func (sess *session) exitedAt() time.Time {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.exitedAtLocked()
}

func (sess *session) exitedAtLocked() time.Time {
	if !sess.exited {
		return time.Time{}
	}
	return sess.exitTime
}

// idleExited reports whether the session has exited and no client is
// attached, so it may be forgotten early to make room.
func (sess *session) idleExited() bool {
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.exited && sess.clients == 0
}

// info describes the session; fresh re-reads the foreground process first.
func (sess *session) info(fresh bool) agentproto.SessionInfo {
	if fresh {
		sess.checkForeground()
	}
	sess.mu.Lock()
	defer sess.mu.Unlock()
	return sess.infoLocked()
}

func (sess *session) infoLocked() agentproto.SessionInfo {
	start := sess.ring.Start()
	return agentproto.SessionInfo{
		ID:         sess.id,
		Command:    sess.command,
		Pid:        sess.pid,
		Created:    sess.created.UnixMilli(),
		Rows:       sess.rows,
		Cols:       sess.cols,
		Exited:     sess.exited,
		ExitStatus: sess.exit.Status,
		ExitSignal: sess.exit.Signal,
		Start:      start,
		End:        sess.ring.End(),
		StartLine:  sess.ix.LineAt(start),
		Clients:    sess.clients,
		Foreground: sess.fg.Name,
		Meta:       sess.meta,
		Confined:   sess.confined(),
	}
}

// confined is the Landlock ABI the session's program runs under; a serial
// port has no program.
func (sess *session) confined() int { return sess.dev.confined() }

// attach registers a client and works out where its stream starts (see
// docs/agentd.md, "Attach"). The caller must call detach when the
// client goes.
func (sess *session) attach(req agentproto.Attach) agentproto.AttachReply {
	sess.checkForeground() // so the first Foreground frame is current
	sess.mu.Lock()
	start, end := sess.ring.Start(), sess.ring.End()
	var from, lost int64
	switch {
	case req.FromStart:
		from = start
	case req.FromEnd:
		from = max(start, end-max(req.Tail, 0))
		if req.Tail > 0 {
			from = sess.lineStartLocked(from, end)
		}
	default:
		from = max(req.From, 0)
		if from < start {
			lost, from = start-from, start
		}
		from = min(from, end)
	}
	sess.clients++
	rep := agentproto.AttachReply{
		Status:   agentproto.StatusAttached,
		From:     from,
		Lost:     lost,
		Session:  sess.infoLocked(),
		FromLine: sess.ix.LineAt(from),
		Kind:     sess.kind,
	}
	sess.mu.Unlock()
	sess.kickMonitor() // start polling the foreground
	return rep
}

// lineStartLocked moves from forward to the first line start in [from,
// end), so a tail replay does not begin mid-line; if there is none, from
// stays.
func (sess *session) lineStartLocked(from, end int64) int64 {
	line := sess.ix.LineAt(from)
	if s, err := sess.ix.LineStart(line); err == nil && s == from {
		return from
	}
	if s, err := sess.ix.LineStart(line + 1); err == nil && s < end {
		return s
	}
	return from
}

func (sess *session) detach() {
	sess.mu.Lock()
	sess.clients--
	sess.mu.Unlock()
	sess.kickMonitor() // stop polling if that was the last one
}

// setMeta replaces the client metadata.
func (sess *session) setMeta(meta []byte) agentproto.Reply {
	if len(meta) > MaxMeta {
		return agentproto.Reply{Status: agentproto.StatusFailed,
			Message: "metadata of " + strconv.Itoa(len(meta)) + " bytes is over the " + strconv.Itoa(MaxMeta) + "-byte limit"}
	}
	sess.mu.Lock()
	sess.meta = meta
	sess.mu.Unlock()
	return agentproto.Reply{Status: agentproto.StatusOK}
}

func (sess *session) resize(rows, cols int) {
	if err := sess.dev.resize(rows, cols); err != nil {
		sess.log.Debug("resize ignored", "err", err)
		return
	}
	sess.mu.Lock()
	sess.rows, sess.cols = rows, cols
	sess.mu.Unlock()
}

func (sess *session) signal(name string) {
	if err := sess.dev.signal(name); err != nil {
		sess.log.Debug("signal ignored", "name", name, "err", err)
	}
}

// maxRedact bounds one Redact range: a secret's echo is short.
const maxRedact = 64 << 10

// redact masks the output [from, to) the ring still holds (a secret's echo,
// as the client found it) so that later replays carry '*' instead.
func (sess *session) redact(from, to int64) {
	if to-from > maxRedact || from < 0 {
		sess.log.Debug("redact range refused", "from", from, "to", to)
		return
	}
	sess.mu.Lock()
	n := sess.ring.Mask(from, to, '*')
	sess.mu.Unlock()
	sess.log.Debug("output redacted", "from", from, "to", to, "bytes", n)
}
