package agent

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"

	"github.com/ttymux/ttymux/agentd"
	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
	"github.com/ttymux/ttymux/transport"
)

// TestCreateEcho creates a shell in the agent, types a command and reads
// its output back.
func TestCreateEcho(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	kc, ks, err := c.Create(ctxT(t), testShell(), []byte("m1"))
	if err != nil {
		t.Fatal(err)
	}
	if ks.ID == "" || ks.Pid <= 0 || ks.Size != (transport.Size{Rows: 24, Cols: 80}) || string(ks.Meta) != "m1" {
		t.Errorf("Create returned %+v", ks)
	}
	if id := kc.(*Conn).ID(); id != ks.ID {
		t.Errorf("ID() = %q, want %q", id, ks.ID)
	}
	p := startPump(t, kc)
	p.waitFor(t, "$ ")
	if _, err := kc.Write([]byte("echo hel''lo\r")); err != nil {
		t.Fatal(err)
	}
	p.waitFor(t, "\r\nhello\r\n")
	p.waitFor(t, "$ ")
	if _, err := kc.Write([]byte("exit 7\r")); err != nil {
		t.Fatal(err)
	}
	out, err := p.finish(t)
	if !errors.Is(err, io.EOF) {
		t.Fatalf("Read ended with %v, want io.EOF", err)
	}
	var ee *transport.ExitError
	if werr := kc.Wait(); !errors.As(werr, &ee) || ee.Status != 7 {
		t.Errorf("Wait() = %v, want exit status 7", werr)
	}
	if got := kc.(*Conn).Offset(); got != int64(len(out)) {
		t.Errorf("Offset() = %d after reading %d bytes from 0", got, len(out))
	}
}

// TestDetachReattach detaches while a loop prints numbered lines, reattaches
// from the offset reached, and checks that every line arrives exactly once
// and in order: nothing produced while detached is lost or duplicated.
func TestDetachReattach(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	ctx := ctxT(t)
	kc, ks, err := c.Create(ctx, testShell(), nil)
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc)
	p.waitFor(t, "$ ")
	const n = 2000
	// The command line itself holds no "line-" followed by a digit.
	// A pause every 100 lines keeps the loop running past the detach
	// however fast this client reads.
	fmt.Fprintf(kc, "for i in $(seq 1 %d); do echo line-$i; [ $((i %% 100)) = 0 ] && sleep 0.02; done; echo loop-''done\r", n)
	p.waitFor(t, "line-3\r\n")
	if err := kc.Close(); err != nil {
		t.Fatal(err)
	}
	first, err := p.finish(t)
	if !errors.Is(err, ErrDetached) {
		t.Fatalf("Read after Close = %v, want ErrDetached", err)
	}
	if werr := kc.Wait(); !errors.Is(werr, ErrDetached) {
		t.Errorf("Wait() after Close = %v, want ErrDetached", werr)
	}
	off := kc.(*Conn).Offset()
	if off != int64(len(first)) {
		t.Fatalf("Offset() = %d after reading %d bytes", off, len(first))
	}
	td.ev.wait(t, agentd.EventDetached, ks.ID)
	// Let the loop run on while nobody is attached.
	waitUntil(t, "output while detached", func() bool {
		s, ok := find(t, c, ks.ID)
		return ok && s.End > off+1000 && s.Clients == 0
	})

	kc2, _, res, err := c.Attach(ctx, ks.ID, off)
	if err != nil {
		t.Fatal(err)
	}
	if res.From != off || res.Lost != 0 || res.FromLine < 1 {
		t.Errorf("Resume = %+v, want From %d, Lost 0, a line number", res, off)
	}
	p2 := startPump(t, kc2)
	p2.waitFor(t, "loop-done\r\n")
	kc2.Close()
	second, _ := p2.finish(t)

	all := string(first) + string(second)
	nums := regexp.MustCompile(`line-(\d+)\r\n`).FindAllStringSubmatch(all, -1)
	if len(nums) != n {
		t.Fatalf("%d numbered lines, want %d", len(nums), n)
	}
	for i, m := range nums {
		if m[1] != fmt.Sprint(i+1) {
			t.Fatalf("line %d is line-%s: lost or duplicated output around the reattach at %d", i+1, m[1], off)
		}
	}
}

// TestGap lets a session print far more than a tiny ring holds while its
// client does not read: the client gets a GapError, then the rest, and the
// offsets add up.
func TestGap(t *testing.T) {
	td := startDaemon(t, agentd.Options{RingSize: 4 << 10})
	c := td.client()
	kc, ks, err := c.Create(ctxT(t), transport.Target{Command: "seq", Args: []string{"1", "200000"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	td.ev.wait(t, agentd.EventChildExited, ks.ID) // all written while we did not read
	conn := kc.(*Conn)
	var out []byte
	var gaps []transport.GapError
	buf := make([]byte, 8<<10)
	for {
		n, err := conn.Read(buf)
		out = append(out, buf[:n]...)
		var g *transport.GapError
		if errors.As(err, &g) {
			if n != 0 || g.From >= g.To {
				t.Fatalf("Read = %d, %v", n, g)
			}
			gaps = append(gaps, *g)
			continue
		}
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	if len(gaps) == 0 {
		t.Fatal("no GapError for a client that fell behind a 4 KiB ring")
	}
	var lost int64
	for _, g := range gaps {
		lost += g.To - g.From
	}
	if got, want := int64(len(out))+lost, conn.Offset(); got != want {
		t.Errorf("read %d + lost %d = %d bytes, but Offset() is %d", len(out), lost, got, want)
	}
	if !strings.HasSuffix(string(out), "\r\n199999\r\n200000\r\n") {
		t.Errorf("output does not end with the last lines: %q", out[max(0, len(out)-40):])
	}
	if err := kc.Wait(); err != nil {
		t.Errorf("Wait() = %v", err)
	}
	kc.Close()

	// Attaching from offset 0 now reports what the ring no longer holds.
	kc2, _, res, err := c.Attach(ctxT(t), ks.ID, 0)
	if err != nil {
		t.Fatal(err)
	}
	defer kc2.Close()
	if res.Lost == 0 || res.From != res.Lost {
		t.Errorf("Resume = %+v, want From == Lost > 0", res)
	}
}

// TestKill ends a running session: the attached client sees the end and
// the agent forgets the session.
func TestKill(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	ctx := ctxT(t)
	kc, ks, err := c.Create(ctx, transport.Target{Command: "sleep", Args: []string{"1000"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc)
	if err := c.Kill(ctx, ks.ID); err != nil {
		t.Fatal(err)
	}
	if _, err := p.finish(t); !errors.Is(err, io.EOF) {
		t.Errorf("Read ended with %v, want io.EOF", err)
	}
	var ee *transport.ExitError
	if werr := kc.Wait(); !errors.As(werr, &ee) || ee.Signal == "" {
		t.Errorf("Wait() = %v, want killed by a signal", werr)
	}
	if _, ok := find(t, c, ks.ID); ok {
		t.Errorf("%s still listed after Kill", ks.ID)
	}
	err = c.Kill(ctx, ks.ID)
	if !errors.Is(err, transport.ErrNoSession) {
		t.Errorf("second Kill = %v, want ErrNoSession", err)
	}
}

// TestWaitAfterExit checks Wait's status for a program that has ended, for
// the attached client and for one attaching afterwards.
func TestWaitAfterExit(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	ctx := ctxT(t)
	kc, ks, err := c.Create(ctx, transport.Target{Command: "sh", Args: []string{"-c", "echo bye; exit 3"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	out, err := io.ReadAll(kc)
	if err != nil || string(out) != "bye\r\n" {
		t.Fatalf("ReadAll = %q, %v", out, err)
	}
	var ee *transport.ExitError
	if werr := kc.Wait(); !errors.As(werr, &ee) || ee.Status != 3 || ee.Signal != "" {
		t.Errorf("Wait() = %v, want exit status 3", werr)
	}
	kc.Close()

	s, ok := find(t, c, ks.ID)
	if !ok || !s.Exited || s.ExitStatus != 3 {
		t.Errorf("List entry %+v, want exited with 3", s)
	}
	kc2, _, res, err := c.Attach(ctx, ks.ID, -1)
	if err != nil {
		t.Fatal(err)
	}
	defer kc2.Close()
	if res.From != 0 || res.FromLine != 1 {
		t.Errorf("Resume = %+v, want From 0 on line 1", res)
	}
	out, err = io.ReadAll(kc2)
	if err != nil || string(out) != "bye\r\n" {
		t.Errorf("replay = %q, %v", out, err)
	}
	if werr := kc2.Wait(); !errors.As(werr, &ee) || ee.Status != 3 {
		t.Errorf("Wait() after reattach = %v, want exit status 3", werr)
	}
}

// TestCloseDetaches checks that Close ends a Read waiting on a quiet
// session with ErrDetached and that the session keeps running, without
// clients (the rest of Close's contract is in conformance_test.go).
func TestCloseDetaches(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	kc, ks, err := c.Create(ctxT(t), transport.Target{Command: "sleep", Args: []string{"1000"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc)
	td.ev.wait(t, agentd.EventAttached, ks.ID)
	if err := kc.Close(); err != nil {
		t.Fatal(err)
	}
	if _, err := p.finish(t); !errors.Is(err, ErrDetached) {
		t.Errorf("Read after Close = %v, want ErrDetached", err)
	}
	td.ev.wait(t, agentd.EventDetached, ks.ID)
	if s, ok := find(t, c, ks.ID); !ok || s.Exited || s.Clients != 0 {
		t.Errorf("after Close, List entry is %+v (found %v), want running, no clients", s, ok)
	}
	if err := c.Kill(ctxT(t), ks.ID); err != nil {
		t.Fatal(err)
	}
}

// TestListMetaForeground checks List against what was created, SetMeta,
// Resize, and the cached foreground process.
func TestListMetaForeground(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	ctx := ctxT(t)
	kc1, ks1, err := c.Create(ctx, testShell(), []byte("one"))
	if err != nil {
		t.Fatal(err)
	}
	p := startPump(t, kc1)
	_, ks2, err := c.Create(ctx, transport.Target{Command: "sleep", Args: []string{"1000"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ss, err := c.List(ctx)
	if err != nil || len(ss) != 2 {
		t.Fatalf("List = %+v, %v; want 2 sessions", ss, err)
	}
	byID := map[string]transport.KeptSession{}
	for _, s := range ss {
		byID[s.ID] = s
	}
	if s := byID[ks1.ID]; s.Command == "" || s.Pid != ks1.Pid || string(s.Meta) != "one" || s.Exited || s.Created.IsZero() {
		t.Errorf("List entry for %s: %+v", ks1.ID, s)
	}
	if s := byID[ks2.ID]; !strings.Contains(s.Command, "sleep") {
		t.Errorf("List entry for %s: %+v", ks2.ID, s)
	}

	conn := kc1.(*Conn)
	if err := conn.SetMeta([]byte("two")); err != nil {
		t.Fatal(err)
	}
	if err := conn.Resize(ctx, transport.Size{Rows: 33, Cols: 99}); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "meta and size stored", func() bool {
		s, _ := find(t, c, ks1.ID)
		return string(s.Meta) == "two" && s.Size == transport.Size{Rows: 33, Cols: 99}
	})

	p.waitFor(t, "$ ")
	waitUntil(t, "the shell in the foreground", func() bool {
		fg, err := conn.Foreground()
		return err == nil && fg.IsShell && fg.Name == "bash"
	})
	fmt.Fprint(conn, "sleep 1000\r")
	waitUntil(t, "sleep in the foreground", func() bool {
		fg, err := conn.Foreground()
		return err == nil && !fg.IsShell && fg.Name == "sleep"
	})
	if err := conn.Signal(ctx, "INT"); err != nil {
		t.Fatal(err)
	}
	waitUntil(t, "the shell back after INT", func() bool {
		fg, _ := conn.Foreground()
		return fg.IsShell
	})
	if _, err := conn.Echo(); err != nil {
		t.Errorf("Echo() = %v", err)
	}
}

// TestAttachUnknown checks the error for an id the agent does not hold.
func TestAttachUnknown(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	_, _, _, err := td.client().Attach(ctxT(t), "s9", 0)
	if !errors.Is(err, transport.ErrNoSession) || err.Error() != `session "s9" is not held by the agent` {
		t.Errorf("Attach(s9) = %v, want ErrNoSession: session \"s9\" is not held by the agent", err)
	}
}

// TestStopBusy checks that Stop without force refuses while a session runs.
func TestStopBusy(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	c := td.client()
	kc, _, err := c.Create(ctxT(t), transport.Target{Command: "sleep", Args: []string{"1000"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	defer kc.Close()
	var se *agentlink.StatusError
	if err := c.Stop(ctxT(t), false); !errors.As(err, &se) || se.Status != agentproto.StatusBusy {
		t.Errorf("Stop(false) = %v, want StatusBusy", err)
	}
}

// TestNoAgent checks each method against a socket nobody listens on: only
// Create may start an agent, and here it has no binary to start.
func TestNoAgent(t *testing.T) {
	c := &Client{Socket: filepath.Join(sockDir(t), "agent.sock"), AgentPath: "/nonexistent/ttymux-agent"}
	ctx := ctxT(t)
	if ss, err := c.List(ctx); ss != nil || err != nil {
		t.Errorf("List = %v, %v; want no sessions", ss, err)
	}
	if err := c.Ping(ctx); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Ping = %v, want ErrNoAgent", err)
	}
	if err := c.Stop(ctx, true); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Stop = %v, want ErrNoAgent", err)
	}
	_, _, _, err := c.Attach(ctx, "s1", 0)
	if !errors.Is(err, ErrNoAgent) || !errors.Is(err, transport.ErrNoSession) {
		t.Errorf("Attach = %v, want ErrNoAgent and ErrNoSession", err)
	}
	if err := c.Kill(ctx, "s1"); !errors.Is(err, ErrNoAgent) || !errors.Is(err, transport.ErrNoSession) {
		t.Errorf("Kill = %v, want ErrNoAgent and ErrNoSession", err)
	}
	_, _, err = c.Create(ctx, testShell(), nil)
	if !errors.Is(err, ErrAgentNotFound) || !strings.Contains(err.Error(), "/nonexistent/ttymux-agent") || !strings.Contains(err.Error(), "install.sh") {
		t.Errorf("Create = %v, want ErrAgentNotFound naming the path and install.sh", err)
	}

	// Without AgentPath: next to this executable, then $PATH.
	t.Setenv("PATH", t.TempDir())
	c.AgentPath = ""
	_, _, err = c.Create(ctx, testShell(), nil)
	exe, _ := os.Executable()
	if !errors.Is(err, ErrAgentNotFound) || !strings.Contains(err.Error(), filepath.Join(filepath.Dir(exe), "ttymux-agent")) ||
		!strings.Contains(err.Error(), "$PATH") {
		t.Errorf("Create = %v, want ErrAgentNotFound naming where it looked", err)
	}
}

// TestUnsafeDir checks that a socket directory open to others is refused,
// by name, before anything is dialled or started.
func TestUnsafeDir(t *testing.T) {
	td := startDaemon(t, agentd.Options{})
	dir := filepath.Dir(td.sock)
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	defer os.Chmod(dir, 0o700)
	c := &Client{Socket: td.sock, AgentPath: "/nonexistent/ttymux-agent"}
	ctx := ctxT(t)
	check := func(op string, err error) {
		t.Helper()
		var ue *UnsafeDirError
		if !errors.As(err, &ue) || ue.Dir != dir || !strings.Contains(err.Error(), dir) || !strings.Contains(err.Error(), "0755") {
			t.Errorf("%s = %v, want an *UnsafeDirError naming %s and its mode", op, err, dir)
		}
	}
	_, err := c.List(ctx)
	check("List", err)
	check("Ping", c.Ping(ctx))
	_, _, err = c.Create(ctx, testShell(), nil)
	check("Create", err)
	_, _, _, err = c.Attach(ctx, "s1", 0)
	check("Attach", err)

	// A symlink to a good directory is refused too.
	link := filepath.Join(sockDir(t), "link")
	os.Chmod(dir, 0o700)
	if err := os.Symlink(dir, link); err != nil {
		t.Fatal(err)
	}
	err = (&Client{Socket: filepath.Join(link, filepath.Base(td.sock))}).Ping(ctx)
	var ue *UnsafeDirError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "symbolic link") {
		t.Errorf("Ping via a symlinked directory = %v, want an *UnsafeDirError", err)
	}
}

// TestVersionMismatch checks that an agent of another protocol version is
// reported with both versions.
func TestVersionMismatch(t *testing.T) {
	sock := fakeHeader(t, agentproto.Version+1)
	err := (&Client{Socket: sock}).Ping(ctxT(t))
	var ve *agentproto.VersionError
	if !errors.As(err, &ve) || ve.Local != agentproto.Version || ve.Remote != agentproto.Version+1 {
		t.Errorf("Ping = %v, want a *agentproto.VersionError", err)
	}
}

// TestDefaultSocket checks the per-user socket path, which must match the
// agent's own (agentd SocketPath(SocketDir())).
func TestDefaultSocket(t *testing.T) {
	for _, xdg := range []string{"/run/user/1234", ""} {
		t.Setenv("XDG_RUNTIME_DIR", xdg)
		if got, want := DefaultSocket(), agentd.SocketPath(agentd.SocketDir()); got != want {
			t.Errorf("XDG_RUNTIME_DIR=%q: DefaultSocket() = %q, want %q", xdg, got, want)
		}
	}
}

// buildAgent builds cmd/ttymux-agent into a temporary directory.
func buildAgent(t testing.TB) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "ttymux-agent")
	cmd := exec.CommandContext(t.Context(), "go", "build", "-o", bin, "github.com/ttymux/ttymux/cmd/ttymux-agent")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("build ttymux-agent: %v\n%s", err, out)
	}
	return bin
}

// TestStartOnDemand starts the real agent binary from Create, twice at
// once (one agent must result: the start lock), then stops it.
func TestStartOnDemand(t *testing.T) {
	if testing.Short() {
		t.Skip("builds the agent")
	}
	bin := buildAgent(t)
	dir := filepath.Join(sockDir(t), "sub") // missing: Create makes it 0700
	c := &Client{Socket: filepath.Join(dir, "agent.sock"), AgentPath: bin, StartArgs: []string{"--idle-exit", "2m"}}
	t.Cleanup(func() {
		if err := c.Stop(context.Background(), true); err != nil && !errors.Is(err, ErrNoAgent) {
			t.Errorf("cleanup Stop: %v", err)
		}
	})
	ctx := ctxT(t)
	var wg sync.WaitGroup
	ids := make([]string, 2)
	for i := range ids {
		wg.Go(func() {
			kc, ks, err := c.Create(ctx, transport.Target{Command: "sleep", Args: []string{"1000"}}, nil)
			if err != nil {
				t.Errorf("Create %d: %v", i, err)
				return
			}
			kc.Close()
			ids[i] = ks.ID
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	fi, err := os.Stat(dir)
	if err != nil || fi.Mode().Perm() != 0o700 {
		t.Errorf("socket directory: %v, %v; want mode 0700", fi, err)
	}
	ss, err := c.List(ctx)
	if err != nil || len(ss) != 2 || ids[0] == ids[1] {
		t.Fatalf("List = %+v, %v; want the 2 sessions (%v) in one agent", ss, err, ids)
	}
	if err := c.Stop(ctx, false); err == nil {
		t.Error("Stop(false) with running sessions succeeded")
	}
	if err := c.Stop(ctx, true); err != nil {
		t.Fatal(err)
	}
	if err := c.Ping(ctx); !errors.Is(err, ErrNoAgent) {
		t.Errorf("Ping after Stop = %v, want ErrNoAgent", err)
	}
	if _, err := os.Stat(c.Socket); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("socket after Stop: %v", err)
	}
}
