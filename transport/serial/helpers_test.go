//go:build linux

package serial_test

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// testTimeout bounds every wait; generous because -race on two cores is slow.
const testTimeout = 15 * time.Second

// device is a fake serial device: a PTY pair whose slave is the "port"
// (given to the Opener by path) and whose master plays the device.
type device struct {
	// Master is the device's end, non-blocking and pollable, so that
	// closing it unblocks a pending Read (see STYLE.md §5, PTY masters).
	Master *os.File
	// Port is the slave's path.
	Port string
	// tty keeps the slave open for the whole test, so that the master does
	// not read EIO before or between opens of the port.
	tty *os.File
}

// newDevice makes a PTY pair; the test's cleanup closes both ends.
func newDevice(t testing.TB) *device {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("pty.Open: %v", err)
	}
	d := &device{Master: nonblocking(t, m), Port: tty.Name(), tty: tty}
	t.Cleanup(d.unplug)
	return d
}

// unplug closes both ends: whoever has the port open sees a hangup, as
// when a USB adapter is pulled out. Idempotent.
func (d *device) unplug() {
	_ = d.Master.Close() // idempotent enough: a second Close returns ErrClosed
	_ = d.tty.Close()
}

// termios reads the port's current settings (termios2, so the speed is a
// number).
func (d *device) termios(t testing.TB) *unix.Termios {
	t.Helper()
	var tio *unix.Termios
	ctl(t, d.tty, func(fd int) (err error) {
		tio, err = unix.IoctlGetTermios(fd, unix.TCGETS2)
		return err
	})
	return tio
}

// exclusive reports the port's TIOCEXCL flag.
func (d *device) exclusive(t testing.TB) bool {
	t.Helper()
	var v int
	ctl(t, d.tty, func(fd int) (err error) {
		v, err = unix.IoctlGetInt(fd, unix.TIOCGEXCL)
		return err
	})
	return v != 0
}

func ctl(t testing.TB, f *os.File, fn func(fd int) error) {
	t.Helper()
	rc, err := f.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var ferr error
	if err := rc.Control(func(fd uintptr) { ferr = fn(int(fd)) }); err != nil {
		t.Fatal(err)
	}
	if ferr != nil {
		t.Fatal(ferr)
	}
}

// nonblocking returns a pollable copy of f and closes f. creack/pty calls
// Fd on the master, which leaves it in blocking mode.
func nonblocking(t testing.TB, f *os.File) *os.File {
	t.Helper()
	fd, err := unix.Dup(int(f.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_ = f.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	return os.NewFile(uintptr(fd), "ptmx")
}

// link points path at the device's port, as udev's by-id links do.
func (d *device) link(t testing.TB, path string) {
	t.Helper()
	if err := os.Symlink(d.Port, path); err != nil {
		t.Fatal(err)
	}
}

// states records OnLinkState calls so that a test can wait for one.
type states struct {
	ch chan string
}

func newStates() *states { return &states{ch: make(chan string, 64)} }

func (s *states) record(_, state string) { s.ch <- state }

// expect waits for the next state change and checks it.
func (s *states) expect(t testing.TB, want string) {
	t.Helper()
	select {
	case got := <-s.ch:
		if got != want {
			t.Fatalf("link state %q, want %q", got, want)
		}
	case <-time.After(testTimeout):
		t.Fatalf("no link state change to %q within %v", want, testTimeout)
	}
}

// none checks that no state change is pending.
func (s *states) none(t testing.TB) {
	t.Helper()
	select {
	case got := <-s.ch:
		t.Fatalf("unexpected link state change to %q", got)
	default:
	}
}

// open opens port with p and closes the Conn when the test ends.
func open(t testing.TB, o *serial.Opener, port string, p transport.SerialParams) *serial.Conn {
	t.Helper()
	c, err := o.Open(t.Context(), transport.Target{Command: port, Spec: p})
	if err != nil {
		t.Fatalf("Open %s: %v", port, err)
	}
	t.Cleanup(func() { _ = c.Close() })
	return c.(*serial.Conn)
}

// collector is the one reader of r: it keeps everything read and lets a
// test wait for a string.
type collector struct {
	mu sync.Mutex
	// mu protects the following.
	buf     bytes.Buffer
	err     error
	changed chan struct{} // closed and replaced on every change

	done chan struct{}
}

// collect reads rc until it fails. The test's cleanup closes rc and waits
// for the reader.
func collect(t testing.TB, rc io.ReadCloser) *collector {
	c := &collector{changed: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(c.done)
		b := make([]byte, 32<<10)
		for {
			n, err := rc.Read(b)
			c.mu.Lock()
			c.buf.Write(b[:n])
			c.err = err
			close(c.changed)
			c.changed = make(chan struct{})
			c.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		_ = rc.Close()
		<-c.done
	})
	return c
}

// waitFor waits until the output holds want and returns all of it.
func (c *collector) waitFor(t testing.TB, want string) string {
	t.Helper()
	timeout := time.After(testTimeout)
	for {
		c.mu.Lock()
		out, err, ch := c.buf.String(), c.err, c.changed
		c.mu.Unlock()
		if strings.Contains(out, want) {
			return out
		}
		if err != nil {
			t.Fatalf("read ended (%v) before %q; got %q", err, want, tail(out))
		}
		select {
		case <-ch:
		case <-timeout:
			t.Fatalf("no %q within %v; got %q", want, testTimeout, tail(out))
		}
	}
}

// waitErr waits until reading has failed and returns the error.
func (c *collector) waitErr(t testing.TB) error {
	t.Helper()
	select {
	case <-c.done:
	case <-time.After(testTimeout):
		t.Fatalf("Read still running after %v", testTimeout)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

func (c *collector) String() string {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.buf.String()
}

func tail(s string) string {
	if len(s) > 200 {
		return "…" + s[len(s)-200:]
	}
	return s
}

func write(t testing.TB, w io.Writer, s string) {
	t.Helper()
	if _, err := io.WriteString(w, s); err != nil {
		t.Fatalf("write %q: %v", s, err)
	}
}

// within runs fn and fails the test if it has not returned after
// testTimeout.
func within(t testing.TB, what string, fn func()) {
	t.Helper()
	done := make(chan struct{})
	go func() {
		defer close(done)
		fn()
	}()
	select {
	case <-done:
	case <-time.After(testTimeout):
		t.Fatalf("%s did not return within %v", what, testTimeout)
	}
}

// checkGoroutines fails the test if it ends with more goroutines than it
// started with. Register it first, so it runs after every other cleanup.
// Everything the package and these helpers start is waited for, so the
// count should be back at once; the bounded retry only absorbs goroutines
// of the runtime and the testing package finishing up.
func checkGoroutines(t *testing.T) {
	before := runtime.NumGoroutine()
	t.Cleanup(func() {
		// Not t.Context(): it has ended by the time cleanups run.
		if !testwait.Poll(context.Background(), 5*time.Second, func() bool { return runtime.NumGoroutine() <= before }) {
			buf := make([]byte, 1<<20)
			buf = buf[:runtime.Stack(buf, true)]
			t.Fatalf("%d goroutines before, %d after:\n%s", before, runtime.NumGoroutine(), buf)
		}
	})
}

// socatDevice is a fake device made by socat: a PTY pair whose slaves are
// linked at Port (for the Conn) and Host (for the test). Killing socat
// unplugs it (socat removes both links); start brings it back at the same
// paths.
type socatDevice struct {
	Port, Host string
	cmd        *exec.Cmd
	stderr     *readyWriter
	host       *os.File
}

// needSocat skips the test when socat is missing, except under CI, which
// installs it.
func needSocat(t *testing.T) {
	t.Helper()
	if _, err := exec.LookPath("socat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("socat is required under CI (apt-get install -y socat): %v", err)
		}
		t.Skip("socat not installed (apt-get install -y socat)")
	}
}

func newSocatDevice(t *testing.T) *socatDevice {
	t.Helper()
	needSocat(t)
	dir := t.TempDir()
	d := &socatDevice{Port: filepath.Join(dir, "ttyUSB0"), Host: filepath.Join(dir, "host")}
	d.start(t)
	t.Cleanup(d.stop)
	return d
}

// start runs socat and waits until it has made both links; then opens the
// host end (raw).
func (d *socatDevice) start(t *testing.T) {
	t.Helper()
	d.stderr = &readyWriter{ready: make(chan struct{})}
	d.cmd = exec.Command("socat", "-d", "-d",
		"pty,rawer,link="+d.Port, "pty,rawer,link="+d.Host)
	d.cmd.Stderr = d.stderr
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-d.stderr.ready:
	case <-time.After(testTimeout):
		t.Fatalf("socat not ready within %v: %s", testTimeout, d.stderr)
	}
	h, err := os.OpenFile(d.Host, os.O_RDWR|unix.O_NOCTTY, 0)
	if err != nil {
		t.Fatal(err)
	}
	ctl(t, h, func(fd int) error {
		tio, err := unix.IoctlGetTermios(fd, unix.TCGETS)
		if err != nil {
			return err
		}
		tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		tio.Oflag &^= unix.OPOST
		tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		return unix.IoctlSetTermios(fd, unix.TCSETS, tio)
	})
	d.host = h
}

// stop kills socat (SIGTERM: it removes its links) and waits for it.
// Idempotent.
func (d *socatDevice) stop() {
	if d.cmd == nil {
		return
	}
	_ = d.cmd.Process.Signal(unix.SIGTERM)
	_ = d.cmd.Wait() // exit status 143 by design
	_ = d.host.Close()
	d.cmd = nil
}

// readyWriter collects socat's log and closes ready when socat says it
// has entered its transfer loop (both PTYs and links exist).
type readyWriter struct {
	mu   sync.Mutex
	buf  bytes.Buffer
	once sync.Once

	ready chan struct{}
}

func (w *readyWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	sc := bufio.NewScanner(bytes.NewReader(w.buf.Bytes()))
	for sc.Scan() {
		if strings.Contains(sc.Text(), "starting data transfer loop") {
			w.once.Do(func() { close(w.ready) })
		}
	}
	return len(p), nil
}

func (w *readyWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// logEvents is a slog.Handler that passes each record's message to a
// channel, so that a test can wait for something the Conn only logs.
type logEvents chan string

func (l logEvents) Enabled(context.Context, slog.Level) bool { return true }
func (l logEvents) WithAttrs([]slog.Attr) slog.Handler       { return l }
func (l logEvents) WithGroup(string) slog.Handler            { return l }
func (l logEvents) Handle(_ context.Context, r slog.Record) error {
	select {
	case l <- r.Message:
	default: // nobody is waiting for this many: drop
	}
	return nil
}

// expect waits for a record with message msg, skipping others.
func (l logEvents) expect(t testing.TB, msg string) {
	t.Helper()
	timeout := time.After(testTimeout)
	for {
		select {
		case got := <-l:
			if got == msg {
				return
			}
		case <-timeout:
			t.Fatalf("no log record %q within %v", msg, testTimeout)
		}
	}
}
