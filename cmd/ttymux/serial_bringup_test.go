package main

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"golang.org/x/sys/unix"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/serial"
)

// Serial bring-up (issue #21): timestamps, hex, pacing, modem lines on
// open, port rules, the wrong-baud note. Devices are pseudo-terminal pairs
// (internal/serialtest) and socat links.

// bringUp serves a server with a serial opener and the policy p (nil: the
// default).
func bringUp(t *testing.T, p *policy.Policy) *mcp.ClientSession {
	t.Helper()
	m := session.NewManager(session.Options{
		Kinds:    testKinds(map[string]transport.Opener{"serial": &serial.Opener{}}),
		StateDir: t.TempDir(),
		Policy:   p,
	})
	t.Cleanup(m.CloseAll)
	return connect(t, newServer(m, nil), nil)
}

func openSerialOK(t *testing.T, cs *mcp.ClientSession, args map[string]any) OpenOut {
	t.Helper()
	var open OpenOut
	if res := call(t, cs, "open_serial", args, &open); res.IsError {
		t.Fatalf("open_serial %v: %s", args, resultText(res))
	}
	return open
}

// stampRe matches a line read with timestamps "iso".
var stampRe = regexp.MustCompile(`^\[(\S+)\] (.*)$`)

// relRe matches a line read with timestamps true.
var relRe = regexp.MustCompile(`^\[ *([0-9.]+)\] (.*)$`)

// TestSerialTimestampsMatchBursts: a device prints a boot log in bursts
// and notes when it wrote each; every line's stamp lies between its
// burst's write (ms precision: up to 1 ms before) and the moment a read
// showed the burst, whatever the machine's load. The stamps
// are kept for the whole log: they are read back by range after the lines
// were read once without them.
func TestSerialTimestampsMatchBursts(t *testing.T) {
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	cs := bringUp(t, nil)
	open := openSerialOK(t, cs, map[string]any{"port": dev.Path})
	const bursts, perBurst = 5, 3
	type window struct{ before, after time.Time }
	var written []window
	for i := range bursts {
		if i > 0 {
			// The device's own timing is what is measured: boot phases
			// some time apart.
			time.Sleep(120 * time.Millisecond)
		}
		var b strings.Builder
		for j := range perBurst {
			fmt.Fprintf(&b, "phase %d line %d\r\n", i, j)
		}
		before := time.Now()
		dev.Write(t, b.String())
		// The burst is stamped when the server reads it: no later than
		// when a read shows it. (A fixed tolerance after the write fails
		// on a loaded machine, where the server reads late.)
		var r session.Result
		call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": fmt.Sprintf("phase %d line %d", i, perBurst-1), "timeout_ms": 30000}, &r)
		if !r.Complete {
			t.Fatalf("phase %d not read: %+v", i, r)
		}
		written = append(written, window{before, time.Now()})
	}
	var r session.Result

	// ISO stamps: absolute, against the device's clock (the same one).
	res := call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": 1, "timestamps": "iso"}, &r)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	lines := strings.Split(r.Output, "\n")
	if len(lines) != bursts*perBurst {
		t.Fatalf("%d lines, want %d:\n%s", len(lines), bursts*perBurst, r.Output)
	}
	first := map[int]time.Time{}
	for _, l := range lines {
		m := stampRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line without a stamp: %q", l)
		}
		at, err := time.Parse("2006-01-02T15:04:05.000Z07:00", m[1])
		if err != nil {
			t.Fatalf("stamp %q: %v", m[1], err)
		}
		var i, j int
		if _, err := fmt.Sscanf(m[2], "phase %d line %d", &i, &j); err != nil {
			t.Fatalf("line %q: %v", m[2], err)
		}
		w := written[i]
		// The stamp is cut to the millisecond: up to 1 ms before the write.
		if at.Before(w.before.Add(-time.Millisecond)) || at.After(w.after) {
			t.Errorf("%q stamped %s; the device wrote it at %s and a read showed it at %s",
				m[2], at.Format("15:04:05.000"), w.before.Format("15:04:05.000"), w.after.Format("15:04:05.000"))
		}
		if _, ok := first[i]; !ok {
			first[i] = at
		}
	}

	// Relative stamps are the same stamps, counted from the session's
	// start.
	call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "range", "from_line": 1, "timestamps": true}, &r)
	var rel []float64
	for _, l := range strings.Split(r.Output, "\n") {
		m := relRe.FindStringSubmatch(l)
		if m == nil {
			t.Fatalf("line without a relative stamp: %q", l)
		}
		v, _ := strconv.ParseFloat(m[1], 64)
		rel = append(rel, v)
	}
	for i := 1; i < bursts; i++ {
		got := time.Duration((rel[i*perBurst] - rel[0]) * float64(time.Second))
		want := first[i].Sub(first[0])
		if d := got - want; d < -2*time.Millisecond || d > 2*time.Millisecond {
			t.Errorf("phase %d starts %v after phase 0 in relative stamps, %v in ISO ones", i, got, want)
		}
	}

	// New output, mode new, with stamps.
	dev.Write(t, "Starting kernel ...\r\n")
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "kernel", "timestamps": true, "timeout_ms": 10000}, &r)
	if !relRe.MatchString(r.Output) || !strings.Contains(r.Output, "] Starting kernel ...") {
		t.Errorf("new output with timestamps: %q", r.Output)
	}
	if res := call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "screen", "timestamps": true}, nil); !res.IsError {
		t.Errorf("timestamps on the screen: %s", resultText(res))
	}
	if res := call(t, cs, "read", map[string]any{"session_id": open.ID, "timestamps": "utc"}, nil); !res.IsError || !strings.Contains(resultText(res), `"iso"`) {
		t.Errorf("timestamps utc: %s", resultText(res))
	}
}

// parseDump reads bytes back from a hex dump, checking each row's offset.
func parseDump(t *testing.T, dump string, from int64) []byte {
	t.Helper()
	var out []byte
	for _, row := range strings.Split(dump, "\n") {
		if row == "" {
			continue
		}
		off, err := strconv.ParseInt(row[:8], 16, 64)
		if err != nil || off != from+int64(len(out)) {
			t.Fatalf("row %q: offset %d, want %d (%v)", row, off, from+int64(len(out)), err)
		}
		hexPart := row[8:strings.Index(row, "  |")]
		b, err := hex.DecodeString(strings.Join(strings.Fields(hexPart), ""))
		if err != nil {
			t.Fatalf("row %q: %v", row, err)
		}
		out = append(out, b...)
	}
	return out
}

// TestSerialHexReadAndSend: a binary burst read as a hex dump is the bytes
// the device sent, every value 0-255; hex paging goes on where it left
// off; send {hex} types exactly its bytes; bad hex is refused plainly.
func TestSerialHexReadAndSend(t *testing.T) {
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	cs := bringUp(t, nil)
	open := openSerialOK(t, cs, map[string]any{"port": dev.Path})
	burst := make([]byte, 0, 5000)
	for i := range 5000 {
		burst = append(burst, byte(i*7+i/256))
	}
	if _, err := dev.Master.Write(burst); err != nil {
		t.Fatal(err)
	}
	var got []byte
	var r session.Result
	// The output not read yet, waited for, at most 4096 bytes a call.
	for len(got) < len(burst) {
		res := call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "hex", "wait": true, "timeout_ms": 10000, "detail": true}, &r)
		if res.IsError || r.Mode != "hex" || r.Output == "" {
			t.Fatalf("hex read after %d bytes: %s", len(got), resultText(res))
		}
		got = append(got, parseDump(t, r.Output, r.Offset)...)
		if r.NextOffset-r.Offset == 4096 && !strings.Contains(r.Note, "more bytes follow") {
			t.Fatalf("a full dump without a note: %+v", r)
		}
	}
	if !bytes.Equal(got, burst) {
		t.Fatalf("hex dump of %d bytes differs from the burst", len(got))
	}
	// From a line, and from an offset.
	call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "hex", "from_line": 1}, &r)
	if b := parseDump(t, r.Output, 0); !bytes.Equal(b, burst[:4096]) || !strings.Contains(r.Note, `"from_offset":4096`) {
		t.Fatalf("from_line 1: %d bytes, note %q", len(b), r.Note)
	}
	call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "hex", "from_offset": 4000}, &r)
	if b := parseDump(t, r.Output, 4000); !bytes.Equal(b, burst[4000:]) {
		t.Fatalf("from_offset 4000: %d bytes differ", len(b))
	}
	if res := call(t, cs, "read", map[string]any{"session_id": open.ID, "mode": "hex", "from_offset": 4000, "timestamps": true}, &r); res.IsError || !strings.HasPrefix(r.Output, "[") {
		t.Errorf("hex with timestamps: %s", resultText(res))
	}

	// send {hex}: exactly these bytes, CR and NUL included.
	res := call(t, cs, "send", map[string]any{"session_id": open.ID, "hex": "de ad BE EF 00 0d 0a", "wait": false}, &r)
	if res.IsError {
		t.Fatal(resultText(res))
	}
	want := []byte{0xde, 0xad, 0xbe, 0xef, 0, '\r', '\n'}
	if b := readN(t, dev.Master, len(want)); !bytes.Equal(b, want) {
		t.Fatalf("device got % x, want % x", b, want)
	}
	for _, bad := range []struct{ hex, want string }{
		{"abc", "odd number of digits"},
		{"0q", "not a hex digit"},
	} {
		res := call(t, cs, "send", map[string]any{"session_id": open.ID, "hex": bad.hex}, nil)
		if !res.IsError || !strings.Contains(resultText(res), bad.want) {
			t.Errorf("hex %q: %s", bad.hex, resultText(res))
		}
	}
}

// readN reads n bytes from the device's end, bounded.
func readN(t *testing.T, f *os.File, n int) []byte {
	t.Helper()
	_ = f.SetReadDeadline(time.Now().Add(15 * time.Second))
	defer f.SetReadDeadline(time.Time{})
	buf := make([]byte, 0, n)
	tmp := make([]byte, 256)
	for len(buf) < n {
		k, err := f.Read(tmp)
		buf = append(buf, tmp[:k]...)
		if err != nil {
			t.Fatalf("device read after %d bytes: %v", len(buf), err)
		}
	}
	return buf
}

// slowDevice is a bootloader that polls its UART: the line delivers bytes
// into a 1 KiB input buffer as fast as they come, and the firmware takes
// 16 bytes from it, then is busy for 2 ms. What arrives while the buffer is
// full is lost, as in a UART's overrun. The pseudo-terminal has no baud
// rate, so an unpaced paste arrives at once and overruns the buffer.
//
// A real device has a CPU of its own; this one runs in a process of its own
// (TestSlowDeviceProcess, this test binary again) at the highest priority
// when the test may set it (nice -n -20, as root), so that a busy machine
// does not stall its firmware while bytes pile up. A paste paced at 1 ms a
// character fills the buffer only after a stall of a second.
type slowDevice struct {
	dev     *serialtest.Device
	stdin   io.WriteCloser
	results chan string
}

const (
	slowBuffer   = 1024
	slowTake     = 16
	slowBusy     = 2 * time.Millisecond
	slowDeviceEV = "TTYMUX_SLOW_DEVICE"
)

func newSlowDevice(t *testing.T) *slowDevice {
	d := &slowDevice{dev: serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0")), results: make(chan string, 4)}
	args := []string{os.Args[0], "-test.run=^TestSlowDeviceProcess$"}
	if nice, err := exec.LookPath("nice"); err == nil {
		args = append([]string{nice, "-n", "-20"}, args...) // it runs the command even where it may not raise the priority
	}
	cmd := exec.Command(args[0], args[1:]...)
	cmd.Env = append(os.Environ(), slowDeviceEV+"=1")
	cmd.ExtraFiles = []*os.File{d.dev.Master}
	var err error
	if d.stdin, err = cmd.StdinPipe(); err != nil {
		t.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if r, ok := strings.CutPrefix(sc.Text(), "slowdev "); ok {
				d.results <- r
			}
		}
	}()
	t.Cleanup(func() {
		_ = d.stdin.Close() // the device ends
		<-done
		_ = cmd.Wait()
	})
	return d
}

// delivery is what the firmware reports about one paste.
type delivery struct {
	got, dropped int
	intact       bool
	batch        int           // the largest read: bytes the line delivered at once
	gap          time.Duration // the longest time between reads while busy
}

func (r delivery) String() string {
	return fmt.Sprintf("%d bytes arrived, %d dropped, intact %v, largest read %d bytes, longest time between reads %v", r.got, r.dropped, r.intact, r.batch, r.gap)
}

// bunched reports whether the pseudo-terminal held bytes back and handed
// them over at once: a read of more than 256 bytes from a paste paced at
// 1 ms a character means the line stood still for a quarter second. The
// kernel moves a pseudo-terminal's bytes in a worker thread that a loaded
// machine can starve; a real UART has no such stall.
func (r delivery) bunched() bool { return r.batch > 256 }

// receive tells the device a paste of typed is coming and returns a
// function that waits until it has all arrived (or been lost) and reports
// what the firmware got.
func (d *slowDevice) receive(t *testing.T, typed string) func() delivery {
	t.Helper()
	sum := sha256.Sum256([]byte(typed))
	if _, err := fmt.Fprintf(d.stdin, "%d %x\n", len(typed), sum); err != nil {
		t.Fatal(err)
	}
	return func() delivery {
		t.Helper()
		select {
		case r := <-d.results:
			var dv delivery
			var gapUS int64
			if _, err := fmt.Sscan(r, &dv.got, &dv.dropped, &dv.intact, &dv.batch, &gapUS); err != nil {
				t.Fatalf("device said %q: %v", r, err)
			}
			dv.gap = time.Duration(gapUS) * time.Microsecond
			return dv
		case <-time.After(60 * time.Second):
			t.Fatal("the device did not receive the paste")
		}
		return delivery{}
	}
}

// pacedPaste sends text paced and returns what the device got. A drop
// while the pseudo-terminal bunched the bytes says nothing about the
// pacing, so such a run is tried again (up to three times); a drop without
// bunching is returned as it is.
func (d *slowDevice) pacedPaste(t *testing.T, cs *mcp.ClientSession, args map[string]any, typed string) delivery {
	t.Helper()
	var dv delivery
	for try := 1; try <= 3; try++ {
		wait := d.receive(t, typed)
		if res := call(t, cs, "send", args, nil); res.IsError {
			t.Fatal(resultText(res))
		}
		if dv = wait(); dv.dropped == 0 || !dv.bunched() {
			return dv
		}
		t.Logf("try %d: the pseudo-terminal held the paste back (%s); again", try, dv)
	}
	return dv
}

// TestSlowDeviceProcess is not a test: it is slowDevice's firmware, run in
// a process of its own with the device's end of the pseudo-terminal as
// file 3. Each line on stdin announces a paste (its length and sha256); once
// it has arrived the device prints "slowdev <bytes the firmware got>
// <bytes lost> <intact> <largest read> <longest gap>".
func TestSlowDeviceProcess(t *testing.T) {
	if os.Getenv(slowDeviceEV) != "1" {
		return
	}
	master := os.NewFile(3, "ptmx")
	rc, err := master.SyscallConn()
	if err != nil {
		t.Fatal(err)
	}
	type paste struct {
		n   int
		sum string
	}
	pastes := make(chan paste)
	go func() {
		defer close(pastes)
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			var p paste
			if _, err := fmt.Sscan(sc.Text(), &p.n, &p.sum); err == nil {
				pastes <- p
			}
		}
	}()
	buf := make([]byte, 8192)
	for p := range pastes {
		var fifo, got []byte
		seen, dropped, batch := 0, 0, 0
		var gap time.Duration
		last := time.Now()
		for seen < p.n || len(fifo) > 0 {
			var n int
			var rerr error
			if len(fifo) == 0 {
				// Nothing to do: wait for the line.
				_ = master.SetReadDeadline(time.Now().Add(30 * time.Second))
				n, rerr = master.Read(buf)
			} else {
				// Busy: whatever came meanwhile, without waiting.
				if err := rc.Read(func(fd uintptr) bool { n, rerr = unix.Read(int(fd), buf); return true }); err != nil {
					rerr = err
				}
				if errors.Is(rerr, unix.EAGAIN) {
					n, rerr = 0, nil
				}
				gap = max(gap, time.Since(last))
			}
			last = time.Now()
			if rerr != nil {
				break
			}
			batch = max(batch, n)
			keep := min(n, slowBuffer-len(fifo))
			fifo = append(fifo, buf[:keep]...)
			dropped += n - keep
			seen += n
			take := min(slowTake, len(fifo))
			got = append(got, fifo[:take]...)
			fifo = fifo[take:]
			if take > 0 {
				time.Sleep(slowBusy) // the firmware is busy with what it took
			}
		}
		sum := sha256.Sum256(got)
		fmt.Printf("slowdev %d %d %v %d %d\n", len(got), dropped, fmt.Sprintf("%x", sum) == p.sum, batch, gap.Microseconds())
	}
}

// paste is about n bytes of text, in lines of 64 with the line ending
// typed as CR.
func paste(n int) (text, typed string) {
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "setenv var%04d 0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJ\n", i)
	}
	text = b.String()[:n-1] + "\n"
	return text, strings.ReplaceAll(text, "\n", "\r")
}

// TestSerialPacedPasteArrivesComplete: a 4 KiB paste into a device that
// takes 16 bytes and then is busy loses much of it when typed at once, and
// arrives complete when open_serial paces it at 1 ms a character, or a
// send's own pacing at 40 ms a line.
func TestSerialPacedPasteArrivesComplete(t *testing.T) {
	d := newSlowDevice(t)
	cs := bringUp(t, nil)
	text, typed := paste(4096)

	// Unpaced: the loss is real.
	plain := openSerialOK(t, cs, map[string]any{"port": d.dev.Path})
	wait := d.receive(t, typed)
	if res := call(t, cs, "send", map[string]any{"session_id": plain.ID, "text": text, "enter": false, "wait": false}, nil); res.IsError {
		t.Fatal(resultText(res))
	}
	if dv := wait(); dv.dropped == 0 || dv.intact {
		t.Fatalf("unpaced paste: %s; the device should have lost bytes", dv)
	} else {
		t.Logf("unpaced: %d of %d bytes arrived", dv.got, len(typed))
	}

	// The same session, this send paced by lines: 64 bytes, then 40 ms.
	dv := d.pacedPaste(t, cs, map[string]any{"session_id": plain.ID, "text": text, "enter": false, "wait": false, "line_delay_ms": 40}, typed)
	if !dv.intact || dv.dropped != 0 {
		t.Fatalf("send paced at 40 ms a line: %s", dv)
	}
	call(t, cs, "close", map[string]any{"session_id": plain.ID}, nil)

	// Paced by open_serial: 4 KiB arrive complete, in order.
	paced := openSerialOK(t, cs, map[string]any{"port": d.dev.Path, "char_delay_ms": 1, "line_delay_ms": 5})
	start := time.Now()
	dv = d.pacedPaste(t, cs, map[string]any{"session_id": paced.ID, "text": text, "enter": false, "wait": false}, typed)
	if !dv.intact || dv.dropped != 0 {
		t.Fatalf("paced paste: %s", dv)
	}
	t.Logf("paced: %d bytes complete in %v", dv.got, time.Since(start).Round(time.Millisecond))

	for _, bad := range []map[string]any{
		{"port": d.dev.Path, "char_delay_ms": -1},
		{"port": d.dev.Path, "line_delay_ms": 60000},
	} {
		if res := call(t, cs, "open_serial", bad, nil); !res.IsError || !strings.Contains(resultText(res), "char_delay_ms must be") {
			t.Errorf("open_serial %v: %s", bad, resultText(res))
		}
	}
}

// TestSerialDTROffOpensSocat: open_serial with dtr and rts off opens a
// socat-made port (which, being a pseudo-terminal, has no modem lines: the
// ioctls are answered ENOTTY and the open goes on; internal/serialport's
// TestOpenModemLines checks the calls made) and the console works.
func TestSerialDTROffOpensSocat(t *testing.T) {
	sd := serialtest.NewSocat(t, t.TempDir(), "ttyACM0")
	cs := bringUp(t, nil)
	for _, lines := range []map[string]any{{"dtr": "off", "rts": "off"}, {"dtr": "keep", "rts": "keep"}} {
		args := map[string]any{"port": sd.Path, "persistent": true}
		for k, v := range lines {
			args[k] = v
		}
		open := openSerialOK(t, cs, args)
		if open.Persistent {
			t.Errorf("%v: persistent without an agent that honours the lines", lines)
		}
		if res := call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "version", "wait": false}, nil); res.IsError {
			t.Fatal(resultText(res))
		}
		if got := readN(t, sd.Host, len("version\r")); string(got) != "version\r" {
			t.Fatalf("device got %q", got)
		}
		call(t, cs, "close", map[string]any{"session_id": open.ID}, nil)
	}
	if res := call(t, cs, "open_serial", map[string]any{"port": sd.Path, "dtr": "low"}, nil); !res.IsError || !strings.Contains(resultText(res), `dtr "low" is not allowed`) {
		t.Errorf("dtr low: %s", resultText(res))
	}
}

// TestSerialWrongBaudNote: a device heard at the wrong baud rate (framing
// noise: NUL, 0xFF, 0xF8, 0x80 … and random high bytes, not UTF-8) gets a
// note naming the rate and the usual ones; a device printing text does
// not.
func TestSerialWrongBaudNote(t *testing.T) {
	dev := serialtest.New(t, filepath.Join(t.TempDir(), "ttyUSB0"))
	cs := bringUp(t, nil)
	open := openSerialOK(t, cs, map[string]any{"port": dev.Path, "baud": 115200})
	dev.Write(t, "U-Boot 2023.01\r\n")
	var r session.Result
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "U-Boot", "timeout_ms": 10000}, &r)
	if strings.Contains(r.Note, "baud") {
		t.Errorf("text got the note: %q", r.Note)
	}
	rng := rand.New(rand.NewPCG(7, 21))
	framing := []byte{0x00, 0x80, 0xc0, 0xe0, 0xf0, 0xf8, 0xfc, 0xfe, 0xff}
	noise := make([]byte, 300)
	for i := range noise {
		if i%3 == 0 {
			noise[i] = byte(0x80 + rng.IntN(128))
		} else {
			noise[i] = framing[rng.IntN(len(framing))]
		}
	}
	noise = append(noise, '~') // something to wait for
	if _, err := dev.Master.Write(noise); err != nil {
		t.Fatal(err)
	}
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "~", "timeout_ms": 10000}, &r)
	if !strings.Contains(r.Note, "not text at 115200 baud") || !strings.Contains(r.Note, "9600") {
		t.Fatalf("no wrong-baud note: %+v", r)
	}
	// The note names a read that shows those bytes (it said read {mode:
	// "hex"}, which answered "no bytes in that range": they had been read).
	_, hexCall, ok := strings.Cut(r.Note, "read {")
	hexCall, _, _ = strings.Cut(hexCall, "} shows the bytes")
	var args map[string]any
	if !ok || json.Unmarshal([]byte("{"+hexCall+"}"), &args) != nil {
		t.Fatalf("the note names no read call: %q", r.Note)
	}
	var h session.Result
	call(t, cs, "read", args, &h)
	if !strings.Contains(h.Output, "7e") || strings.Contains(h.Note, "no bytes") {
		t.Fatalf("read %v, from the note: %+v", args, h)
	}
}

// TestSerialPolicyRules: [serial] ports limits what open_serial opens; a
// read_only rule makes a console take no input, while reads go on.
func TestSerialPolicyRules(t *testing.T) {
	dir := t.TempDir()
	lab := serialtest.New(t, filepath.Join(dir, "ttyLAB0"))
	other := serialtest.New(t, filepath.Join(dir, "ttyOTHER0"))
	p, err := policy.Parse("policy.toml", []byte(fmt.Sprintf(`
[serial]
ports = [%q]

[[rule]]
hosts = [%q]
read_only = true
`, dir+"/ttyLAB*", "serial:"+dir+"/ttyLAB*")))
	if err != nil {
		t.Fatal(err)
	}
	cs := bringUp(t, p)
	res := call(t, cs, "open_serial", map[string]any{"port": other.Path}, nil)
	if !res.IsError || !strings.Contains(resultText(res), "does not let ttymux open serial port") {
		t.Fatalf("open of a port not listed: %s", resultText(res))
	}
	open := openSerialOK(t, cs, map[string]any{"port": lab.Path})
	for _, args := range []map[string]any{
		{"text": "reset"},
		{"keys": []string{"break"}},
		{"hex": "03"},
		{"ask_secret": "the board's root password"},
	} {
		args["session_id"] = open.ID
		res := call(t, cs, "send", args, nil)
		if !res.IsError || !strings.Contains(resultText(res), "is read-only in the policy") {
			t.Errorf("send %v on a read-only console: %s", args, resultText(res))
		}
	}
	lab.Write(t, "login: ")
	var r session.Result
	call(t, cs, "read", map[string]any{"session_id": open.ID, "wait": true, "until": "login: ", "timeout_ms": 10000}, &r)
	if !strings.Contains(r.Output, "login:") {
		t.Errorf("read on a read-only console: %+v", r)
	}
	// Nothing reached the device.
	_ = lab.Master.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	if n, _ := lab.Master.Read(make([]byte, 64)); n > 0 {
		t.Errorf("%d bytes reached a read-only console", n)
	}
}
