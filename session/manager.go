package session

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// Options configure a Manager. The zero value works for local sessions once
// an Opener is registered.
type Options struct {
	// Openers make Conns, by transport name ("local", "ssh", …).
	Openers map[string]transport.Opener
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
}

// DefaultLimit is the default number of sessions a Manager holds at once.
const DefaultLimit = 32

// A Manager owns sessions: it opens them through Openers, names them, finds
// them by id or name, and closes them. It is safe for concurrent use.
type Manager struct {
	opts Options
	log  *slog.Logger

	mu       sync.Mutex // mu protects the following
	sessions map[string]*Session
	next     int
	closed   bool
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
		if d, err := os.UserCacheDir(); err == nil {
			opts.StateDir = filepath.Join(d, "ttymux")
		} else {
			opts.StateDir = filepath.Join(os.TempDir(), "ttymux-"+strconv.Itoa(os.Getuid()))
		}
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Manager{opts: opts, log: log, sessions: map[string]*Session{}}
}

// OpenRequest says what to open.
type OpenRequest struct {
	Transport string // key into Options.Openers
	Target    transport.Target
	Name      string // optional, unique among open sessions
}

// NotFoundError is returned for an unknown session id or name.
type NotFoundError struct {
	ID    string
	Known []string
}

func (e *NotFoundError) Error() string {
	if len(e.Known) == 0 {
		return fmt.Sprintf("no session %q: no sessions are open; start one with open_local", e.ID)
	}
	return fmt.Sprintf("no session %q; open sessions: %s (call list for details)", e.ID, strings.Join(e.Known, ", "))
}

// ErrLimit is returned when the session limit is reached.
var ErrLimit = errors.New("session limit reached")

// Open starts a session. For a bash or zsh it installs ttymux's shell
// integration and waits (bounded) for the first prompt, so the first Send
// already gets an exact verdict.
func (m *Manager) Open(ctx context.Context, req OpenRequest) (*Session, error) {
	op, ok := m.opts.Openers[req.Transport]
	if !ok {
		return nil, fmt.Errorf("transport %q is not available", req.Transport)
	}
	m.mu.Lock()
	switch {
	case m.closed:
		m.mu.Unlock()
		return nil, errors.New("server is shutting down")
	case len(m.sessions) >= m.opts.Limit:
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
	m.next++
	id := "s" + strconv.Itoa(m.next)
	// Reserve the slot so concurrent opens respect the limit.
	m.sessions[id] = nil
	m.mu.Unlock()

	s, err := m.open(ctx, op, id, req)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		delete(m.sessions, id)
		return nil, err
	}
	m.sessions[id] = s
	return s, nil
}

func (m *Manager) open(ctx context.Context, op transport.Opener, id string, req OpenRequest) (*Session, error) {
	t := req.Target
	t.Args = slices.Clone(t.Args)
	if t.Size == (transport.Size{}) {
		t.Size = transport.DefaultSize
	}
	if !t.Size.Valid() {
		return nil, fmt.Errorf("invalid size %dx%d: rows and cols must be between 1 and 1000", t.Size.Rows, t.Size.Cols)
	}
	if t.Command == "" && req.Transport == "local" {
		t.Command = m.shell()
	}
	t.Env = append(slices.Clone(t.Env), "TTYMUX_SESSION="+id)
	nonce := ""
	if req.Transport == "local" {
		n, err := integrate(&t, m.opts.StateDir, m.opts.NoRC)
		if err != nil {
			m.log.Warn("shell integration unavailable", "err", err)
		}
		nonce = n
	}
	conn, err := op.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	command := strings.TrimSpace(t.Command + " " + strings.Join(req.Target.Args, " "))
	s := newSession(sessionConfig{
		id: id, name: req.Name, transport: req.Transport, command: command,
		conn: conn, size: t.Size, ringSize: m.opts.RingSize, nonce: nonce,
		shell: shellKind(t.Command) != "", log: m.log.With("session", id),
	})
	switch {
	case nonce != "":
		if !s.waitReady(ctx, m.opts.ReadyTimeout) {
			m.log.Warn("shell integration did not report a prompt; falling back to the shell layer", "session", id)
		}
	case s.shell:
		// A shell without the hook: let it draw its first prompt, so the
		// first command's echo does not come before that prompt.
		s.waitSettled(ctx, m.opts.ReadyTimeout)
	}
	m.log.Info("session opened", "session", id, "transport", req.Transport, "command", command)
	return s, nil
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
	if len(n) > 1 && n[0] == 's' && strings.Trim(n[1:], "0123456789") == "" {
		return fmt.Errorf("name %q looks like a session id; choose a name such as \"build\" or \"router\"", n)
	}
	for _, r := range n {
		if !(r == '-' || r == '_' || r == '.' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z') {
			return fmt.Errorf("name %q may hold only letters, digits, '-', '_' and '.'", n)
		}
	}
	return nil
}

// Get finds a session by id or name.
func (m *Manager) Get(idOrName string) (*Session, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if s := m.sessions[idOrName]; s != nil {
		return s, nil
	}
	for _, s := range m.sessions {
		if s != nil && s.name == idOrName {
			return s, nil
		}
	}
	return nil, &NotFoundError{ID: idOrName, Known: m.knownLocked()}
}

func (m *Manager) knownLocked() []string {
	var ids []string
	for id, s := range m.sessions {
		if s == nil {
			continue
		}
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
	num := func(s string) int {
		n, _ := strconv.Atoi(strings.TrimPrefix(strings.Fields(s)[0], "s"))
		return n
	}
	sort.Slice(ids, func(i, j int) bool { return num(ids[i]) < num(ids[j]) })
}

// List returns every open session's Info, in id order.
func (m *Manager) List() []Info {
	m.mu.Lock()
	ss := make([]*Session, 0, len(m.sessions))
	for _, s := range m.sessions {
		if s != nil {
			ss = append(ss, s)
		}
	}
	m.mu.Unlock()
	infos := make([]Info, 0, len(ss))
	for _, s := range ss {
		infos = append(infos, s.Info())
	}
	sort.Slice(infos, func(i, j int) bool {
		a, _ := strconv.Atoi(strings.TrimPrefix(infos[i].ID, "s"))
		b, _ := strconv.Atoi(strings.TrimPrefix(infos[j].ID, "s"))
		return a < b
	})
	return infos
}

// Close ends one session and forgets it.
func (m *Manager) Close(idOrName string) (Info, error) {
	s, err := m.Get(idOrName)
	if err != nil {
		return Info{}, err
	}
	m.mu.Lock()
	delete(m.sessions, s.id)
	m.mu.Unlock()
	err = s.Close()
	return s.Info(), err
}

// CloseAll ends every session; later Opens fail.
func (m *Manager) CloseAll() {
	m.mu.Lock()
	m.closed = true
	ss := m.sessions
	m.sessions = map[string]*Session{}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, s := range ss {
		if s != nil {
			wg.Go(func() { _ = s.Close() }) // best effort at shutdown
		}
	}
	wg.Wait()
}
