package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
	"golang.org/x/sys/unix"
	"golang.org/x/term"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
	"github.com/ttymux/ttymux/transport/serial"
)

// fakeRouter plays a router's serial console on the master of a PTY pair:
// a boot log with CRLF line endings at full speed, a login prompt, then a
// BusyBox shell that echoes what it is sent and answers uname -a.
type fakeRouter struct {
	master *os.File
	tty    *os.File
	done   chan struct{}
}

const bootLines = 3000

func startRouter(t *testing.T, link string, boot bool) *fakeRouter {
	t.Helper()
	blocking, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	// creack/pty's master blocks, and then Close does not end a pending
	// Read: use a non-blocking duplicate the runtime poller handles.
	fd, err := unix.Dup(int(blocking.Fd()))
	if err != nil {
		t.Fatal(err)
	}
	_ = blocking.Close()
	if err := unix.SetNonblock(fd, true); err != nil {
		t.Fatal(err)
	}
	master := os.NewFile(uintptr(fd), "ptmx")
	// A real UART has no line discipline on the device's side: make the
	// pty raw now, so that the boot log written before ttymux opens and
	// configures the port is not echoed back to the device.
	if _, err := term.MakeRaw(int(tty.Fd())); err != nil {
		t.Fatal(err)
	}
	// Keep the port side open until unplug: with no slave open, the master
	// reads EIO, and the device would stop before ttymux (re)opens the port.
	name := tty.Name()
	_ = os.Remove(link)
	if err := os.Symlink(name, link); err != nil {
		t.Fatal(err)
	}
	r := &fakeRouter{master: master, tty: tty, done: make(chan struct{})}
	go r.run(boot)
	return r
}

func (r *fakeRouter) run(boot bool) {
	defer close(r.done)
	if boot {
		var log bytes.Buffer
		for i := 1; i <= bootLines; i++ {
			fmt.Fprintf(&log, "[%8.6f] boot: probing device %d ok\r\n", float64(i)/1000, i)
		}
		log.WriteString("\r\nOpenWrt 23.05 router ttyS0\r\n\r\nrouter login: ")
		if _, err := r.master.Write(log.Bytes()); err != nil {
			return
		}
	} else {
		_, _ = r.master.Write([]byte("\r\n# "))
	}
	buf := make([]byte, 256)
	var line []byte
	for {
		n, err := r.master.Read(buf)
		if err != nil {
			return
		}
		for _, c := range buf[:n] {
			if c != '\r' {
				line = append(line, c)
				_, _ = r.master.Write([]byte{c}) // the console echoes
				continue
			}
			var reply string
			switch strings.TrimSpace(string(line)) {
			case "root":
				reply = "\r\n\r\nBusyBox v1.36.1 built-in shell (ash)\r\n\r\n# "
			case "uname -a":
				reply = "\r\nLinux router 5.15.150 #0 SMP mips GNU/Linux\r\n# "
			default:
				reply = "\r\n# "
			}
			line = line[:0]
			if _, err := r.master.Write([]byte(reply)); err != nil {
				return
			}
		}
	}
}

// unplug closes the device side: the port reads EIO, as when a USB
// adapter is pulled.
func (r *fakeRouter) unplug() {
	_ = r.master.Close()
	_ = r.tty.Close()
	<-r.done
}

// TestSerialConsoleThroughMCP follows the serial issue's acceptance test:
// open_serial at 115200, the boot log read in full, root typed at login:,
// uname -a answered via the prompt, BREAK and DTR answered honestly, and
// unplugging then recreating the device ends in a working session.
func TestSerialConsoleThroughMCP(t *testing.T) {
	link := filepath.Join(t.TempDir(), "ttyUSB-router")
	router := startRouter(t, link, true)
	var mu sync.Mutex
	states := make(chan string, 16)
	m := session.NewManager(session.Options{
		Kinds: testKinds(map[string]transport.Opener{
			"local": &local.Opener{},
			"serial": &serial.Opener{OnLinkState: func(_, state string) {
				mu.Lock()
				defer mu.Unlock()
				states <- state
			}},
		}),
		StateDir: t.TempDir(),
	})
	t.Cleanup(m.CloseAll)
	cs := connect(t, newServer(m, nil), nil)

	var open OpenOut
	res := call(t, cs, "open_serial", map[string]any{"port": link, "baud": 115200}, &open)
	if res.IsError {
		t.Fatalf("open_serial: %s", resultText(res))
	}
	// The boot log is read in full: every line, in order, by range.
	var r session.Result
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "login: $", "timeout_ms": 10000}, &r)
	if !r.Complete {
		t.Fatalf("no login prompt: %+v", r)
	}
	seen := 0
	for from := int64(1); ; {
		var rr session.Result
		res := call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": from}, &rr)
		if res.IsError {
			t.Fatalf("range read: %s", resultText(res))
		}
		for _, l := range strings.Split(rr.Output, "\n") {
			if strings.Contains(l, "boot: probing device") {
				seen++
				if want := fmt.Sprintf("device %d ok", seen); !strings.HasSuffix(l, want) {
					t.Fatalf("boot line %d is %q", seen, l)
				}
			}
		}
		if !strings.Contains(rr.Note, "continue with from_line") {
			break
		}
		from = rr.LastLine + 1
	}
	if seen != bootLines {
		t.Fatalf("read %d boot lines, want %d", seen, bootLines)
	}

	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "root"}, &r)
	if !r.Complete || r.Via != "prompt" || !strings.Contains(r.Output, "BusyBox") {
		t.Fatalf("login: %+v", r)
	}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "uname -a"}, &r)
	if !r.Complete || r.Via != "prompt" || r.Output != "Linux router 5.15.150 #0 SMP mips GNU/Linux" {
		t.Fatalf("uname -a: complete=%v via=%q output=%q", r.Complete, r.Via, r.Output)
	}
	// BREAK works on this device; DTR does not exist on a pseudo-terminal
	// and the result says so plainly.
	if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "keys": []string{"break"}, "wait": false}, &r); res.IsError || !strings.Contains(r.Note, "BREAK") {
		t.Fatalf("break: %s", resultText(res))
	}
	if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "keys": []string{"dtr:pulse"}}, nil); !res.IsError || !strings.Contains(resultText(res), "no DTR line") {
		t.Fatalf("dtr on a pty: isError=%v %q", res.IsError, resultText(res))
	}

	// Unplug: the session stays, says disconnected; replug: it works again.
	router.unplug()
	waitState(t, states, transport.LinkDisconnected)
	var l ListOut
	call(t, cs, "list", map[string]any{}, &l)
	if len(l.Sessions) != 1 || l.Sessions[0].State != "disconnected" {
		t.Fatalf("list while unplugged: %+v", l.Sessions)
	}
	router = startRouter(t, link, false)
	defer router.unplug()
	waitState(t, states, transport.LinkUp)
	// The replugged console prints a prompt; typing before the server has
	// read it, the send's until would match it (a loaded machine).
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "# $", "timeout_ms": 30000}, &r)
	if !r.Complete {
		t.Fatalf("no prompt after replug: %+v", r)
	}
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "uname -a", "until": "# $"}, &r)
	if !r.Complete || !strings.Contains(r.Output, "Linux router") {
		t.Fatalf("after replug: %+v", r)
	}
	call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
}

func waitState(t *testing.T, states <-chan string, want string) {
	t.Helper()
	timeout := time.After(15 * time.Second)
	for {
		select {
		case s := <-states:
			if s == want {
				return
			}
		case <-timeout:
			t.Fatalf("link never became %s", want)
		}
	}
}
