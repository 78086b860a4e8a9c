package session

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/transport"
)

// Options configure a Manager. The zero value works for local sessions once
// an Opener is registered.
type Options struct {
	// Kinds are the transports sessions are opened with, by Kind.Name
	// (cmd/ttymux registers LocalKind, SSHKind, SerialKind and AgentKind).
	Kinds []Kind
	// Limit caps the sessions open at once (default 32).
	Limit int
	// RingSize is the output kept per session, in bytes (default 8 MiB).
	RingSize int
	// StateDir holds the shell integration files (default: the user cache
	// directory's ttymux folder).
	StateDir string
	// Shell is used when a local open names no command (default: $SHELL,
	// then /bin/bash).
	Shell string
	// NoRC keeps users' shell startup files out of integrated shells; tests
	// use it for a deterministic shell.
	NoRC bool
	// ReadyTimeout bounds how long Open waits for an integrated shell's first
	// prompt (default 5 s).
	ReadyTimeout time.Duration
	// Logger receives the manager's log; nil discards.
	Logger *slog.Logger
	// Keeper holds persistent sessions (the local ttymux agent); nil means
	// every session lives in this process.
	Keeper transport.Keeper
	// Remote returns the keeper of persistent SSH sessions on t.SSH().Host (the
	// ttymux agent deployed there), the same one for the same host; nil
	// means persistent SSH sessions are not available. Their session ids
	// are "<host>/<agent's id>".
	Remote func(ctx context.Context, t transport.Target) (transport.Keeper, error)
	// Policy decides which command lines run, are held for approval or are
	// refused (see internal/policy); nil is policy.Default().
	Policy *policy.Policy
	// Approver settles lines the policy or the gate holds (approver.go);
	// nil refuses them with a *GateError.
	Approver Approver
	// Flood, when set, is called with true when a command that a call
	// waits for has printed enough to be rendered while it runs (256 KiB:
	// a flood), and with false once that call's result is built; the
	// calls pair up, and sessions flood at once. cmd/ttymux lowers the
	// garbage collector's target meanwhile (floodgc.go).
	Flood func(on bool)
}

// DefaultLimit is the default number of sessions a Manager holds at once.
const DefaultLimit = 32

// A Manager owns sessions: it opens them through their Kinds, names them, finds
// them by id or name, and closes them. It is safe for concurrent use.
type Manager struct {
	opts  Options
	log   *slog.Logger
	kinds map[string]Kind // by name; set once
	now   func() time.Time

	mu        sync.Mutex // mu protects the following
	sessions  map[string]*Session
	attaching map[string]chan struct{} // closed when the attach of that session id ends
	pending   int                      // opens in progress, counted against the limit
	next      int
	closed    bool

	kept keptList // the local agent's sessions as List last learnt them (keptlist.go)
}

// NewManager returns a Manager with opts (a nil-safe zero value works).
func NewManager(opts Options) *Manager {
	if opts.Limit <= 0 {
		opts.Limit = DefaultLimit
	}
	if opts.ReadyTimeout <= 0 {
		opts.ReadyTimeout = 5 * time.Second
	}
	if opts.StateDir == "" {
		opts.StateDir = DefaultStateDir()
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	kinds := make(map[string]Kind, len(opts.Kinds))
	for _, k := range opts.Kinds {
		kinds[k.Name] = k
	}
	if opts.Policy != nil && opts.Policy.Names == nil {
		// The policy matches a host by every name its kind gives it.
		opts.Policy = opts.Policy.WithNames(policyNames(opts.Kinds))
	}
	return &Manager{opts: opts, log: log, kinds: kinds, now: time.Now, sessions: map[string]*Session{}}
}

// OpenRequest says what to open.
type OpenRequest struct {
	Transport string // the Kind's name (Options.Kinds)
	Target    transport.Target
	Name      string // optional, unique among open sessions
	// LineEnding is what Enter sends: "cr" (default), "lf" or "crlf". Serial
	// consoles differ.
	LineEnding string
	// Input are this open's input options (pacing): a zero field leaves
	// the kind's (Opening.Input).
	Input Input
	// Persistent asks for a session kept by the agent, which survives this
	// server. When no agent can be had, the session lives in this process
	// and OpenNote says why.
	Persistent bool
	// Record writes an asciicast v2 recording of the session to a new file
	// in StateDir/recordings; RecordPath names the file instead (and
	// implies Record). Info.Recording gives the path.
	Record     bool
	RecordPath string
}

// NotFoundError is returned for an unknown session id or name.
type NotFoundError struct {
	ID    string
	Known []string
}

func (e *NotFoundError) Error() string {
	id := e.shortID()
	if len(e.Known) == 0 {
		return fmt.Sprintf("no session %q: this server has none attached; list shows those agents keep (attach one by its id), open_local starts one", id)
	}
	return fmt.Sprintf("no session %q; open sessions: %s (call list for details)", id, strings.Join(e.Known, ", "))
}

// shortID is the id as an error quotes it: a long one is cut, so that a
// wrong id does not cost the model its whole length again.
func (e *NotFoundError) shortID() string {
	if len(e.ID) > 80 {
		return fmt.Sprintf("%s… (%d bytes)", e.ID[:64], len(e.ID))
	}
	return e.ID
}

// ErrLimit is returned when the session limit is reached.
var ErrLimit = errors.New("session limit reached")

// Open starts a session. For a bash or zsh it installs ttymux's shell
// integration and waits (bounded) for the first prompt, so the first Send
// already gets an exact verdict.
func (m *Manager) Open(ctx context.Context, req OpenRequest) (*Session, error) {
	k, ok := m.kind(req.Transport)
	if !ok {
		return nil, fmt.Errorf("transport %q is not available", req.Transport)
	}
	if err := m.checkSerialOpen(req); err != nil { // serialpolicy.go
		return nil, err
	}
	if err := m.checkOpenGate(ctx, k, req.Target); err != nil {
		return nil, err
	}
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return nil, errors.New("server is shutting down")
	case len(m.sessions)+m.pending >= m.opts.Limit:
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d sessions are open; close one you no longer need (list shows them)", ErrLimit, m.opts.Limit)
	}
	if req.Name != "" {
		if err := validName(req.Name); err != nil {
			m.mu.Unlock()
			return nil, err
		}
		for _, s := range m.sessions {
			if s.name == req.Name {
				m.mu.Unlock()
				return nil, fmt.Errorf("a session named %q is already open (%s); pick another name or use that session", req.Name, s.id)
			}
		}
	}
	m.pending++
	m.next++
	id := "t" + strconv.Itoa(m.next)
	m.mu.Unlock()

	s, err := m.open(ctx, k, id, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	m.pending--
	if err != nil {
		return nil, err
	}
	m.sessions[s.id] = s
	return s, nil
}

// open makes the session an Open asked for: the kind prepares the target,
// a keeper holds it when it is to persist (else the kind's Opener opens
// it here), and the session is made, recorded and awaited until ready.
func (m *Manager) open(ctx context.Context, k Kind, id string, req OpenRequest) (*Session, error) {
	t := req.Target
	t.Args = slices.Clone(t.Args)
	if t.Size == (transport.Size{}) {
		t.Size = transport.DefaultSize
	}
	if !t.Size.Valid() {
		return nil, fmt.Errorf("invalid size %dx%d: rows and cols must be between 1 and 1000", t.Size.Rows, t.Size.Cols)
	}
	enter, err := lineEnding(req.LineEnding)
	if err != nil {
		return nil, err
	}
	o := &Opening{
		Target:   t,
		Command:  strings.TrimSpace(t.Command + " " + strings.Join(t.Args, " ")),
		Shell:    shellKind(t.Command) != "",
		StateDir: m.opts.StateDir, NoRC: m.opts.NoRC, DefaultShell: m.shell(), Log: m.log,
	}
	if k.Prepare != nil {
		k.Prepare(o)
	}
	if !req.Input.Pacing.IsZero() {
		o.Input.Pacing = req.Input.Pacing
	}
	if req.Input.Enter != "" {
		o.Input.Enter = req.Input.Enter
	}
	if req.LineEnding == "" && o.Input.Enter != "" {
		enter = o.Input.Enter
	}
	// A read-only host is held by the kernel too where the far end can
	// (a local PTY; the agent on a Linux host): a line the command checks
	// misread still cannot write.
	o.Target.Confine = m.opts.Policy.ReadOnly(k.policyHost(req.Target, ""))
	cfg := sessionConfig{
		id: id, name: req.Name, transport: k.Name, command: o.Command,
		size: o.Target.Size, ringSize: m.opts.RingSize, nonce: o.Nonce, remoteFiles: o.RemoteFiles,
		shell: o.Shell, enter: enter, policyHost: k.policyHost(req.Target, ""), port: k.port(req.Target),
		fish: shellKind(o.Target.Command) == "fish",
	}
	note := ""
	if req.Persistent {
		if err := m.keep(ctx, k, o, &cfg); err != nil {
			if !errors.Is(err, ErrNoAgent) && !errors.Is(err, ErrNoRemoteAgents) {
				m.log.Warn("agent unavailable; session lives in this process", "transport", k.Name, "host", o.Target.SSH().Host, "err", err)
			}
			note = "not persistent: " + err.Error()
		}
	}
	if cfg.conn == nil {
		if k.Opener == nil {
			return nil, fmt.Errorf("transport %q cannot open sessions, only attach kept ones", k.Name)
		}
		ot := o.Target
		ot.Env = append(ot.Env, "TTYMUX_SESSION="+id)
		conn, err := k.Opener.Open(ctx, ot)
		if err != nil {
			return nil, err
		}
		cfg.conn = conn
	}
	cfg.log = m.log.With("session", cfg.id)
	if req.Record || req.RecordPath != "" {
		rec, err := m.openRecording(cfg, req, k, o)
		if err != nil {
			if cfg.kept {
				_ = cfg.keeper.Kill(ctx, keeperID(cfg.id)) // best effort: the open failed
			}
			_ = cfg.conn.Close() // the open failed; its error says why
			return nil, err
		}
		cfg.rec = rec
	}
	s := newSession(cfg)
	s.openNote = note
	if !o.Input.Pacing.IsZero() {
		s.SetPacing(o.Input.Pacing)
	}
	s.policy, s.approver, s.flood = m.opts.Policy, m.approver(), m.opts.Flood
	s.target = req.Target
	if sec := k.secrets(t); len(sec) > 0 {
		// Should the far end ever echo one, results show ******** instead.
		// The pump already runs: results read secrets under mu.
		s.mu.Lock()
		s.secrets = append(s.secrets, sec...)
		s.mu.Unlock()
	}
	switch {
	case o.Nonce != "":
		ready := s.waitReady(ctx, m.opts.ReadyTimeout)
		if ready {
			// The first prompt is not output either: wait (a little) for
			// its B mark, so that a theme still drawing it (a two-line
			// prompt, a git segment, fish's right prompt) does not come
			// back as the first result's earlier.
			s.waitPromptDrawn(ctx, catchUpMax)
		}
		if !ready {
			if s.isHookless() {
				// The far end said at once that no hook loads: let the
				// shell draw its first prompt, as below, once it has
				// printed something after saying so.
				s.waitOutputAfterNoHook(ctx, min(m.opts.ReadyTimeout, time.Second))
				s.waitSettled(ctx, min(m.opts.ReadyTimeout, time.Second))
			} else {
				m.log.Warn("shell integration did not report a prompt; falling back to the shell layer", "session", cfg.id)
			}
		}
	case s.shell:
		// A shell without the hook: let it draw its first prompt, so the
		// first command's echo does not come before that prompt.
		s.waitSettled(ctx, min(m.opts.ReadyTimeout, time.Second))
	}
	s.persist()
	m.log.Info("session opened", "session", cfg.id, "transport", k.Name, "command", o.Command, "persistent", cfg.kept)
	return s, nil
}

// keep creates the session in the keeper kind k chooses and fills cfg with
// it; an error says why the session is not persistent.
func (m *Manager) keep(ctx context.Context, k Kind, o *Opening, cfg *sessionConfig) error {
	if k.Keep == nil {
		return fmt.Errorf("%s sessions cannot be kept by an agent", k.Name)
	}
	keeper, kt, host, err := k.Keep(ctx, Keepers{Local: m.opts.Keeper, Remote: m.opts.Remote}, o)
	if err != nil {
		return err
	}
	md := meta{Name: cfg.name, Transport: k.Name, Nonce: o.Nonce, Shell: o.Shell, Host: host, Enter: cfg.enter}
	conn, ks, err := keeper.Create(ctx, kt, md.encode())
	if err != nil {
		return err
	}
	cfg.id, cfg.conn, cfg.kept, cfg.keeper, cfg.persisted = JoinID(host, ks.ID), conn, true, keeper, md
	cfg.confined = ks.Confined
	return nil
}

func (m *Manager) shell() string {
	if m.opts.Shell != "" {
		return m.opts.Shell
	}
	if sh := os.Getenv("SHELL"); sh != "" {
		return sh
	}
	return "/bin/bash"
}

func validName(n string) error {
	if len(n) > 64 {
		return errors.New("name is over 64 characters")
	}
	if len(n) > 1 && (n[0] == 's' || n[0] == 't') && strings.Trim(n[1:], "0123456789") == "" {
		return fmt.Errorf("name %q looks like a session id; choose a name such as \"build\" or \"router\"", n)
	}
	for _, r := range n {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("name %q may hold only letters, digits, '-', '_' and '.'", n)
		}
	}
	return nil
}

// Get finds a session by id or name. A session kept by the agent but not
// attached to this server (an earlier server made it) is attached on the
// way, so the same session_id keeps working across restarts.
func (m *Manager) Get(ctx context.Context, idOrName string) (*Session, error) {
	m.mu.Lock()
	if s := m.sessions[idOrName]; s != nil {
		m.mu.Unlock()
		return s, nil
	}
	for _, s := range m.sessions {
		if s.name == idOrName {
			m.mu.Unlock()
			return s, nil
		}
	}
	m.mu.Unlock()
	_, _, remote := SplitID(idOrName)
	if wellFormedID(idOrName) && ((m.opts.Keeper != nil && !remote) || (m.opts.Remote != nil && remote)) {
		s, err := m.Attach(ctx, idOrName)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, transport.ErrNoSession) {
			return nil, err
		}
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	return nil, &NotFoundError{ID: idOrName, Known: m.knownLocked()}
}

// Attach connects this server to a session the agent keeps, by id or by the
// name it was opened with, and replays its output so nothing printed while no
// server was attached is lost. Attaching a session already attached returns
// it.
func (m *Manager) Attach(ctx context.Context, idOrName string) (*Session, error) {
	m.mu.Lock()
	if s := m.sessions[idOrName]; s != nil {
		m.mu.Unlock()
		return s, nil
	}
	m.mu.Unlock()
	if !wellFormedID(idOrName) {
		return nil, fmt.Errorf("%w: %q is not a session id or name (ids look like s3 or host/s3)", transport.ErrNoSession, (&NotFoundError{ID: idOrName}).shortID())
	}
	if host, rid, ok := SplitID(idOrName); ok {
		return m.AttachHost(ctx, transport.SSHTarget(host), rid)
	}
	return m.attachKeeper(ctx, m.opts.Keeper, "", idOrName)
}

// AttachHost attaches a persistent SSH session held by the agent on t.SSH().Host,
// by the agent's id ("s1"), the full session id ("host/s1") or its name.
func (m *Manager) AttachHost(ctx context.Context, t transport.Target, idOrName string) (*Session, error) {
	if m.opts.Remote == nil {
		return nil, fmt.Errorf("%w: this server runs without remote agents", transport.ErrNoSession)
	}
	if h, rid, ok := SplitID(idOrName); ok {
		if h != t.SSH().Host {
			return nil, fmt.Errorf("session %q belongs to host %q, not %q", idOrName, h, t.SSH().Host)
		}
		idOrName = rid
	}
	m.mu.Lock()
	if s := m.sessions[JoinID(t.SSH().Host, idOrName)]; s != nil {
		m.mu.Unlock()
		return s, nil
	}
	m.mu.Unlock()
	k, err := m.opts.Remote(ctx, t)
	if err != nil {
		return nil, err
	}
	return m.attachKeeper(ctx, k, t.SSH().Host, idOrName)
}

// attachKeeper attaches session idOrName (an agent id or a name) of keeper
// k; host is "" for the local agent.
func (m *Manager) attachKeeper(ctx context.Context, k transport.Keeper, host, idOrName string) (*Session, error) {
	if k == nil {
		return nil, fmt.Errorf("%w: no agent keeps sessions for this server", transport.ErrNoSession)
	}
	id := idOrName
	full := JoinID(host, id)
	m.mu.Lock()
	if m.closed {
		m.mu.Unlock()
		return nil, errors.New("server is shutting down")
	}
	if s := m.sessions[full]; s != nil {
		m.mu.Unlock()
		return s, nil
	}
	if ch := m.attaching[full]; ch != nil {
		// Another call is attaching it (two tool calls right after a
		// restart): wait for that one rather than attach twice, which
		// would also resume its recording twice.
		m.mu.Unlock()
		select {
		case <-ch:
		case <-ctx.Done():
			return nil, ctx.Err()
		}
		return m.attachKeeper(ctx, k, host, idOrName)
	}
	if len(m.sessions)+m.pending >= m.opts.Limit {
		m.mu.Unlock()
		return nil, fmt.Errorf("%w: %d sessions are attached; detach one first", ErrLimit, m.opts.Limit)
	}
	m.pending++
	done := make(chan struct{})
	if m.attaching == nil {
		m.attaching = map[string]chan struct{}{}
	}
	m.attaching[full] = done
	m.mu.Unlock()
	defer func() {
		m.mu.Lock()
		delete(m.attaching, full)
		m.mu.Unlock()
		close(done)
	}()
	s, err := m.attach(ctx, k, host, id)
	if errors.Is(err, transport.ErrNoSession) {
		// Perhaps a name given at open_local.
		if kept, lerr := k.List(ctx); lerr == nil {
			for _, ks := range kept {
				if n := decodeMeta(ks.Meta).Name; n != "" && n == idOrName {
					s, err = m.attach(ctx, k, host, ks.ID)
					break
				}
			}
		}
	}
	m.mu.Lock()
	m.pending--
	if err != nil {
		m.mu.Unlock()
		return nil, err
	}
	if old := m.sessions[s.id]; old != nil {
		// Another call attached it meanwhile: keep that one.
		m.mu.Unlock()
		_ = s.Close() // detaching the duplicate; nothing to report
		return old, nil
	}
	m.sessions[s.id] = s
	m.mu.Unlock()
	return s, nil
}

func (m *Manager) attach(ctx context.Context, k transport.Keeper, host, id string) (*Session, error) {
	conn, ks, res, err := k.Attach(ctx, id, -1)
	if err != nil {
		return nil, err
	}
	sid := JoinID(host, ks.ID)
	md := decodeMeta(ks.Meta)
	kind, _ := m.kind(cmp.Or(md.Transport, keptLocal))
	size := ks.Size
	if !size.Valid() {
		size = transport.DefaultSize
	}
	s := newSession(sessionConfig{
		id: sid, name: md.Name, transport: kind.Name, command: kind.keptCommand(ks, host),
		policyHost: kind.policyHost(transport.Target{Command: ks.Command}, host),
		port:       kind.port(transport.Target{Command: ks.Command}),
		conn:       conn, size: size, ringSize: m.opts.RingSize, nonce: md.Nonce, enter: md.Enter,
		shell: md.Shell || shellKind(strings.Fields(ks.Command + " x")[0]) != "",
		fish:  shellKind(strings.Fields(ks.Command + " x")[0]) == "fish",
		log:   m.log.With("session", sid),
		kept:  true, keeper: k, from: res.From, fromLine: res.FromLine, confined: ks.Confined,
		readOff: md.ReadOff, cmd: md.command(), persisted: md,
		rec: m.resumeRecording(md, res.From, m.log.With("session", sid)),
	})
	s.policy, s.approver, s.flood = m.opts.Policy, m.approver(), m.opts.Flood
	if host != "" {
		s.target = transport.SSHTarget(host)
	}
	s.mu.Lock()
	s.pace.Store(&Pacing{Char: md.PaceChar, Line: md.PaceLine})
	s.mu.Unlock()
	if md.Integrated {
		s.mu.Lock()
		s.ready = true
		s.mu.Unlock()
	}
	if res.Lost > 0 || md.ReadOff < res.From {
		s.openNote = fmt.Sprintf("%d bytes of output had left the agent's log before this attach", max(res.Lost, res.From-md.ReadOff))
	}
	s.waitCaughtUp(ctx, ks.End, 5*time.Second)
	m.log.Info("session attached", "session", sid, "from", res.From, "read_off", md.ReadOff)
	return s, nil
}

// Detach disconnects a kept session from this server; it keeps running in
// the agent and can be attached again.
func (m *Manager) Detach(ctx context.Context, idOrName string) (Info, error) {
	s, err := m.Get(ctx, idOrName)
	if err != nil {
		return Info{}, err
	}
	if !s.kept {
		return Info{}, fmt.Errorf("session %s lives in this server process and cannot be detached (open it with persistent: true to keep it across restarts)", s.id)
	}
	s.persist()
	m.mu.Lock()
	delete(m.sessions, s.id)
	m.mu.Unlock()
	m.kept.changed()
	info := s.Info()
	err = s.Close()
	info.State = "detached"
	return info, err
}

func (m *Manager) knownLocked() []string {
	var ids []string
	for id, s := range m.sessions {
		if s.name != "" {
			id += " (" + s.name + ")"
		}
		ids = append(ids, id)
	}
	sortIDs(ids)
	return ids
}

// sortIDs orders "s2" before "s10".
func sortIDs(ids []string) {
	sort.Slice(ids, func(i, j int) bool { return idLess(strings.Fields(ids[i])[0], strings.Fields(ids[j])[0]) })
}

// List returns every session of this server, and the agent's sessions that
// no server has attached (state "detached"), in id order.
func (m *Manager) List(ctx context.Context) []Info {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	m.mu.Unlock()
	infos := make([]Info, 0, len(ss))
	seen := map[string]bool{}
	for _, s := range ss {
		infos = append(infos, s.Info())
		seen[s.id] = true
	}
	if k := m.opts.Keeper; k != nil {
		kept := m.kept.keptSessions(ctx, k, func(err error) { m.log.Debug("list agent sessions", "err", err) })
		for _, ks := range kept {
			if seen[ks.ID] {
				continue
			}
			infos = append(infos, m.detachedInfo(ks, "", keptLocal))
		}
	}
	sort.Slice(infos, func(i, j int) bool { return idLess(infos[i].ID, infos[j].ID) })
	return infos
}

// idLess orders ids by prefix, then number: s2 before s10, s* before t*.
func idLess(a, b string) bool {
	if a == "" || b == "" || a[0] != b[0] {
		return a < b
	}
	x, _ := strconv.Atoi(a[1:])
	y, _ := strconv.Atoi(b[1:])
	return x < y
}

// Close ends one session and forgets it.
func (m *Manager) Close(ctx context.Context, idOrName string) (Info, error) {
	s, err := m.Get(ctx, idOrName)
	if err != nil {
		return Info{}, err
	}
	if err := s.Kill(ctx); err != nil {
		// Still running where it lives: keep it, so close can be retried.
		return s.Info(), fmt.Errorf("%w; the session may still be running: try close again, or list {host} to see it", err)
	}
	m.mu.Lock()
	delete(m.sessions, s.id)
	m.mu.Unlock()
	m.kept.changed()
	return s.Info(), nil
}

// CloseAll ends every in-process session and detaches kept ones (they keep
// running in the agent); later Opens fail.
func (m *Manager) CloseAll() {
	m.mu.Lock()
	m.closed = true
	ss := m.sessions
	m.sessions = map[string]*Session{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		wg.Go(func() {
			s.persist()
			_ = s.Close() // best effort at shutdown
		})
	}
	wg.Wait()
	m.kept.wait()
}

// lineEnding maps a line_ending name to the bytes Enter sends.
func lineEnding(name string) (string, error) {
	switch strings.ToLower(name) {
	case "", "cr":
		return "\r", nil
	case "lf":
		return "\n", nil
	case "crlf":
		return "\r\n", nil
	}
	return "", fmt.Errorf("line_ending %q: use cr, lf or crlf", name)
}

// ListHost returns the persistent sessions the agent on t.SSH().Host holds, as
// attached to this server or not (state "detached"), deploying the agent
// if it is not there yet.
func (m *Manager) ListHost(ctx context.Context, t transport.Target) ([]Info, error) {
	if m.opts.Remote == nil {
		return nil, errors.New("this server runs without remote agents")
	}
	k, err := m.opts.Remote(ctx, t)
	if err != nil {
		return nil, err
	}
	kept, err := k.List(ctx)
	if err != nil {
		return nil, fmt.Errorf("list the agent's sessions on %s: %w", t.SSH().Host, err)
	}
	infos := make([]Info, 0, len(kept))
	for _, ks := range kept {
		id := JoinID(t.SSH().Host, ks.ID)
		m.mu.Lock()
		s := m.sessions[id]
		m.mu.Unlock()
		if s != nil {
			infos = append(infos, s.Info())
			continue
		}
		infos = append(infos, m.detachedInfo(ks, t.SSH().Host, keptRemote))
	}
	return infos, nil
}

// detachedInfo describes a session an agent keeps and this server has not
// attached: on host ("" for the local agent), of transport tr unless its
// metadata says otherwise.
func (m *Manager) detachedInfo(ks transport.KeptSession, host, tr string) Info {
	md := decodeMeta(ks.Meta)
	kind, _ := m.kind(cmp.Or(md.Transport, tr))
	in := Info{
		ID: JoinID(host, ks.ID), Name: md.Name, Transport: kind.Name, Command: kind.keptCommand(ks, host), State: "detached",
		Foreground: ks.Foreground, Created: ks.Created.UTC().Format(time.RFC3339),
		Rows: ks.Size.Rows, Cols: ks.Size.Cols, Bytes: ks.End, Integrated: md.Integrated, Persistent: true,
		Recording: md.RecPath, RecordingNote: md.RecNote, Kernel: kernelWord(ks.Confined),
	}
	if ks.Exited {
		in.State = "exited"
		code := ks.ExitStatus
		in.ExitCode = &code
	}
	return in
}

// Sessions returns the sessions this manager holds now, without asking an
// agent for the detached ones (List does that). It does not block.
func (m *Manager) Sessions() []*Session {
	m.mu.Lock()
	defer m.mu.Unlock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		ss = append(ss, s)
	}
	return ss
}
