package session_test

import (
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// TestBinaryFloodTypesNothing pins issue #14 item 5: after `cat
// /dev/urandom | head -c 5e7` the emulator's answers to query-shaped bytes
// in the data (a lone 0x9B is CSI to it) were typed into the shell, and the
// next command ran as "22cecho: command not found". A real shell on a real
// PTY cats binary data full of them; the next command runs as typed.
func TestBinaryFloodTypesNothing(t *testing.T) {
	rng := rand.New(rand.NewPCG(14, 5))
	data := make([]byte, 0, 4<<20)
	for len(data) < cap(data)-8 {
		switch rng.IntN(300) {
		case 0:
			data = append(data, 0x9b, 'c') // DA, 8-bit
		case 1:
			data = append(data, 0x9b, '6', 'n') // cursor position, 8-bit
		case 2:
			data = append(data, 0x1b, '[', 'c') // DA
		case 3:
			data = append(data, 0xcf, 0x9b, '5', 'n') // ϛ then "5n": vt saw CSI after a bad lead byte
		default:
			if c := byte(rng.IntN(256)); c != 0x1b && c != 0x03 && c != 0x1a && c != 0x1c {
				data = append(data, c)
			}
		}
	}
	file := filepath.Join(t.TempDir(), "blob")
	if err := os.WriteFile(file, data, 0o600); err != nil {
		t.Fatal(err)
	}
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "cat " + file + "; stty sane", Timeout: 2 * time.Minute})
	if !r.Complete {
		t.Fatalf("cat: %+v", r)
	}
	// Ask for the screen too: the emulator replays the flood's tail.
	if _, err := s.Read(t.Context(), session.ReadRequest{Mode: "screen"}); err != nil {
		t.Fatal(err)
	}
	if r := send(t, s, session.SendRequest{Text: "echo ok"}); r.Output != "ok" || exitCode(r) != "0" {
		t.Fatalf("echo after the flood: output %q exit %s (answers typed into the shell?)", r.Output, exitCode(r))
	}
}

// TestBinaryOutputSummarised pins issue #13 item 11: `cat /bin/ls`
// returned 56 KB of rendered garbage. It returns one line saying how much
// binary data there is and the read call that gives the bytes.
func TestBinaryOutputSummarised(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "cat /bin/ls; stty sane"})
	if !strings.Contains(r.Output, "of binary data (session lines") || !strings.Contains(r.Output, `"raw":true} for the bytes]`) || len(r.Output) > 300 {
		t.Fatalf("cat /bin/ls: %d bytes of output: %.500q", len(r.Output), r.Output)
	}
	if r := send(t, s, session.SendRequest{Text: "echo ok"}); r.Output != "ok" {
		t.Fatalf("echo after cat /bin/ls: %q", r.Output)
	}
}

// TestTopScreenKeepsHeader pins issue #13 item 8: with top running, read
// {mode: "screen"} had rows 4–7 (Mem, Swap, the blank row, the PID header)
// blank in 3 of 9 reads. top redraws the normal screen in place and skips
// the rows that did not change since its last frame; forty frames later,
// the screen still shows them.
func TestTopScreenKeepsHeader(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "top -d 0.1 -n 40", Timeout: 60 * time.Second})
	// On a loaded machine top can go quiet for longer than a full-screen
	// program waiting for a key does, and the send returns as such a wait
	// (complete false): wait on for its end then.
	for deadline := time.Now().Add(60 * time.Second); !r.Complete && time.Now().Before(deadline); {
		var err error
		if r, err = s.Read(t.Context(), session.ReadRequest{Wait: true, Timeout: 10 * time.Second}); err != nil {
			t.Fatal(err)
		}
	}
	if !r.Complete {
		t.Fatalf("top: %+v", r)
	}
	scr, err := s.Read(t.Context(), session.ReadRequest{Mode: "screen"})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"MiB Mem", "MiB Swap", "PID USER"} {
		if !strings.Contains(scr.Output, want) {
			t.Errorf("screen after top has no %q:\n%s", want, scr.Output)
		}
	}
}
