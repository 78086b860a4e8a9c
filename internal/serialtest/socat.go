package serialtest

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// Socat is a device made by socat(1): two linked pseudo-terminals, the
// port at Path and the device's end at Host (opened raw). Unlike Device,
// its port is a separate program's terminal, as a USB adapter's is.
type Socat struct {
	Path string
	Host *os.File
	cmd  *exec.Cmd
}

// NeedSocat skips the test when socat is missing, except under CI, where
// it fails: CI installs it (apt-get install -y socat).
func NeedSocat(t testing.TB) {
	t.Helper()
	if _, err := exec.LookPath("socat"); err != nil {
		if os.Getenv("CI") != "" {
			t.Fatalf("socat is required under CI (apt-get install -y socat): %v", err)
		}
		t.Skip("socat not installed (apt-get install -y socat)")
	}
}

// NewSocat starts socat with the port at dir/name and waits until both
// ends exist. The test's cleanup stops it.
func NewSocat(t testing.TB, dir, name string) *Socat {
	t.Helper()
	NeedSocat(t)
	d := &Socat{Path: filepath.Join(dir, name)}
	host := filepath.Join(dir, name+".host")
	log := &readyLog{ready: make(chan struct{})}
	d.cmd = exec.Command("socat", "-d", "-d", "pty,rawer,link="+d.Path, "pty,rawer,link="+host)
	d.cmd.Stderr = log
	if err := d.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(d.stop)
	select {
	case <-log.ready:
	case <-time.After(15 * time.Second):
		t.Fatalf("socat not ready: %s", log)
	}
	h, err := os.OpenFile(host, os.O_RDWR|unix.O_NOCTTY|unix.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	rc, err := h.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	var rerr error
	_ = rc.Control(func(fd uintptr) {
		tio, err := unix.IoctlGetTermios(int(fd), unix.TCGETS)
		if err != nil {
			rerr = err
			return
		}
		tio.Iflag &^= unix.IGNBRK | unix.BRKINT | unix.PARMRK | unix.ISTRIP | unix.INLCR | unix.IGNCR | unix.ICRNL | unix.IXON
		tio.Oflag &^= unix.OPOST
		tio.Lflag &^= unix.ECHO | unix.ECHONL | unix.ICANON | unix.ISIG | unix.IEXTEN
		rerr = unix.IoctlSetTermios(int(fd), unix.TCSETS, tio)
	})
	if rerr != nil {
		t.Fatal(rerr)
	}
	d.Host = h
	return d
}

// stop kills socat (SIGTERM: it removes its links) and waits for it.
func (d *Socat) stop() {
	_ = d.cmd.Process.Signal(unix.SIGTERM)
	_ = d.cmd.Wait() // exit status 143 by design
	if d.Host != nil {
		_ = d.Host.Close()
	}
}

// readyLog collects socat's log and closes ready once socat has entered
// its transfer loop (both pseudo-terminals and links exist).
type readyLog struct {
	mu    sync.Mutex
	buf   bytes.Buffer
	once  sync.Once
	ready chan struct{}
}

func (w *readyLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if strings.Contains(w.buf.String(), "starting data transfer loop") {
		w.once.Do(func() { close(w.ready) })
	}
	return len(p), nil
}

func (w *readyLog) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}
