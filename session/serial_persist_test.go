package session_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/serialtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/agent"
	"github.com/ttymux/ttymux/transport/serial"
)

// runConsole plays a minimal console on dev: it echoes what it is sent and
// acts on a line only at '\n' (a carriage return alone does nothing), so a
// session that forgot its line_ending "lf" gets no answer. "echo X"
// prints X; "ticks" prints tick-1 to tick-20 and no prompt (a program
// still running); other lines end with the prompt "# ". It stops when the
// device is unplugged; the returned channel is closed then.
func runConsole(dev *serialtest.Device) <-chan struct{} {
	done := make(chan struct{})
	go func() {
		defer close(done)
		buf := make([]byte, 256)
		var line []byte
		for {
			n, err := dev.Master.Read(buf)
			if err != nil {
				return
			}
			var out []byte
			for _, c := range buf[:n] {
				switch c {
				case '\r':
				case '\n':
					out = append(out, "\r\n"...)
					if arg, ok := strings.CutPrefix(string(line), "echo "); ok {
						out = append(out, arg+"\r\n"...)
					}
					if string(line) == "ticks" {
						out = append(out, ticks(1, 20)...)
					} else {
						out = append(out, "# "...)
					}
					line = line[:0]
				default:
					line = append(line, c)
					out = append(out, c)
				}
			}
			if _, err := dev.Master.Write(out); err != nil {
				return
			}
		}
	}()
	return done
}

// ticks returns the lines tick-from to tick-to.
func ticks(from, to int) string {
	var b strings.Builder
	for i := from; i <= to; i++ {
		fmt.Fprintf(&b, "tick-%d\r\n", i)
	}
	return b.String()
}

func newSerialManager(t testing.TB, k transport.Keeper) *session.Manager {
	t.Helper()
	m := session.NewManager(session.Options{
		Kinds:    []session.Kind{session.SerialKind(&serial.Opener{})},
		StateDir: t.TempDir(),
		Keeper:   k,
	})
	t.Cleanup(m.CloseAll)
	return m
}

// agentEnd returns the output offset the agent holds up to for session id.
func agentEnd(t testing.TB, k *agent.Client, id string) int64 {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 10*time.Second)
	defer cancel()
	kept, err := k.List(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, ks := range kept {
		if ks.ID == id {
			return ks.End
		}
	}
	t.Fatalf("the agent does not hold %s", id)
	return 0
}

// TestSerialPersistentRestart is issue #6 at the session layer: a serial
// console opened persistent is held by the agent; the server goes away;
// the device prints while no server is attached; a new server attaches by
// name and every line arrives exactly once, Enter still sends the
// session's line ending, BREAK and DTR are answered honestly through the
// agent, and unplugging shows as "disconnected".
func TestSerialPersistentRestart(t *testing.T) {
	k := startAgent(t)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	path := filepath.Join(t.TempDir(), "ttyUSB0")
	dev := serialtest.New(t, path)
	console := runConsole(dev)
	dev.Write(t, "\r\n# ")

	m1 := newSerialManager(t, k)
	s, err := m1.Open(ctx, session.OpenRequest{Transport: "serial", Persistent: true, Name: "board", LineEnding: "lf",
		Target: transport.Target{Command: path, Spec: transport.SerialParams{Baud: 115200, Reconnect: true}}})
	if err != nil {
		t.Fatal(err)
	}
	info := s.Info()
	if !s.Persistent() || s.OpenNote() != "" || info.Transport != "serial" || info.Command != "serial "+path {
		t.Fatalf("open: persistent %v, note %q, info %+v", s.Persistent(), s.OpenNote(), info)
	}
	id := s.ID()
	pace := session.Pacing{Char: time.Millisecond, Line: 3 * time.Millisecond}
	s.SetPacing(pace) // as open_serial {char_delay_ms, line_delay_ms} does
	if r, err := s.Read(ctx, session.ReadRequest{Wait: true, Until: "# $", Timeout: 10 * time.Second}); err != nil || !r.Complete {
		t.Fatalf("no prompt: %+v, %v", r, err)
	}
	if r := send(t, s, session.SendRequest{Text: "echo one"}); !r.Complete || r.Output != "one" {
		t.Fatalf("echo one: %+v", r)
	}

	// A program that prints and keeps running; the server goes away
	// meanwhile, and the agent keeps the port.
	const before, total = 20, 60
	r1 := send(t, s, session.SendRequest{Text: "ticks", Until: fmt.Sprintf("tick-%d$", before), Raw: true})
	if !r1.Complete || r1.Via != session.ViaUntil || !strings.HasSuffix(r1.Output, ticks(1, before)) {
		t.Fatalf("ticks before restart: %+v", r1)
	}
	m1.CloseAll()

	// The device prints while no server is attached.
	end := agentEnd(t, k, id)
	later := ticks(before+1, total) + "# "
	dev.Write(t, later)
	// Polling the agent's list: no event for output.
	if !testwait.Poll(ctx, 10*time.Second, func() bool { return agentEnd(t, k, id) >= end+int64(len(later)) }) {
		t.Fatalf("the agent did not capture the output printed while detached")
	}

	m2 := newSerialManager(t, k)
	list := m2.List(ctx)
	if len(list) != 1 || list[0].ID != id || list[0].Transport != "serial" || list[0].State != "detached" || list[0].Name != "board" {
		t.Fatalf("second server's list: %+v", list)
	}
	s2, err := m2.Get(ctx, "board")
	if err != nil {
		t.Fatal(err)
	}
	r2, err := s2.Read(ctx, session.ReadRequest{Raw: true})
	if err != nil {
		t.Fatal(err)
	}
	all := r1.Output + r2.Output
	for i := 1; i <= total; i++ {
		if n := strings.Count(all, fmt.Sprintf("tick-%d\r\n", i)); n != 1 {
			t.Fatalf("tick-%d arrived %d times\nfirst server: %q\nsecond: %q", i, n, r1.Output, r2.Output)
		}
	}
	if !strings.HasPrefix(r2.Output, fmt.Sprintf("tick-%d\r\n", before+1)) {
		t.Errorf("second server's first read starts %q", r2.Output[:min(len(r2.Output), 40)])
	}
	if info := s2.Info(); info.Transport != "serial" || !info.Persistent {
		t.Errorf("attached: %+v", info)
	}
	if got := s2.Pacing(); got != pace {
		t.Errorf("pacing after restart: %+v, want %+v", got, pace)
	}
	// Enter is still "\n": the console answers.
	if r := send(t, s2, session.SendRequest{Text: "echo two", Until: `two\r?\n# $`}); !r.Complete || !strings.Contains(r.Output, "two") {
		t.Fatalf("echo two after restart: %+v", r)
	}

	// BREAK works on this device; DTR does not exist on a pseudo-terminal,
	// and the agent says so.
	r, err := s2.Send(ctx, session.SendRequest{Keys: []string{"break"}})
	if err != nil || !strings.Contains(r.Note, "BREAK") {
		t.Errorf("break: %+v, %v", r, err)
	}
	if _, err := s2.Send(ctx, session.SendRequest{Keys: []string{"dtr:pulse"}}); err == nil || !strings.Contains(err.Error(), "no DTR line") {
		t.Errorf("dtr on a pty: %v", err)
	}

	// Unplugged, the session stays and says so.
	dev.Unplug()
	<-console
	// Polling the link state the agent reported.
	if !testwait.Poll(ctx, 10*time.Second, func() bool { return s2.Info().State == "disconnected" }) {
		t.Fatalf("state after unplug: %q", s2.Info().State)
	}
	if _, err := m2.Close(ctx, id); err != nil {
		t.Fatal(err)
	}
	if kept, _ := k.List(ctx); len(kept) != 0 {
		t.Errorf("the agent still holds %+v after close", kept)
	}
}
