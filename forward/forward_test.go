package forward_test

import (
	"bytes"
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	gossh "golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/forward"
	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
)

// sshLink is a forward.Link on one x/crypto client of the test sshd.
type sshLink struct {
	c    *gossh.Client
	done chan struct{}
}

func (l *sshLink) Dial(n, a string) (net.Conn, error)       { return l.c.Dial(n, a) }
func (l *sshLink) Listen(n, a string) (net.Listener, error) { return l.c.Listen(n, a) }
func (l *sshLink) Done() <-chan struct{}                    { return l.done }
func (l *sshLink) Release()                                 { l.c.Close() }

// dialer connects to d with its client key and counts the connections made.
type dialer struct {
	d     *sshdtest.SSHD
	mu    sync.Mutex
	n     int
	fails int // the next fails connects fail
}

func (dl *dialer) connect(ctx context.Context) (forward.Link, error) {
	dl.mu.Lock()
	if dl.fails > 0 {
		dl.fails--
		dl.mu.Unlock()
		return nil, fmt.Errorf("refused by the test")
	}
	dl.n++
	dl.mu.Unlock()
	key, err := os.ReadFile(dl.d.ClientKey)
	if err != nil {
		return nil, err
	}
	signer, err := gossh.ParsePrivateKey(key)
	if err != nil {
		return nil, err
	}
	cfg := &gossh.ClientConfig{
		User:            dl.d.User,
		Auth:            []gossh.AuthMethod{gossh.PublicKeys(signer)},
		HostKeyCallback: gossh.FixedHostKey(dl.d.HostKey),
		Timeout:         10 * time.Second,
	}
	c, err := gossh.Dial("tcp", dl.d.Addr(), cfg)
	if err != nil {
		return nil, err
	}
	l := &sshLink{c: c, done: make(chan struct{})}
	go func() { c.Wait(); close(l.done) }()
	return l, nil
}

func (dl *dialer) count() int {
	dl.mu.Lock()
	defer dl.mu.Unlock()
	return dl.n
}

func start(t *testing.T, dl *dialer, spec forward.Spec) *forward.Forward {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	f, err := forward.Start(ctx, spec, forward.Options{Connect: dl.connect, Host: "testhost", MaxBackoff: 200 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { f.Close() })
	return f
}

func page(t *testing.T, client *http.Client, url string) string {
	t.Helper()
	resp, err := client.Get(url)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	return string(b)
}

func newServer(t *testing.T, body string) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, body+" "+r.URL.Path)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// noKeepAlive gets each page on a connection of its own, so that every
// request crosses the forward anew.
var noKeepAlive = &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 20 * time.Second}

func TestLocalForwardServesThePage(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	srv := newServer(t, "remote page")
	dl := &dialer{d: d}
	f := start(t, dl, forward.Spec{Kind: forward.Local, Local: "127.0.0.1:0", Remote: srv.Listener.Addr().String()})
	if got := page(t, noKeepAlive, "http://"+f.Addr()+"/x"); got != "remote page /x" {
		t.Fatalf("page through the forward = %q", got)
	}
	in := f.Info()
	if in.Connections != 1 || in.Bytes == 0 || in.State != "up" || in.Kind != "local" {
		t.Fatalf("info after one page = %+v", in)
	}
}

func TestReverseForwardReachesHere(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	srv := newServer(t, "local page")
	dl := &dialer{d: d}
	f := start(t, dl, forward.Spec{Kind: forward.Reverse, Local: srv.Listener.Addr().String(), Remote: "127.0.0.1:0"})
	if f.Addr() == "" || strings.HasSuffix(f.Addr(), ":0") {
		t.Fatalf("reverse forward address = %q, want the port the host picked", f.Addr())
	}
	// The host's listener is sshd's: a process on the host (curl, here on
	// loopback) reaches the server here through it.
	if got := page(t, noKeepAlive, "http://"+f.Addr()+"/r"); got != "local page /r" {
		t.Fatalf("page through the reverse forward = %q", got)
	}
}

func TestSOCKSWithCurl(t *testing.T) {
	curl, err := exec.LookPath("curl")
	if err != nil {
		if os.Getenv("CI") != "" {
			t.Fatal("curl not found, but CI is set: install curl")
		}
		t.Skip("curl not found")
	}
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	srv := newServer(t, "socks page")
	dl := &dialer{d: d}
	f := start(t, dl, forward.Spec{Kind: forward.SOCKS, Local: "127.0.0.1:0"})
	_, p, _ := net.SplitHostPort(srv.Listener.Addr().String())
	// --socks5-hostname: the name is resolved on the host, as with ssh -D.
	out, err := exec.Command(curl, "-sS", "--max-time", "20", "--socks5-hostname", f.Addr(), "http://localhost:"+p+"/s").CombinedOutput()
	if err != nil || string(out) != "socks page /s" {
		t.Fatalf("curl through the SOCKS forward: %v: %q", err, out)
	}
	// A name the host cannot resolve is a SOCKS failure, not a hang.
	out, err = exec.Command(curl, "-sS", "--max-time", "20", "--socks5-hostname", f.Addr(), "http://no-such-host.invalid/").CombinedOutput()
	if err == nil {
		t.Fatalf("curl to an unresolvable name succeeded: %q", out)
	}
	if in := f.Info(); in.Connections != 1 || in.Failed < 1 {
		t.Fatalf("info = %+v, want 1 carried and a failure", in)
	}
}

// TestHalfClose: a client that ends its sending side still gets the
// answer (nc -N, an HTTP/1.0 client, a dump piped in).
func TestHalfClose(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				b, _ := io.ReadAll(c) // to EOF: the client's CloseWrite
				sum := sha256.Sum256(b)
				fmt.Fprintf(c, "%x %d", sum, len(b))
			}()
		}
	}()
	dl := &dialer{d: d}
	f := start(t, dl, forward.Spec{Kind: forward.Local, Local: "127.0.0.1:0", Remote: ln.Addr().String()})
	c, err := net.Dial("tcp", f.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	data := bytes.Repeat([]byte("0123456789abcdef"), 1<<16) // 1 MiB
	go func() {
		c.Write(data)
		c.(*net.TCPConn).CloseWrite()
	}()
	c.SetReadDeadline(time.Now().Add(30 * time.Second))
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	want := fmt.Sprintf("%x %d", sha256.Sum256(data), len(data))
	if string(got) != want {
		t.Fatalf("answer after half-close = %q, want %q", got, want)
	}
}

// TestSurvivesLinkDrop: the connection the forward runs on is killed (as a
// broken link would be); the forward reconnects and serves again on the
// same local address, and says what happened.
func TestSurvivesLinkDrop(t *testing.T) {
	for _, kind := range []forward.Kind{forward.Local, forward.Reverse} {
		t.Run(kind.String(), func(t *testing.T) {
			d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
			srv := newServer(t, "page")
			dl := &dialer{d: d}
			spec := forward.Spec{Kind: kind, Local: "127.0.0.1:0", Remote: srv.Listener.Addr().String()}
			if kind == forward.Reverse {
				spec = forward.Spec{Kind: kind, Local: srv.Listener.Addr().String(), Remote: "127.0.0.1:0"}
			}
			f := start(t, dl, spec)
			addr := f.Addr()
			if got := page(t, noKeepAlive, "http://"+addr+"/1"); got != "page /1" {
				t.Fatalf("before the drop: %q", got)
			}
			dl.mu.Lock()
			dl.fails = 2 // the first two reconnects fail: the note says so
			dl.mu.Unlock()
			for _, pid := range d.ConnectionPids() {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			testwait.Until(t, "the forward reconnects", 30*time.Second, func() bool {
				return dl.count() == 2 && f.Info().State == "up"
			})
			if f.Addr() != addr {
				t.Fatalf("address changed across the reconnect: %s → %s", addr, f.Addr())
			}
			if got := page(t, noKeepAlive, "http://"+addr+"/2"); got != "page /2" {
				t.Fatalf("after the reconnect: %q", got)
			}
			if n := f.Info().Note; !strings.Contains(n, "re-established") {
				t.Fatalf("note after the reconnect = %q", n)
			}
		})
	}
}

func TestCloseEndsListenerAndConnections(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	accepted := make(chan net.Conn, 1)
	go func() {
		c, err := ln.Accept()
		if err == nil {
			accepted <- c
		}
	}()
	dl := &dialer{d: d}
	f := start(t, dl, forward.Spec{Kind: forward.Local, Local: "127.0.0.1:0", Remote: ln.Addr().String()})
	c, err := net.Dial("tcp", f.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var far net.Conn
	select {
	case far = <-accepted:
		defer far.Close()
	case <-time.After(20 * time.Second):
		t.Fatal("the far side never got the connection")
	}
	f.Close()
	c.SetReadDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Read(make([]byte, 1)); err == nil || os.IsTimeout(err) {
		t.Fatalf("a carried connection after Close: read %v, want it closed", err)
	}
	if c2, err := net.Dial("tcp", f.Addr()); err == nil {
		c2.Close()
		t.Fatal("the local listener still accepts after Close")
	}
	if s := f.Info().State; s != "closed" {
		t.Fatalf("state after Close = %q", s)
	}
}

func TestBadSpec(t *testing.T) {
	for _, s := range []forward.Spec{
		{Kind: forward.Local, Local: "nonsense", Remote: "127.0.0.1:1"},
		{Kind: forward.Local, Local: "127.0.0.1:0", Remote: "no-port"},
		{Kind: forward.Reverse, Local: "", Remote: "127.0.0.1:0"},
	} {
		_, err := forward.Start(context.Background(), s, forward.Options{Connect: func(context.Context) (forward.Link, error) {
			t.Fatal("connected for a bad spec")
			return nil, nil
		}})
		if err == nil || !strings.Contains(err.Error(), "want") {
			t.Errorf("Start(%+v) = %v, want an error saying what to give", s, err)
		}
	}
}
