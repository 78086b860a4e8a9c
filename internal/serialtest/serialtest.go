// Package serialtest plays serial devices for tests of the packages that
// hold serial ports (internal/serialport's users: transport/serial, the
// agent, and the layers above them). A Device is a PTY pair: its slave is
// the port, reached through a symbolic link as udev's /dev/serial/by-id
// links are, and its master is the device's side, which a test reads and
// writes. Unplugging removes the link and closes both ends, so whoever has
// the port open reads a hangup, as when a USB adapter is pulled; a new
// Device at the same path is the device plugged back in. It is imported
// only by tests.
package serialtest

import (
	"os"
	"testing"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"
)

// Device is a fake serial device. See the package doc.
type Device struct {
	// Master is the device's end: non-blocking and pollable, so that
	// closing it unblocks a pending Read.
	Master *os.File
	// Path is the link to the port: what to open.
	Path string
	// tty keeps the slave open until Unplug, so that the master does not
	// read EIO before or between opens of the port.
	tty *os.File
}

// New makes a device whose port is reached at path (a symbolic link it
// creates). The slave is raw from the start, as a UART has no line
// discipline on the device's side: what the device writes before the port
// is opened is neither echoed back nor translated. The test's cleanup
// unplugs it.
func New(t testing.TB, path string) *Device {
	t.Helper()
	m, tty, err := pty.Open()
	if err != nil {
		t.Fatalf("serialtest: pty.Open: %v", err)
	}
	// creack/pty calls Fd on the master, which leaves it blocking: a
	// pending Read would then survive Close. Use a non-blocking copy.
	fd, err := unix.Dup(int(m.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_ = m.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	master := os.NewFile(uintptr(fd), "ptmx")
	// Fd leaves tty blocking, which does not matter: nobody reads it.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatalf("serialtest: raw slave: %v", err)
	}
	_ = os.Remove(path) // a stale link from an earlier device
	if err := os.Symlink(tty.Name(), path); err != nil {
		t.Fatal(err)
	}
	d := &Device{Master: master, Path: path, tty: tty}
	t.Cleanup(d.Unplug)
	return d
}

// Unplug removes the link and closes both ends: the port reads a hangup
// and its path is gone until a new Device is made there. It is
// idempotent.
func (d *Device) Unplug() {
	if target, err := os.Readlink(d.Path); err == nil && target == d.tty.Name() {
		_ = os.Remove(d.Path) // only our own link: a new Device may own the path
	}
	_ = d.Master.Close() // a second Close returns ErrClosed
	_ = d.tty.Close()
}

// Write sends s from the device, failing the test if it cannot.
func (d *Device) Write(t testing.TB, s string) {
	t.Helper()
	if _, err := d.Master.Write([]byte(s)); err != nil {
		t.Fatalf("serialtest: device write: %v", err)
	}
}
