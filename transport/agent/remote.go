package agent

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/privdir"
	"github.com/ttymux/ttymux/transport"
)

// SSHLink is the share of an SSH connection a Remote uses: the client to
// run commands on, upload over and reach the agent's socket through. The
// connection is shared with other users and kept open until Release.
type SSHLink interface {
	Client() *ssh.Client
	Release()
}

// Remote keeps sessions in a ttymux agent on a remote host, reached over
// SSH. It implements transport.Keeper. On first use it deploys the agent:
// it asks the host what it is and whether this version's agent is already
// installed (its sha256 compared with the local copy); if not, it uploads
// the matching cross-built agent (SFTP, else the legacy scp sink, else
// `cat >`) to a temporary name, verifies its checksum on the host, renames
// it into place and starts it detached. It reaches the agent's socket
// through the SSH connection (direct-streamlocal), or through
// `ttymux-agent bridge` over an exec channel where the server forbids
// stream-local forwarding.
//
// The Conns it returns re-attach on their own when the link drops
// (*Resilient), so output produced while disconnected arrives exactly
// once, in order.
type Remote struct {
	// Host names the host in messages.
	Host string
	// Connect returns the SSH connection to the host (a pooled one).
	Connect func(ctx context.Context) (SSHLink, error)
	// Version names the install directory on the host (a ttymux version;
	// only [A-Za-z0-9._+-] are kept). Empty means "dev".
	Version string
	// Agents is the local directory of cross-built agents; empty means
	// AgentsDir().
	Agents string
	// Build, when set, builds the agent for a target (an os-arch name
	// from Targets) that Agents lacks and returns its path; nil means a
	// missing agent is an error naming the command that builds it.
	Build func(ctx context.Context, target string) (string, error)
	// LocalAgent is the ttymux-agent used for a host of this machine's
	// system when Agents has none; empty means next to this program.
	LocalAgent string
	// Dir is the install directory on the host; empty means
	// ~/.cache/ttymux/agent. The agent goes to Dir/<version>/ttymux-agent.
	Dir string
	// SocketDir is the agent's socket directory on the host; empty means
	// /tmp/ttymux-<uid>.
	SocketDir string
	// CacheDir, when set, keeps where the host's agent was found, so that
	// the next server (after a restart) reaches it without asking the host
	// first; a stale entry costs one failed attempt.
	CacheDir string
	// GiveUp bounds how long a Conn tries to re-attach after the link
	// dropped; 0 means until it is closed.
	GiveUp time.Duration
	// Logger receives deploy and reconnect events; nil discards them.
	Logger *slog.Logger

	// Test hooks.
	uploadHook    func([]byte) []byte
	noSFTP, noSCP bool

	mu         sync.Mutex // protects the following
	deployed   *probe     // where the agent is, once deployed this run
	bridge     bool       // stream-local forwarding was refused: use the bridge
	lastTarget string     // the host's system, as last seen
	cached     bool       // deployed came from CacheDir, not from the host
	client     Client
}

var _ transport.Keeper = (*Remote)(nil)

func (r *Remote) logger() *slog.Logger {
	if r.Logger != nil {
		return r.Logger
	}
	return slog.New(slog.DiscardHandler)
}

var versionRe = regexp.MustCompile(`[^A-Za-z0-9._+-]+`)

func (r *Remote) versionDir() string {
	v := versionRe.ReplaceAllString(r.Version, "")
	if v == "" || v == "." || v == ".." {
		return "dev"
	}
	return v
}

func protocolVersion() string { return strconv.Itoa(agentproto.Version) }

// ensure returns the SSH link and the deployed agent's whereabouts,
// deploying when this Remote has not yet (or redeploy is set: the agent
// stopped answering).
func (r *Remote) ensure(ctx context.Context, redeploy bool) (SSHLink, probe, error) {
	l, err := r.Connect(ctx)
	if err != nil {
		return nil, probe{}, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.deployed == nil && !redeploy {
		r.loadCache()
	}
	if r.deployed != nil && !redeploy {
		return l, *r.deployed, nil
	}
	t0 := time.Now()
	p, err := r.deploy(ctx, l.Client())
	if err != nil {
		l.Release()
		return nil, probe{}, err
	}
	r.deployed, r.lastTarget, r.cached = &p, p.target, false
	r.saveCache(p)
	r.logger().Info("ttymux agent ready", "host", r.Host, "socket", p.socket, "took", time.Since(t0).Round(time.Millisecond))
	return l, p, nil
}

// Deploy installs and starts the agent on the host if needed. Create,
// Attach and List do it themselves; Deploy lets a caller do it ahead.
func (r *Remote) Deploy(ctx context.Context) error {
	l, _, err := r.ensure(ctx, false)
	if err != nil {
		return err
	}
	l.Release()
	return nil
}

// dial connects to the agent's socket through the SSH connection,
// exchanges headers and has the agent prove it is the SSH user's own
// (prove) before the caller sends anything. An agent that no longer
// answers (the host rebooted, someone stopped it) is started again, once;
// one that cannot prove itself makes us ask the host again (the probe
// checks the socket directory and names what is wrong), once.
func (r *Remote) dial(ctx context.Context) (*link, error) {
	for attempt := 0; ; attempt++ {
		l, p, err := r.ensure(ctx, attempt > 0)
		if err != nil {
			return nil, err
		}
		nc, err := r.open(ctx, l, p)
		if err != nil {
			l.Release()
		} else {
			var lk *link
			if lk, err = handshake(ctx, nc); err == nil {
				if err = r.prove(ctx, lk, p); err == nil {
					return lk, nil
				}
				_ = lk.Close() // not ours: nothing more goes there
			}
		}
		r.mu.Lock()
		cached := r.cached
		r.mu.Unlock()
		var nye *NotYoursError
		retry := noAgent(err) || cached || errors.As(err, &nye)
		if attempt > 0 || ctx.Err() != nil || !retry {
			return nil, fmt.Errorf("reach the ttymux agent on %s: %w", r.Host, err)
		}
		r.logger().Info("remote agent does not answer as ours; asking the host again", "host", r.Host, "err", err)
	}
}

// noAgent reports whether err says nothing listens on the agent's socket.
func noAgent(err error) bool { return errors.Is(err, errBridgeNoAgent) }

var errBridgeNoAgent = errors.New("no agent answers on the socket")

// NotYoursError means that what answered on the agent's socket on a remote
// host did not prove it runs as the SSH user (issue #14): another user's
// agent, or a relay to one, or an agent too old to prove anything. Nothing
// but the hello was sent to it.
type NotYoursError struct {
	Host, Socket string
	Why          string
}

func (e *NotYoursError) Error() string {
	return "the agent answering on " + e.Host + ":" + e.Socket + " did not prove it is the SSH user's own (" + e.Why +
		"): it may be another user's; nothing was sent to it. On the host, as the SSH user, run `ttymux-agent stop --socket " +
		e.Socket + "` if it is an older agent of yours, or remove the socket's directory as its owner or root"
}

func (r *Remote) unsafeError(problem string) error {
	return &agentsock.UnsafeSocketError{Host: r.Host, Problem: problem}
}

// prove sends a Hello naming the per-install token and a fresh nonce, and
// checks the agent's proof: only a process running as the SSH user (or
// root) can read the token, so a relay to another user's agent cannot
// answer. It runs before any request on every connection, first attach
// and re-attach alike.
func (r *Remote) prove(ctx context.Context, l *link, p probe) error {
	if p.tokenPath == "" || p.token == "" {
		return &NotYoursError{Host: r.Host, Socket: p.socket, Why: "no install token is known for this host"}
	}
	nonce := make([]byte, 32)
	_, _ = rand.Read(nonce)
	t, b := agentproto.Marshal(agentproto.Hello{TokenPath: p.tokenPath, Nonce: nonce})
	m, err := l.Call(ctx, t, b, agentproto.TypeHelloReply)
	if err != nil {
		return err
	}
	switch m := m.(type) {
	case agentproto.HelloReply:
		if m.Status != agentproto.StatusOK {
			return &NotYoursError{Host: r.Host, Socket: p.socket, Why: "it could not read " + p.tokenPath + ": " + m.Message}
		}
		if !agentproto.ProofOK([]byte(p.token), nonce, m.Proof) {
			return &NotYoursError{Host: r.Host, Socket: p.socket, Why: "its proof of " + p.tokenPath + " is wrong"}
		}
		return nil
	case agentproto.Reply:
		return &NotYoursError{Host: r.Host, Socket: p.socket, Why: "it does not know the hello (" + m.Status.String() + ": " + m.Message + ")"}
	}
	return fmt.Errorf("%w: unexpected answer to hello", agentproto.ErrBadFrame)
}

// open makes the byte stream to the agent over l, which it takes over.
func (r *Remote) open(ctx context.Context, l SSHLink, p probe) (net.Conn, error) {
	r.mu.Lock()
	bridge := r.bridge
	r.mu.Unlock()
	if !bridge {
		ch, err := l.Client().DialContext(ctx, "unix", p.socket)
		if err == nil {
			return newPipeConn(ch, nil, l), nil
		}
		var oce *ssh.OpenChannelError
		if !errors.As(err, &oce) {
			return nil, err
		}
		// sshd refuses a forbidden forwarding as it refuses a socket
		// nobody listens on ("open failed"): the bridge tells them apart.
		nc, berr := r.openBridge(ctx, l, p)
		if berr != nil {
			return nil, berr
		}
		r.logger().Info("stream-local forwarding refused by the server; using the exec bridge", "host", r.Host, "err", err)
		r.mu.Lock()
		r.bridge = true
		if r.deployed != nil {
			r.saveCache(*r.deployed)
		}
		r.mu.Unlock()
		return nc, nil
	}
	return r.openBridge(ctx, l, p)
}

// openBridge runs `ttymux-agent bridge` and speaks through its stdio.
func (r *Remote) openBridge(ctx context.Context, l SSHLink, p probe) (net.Conn, error) {
	s, err := l.Client().NewSession()
	if err != nil {
		return nil, err
	}
	w, err := s.StdinPipe()
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	rd, err := s.StdoutPipe()
	if err != nil {
		_ = s.Close()
		return nil, err
	}
	stderr := &lockedBuffer{}
	s.Stderr = stderr
	if err := s.Start(shq(p.agent()) + " bridge --socket " + shq(p.socket)); err != nil {
		_ = s.Close()
		return nil, err
	}
	// The agent's header comes first on success; a bridge that finds no
	// agent exits without a byte. Peek, bounded by ctx.
	first := make(chan error, 1)
	br := &peekReader{r: rd}
	go func() { first <- br.peek() }()
	select {
	case err := <-first:
		if err != nil {
			if err == io.EOF {
				// The bridge exits 3 when the socket or its directory is
				// not ours (cmd/ttymux-agent, exitUnsafe), 1 with no agent.
				werr := waitBounded(s, 5*time.Second)
				_ = s.Close()
				var ee *ssh.ExitError
				if errors.As(werr, &ee) && ee.ExitStatus() == 3 {
					msg := strings.TrimPrefix(strings.TrimSpace(stderr.String()), "ttymux-agent bridge: ")
					return nil, r.unsafeError(msg)
				}
				return nil, errBridgeNoAgent
			}
			_ = s.Close()
			return nil, err
		}
	case <-ctx.Done():
		_ = s.Close()
		<-first
		return nil, ctx.Err()
	}
	return newPipeConn(struct {
		io.Reader
		io.WriteCloser
	}{br, w}, s, l), nil
}

// waitBounded waits for an exec session to end, for at most d.
func waitBounded(s *ssh.Session, d time.Duration) error {
	done := make(chan error, 1)
	go func() { done <- s.Wait() }()
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case err := <-done:
		return err
	case <-t.C:
		_ = s.Close() // wakes Wait
		return <-done
	}
}

// lockedBuffer is a bytes.Buffer that x/crypto's stderr copier may write
// while we read it.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	if b.b.Len() > 4096 {
		return len(p), nil // enough to explain
	}
	return b.b.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// peekReader reads one byte ahead so a caller can tell an empty stream
// from a live one.
type peekReader struct {
	r    io.Reader
	head []byte
}

func (p *peekReader) peek() error {
	var b [1]byte
	n, err := io.ReadFull(p.r, b[:])
	if n == 1 {
		p.head = b[:]
		return nil
	}
	return err
}

func (p *peekReader) Read(b []byte) (int, error) {
	if len(p.head) > 0 {
		n := copy(b, p.head)
		p.head = p.head[n:]
		return n, nil
	}
	return p.r.Read(b)
}

// pipeConn gives an SSH channel (which has no deadlines) the net.Conn
// deadlines the agent client relies on: the client talks to one end of a
// net.Pipe, and two goroutines copy between the other end and the channel.
// Closing it closes the channel (and the exec session, for a bridge) and
// releases the SSH link.
type pipeConn struct {
	net.Conn
	once  sync.Once
	close func()
}

func newPipeConn(ch io.ReadWriteCloser, session *ssh.Session, l SSHLink) *pipeConn {
	a, b := net.Pipe()
	readerDone, writerDone := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(readerDone)
		_, _ = io.Copy(b, ch) // ends when the channel closes
		_ = b.Close()
	}()
	go func() {
		defer close(writerDone)
		_, _ = io.Copy(ch, b) // ends when the client closes its end
		// Closed here, after the last Write: x/crypto's channel must not
		// be closed while a Write is in progress.
		_ = ch.Close()
	}()
	pc := &pipeConn{Conn: a}
	pc.close = func() {
		_ = a.Close()
		<-writerDone
		if session != nil {
			// The bridge exits once its stdin ends; end it if it lingers.
			select {
			case <-readerDone:
			case <-time.After(2 * time.Second):
			}
			_ = session.Close()
		}
		<-readerDone
		l.Release()
	}
	return pc
}

func (p *pipeConn) Close() error {
	p.once.Do(func() { go p.close() }) // never block the caller on the link
	return nil
}

func (r *Remote) agentClient() *Client {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.client.dialLink == nil {
		r.client = Client{dialLink: r.dial, Logger: r.Logger}
	}
	return &r.client
}

// reattacher returns how a Resilient conn of session id re-attaches.
func (r *Remote) reattacher(id string) reattachFunc {
	return func(ctx context.Context, from int64) (*Conn, error) {
		c, _, _, err := r.agentClient().attach(ctx, agentproto.Attach{ID: id, From: from, Model: true})
		return c, err
	}
}

// Create starts a session in the host's agent (deploying it first if
// needed). See Client.Create.
func (r *Remote) Create(ctx context.Context, t transport.Target, meta []byte) (transport.KeptConn, transport.KeptSession, error) {
	kc, ks, err := r.agentClient().Create(ctx, t, meta)
	if err != nil {
		return nil, ks, err
	}
	c := kc.(*Conn)
	return newResilient(c, r.reattacher(c.id), r.GiveUp, r.logger().With("host", r.Host)), ks, nil
}

// Attach connects to a session the host's agent holds, from offset from
// (< 0: the oldest byte held). See Client.Attach.
func (r *Remote) Attach(ctx context.Context, id string, from int64) (transport.KeptConn, transport.KeptSession, transport.Resume, error) {
	req := agentproto.Attach{ID: id, From: from, Model: true}
	if from < 0 {
		req = agentproto.Attach{ID: id, FromStart: true, Model: true}
	}
	var c *Conn
	var ks transport.KeptSession
	var res transport.Resume
	err := r.retry(ctx, func() (err error) {
		c, ks, res, err = r.agentClient().attach(ctx, req)
		return err
	})
	if err != nil {
		return nil, ks, res, err
	}
	return newResilient(c, r.reattacher(id), r.GiveUp, r.logger().With("host", r.Host)), ks, res, nil
}

// List describes the sessions the host's agent holds.
func (r *Remote) List(ctx context.Context) ([]transport.KeptSession, error) {
	var out []transport.KeptSession
	err := r.retry(ctx, func() (err error) {
		out, err = r.agentClient().List(ctx)
		return err
	})
	return out, err
}

// Kill ends a session on the host.
func (r *Remote) Kill(ctx context.Context, id string) error {
	return r.retry(ctx, func() error { return r.agentClient().Kill(ctx, id) })
}

// retry runs an idempotent request again, once, when it failed on the way
// (the channel to the agent broke) rather than by the agent's answer.
func (r *Remote) retry(ctx context.Context, f func() error) error {
	err := f()
	var re *RemoteError
	if err == nil || isRefusal(err) || errors.As(err, &re) || errors.Is(err, transport.ErrNoSession) ||
		errors.Is(err, ErrAgentNotFound) || ctx.Err() != nil {
		return err
	}
	r.logger().Debug("request to the remote agent failed on the way; retrying", "host", r.Host, "err", err)
	return f()
}

// Stop asks the host's agent to exit (force: even with sessions running).
func (r *Remote) Stop(ctx context.Context, force bool) error {
	if err := r.agentClient().Stop(ctx, force); err != nil {
		return err
	}
	r.mu.Lock()
	r.deployed = nil
	r.mu.Unlock()
	return nil
}

// cacheEntry is what CacheDir keeps per host and version.
type cacheEntry struct {
	Target    string `json:"target"`
	Dir       string `json:"dir"`
	Socket    string `json:"socket"`
	Bridge    bool   `json:"bridge,omitempty"`
	TokenPath string `json:"token_path"`
	Token     string `json:"token"`
}

func (r *Remote) cacheFile() string {
	if r.CacheDir == "" {
		return ""
	}
	h := sha256.Sum256([]byte(r.Host + "\x00" + r.versionDir() + "\x00" + r.Dir + "\x00" + r.SocketDir))
	return filepath.Join(r.CacheDir, hex.EncodeToString(h[:8])+".json")
}

// loadCache fills deployed from CacheDir. r.mu must be held.
func (r *Remote) loadCache() {
	f := r.cacheFile()
	if f == "" {
		return
	}
	// The entry holds the host's agent token: only a private directory of
	// ours is trusted (issue #14).
	if privdir.Check(filepath.Dir(f), "remote-agent cache directory") != nil {
		return
	}
	b, err := agentsock.ReadToken(f) // a regular 0600 file of ours, not a link
	if err != nil {
		return
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || e.Dir == "" || e.Socket == "" || e.TokenPath == "" || e.Token == "" {
		return
	}
	r.deployed = &probe{dir: e.Dir, socket: e.Socket, target: e.Target, tokenPath: e.TokenPath, token: e.Token}
	r.bridge, r.lastTarget, r.cached = e.Bridge, e.Target, true
}

// saveCache records p (and whether the bridge is needed). r.mu must be
// held. Failing to write it only costs the next server a round trip.
func (r *Remote) saveCache(p probe) {
	f := r.cacheFile()
	if f == "" {
		return
	}
	b, _ := json.Marshal(cacheEntry{Target: p.target, Dir: p.dir, Socket: p.socket, Bridge: r.bridge, TokenPath: p.tokenPath, Token: p.token})
	if err := privdir.Ensure(filepath.Dir(f), "remote-agent cache directory"); err != nil {
		r.logger().Warn("not caching where the host's agent is", "host", r.Host, "err", err)
		return
	}
	_, _ = privdir.WriteFile(filepath.Dir(f), filepath.Base(f), b)
}
