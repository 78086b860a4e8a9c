package agentd

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ptyproc"
	"github.com/ttymux/ttymux/internal/serialport"
)

// A device is what a session holds and reads: a program on a PTY
// (ptyDevice) or a serial port (serialDevice). The session never asks which
// one it has: each operation is the device's, and a device answers an
// operation it has no use for with errNoSuch (a port has no window or
// processes, a PTY no BREAK or modem lines). A new kind of session is one
// more device.
type device interface {
	io.ReadWriter
	// end works out the Exit once the session's reader has seen the end
	// of the output (rerr), releasing the device if it is not already.
	end(rerr error) agentproto.Exit
	// hangup releases the device: a PTY's master is closed (the kernel
	// sends SIGHUP; ptyproc kills and reaps the program), a port is
	// closed. It may be called more than once.
	hangup()
	// ended logs why the session's output ended (exit, bytes in all).
	ended(exit agentproto.Exit, bytes int64)
	// foreground reads the foreground process group and the ECHO flag;
	// ok is false when the device has none or could not tell.
	foreground() (pgid int, name string, echo, ok bool)
	confined() int
	resize(rows, cols int) error
	signal(name string) error
	sendBreak(millis int64) error
	setModem(line string, on bool) error
}

// errNoSuch is a device's answer to an operation it cannot have.
var errNoSuch = errors.New("not for this kind of session")

// ptyDevice is a program on a PTY.
type ptyDevice struct {
	proc *ptyproc.Proc
	log  *slog.Logger
}

func (d *ptyDevice) Read(p []byte) (int, error)  { return d.proc.Read(p) }
func (d *ptyDevice) Write(p []byte) (int, error) { return d.proc.Write(p) }

func (d *ptyDevice) end(rerr error) agentproto.Exit {
	if !errors.Is(rerr, io.EOF) {
		// Hung up (Kill, shutdown) or a broken PTY: make sure the child
		// goes, so that Wait returns.
		if !errors.Is(rerr, os.ErrClosed) {
			d.log.Warn("read pty", "err", rerr)
		}
		d.hangup()
	}
	return exitOf(d.proc.Wait())
}

func (d *ptyDevice) hangup() {
	if err := d.proc.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		d.log.Debug("hang up", "err", err)
	}
}

func (d *ptyDevice) ended(exit agentproto.Exit, bytes int64) {
	d.log.Info("child exited", "status", exit.Status, "signal", exit.Signal, "bytes", bytes)
}

func (d *ptyDevice) foreground() (int, string, bool, bool) {
	pgid, name, err := d.proc.Foreground()
	if err != nil || pgid <= 0 {
		return 0, "", false, false // hung up or exited: the Exit says the rest
	}
	echo, err := d.proc.Echo()
	if err != nil {
		return 0, "", false, false
	}
	return pgid, name, echo, true
}

func (d *ptyDevice) confined() int { return d.proc.Confined() }

func (d *ptyDevice) resize(rows, cols int) error { return d.proc.Resize(rows, cols) }

func (d *ptyDevice) signal(name string) error {
	sig, ok := ptyproc.SignalByName(name)
	if !ok {
		return errors.New("unknown signal " + name)
	}
	return d.proc.Signal(sig)
}

func (d *ptyDevice) sendBreak(int64) error       { return errNoSuch }
func (d *ptyDevice) setModem(string, bool) error { return errNoSuch }

// serialDevice is a serial port (serial.go opens it).
type serialDevice struct {
	port *serialport.Port
	log  *slog.Logger
}

func (d *serialDevice) Read(p []byte) (int, error)  { return d.port.Read(p) }
func (d *serialDevice) Write(p []byte) (int, error) { return d.port.Write(p) }

// end closes the port once its reader has stopped (rerr) and says why the
// session ended: closed (Kill, shutdown) is a plain Exit; a device that
// went away without Reconnect is an Exit with a Message.
func (d *serialDevice) end(rerr error) agentproto.Exit {
	d.hangup()
	err := d.port.Wait()
	if err == nil && !errors.Is(rerr, os.ErrClosed) {
		err = rerr // a read error other than the close
	}
	if err == nil {
		return agentproto.Exit{}
	}
	// 255, as ssh(1) reports an unknown status, for clients that predate
	// Message.
	return agentproto.Exit{Status: 255, Message: err.Error()}
}

func (d *serialDevice) hangup() {
	if err := d.port.Close(); err != nil && !errors.Is(err, os.ErrClosed) {
		d.log.Debug("close serial port", "err", err)
	}
}

func (d *serialDevice) ended(exit agentproto.Exit, bytes int64) {
	d.log.Info("serial port closed", "why", exit.Message, "bytes", bytes)
}

// A port has no processes, no window and no confinement.
func (d *serialDevice) foreground() (int, string, bool, bool) { return 0, "", false, false }
func (d *serialDevice) confined() int                         { return 0 }
func (d *serialDevice) resize(int, int) error                 { return errNoSuch }
func (d *serialDevice) signal(string) error                   { return errNoSuch }

func (d *serialDevice) sendBreak(millis int64) error {
	dur, err := breakLength(millis)
	if err != nil {
		return err
	}
	return d.port.Break(context.Background(), dur)
}

func (d *serialDevice) setModem(line string, on bool) error {
	return d.port.SetModemLine(serialport.ModemLine(strings.ToLower(line)), on)
}
