package session

import (
	"bytes"
	"context"
	"errors"
	"math/rand/v2"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
)

// writeLog is a transport.Conn that records when each write came.
type writeLog struct {
	mu     sync.Mutex
	writes []timedWrite
}

type timedWrite struct {
	at time.Time
	p  string
}

func (w *writeLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.writes = append(w.writes, timedWrite{time.Now(), string(p)})
	return len(p), nil
}
func (w *writeLog) Read([]byte) (int, error) { return 0, errors.New("not read") }
func (w *writeLog) Close() error             { return nil }
func (w *writeLog) Wait() error              { return nil }

// TestPacingSchedule: each byte is followed by the character delay, each
// line ending (CR, LF, CRLF as one) by the line delay instead, and a send's
// own pacing overrides the session's.
func TestPacingSchedule(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		w := &writeLog{}
		s := &Session{terminal: terminal{conn: w}}
		s.SetPacing(Pacing{Char: 2 * time.Millisecond, Line: 50 * time.Millisecond})
		start := time.Now()
		if err := s.typeBytes(t.Context(), []byte("ab\r\ncd\re"), nil); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, wr := range w.writes {
			got = append(got, wr.p+"@"+wr.at.Sub(start).String())
		}
		want := []string{"a@0s", "b@2ms", "\r@4ms", "\n@6ms", "c@56ms", "d@58ms", "\r@60ms", "e@110ms"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("writes %q,\nwant   %q", got, want)
		}

		// Lines only: one write per line.
		w.writes = nil
		start = time.Now()
		if err := s.typeBytes(t.Context(), []byte("one\rtwo\rthree"), &Pacing{Line: 100 * time.Millisecond}); err != nil {
			t.Fatal(err)
		}
		got = got[:0]
		for _, wr := range w.writes {
			got = append(got, wr.p+"@"+wr.at.Sub(start).String())
		}
		want = []string{"one\r@0s", "two\r@100ms", "three@200ms"}
		if strings.Join(got, " ") != strings.Join(want, " ") {
			t.Errorf("writes %q,\nwant   %q", got, want)
		}

		// Cancelled: stops at once.
		ctx, cancel := context.WithCancel(t.Context())
		w.writes = nil
		go func() { time.Sleep(5 * time.Millisecond); cancel() }()
		err := s.typeBytes(ctx, bytes.Repeat([]byte("x"), 100), &Pacing{Char: time.Millisecond})
		if !errors.Is(err, context.Canceled) || len(w.writes) > 10 {
			t.Errorf("cancelled after %d writes: %v", len(w.writes), err)
		}
	})
}

func TestPacingValidate(t *testing.T) {
	for _, p := range []Pacing{{Char: -1}, {Char: 2 * time.Second}, {Line: time.Minute}} {
		if p.Validate() == nil {
			t.Errorf("%+v accepted", p)
		}
	}
	if err := (Pacing{Char: time.Second, Line: 10 * time.Second}).Validate(); err != nil {
		t.Error(err)
	}
}

func TestParseHex(t *testing.T) {
	tests := []struct {
		in   string
		want []byte
		err  string
	}{
		{"de ad be ef", []byte{0xde, 0xad, 0xbe, 0xef}, ""},
		{"DEADBEEF", []byte{0xde, 0xad, 0xbe, 0xef}, ""},
		{"0x1b 0x5b 41", []byte{0x1b, 0x5b, 0x41}, ""},
		{"de:ad-be,ef\n00", []byte{0xde, 0xad, 0xbe, 0xef, 0}, ""},
		{"abc", nil, "odd number of digits at the end (\"abc\")"},
		{"ab c dd", nil, "odd number of digits before position 4 (\"c\")"},
		{"zz", nil, `"z" at position 0 is not a hex digit`},
		{"0g", nil, `"g" at position 1 is not a hex digit`},
		{"  ", nil, "no bytes"},
	}
	for _, tt := range tests {
		got, err := ParseHex(tt.in)
		switch {
		case tt.err == "" && (err != nil || !bytes.Equal(got, tt.want)):
			t.Errorf("ParseHex(%q) = %x, %v; want %x", tt.in, got, err, tt.want)
		case tt.err != "" && (err == nil || !strings.Contains(err.Error(), tt.err)):
			t.Errorf("ParseHex(%q) error %v, want one containing %q", tt.in, err, tt.err)
		}
	}
}

func TestHexRow(t *testing.T) {
	var b strings.Builder
	hexRow(&b, 0x10, []byte("Hello\x00\xff world!"))
	hexRow(&b, 0x20, []byte("ab"))
	want := "00000010  48 65 6c 6c 6f 00 ff 20  77 6f 72 6c 64 21        |Hello.. world!|\n" +
		"00000020  61 62                                             |ab|\n"
	if b.String() != want {
		t.Errorf("dump\n%s\nwant\n%s", b.String(), want)
	}
}

// TestBadShare: text scores near 0 whatever its language, wrong-baud bytes
// well above the threshold.
func TestBadShare(t *testing.T) {
	text := []byte("U-Boot 2023.01 (Jan 01 2023)\r\n\x1b[32mDRAM:  512 MiB\x1b[0m\r\nGrüße, 世界\tok\r\n")
	if s := badShare(text); s > 0.05 {
		t.Errorf("text scores %.2f", s)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	noise := make([]byte, 512)
	for i := range noise {
		noise[i] = byte(rng.IntN(256))
	}
	if s := badShare(noise); s <= garbageShare {
		t.Errorf("random bytes score %.2f, not above %.2f", s, garbageShare)
	}
}

// TestSerialReadOnlyRefusesInput: a read-only serial console takes no
// text, keys, hex or line controls, and the error unwraps to a denied gate
// error (so it is audited as denied_by_policy).
func TestSerialReadOnlyRefusesInput(t *testing.T) {
	p, err := policy.Parse("p.toml", []byte(`
[[rule]]
hosts = ["serial:/dev/ttyLAB*"]
read_only = true
`))
	if err != nil {
		t.Fatal(err)
	}
	w := &writeLog{}
	s := &Session{id: "t1", transport: "serial", command: "serial /dev/ttyLAB0", terminal: terminal{conn: w}, input: input{policyHost: "serial:/dev/ttyLAB0", port: "/dev/ttyLAB0", policy: p}}
	for _, req := range []SendRequest{{Text: "reboot"}, {Keys: []string{"break"}}, {Keys: []string{"dtr:pulse"}}, {Bytes: []byte{0x03}}} {
		_, err := s.Send(t.Context(), req)
		var ro *ReadOnlyError
		var ge *GateError
		if !errors.As(err, &ro) || !errors.As(err, &ge) || !ge.Denied || !strings.Contains(err.Error(), "serial:/dev/ttyLAB0 is read-only") {
			t.Errorf("send %+v: %v", req, err)
		}
	}
	if len(w.writes) != 0 {
		t.Errorf("typed into a read-only console: %v", w.writes)
	}
	if _, err := s.Borrow(t.Context()); err == nil {
		t.Error("Borrow (a file transfer) on a read-only console succeeded")
	}
}

// TestHexGoesThroughTheGate: bytes given in hex are checked like text;
// there is no way around the gate.
func TestHexGoesThroughTheGate(t *testing.T) {
	w := &writeLog{}
	s := &Session{id: "t1", transport: "local", command: "bash", terminal: terminal{conn: w}}
	_, err := s.Send(t.Context(), SendRequest{Bytes: []byte("rm -rf /\r")})
	var ge *GateError
	if !errors.As(err, &ge) || !ge.Destructive {
		t.Fatalf("rm -rf / in hex: %v", err)
	}
	if len(w.writes) != 0 {
		t.Fatalf("typed: %v", w.writes)
	}
}
