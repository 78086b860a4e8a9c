//go:build linux

package serial_test

import (
	"bufio"
	"bytes"
	"fmt"
	"io"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// bootLog returns about n bytes of a router's boot log: U-Boot, then the
// kernel, with CRLF line endings as a serial console sends them.
func bootLog(n int) string {
	msgs := []string{
		"Booting Linux on physical CPU 0x0",
		"Linux version 5.15.137 (builder@buildhost) (mipsel-openwrt-linux-musl-gcc (OpenWrt GCC 12.3.0 r23630-842932a63d) 12.3.0) #0 SMP Tue Nov 14 13:38:11 2023",
		"SoC Type: MediaTek MT7621 ver:1 eco:3",
		"Memory: 245364K/262144K available (7148K kernel code, 628K rwdata, 1568K rodata, 1252K init, 233K bss)",
		"spi-mt7621 1e000b00.spi: sys_freq: 220000000",
		"8 fixed-partitions partitions found on MTD device spi0.0",
		"mt7530 mdio-bus:1f: MT7530 adapts as multi-chip module",
		"VFS: Mounted root (squashfs filesystem) readonly on device 31:5.",
		"\x1b[0;32mOK\x1b[0m  tab\there, a NUL \x00 and a DEL \x7f survive too",
		"procd: - early -",
	}
	var b strings.Builder
	b.WriteString("\r\nU-Boot 2018.09 (Nov 14 2023 - 13:38:11 +0000)\r\n\r\nCPU:   MediaTek MT7621AT ver 1, eco 3\r\nDRAM:  256 MiB\r\nHit any key to stop autoboot:  0 \r\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "[%5d.%06d] %s\r\n", i/500, (i*7919)%1000000, msgs[i%len(msgs)])
	}
	return b.String()
}

const (
	busyboxBanner = "\r\n\r\nBusyBox v1.36.1 (2023-11-14 13:38:11 UTC) built-in shell (ash)\r\n\r\n"
	prompt        = "# "
	unameLine     = "Linux OpenWrt 5.15.137 #0 SMP Tue Nov 14 13:38:11 2023 mips GNU/Linux\r\n"
)

// console plays a router on a fake device's master: it prints its boot
// log at full speed, asks "login: ", and after "root\r" gives a BusyBox
// shell that answers uname -a. Like a real getty and shell it echoes what
// it reads, CR as CRLF. It records every byte it sent and read.
type console struct {
	mu sync.Mutex
	// mu protects the following.
	sent bytes.Buffer
	read bytes.Buffer

	done chan struct{}
	err  error // why the script ended; set before done is closed
	took time.Duration
}

func playConsole(t *testing.T, master *os.File, log string) *console {
	c := &console{done: make(chan struct{})}
	go func() {
		defer close(c.done)
		c.err = c.run(master, log)
	}()
	t.Cleanup(func() {
		_ = master.Close() // ends the script's pending Read
		<-c.done
	})
	return c
}

func (c *console) send(w io.Writer, s string) error {
	c.mu.Lock()
	c.sent.WriteString(s)
	c.mu.Unlock()
	_, err := io.WriteString(w, s)
	return err
}

// line reads a line ended by CR, echoing as it goes.
func (c *console) line(r *bufio.Reader, w io.Writer) (string, error) {
	var l []byte
	for {
		b, err := r.ReadByte()
		if err != nil {
			return "", err
		}
		c.mu.Lock()
		c.read.WriteByte(b)
		c.mu.Unlock()
		if b == '\r' {
			return string(l), c.send(w, "\r\n")
		}
		l = append(l, b)
		if err := c.send(w, string(b)); err != nil {
			return "", err
		}
	}
}

func (c *console) run(master *os.File, log string) error {
	start := time.Now()
	// Write in 4 KiB pieces, as a UART driver's FIFO refills do, without
	// pausing.
	for s := log; len(s) > 0; {
		n := min(len(s), 4096)
		if err := c.send(master, s[:n]); err != nil {
			return err
		}
		s = s[n:]
	}
	c.took = time.Since(start)
	if err := c.send(master, "\r\nOpenWrt 23.05.2 OpenWrt /dev/ttyS1\r\n\r\nOpenWrt login: "); err != nil {
		return err
	}
	r := bufio.NewReader(master)
	for {
		user, err := c.line(r, master)
		if err != nil {
			return err
		}
		if user == "root" {
			break
		}
		if err := c.send(master, "Login incorrect\r\nOpenWrt login: "); err != nil {
			return err
		}
	}
	if err := c.send(master, busyboxBanner+prompt); err != nil {
		return err
	}
	for {
		cmd, err := c.line(r, master)
		if err != nil {
			return err
		}
		out := "-ash: " + cmd + ": not found\r\n"
		if cmd == "uname -a" {
			out = unameLine
		}
		if err := c.send(master, out+prompt); err != nil {
			return err
		}
	}
}

func (c *console) transcript() (sent, read string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sent.String(), c.read.String()
}

// TestConsoleSession drives a scripted router console: a 200 KB boot log
// with CRLF endings at full speed, a login, a BusyBox prompt and a command.
// Both directions must arrive byte for byte.
func TestConsoleSession(t *testing.T) {
	checkGoroutines(t)
	d := newDevice(t)
	c := open(t, &serial.Opener{}, d.Port, transport.SerialParams{Baud: 115200, Reconnect: true})
	out := collect(t, c)
	log := bootLog(200 << 10)
	dev := playConsole(t, d.Master, log)

	start := time.Now()
	out.waitFor(t, "OpenWrt login: ")
	elapsed := time.Since(start)
	write(t, c, "root\r")
	out.waitFor(t, busyboxBanner+prompt)
	write(t, c, "uname -a\r")
	got := out.waitFor(t, "uname -a\r\n"+unameLine+prompt)

	sent, read := dev.transcript()
	if got != sent {
		t.Errorf("the Conn read %d bytes, the device sent %d; first difference at byte %d", len(got), len(sent), firstDiff(got, sent))
	}
	if !strings.HasPrefix(got, log) {
		t.Error("the boot log did not arrive intact")
	}
	if want := "root\runame -a\r"; read != want {
		t.Errorf("the device read %q, want %q", read, want)
	}
	t.Logf("boot log: %d bytes in %v (%.1f MB/s to login)", len(log), elapsed, float64(len(log))/elapsed.Seconds()/1e6)
}

func firstDiff(a, b string) int {
	for i := range min(len(a), len(b)) {
		if a[i] != b[i] {
			return i
		}
	}
	return min(len(a), len(b))
}
