package sshconn_test

import (
	"bytes"
	"context"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/pem"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	gliderssh "github.com/gliderlabs/ssh"
	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// ---- in-process SSH server (gliderlabs/ssh) --------------------------------

// serverOptions configure a testServer. Zero values turn things off.
type serverOptions struct {
	Keys      []gossh.PublicKey // accepted client keys
	Password  string            // accepted password; "" disables password auth
	KbdAnswer string            // accepted keyboard-interactive answer; "" disables it
	// Forwarding allows direct-tcpip (for jump tests).
	Forwarding bool
	// HostKeys default to one fresh Ed25519 key.
	HostKeys []gossh.Signer
}

// testServer is an SSH server on 127.0.0.1:0 that runs real bash on a real
// pty for every session: the login shell (`bash --norc --noprofile`, PS1
// "$ ") or `bash -c command`. It records what it saw in events.
type testServer struct {
	Addr     string
	Port     int
	HostKeys []gossh.Signer

	conns  atomic.Int32 // TCP connections accepted
	events *events
	srv    *gliderssh.Server
	wg     sync.WaitGroup // handlers and Serve
}

func startServer(t *testing.T, opts serverOptions) *testServer {
	t.Helper()
	s := &testServer{events: &events{changed: make(chan struct{})}}
	s.HostKeys = opts.HostKeys
	if len(s.HostKeys) == 0 {
		s.HostKeys = []gossh.Signer{newSigner(t, "ed25519")}
	}
	srv := &gliderssh.Server{
		Handler: s.handle,
		ConnCallback: func(_ gliderssh.Context, c net.Conn) net.Conn {
			s.conns.Add(1)
			return c
		},
		ChannelHandlers: map[string]gliderssh.ChannelHandler{
			"session":      gliderssh.DefaultSessionHandler,
			"direct-tcpip": gliderssh.DirectTCPIPHandler,
		},
		RequestHandlers: map[string]gliderssh.RequestHandler{
			"keepalive@openssh.com": func(gliderssh.Context, *gliderssh.Server, *gossh.Request) (bool, []byte) {
				s.events.add("keepalive")
				return false, nil // as sshd answers
			},
		},
		LocalPortForwardingCallback: func(_ gliderssh.Context, host string, port uint32) bool {
			s.events.add(fmt.Sprintf("forward %s:%d %v", host, port, opts.Forwarding))
			return opts.Forwarding
		},
	}
	for _, k := range s.HostKeys {
		srv.AddHostKey(k)
	}
	if len(opts.Keys) > 0 {
		srv.PublicKeyHandler = func(_ gliderssh.Context, key gliderssh.PublicKey) bool {
			ok := slices.ContainsFunc(opts.Keys, func(k gossh.PublicKey) bool { return bytes.Equal(k.Marshal(), key.Marshal()) })
			s.events.add(fmt.Sprintf("publickey %s %v", gossh.FingerprintSHA256(key), ok))
			return ok
		}
	}
	if opts.Password != "" {
		srv.PasswordHandler = func(_ gliderssh.Context, pw string) bool {
			s.events.add(fmt.Sprintf("password %v", pw == opts.Password))
			return pw == opts.Password
		}
	}
	if opts.KbdAnswer != "" {
		srv.KeyboardInteractiveHandler = func(_ gliderssh.Context, ch gossh.KeyboardInteractiveChallenge) bool {
			answers, err := ch("", "", []string{"Password: ", "Verification code: "}, []bool{false, true})
			ok := err == nil && len(answers) == 2 && answers[0] == opts.KbdAnswer && answers[1] == opts.KbdAnswer
			s.events.add(fmt.Sprintf("keyboard-interactive %v", ok))
			return ok
		}
	}
	s.srv = srv
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s.Addr = ln.Addr().String()
	s.Port = ln.Addr().(*net.TCPAddr).Port
	s.wg.Go(func() { _ = srv.Serve(ln) }) // returns ErrServerClosed at Close
	t.Cleanup(func() {
		_ = srv.Close() // closes the connections
		_ = ln.Close()  // in case Serve has not registered ln yet
		s.wg.Wait()
	})
	return s
}

// handle runs one session on a pty with real bash.
func (s *testServer) handle(sess gliderssh.Session) {
	s.wg.Add(1)
	defer s.wg.Done()
	ptyReq, winCh, isPty := sess.Pty()
	if !isPty {
		fmt.Fprintln(sess.Stderr(), "this test server needs a pty")
		_ = sess.Exit(1)
		return
	}
	s.events.add(fmt.Sprintf("pty %s %dx%d", ptyReq.Term, ptyReq.Window.Height, ptyReq.Window.Width))
	for _, kv := range sess.Environ() {
		s.events.add("env " + kv)
	}
	if sess.RawCommand() == closeWithoutStatus {
		_ = sess.Close() // no exit-status, no exit-signal
		return
	}
	var cmd *exec.Cmd
	if raw := sess.RawCommand(); raw == "" {
		cmd = exec.Command("bash", "--norc", "--noprofile")
	} else {
		cmd = exec.Command("bash", "--norc", "--noprofile", "-c", raw)
	}
	cmd.Env = append([]string{"TERM=" + ptyReq.Term, "PS1=$ ", "PATH=" + os.Getenv("PATH"), "HOME=" + os.TempDir(), "LC_ALL=C"}, sess.Environ()...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: uint16(ptyReq.Window.Height), Cols: uint16(ptyReq.Window.Width)})
	if err != nil {
		fmt.Fprintln(sess.Stderr(), err)
		_ = sess.Exit(127)
		return
	}
	defer f.Close()
	var wg sync.WaitGroup
	defer wg.Wait()
	done := make(chan struct{})
	defer close(done)
	wg.Go(func() { // window-change; winCh closes with the channel's requests
		for w := range winCh {
			s.events.add(fmt.Sprintf("window %dx%d", w.Height, w.Width))
			_ = pty.Setsize(f, &pty.Winsize{Rows: uint16(w.Height), Cols: uint16(w.Width)})
		}
	})
	sigs := make(chan gliderssh.Signal, 4)
	sess.Signals(sigs)
	wg.Go(func() {
		for {
			select {
			case sig := <-sigs:
				s.events.add("signal " + string(sig))
				if n, ok := signalNumbers[string(sig)]; ok {
					_ = cmd.Process.Signal(n)
				}
			case <-done:
				return
			}
		}
	})
	wg.Go(func() {
		_, _ = io.Copy(f, sess) // input; EOF when the client closes the channel
		_ = cmd.Process.Signal(syscall.SIGHUP)
	})
	_, _ = io.Copy(sess, f) // output until EIO (the child exited) or the channel closed
	// If the channel closed first, hang up like sshd, and keep draining the
	// pty: bash restores the terminal on SIGHUP with TCSADRAIN, which
	// blocks while the output is not read. KILL is the backstop.
	_ = cmd.Process.Signal(syscall.SIGHUP)
	wg.Go(func() { _, _ = io.Copy(io.Discard, f) })
	kill := time.AfterFunc(5*time.Second, func() { _ = cmd.Process.Kill() })
	werr := cmd.Wait()
	kill.Stop()
	var ee *exec.ExitError
	if errors.As(werr, &ee) {
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			name := signalNames[ws.Signal()]
			s.events.add("exit-signal " + name)
			_, _ = sess.SendRequest("exit-signal", false, gossh.Marshal(&struct {
				Signal     string
				CoreDumped bool
				Error      string
				Lang       string
			}{Signal: name}))
			_ = sess.Close()
			return
		}
		_ = sess.Exit(ee.ExitCode())
		return
	}
	_ = sess.Exit(0)
}

// closeWithoutStatus is a command the test server answers by closing the
// channel without an exit status (allowed by RFC 4254, but unusual).
const closeWithoutStatus = "close-without-status"

var signalNumbers = map[string]syscall.Signal{"INT": syscall.SIGINT, "TERM": syscall.SIGTERM, "KILL": syscall.SIGKILL, "HUP": syscall.SIGHUP, "USR1": syscall.SIGUSR1}
var signalNames = map[syscall.Signal]string{syscall.SIGINT: "INT", syscall.SIGTERM: "TERM", syscall.SIGKILL: "KILL", syscall.SIGHUP: "HUP", syscall.SIGUSR1: "USR1"}

// events is an append-only log that tests wait on.
type events struct {
	mu      sync.Mutex
	list    []string
	changed chan struct{}
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
	close(e.changed)
	e.changed = make(chan struct{})
}

func (e *events) all() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return slices.Clone(e.list)
}

// waitCount waits up to 5s until want happened n times.
func (e *events) waitCount(t *testing.T, want string, n int) {
	t.Helper()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		e.mu.Lock()
		got, changed := 0, e.changed
		for _, ev := range e.list {
			if ev == want {
				got++
			}
		}
		e.mu.Unlock()
		if got >= n {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("server event %q seen %d times within 5s, want %d", want, got, n)
		}
	}
}

// wait waits up to 5s for an event equal to want.
func (e *events) wait(t *testing.T, want string) {
	t.Helper()
	timer := time.NewTimer(5 * time.Second)
	defer timer.Stop()
	for {
		e.mu.Lock()
		found, changed := slices.Contains(e.list, want), e.changed
		e.mu.Unlock()
		if found {
			return
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("server event %q not seen within 5s; events: %q", want, e.all())
		}
	}
}

// ---- keys, known_hosts and the client side ---------------------------------

// signerKeys maps the signers made by newSigner and writeKey to their
// private keys (for loading them into a test agent).
var signerKeys sync.Map

func newSigner(t testing.TB, kind string) gossh.Signer {
	t.Helper()
	var key any
	var err error
	switch kind {
	case "ed25519":
		_, key, err = ed25519.GenerateKey(rand.Reader)
	case "ecdsa":
		key, err = ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	default:
		t.Fatalf("unknown key kind %q", kind)
	}
	if err != nil {
		t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(key)
	if err != nil {
		t.Fatal(err)
	}
	signerKeys.Store(s, key)
	return s
}

// clientEnv is a scratch HOME with keys and known_hosts, and an Opener
// whose host resolution is a fixed table (no ssh_config involved).
type clientEnv struct {
	t          *testing.T
	Home       string
	KnownHosts string
	Opener     *sshconn.Opener
	Log        *lockedBuffer // the Opener's log, at debug level
	Dials      atomic.Int32  // TCP connections the Opener made

	mu      sync.Mutex
	hosts   map[string]sshconf.Config
	dialMap map[string]string // addr -> where to dial instead
}

// redirect makes the Opener dial to instead of addr (through a proxy),
// while known_hosts and messages still name addr.
func (e *clientEnv) redirect(addr, to string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.dialMap[addr] = to
}

func newClientEnv(t *testing.T) *clientEnv {
	t.Helper()
	t.Setenv("SSH_AUTH_SOCK", "") // never the developer's agent
	home := t.TempDir()
	if err := os.MkdirAll(filepath.Join(home, ".ssh"), 0o700); err != nil {
		t.Fatal(err)
	}
	e := &clientEnv{t: t, Home: home, KnownHosts: filepath.Join(home, ".ssh", "known_hosts"), hosts: map[string]sshconf.Config{}, dialMap: map[string]string{}}
	e.Log = &lockedBuffer{}
	e.Opener = &sshconn.Opener{
		Config: sshconf.Options{Home: home},
		Logger: slogTo(e.Log),
		Dial: func(ctx context.Context, network, addr string) (net.Conn, error) {
			e.Dials.Add(1)
			e.mu.Lock()
			if to, ok := e.dialMap[addr]; ok {
				addr = to
			}
			e.mu.Unlock()
			var d net.Dialer
			return d.DialContext(ctx, network, addr)
		},
	}
	e.Opener.SetResolve(e.resolve)
	t.Cleanup(func() { _ = e.Opener.Close() })
	return e
}

// resolve applies overrides to the table entry the way sshconf does.
func (e *clientEnv) resolve(_ context.Context, host string, ov sshconf.Overrides, _ sshconf.Options) (sshconf.Config, error) {
	e.mu.Lock()
	c, ok := e.hosts[host]
	e.mu.Unlock()
	if !ok {
		return sshconf.Config{}, fmt.Errorf("test resolver: unknown host %q", host)
	}
	c.IdentityFiles = slices.Clone(c.IdentityFiles)
	if ov.User != "" {
		c.User = ov.User
	}
	if ov.Port != 0 {
		c.Port = ov.Port
	}
	if ov.IdentityFile != "" {
		c.IdentityFiles = append([]string{ov.IdentityFile}, c.IdentityFiles...)
	}
	switch ov.Jump {
	case "":
	case "none":
		c.ProxyJump = nil
	default:
		c.ProxyJump = nil
		for _, h := range strings.Split(ov.Jump, ",") {
			var j sshconf.Jump
			if u, rest, ok := strings.Cut(h, "@"); ok {
				j.User, h = u, rest
			}
			if hh, p, err := net.SplitHostPort(h); err == nil {
				j.Port, _ = strconv.Atoi(p)
				h = hh
			}
			j.Host = h
			c.ProxyJump = append(c.ProxyJump, j)
		}
	}
	return c, nil
}

// addHost defines alias as addr ("127.0.0.1:port") with the given keys.
func (e *clientEnv) addHost(alias, addr string, identityFiles ...string) *sshconf.Config {
	e.t.Helper()
	host, port, err := net.SplitHostPort(addr)
	if err != nil {
		e.t.Fatal(err)
	}
	p, _ := strconv.Atoi(port)
	e.mu.Lock()
	defer e.mu.Unlock()
	e.hosts[alias] = sshconf.Config{
		Alias:                 alias,
		HostName:              host,
		Port:                  p,
		User:                  "tester",
		IdentityFiles:         identityFiles,
		UserKnownHostsFiles:   []string{e.KnownHosts},
		GlobalKnownHostsFiles: []string{filepath.Join(e.Home, "global_known_hosts")},
		StrictHostKeyChecking: "yes",
		ServerAliveCountMax:   3,
		Source:                "test",
	}
	c := e.hosts[alias]
	return &c
}

// setHost replaces alias's entry.
func (e *clientEnv) setHost(alias string, f func(c *sshconf.Config)) {
	e.mu.Lock()
	defer e.mu.Unlock()
	c := e.hosts[alias]
	f(&c)
	e.hosts[alias] = c
}

// trust appends known_hosts lines for every host key of addr.
func (e *clientEnv) trust(addr string, keys ...gossh.PublicKey) {
	e.t.Helper()
	f, err := os.OpenFile(e.KnownHosts, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		e.t.Fatal(err)
	}
	defer f.Close()
	host, port, _ := net.SplitHostPort(addr)
	name := host
	if port != "22" {
		name = "[" + host + "]:" + port
	}
	for _, k := range keys {
		fmt.Fprintf(f, "%s %s", name, gossh.MarshalAuthorizedKey(k))
	}
}

// trustServer trusts all of s's host keys.
func (e *clientEnv) trustServer(s *testServer) {
	for _, k := range s.HostKeys {
		e.trust(s.Addr, k.PublicKey())
	}
}

// writeKey writes a fresh unencrypted client key under ~/.ssh and returns
// its path and signer.
func (e *clientEnv) writeKey(name string) (string, gossh.Signer) {
	e.t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(e.Home, ".ssh", name)
	block, err := gossh.MarshalPrivateKey(priv, name)
	if err != nil {
		e.t.Fatal(err)
	}
	if err := os.WriteFile(path, pem.EncodeToMemory(block), 0o600); err != nil {
		e.t.Fatal(err)
	}
	s, err := gossh.NewSignerFromKey(priv)
	if err != nil {
		e.t.Fatal(err)
	}
	signerKeys.Store(s, priv)
	return path, s
}

// encryptedKey copies a passphrase-protected key from testdata (made with
// `ssh-keygen -a 1`, so that decrypting it is fast even under -race) to
// ~/.ssh/name and returns its path and public key. testdata/encrypted_secret
// is protected by the secret constant, testdata/encrypted_other by "other
// passphrase".
func (e *clientEnv) encryptedKey(name, fixture string) (string, gossh.PublicKey) {
	e.t.Helper()
	data, err := os.ReadFile(filepath.Join("testdata", fixture))
	if err != nil {
		e.t.Fatal(err)
	}
	path := filepath.Join(e.Home, ".ssh", name)
	if err := os.WriteFile(path, data, 0o600); err != nil {
		e.t.Fatal(err)
	}
	pubData, err := os.ReadFile(filepath.Join("testdata", fixture+".pub"))
	if err != nil {
		e.t.Fatal(err)
	}
	pub, _, _, _, err := gossh.ParseAuthorizedKey(pubData)
	if err != nil {
		e.t.Fatal(err)
	}
	return path, pub
}

// open opens t (Host set by the caller) with a bounded context.
func (e *clientEnv) open(t transport.Target) (*sshconn.Conn, error) {
	ctx, cancel := context.WithTimeout(e.t.Context(), 20*time.Second)
	defer cancel()
	c, err := e.Opener.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	sc := c.(*sshconn.Conn)
	e.t.Cleanup(func() { _ = sc.Close() })
	return sc, nil
}

func (e *clientEnv) mustOpen(t transport.Target) *sshconn.Conn {
	e.t.Helper()
	c, err := e.open(t)
	if err != nil {
		e.t.Fatalf("Open(%s): %v", t.SSH().Host, err)
	}
	return c
}

// ---- reading output ---------------------------------------------------------

// slogTo logs everything, debug included, to w.
func slogTo(w io.Writer) *slog.Logger {
	return slog.New(slog.NewTextHandler(w, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// lockedBuffer is a bytes.Buffer safe for concurrent use.
type lockedBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *lockedBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *lockedBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// reader accumulates a Conn's output on one goroutine, so tests can wait
// for strings with a bound and still see the final error.
type reader struct {
	mu      sync.Mutex
	buf     bytes.Buffer
	err     error
	changed chan struct{}
	done    chan struct{}
}

// startReader reads c until Read fails; at cleanup it closes c and checks
// that the reading goroutine ended.
func startReader(t testing.TB, r io.ReadCloser) *reader {
	rd := &reader{changed: make(chan struct{}), done: make(chan struct{})}
	go func() { // ends when Read fails; the tests' Close guarantees that
		defer close(rd.done)
		b := make([]byte, 32<<10)
		for {
			n, err := r.Read(b)
			rd.mu.Lock()
			rd.buf.Write(b[:n])
			if err != nil {
				rd.err = err
			}
			close(rd.changed)
			rd.changed = make(chan struct{})
			rd.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = r.Close()
		select {
		case <-rd.done:
		case <-time.After(10 * time.Second):
			t.Errorf("Read still blocked 10s after Close")
		}
	})
	return rd
}

func (rd *reader) String() string {
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.buf.String()
}

// waitFor waits until the output contains s, or fails after timeout.
func (rd *reader) waitFor(t testing.TB, s string, timeout time.Duration) {
	t.Helper()
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	for {
		rd.mu.Lock()
		found, err, changed := strings.Contains(rd.buf.String(), s), rd.err, rd.changed
		rd.mu.Unlock()
		if found {
			return
		}
		if err != nil {
			t.Fatalf("output ended (%v) without %q; got %q", err, s, rd.String())
		}
		select {
		case <-changed:
		case <-timer.C:
			t.Fatalf("%q not in the output within %s; got %q", s, timeout, rd.String())
		}
	}
}

// end waits for Read to fail and returns the error.
func (rd *reader) end(t testing.TB, timeout time.Duration) error {
	t.Helper()
	select {
	case <-rd.done:
	case <-time.After(timeout):
		t.Fatalf("Read still blocked after %s; output %q", timeout, rd.String())
	}
	rd.mu.Lock()
	defer rd.mu.Unlock()
	return rd.err
}

// waitErr runs Wait with a bound.
func waitErr(t testing.TB, c transport.Conn, timeout time.Duration) error {
	t.Helper()
	ch := make(chan error, 1)
	go func() { ch <- c.Wait() }() // Wait returns at the latest after Close (test cleanup)
	select {
	case err := <-ch:
		return err
	case <-time.After(timeout):
		t.Fatalf("Wait did not return within %s", timeout)
		return nil
	}
}

// ---- TCP helpers --------------------------------------------------------------

// tcpProxy forwards 127.0.0.1:port to a target and can silently drop
// everything (a black hole) or reset every connection.
type tcpProxy struct {
	Addr   string
	target string
	ln     net.Listener
	wg     sync.WaitGroup

	mu    sync.Mutex
	conns []net.Conn
	holes []*atomic.Bool // one per proxied connection
}

func startProxy(t testing.TB, target string) *tcpProxy {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	p := &tcpProxy{Addr: ln.Addr().String(), target: target, ln: ln}
	p.wg.Go(p.accept)
	t.Cleanup(func() {
		_ = ln.Close()
		p.Reset()
		p.wg.Wait()
	})
	return p
}

func (p *tcpProxy) accept() {
	for {
		c, err := p.ln.Accept()
		if err != nil {
			return
		}
		u, err := net.Dial("tcp", p.target)
		if err != nil {
			_ = c.Close()
			continue
		}
		hole := new(atomic.Bool)
		p.mu.Lock()
		p.conns = append(p.conns, c, u)
		p.holes = append(p.holes, hole)
		p.mu.Unlock()
		p.wg.Go(func() { pipe(u, c, hole) })
		p.wg.Go(func() { pipe(c, u, hole) })
	}
}

// pipe copies src to dst, dropping the bytes while black-holed.
func pipe(dst, src net.Conn, hole *atomic.Bool) {
	b := make([]byte, 32<<10)
	for {
		n, err := src.Read(b)
		if n > 0 && !hole.Load() {
			if _, werr := dst.Write(b[:n]); werr != nil {
				return
			}
		}
		if err != nil {
			_ = dst.Close()
			return
		}
	}
}

// BlackHole stops forwarding on the connections made so far, in both
// directions, without closing anything. Later connections work.
func (p *tcpProxy) BlackHole() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, h := range p.holes {
		h.Store(true)
	}
}

// Reset closes every proxied connection with a TCP RST.
func (p *tcpProxy) Reset() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for _, c := range p.conns {
		if tc, ok := c.(*net.TCPConn); ok {
			_ = tc.SetLinger(0)
		}
		_ = c.Close()
	}
	p.conns = nil
}

// silentServer accepts TCP connections and never says a word.
func silentServer(t testing.TB) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	var conns []net.Conn
	wg.Go(func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}
	})
	t.Cleanup(func() {
		_ = ln.Close()
		wg.Wait()
		mu.Lock()
		defer mu.Unlock()
		for _, c := range conns {
			_ = c.Close()
		}
	})
	return ln.Addr().String()
}
