package agentd

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/agentlink"
)

// TestCreateEchoRoundTrip creates a shell over the socket, types a command
// and reads its output, and follows the foreground process as a command
// runs and ends.
func TestCreateEchoRoundTrip(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	rep := tc.rep
	if rep.From != 0 || rep.Lost != 0 || rep.Session.ID != "s1" || rep.Session.Pid <= 0 || rep.FromLine != 1 {
		t.Errorf("AttachReply = %+v, want From 0, Lost 0, FromLine 1, session s1 with a pid", rep)
	}
	if rep.Session.Rows != defaultRows || rep.Session.Cols != defaultCols {
		t.Errorf("size %dx%d, want the default %dx%d", rep.Session.Rows, rep.Session.Cols, defaultRows, defaultCols)
	}
	ta.ev.wait(t, EventCreated, "s1")
	ta.ev.wait(t, EventAttached, "s1")
	// The current foreground follows the AttachReply at once.
	tc.step()
	if len(tc.frames) < 2 || tc.frames[1] != agentproto.TypeForeground {
		t.Fatalf("frames after the reply: %v, want Foreground first", tc.frames)
	}
	if fg := tc.fgs[0]; !fg.IsShell || fg.Pgid != rep.Session.Pid || fg.Name != "bash" {
		t.Errorf("first Foreground = %+v, want the shell (pid %d)", fg, rep.Session.Pid)
	}
	tc.waitOutput("$ ")
	tc.input("echo hello-$((6*7))\r")
	tc.waitOutput("\r\nhello-42\r\n$ ")

	tc.input("sleep 0.3\r")
	fg := tc.waitFg("sleep", func(fg agentproto.Foreground) bool { return fg.Name == "sleep" })
	if fg.IsShell || fg.Pgid == rep.Session.Pid {
		t.Errorf("Foreground while sleeping = %+v, want not the shell", fg)
	}
	tc.waitFg("shell again", func(fg agentproto.Foreground) bool { return fg.IsShell })
	tc.waitOutput("$ ")

	tc.input("env | grep -E '^(TERM|PS1)='\r")
	tc.waitOutput("TERM=dumb")
	s, ok := ta.info(t, "s1")
	if !ok || s.Clients != 1 || s.Exited || s.End < tc.next || s.Command != "bash --norc --noprofile --noediting" {
		t.Errorf("List: %+v", s)
	}
	tc.sendFrame(agentproto.TypeDetach, nil)
	ta.ev.wait(t, EventDetached, "s1")
}

// TestReattachLosesNothing detaches while a command prints 50 numbered
// lines, reattaches from the last offset read and checks that every line
// arrives exactly once, in order.
func TestReattachLosesNothing(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	tc.input("for i in $(seq 1 50); do echo line-$i; sleep 0.01; done; echo all-done\r")
	tc.waitOutput("line-1\r\n")
	before := append([]byte(nil), tc.out...)
	last := tc.next
	tc.sendFrame(agentproto.TypeDetach, nil)
	ta.ev.wait(t, EventDetached, "s1")

	// A watcher follows live output so the test knows when the loop is
	// done; everything from line-2 on is printed while tc is detached.
	w := ta.attach(t, agentproto.Attach{ID: "s1", FromEnd: true}, agentproto.StatusAttached)
	w.waitOutput("all-done\r\n")
	w.sendFrame(agentproto.TypeDetach, nil)

	re := ta.attach(t, agentproto.Attach{ID: "s1", From: last}, agentproto.StatusAttached)
	if re.rep.From != last || re.rep.Lost != 0 {
		t.Fatalf("reattach From=%d Lost=%d, want From=%d Lost=0", re.rep.From, re.rep.Lost, last)
	}
	re.waitOutput("all-done\r\n")
	all := string(before) + string(re.out)
	counts := countLines(all)
	prev := -1
	for i := 1; i <= 50; i++ {
		l := "line-" + strconv.Itoa(i)
		if counts[l] != 1 {
			t.Errorf("%s appears %d times", l, counts[l])
		}
		at := strings.Index(all, "\r\n"+l+"\r\n")
		if at <= prev {
			t.Errorf("%s out of order", l)
		}
		prev = at
	}
}

// TestAttachReportsLost attaches from offsets a small ring no longer holds
// and checks Lost, From, FromLine and the line-aligned tail replay.
func TestAttachReportsLost(t *testing.T) {
	const ringSize = 4096
	ta := startAgent(t, Options{RingSize: ringSize})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "seq 1 3000; read x"}, Term: "dumb"})
	tc.waitOutput("\r\n3000\r\n")
	// The client may well have fallen behind the 4 KiB ring, so the
	// whole output is rebuilt rather than taken from it.
	var full []byte
	for i := 1; i <= 3000; i++ {
		full = fmt.Appendf(full, "%d\r\n", i)
	}
	end := int64(len(full))
	start := end - ringSize
	if tc.next != end || !bytes.HasSuffix(full, tc.out) {
		t.Fatalf("first client ends at %d with %q, want %d", tc.next, tail(tc.out), end)
	}

	tests := []struct {
		name               string
		req                agentproto.Attach
		wantFrom, wantLost int64
	}{
		{"from zero", agentproto.Attach{ID: "s1", From: 0}, start, start},
		{"from before start", agentproto.Attach{ID: "s1", From: start - 10}, start, 10},
		{"from start", agentproto.Attach{ID: "s1", From: start}, start, 0},
		{"from start flag", agentproto.Attach{ID: "s1", FromStart: true}, start, 0},
		{"inside", agentproto.Attach{ID: "s1", From: end - 7}, end - 7, 0},
		{"past end", agentproto.Attach{ID: "s1", From: end + 1000}, end, 0},
		{"negative", agentproto.Attach{ID: "s1", From: -5}, start, start},
		{"from end", agentproto.Attach{ID: "s1", FromEnd: true}, end, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := ta.attach(t, tt.req, agentproto.StatusAttached)
			r := c.rep
			if r.From != tt.wantFrom || r.Lost != tt.wantLost {
				t.Errorf("From=%d Lost=%d, want From=%d Lost=%d", r.From, r.Lost, tt.wantFrom, tt.wantLost)
			}
			if r.Session.Start != start || r.Session.End != end {
				t.Errorf("session holds %d..%d, want %d..%d", r.Session.Start, r.Session.End, start, end)
			}
			if want := int64(bytes.Count(full[:start], []byte("\n"))) + 1; r.Session.StartLine != want {
				t.Errorf("StartLine = %d, want %d", r.Session.StartLine, want)
			}
			if want := int64(bytes.Count(full[:r.From], []byte("\n"))) + 1; r.FromLine != want {
				t.Errorf("FromLine = %d, want %d", r.FromLine, want)
			}
			if r.From < end {
				c.until("replay", func() bool { return c.next >= end })
				if !bytes.Equal(c.out, full[r.From:end]) {
					t.Errorf("replay differs from the original output")
				}
			}
		})
	}

	t.Run("tail starts at a line", func(t *testing.T) {
		c := ta.attach(t, agentproto.Attach{ID: "s1", FromEnd: true, Tail: 100}, agentproto.StatusAttached)
		from := c.rep.From
		if end-from > 100 || full[from-1] != '\n' {
			t.Errorf("tail From=%d (end %d), byte before it %q: want a line start within 100 bytes", from, end, full[from-1])
		}
		c.until("tail", func() bool { return c.next >= end })
	})
	t.Run("tail longer than the ring", func(t *testing.T) {
		c := ta.attach(t, agentproto.Attach{ID: "s1", FromEnd: true, Tail: 1 << 20}, agentproto.StatusAttached)
		if from := c.rep.From; from < start || full[from-1] != '\n' || c.rep.Lost != 0 {
			t.Errorf("tail From=%d Lost=%d, want the first line start at or after %d", from, c.rep.Lost, start)
		}
	})
	ta.attach(t, agentproto.Attach{ID: "nope", From: 0}, agentproto.StatusNotFound)
}

// TestSlowClientGetsGap: a client that stops reading does not hold up the
// PTY reader (the program runs to its end), and when it reads again it is
// told exactly which bytes it missed.
func TestSlowClientGetsGap(t *testing.T) {
	const ringSize = 4096
	ta := startAgent(t, Options{RingSize: ringSize})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "seq 1 200000"}, Term: "dumb"})
	// tc reads nothing until the program has ended: its socket buffers
	// fill, its writer blocks, and the ring moves on.
	ta.ev.wait(t, EventChildExited, "s1")
	ex := tc.waitExit()
	if ex.Status != 0 {
		t.Errorf("exit %+v", ex)
	}
	if len(tc.gaps) == 0 {
		t.Fatal("no Gap frame for a client that fell behind a 4 KiB ring")
	}
	if !bytes.HasSuffix(tc.out, []byte("\r\n200000\r\n")) {
		t.Errorf("output does not end with the last line: %q", tail(tc.out))
	}
	s, _ := ta.info(t, "s1")
	if tc.next != s.End {
		t.Errorf("client ended at %d, the session at %d", tc.next, s.End)
	}
}

// TestTwoClients attaches two clients at once: both see all output and
// both can type.
func TestTwoClients(t *testing.T) {
	ta := startAgent(t, Options{})
	a := ta.create(t, testShell())
	a.waitOutput("$ ")
	b := ta.attach(t, agentproto.Attach{ID: "s1", FromStart: true}, agentproto.StatusAttached)
	b.waitOutput("$ ")
	if s, _ := ta.info(t, "s1"); s.Clients != 2 {
		t.Errorf("Clients = %d, want 2", s.Clients)
	}
	a.input("echo from-$((1+1))-a\r")
	a.waitOutput("from-2-a\r\n")
	b.waitOutput("from-2-a\r\n")
	b.input("echo from-$((2+1))-b\r")
	b.waitOutput("from-3-b\r\n")
	a.waitOutput("from-3-b\r\n")
	b.sendFrame(agentproto.TypeDetach, nil)
	ta.ev.wait(t, EventDetached, "s1")
	if s, _ := ta.info(t, "s1"); s.Clients != 1 {
		t.Errorf("Clients = %d after one detached, want 1", s.Clients)
	}
}

// TestTypedCountsOtherClients (issue #35): each client learns how much
// input the session's other clients wrote since it attached (Typed), ahead
// of their echo, and never counts its own: a server tells a person's keys
// (ttymux attach) from its own where no shell hook marks their commands.
func TestTypedCountsOtherClients(t *testing.T) {
	ta := startAgent(t, Options{})
	a := ta.create(t, testShell())
	a.waitOutput("$ ")
	a.input("echo before-$((1+1))\r") // before b attached: not b's news
	a.waitOutput("before-2\r\n")
	b := ta.attach(t, agentproto.Attach{ID: "s1", FromStart: true}, agentproto.StatusAttached)
	b.waitOutput("before-2\r\n")
	const typed = "echo from-$((2+1))-b\r"
	b.input(typed)
	a.waitOutput("from-3-b\r\n")
	if a.typed != int64(len(typed)) {
		t.Fatalf("a has Typed %d once b's echo came, want %d", a.typed, len(typed))
	}
	a.input("echo from-a\r")
	a.waitOutput("from-a\r\n")
	b.waitOutput("from-a\r\n")
	if a.typed != int64(len(typed)) || b.typed != int64(len("echo from-a\r")) {
		t.Fatalf("Typed: a %d (want %d: its own never counts), b %d (want %d: a's before it attached never counts)", a.typed, len(typed), b.typed, len("echo from-a\r"))
	}
}

// twoServers starts an agent with a shell session that server a created
// and server b attached to, both as Model clients, a at its first prompt.
func twoServers(t *testing.T) (*testAgent, *tconn, *tconn) {
	t.Helper()
	ta := startAgent(t, Options{})
	req := testShell()
	req.Model = true
	a := ta.create(t, req)
	a.waitOutput("$ ")
	b := ta.attach(t, agentproto.Attach{ID: "s1", FromStart: true, Model: true}, agentproto.StatusAttached)
	return ta, a, b
}

// TestTypedLeavesOutModels: two servers on one session (two windows of a
// model on a persistent session) and a person's ttymux attach. Only the
// person's keys count in Typed; a server's (Create.Model, Attach.Model)
// count nowhere, so one server does not take the other for a person.
// Before Model, a's count grew with b's keys.
func TestTypedLeavesOutModels(t *testing.T) {
	ta, a, b := twoServers(t)
	person := ta.attach(t, agentproto.Attach{ID: "s1", FromEnd: true, Tail: 100}, agentproto.StatusAttached)
	b.input("echo from-$((1+1))-b\r")
	a.waitOutput("from-2-b\r\n")
	person.waitOutput("from-2-b\r\n")
	if a.typed != 0 || person.typed != 0 {
		t.Fatalf("Typed after server b's keys: a %d, the person %d; want 0 (a server is no person)", a.typed, person.typed)
	}
	const typed = "echo from-$((2+1))-person\r"
	person.input(typed)
	a.waitOutput("from-3-person\r\n")
	b.waitOutput("from-3-person\r\n")
	if a.typed != int64(len(typed)) || b.typed != int64(len(typed)) {
		t.Fatalf("Typed after the person's keys: a %d, b %d; want %d", a.typed, b.typed, len(typed))
	}
	a.input("echo from-a\r")
	b.waitOutput("from-a\r\n")
	person.waitOutput("from-a\r\n")
	if b.typed != int64(len(typed)) || person.typed != 0 {
		t.Fatalf("Typed after server a's keys: b %d (want %d), the person %d (want 0)", b.typed, len(typed), person.typed)
	}
}

// TestPersonInputCountsThroughAModel: a person's keys typed through a
// server's console reach the agent as PersonInput on the server's Model
// stream: the other clients count them (another server takes them for a
// person's), the server that sent them does not (they are its own), and
// the AttachReply advertises CapPersonInput. Before PersonInput, keys
// through a Model client counted for no one.
func TestPersonInputCountsThroughAModel(t *testing.T) {
	_, a, b := twoServers(t)
	if b.rep.Caps&agentproto.CapPersonInput == 0 {
		t.Fatalf("AttachReply Caps %b lack CapPersonInput", b.rep.Caps)
	}
	const typed = "echo console-$((6*7))\r"
	a.send(agentproto.PersonInput{Data: []byte(typed)})
	a.waitOutput("console-42\r\n")
	b.waitOutput("console-42\r\n")
	if b.typed != int64(len(typed)) || a.typed != 0 {
		t.Fatalf("Typed after a person's keys through server a: b %d (want %d), a %d (want 0: its own)", b.typed, len(typed), a.typed)
	}
	a.input("echo model-a\r")
	b.waitOutput("model-a\r\n")
	if b.typed != int64(len(typed)) {
		t.Fatalf("Typed after server a's own keys: b %d, want %d", b.typed, len(typed))
	}
}

// TestExitAfterAllOutput: Exit comes after the program's last output, with
// its status; a signal gives 128+n and the signal's name.
func TestExitAfterAllOutput(t *testing.T) {
	tests := []struct {
		name   string
		script string
		want   agentproto.Exit
		last   string
	}{
		{"status", "seq 1 20000; exit 3", agentproto.Exit{Status: 3}, "\r\n20000\r\n"},
		{"zero", "echo bye", agentproto.Exit{}, "bye\r\n"},
		{"signal", "echo going; kill -KILL $$", agentproto.Exit{Status: 137, Signal: "KILL"}, "going\r\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ta := startAgent(t, Options{})
			tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", tt.script}})
			got := tc.waitExit()
			if got != tt.want {
				t.Errorf("Exit = %+v, want %+v", got, tt.want)
			}
			if !bytes.HasSuffix(tc.out, []byte(tt.last)) {
				t.Errorf("output before Exit ends %q, want %q", tail(tc.out), tt.last)
			}
			if n := len(tc.frames); tc.frames[n-1] != agentproto.TypeExit {
				t.Errorf("last frame %s, want Exit", tc.frames[n-1])
			}
			ev := ta.ev.wait(t, EventDetached, "s1")
			if !strings.HasPrefix(ev.Detail, "exited") {
				t.Errorf("detached because %q, want exited", ev.Detail)
			}
			s, ok := ta.info(t, "s1")
			if !ok || !s.Exited || s.ExitStatus != tt.want.Status || s.ExitSignal != tt.want.Signal || s.End != tc.next {
				t.Errorf("List after exit: %+v", s)
			}
		})
	}
}

// TestExitedSessionKeptUntilTTL: an exited session stays listable and its
// final output replayable, then is reaped.
func TestExitedSessionKeptUntilTTL(t *testing.T) {
	ta := startAgent(t, Options{ExitedTTL: 2 * time.Second})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "echo final-words; exit 4"}})
	tc.waitExit()
	tc.c.Close()
	ta.ev.wait(t, EventChildExited, "s1")
	s, ok := ta.info(t, "s1")
	if !ok || !s.Exited || s.ExitStatus != 4 {
		t.Fatalf("exited session in List: %+v, %v", s, ok)
	}
	re := ta.attach(t, agentproto.Attach{ID: "s1", FromStart: true}, agentproto.StatusAttached)
	if got := re.waitExit(); got.Status != 4 || !bytes.Contains(re.out, []byte("final-words")) {
		t.Errorf("replay of an exited session: exit %+v, output %q", got, re.out)
	}
	ta.ev.wait(t, EventReaped, "s1")
	if _, ok := ta.info(t, "s1"); ok {
		t.Error("reaped session still listed")
	}
	ta.attach(t, agentproto.Attach{ID: "s1", FromStart: true}, agentproto.StatusNotFound)
}

// TestKill hangs up a session: the attached client gets the Exit (SIGHUP),
// and the session is forgotten.
func TestKill(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	if err := Kill(ctx, ta.sock, "s1"); err != nil {
		t.Fatal(err)
	}
	ta.ev.wait(t, EventKilled, "s1")
	if got := tc.waitExit(); got.Signal != "HUP" || got.Status != 129 {
		t.Errorf("Exit after Kill = %+v, want HUP (129)", got)
	}
	if _, ok := ta.info(t, "s1"); ok {
		t.Error("killed session still listed")
	}
	var se *agentlink.StatusError
	if err := Kill(ctx, ta.sock, "s1"); !errors.As(err, &se) || se.Status != agentproto.StatusNotFound {
		t.Errorf("second Kill = %v, want not_found", err)
	}
}

// TestStop: Stop is refused while a session runs, and Stop{Force} hangs it
// up and ends Serve with nil.
func TestStop(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	var se *agentlink.StatusError
	if err := Stop(ctx, ta.sock, false); !errors.As(err, &se) || se.Status != agentproto.StatusBusy {
		t.Fatalf("Stop = %v, want busy", err)
	}
	if !strings.Contains(se.Message, "1 session") {
		t.Errorf("busy message %q does not count the sessions", se.Message)
	}
	if err := Stop(ctx, ta.sock, true); err != nil {
		t.Fatalf("Stop(force) = %v", err)
	}
	if err := ta.waitServed(t); err != nil {
		t.Errorf("Serve after Stop = %v, want nil", err)
	}
	ta.ev.wait(t, EventChildExited, "s1")
	if _, err := net.Dial("unix", ta.sock); err == nil {
		t.Error("the socket still accepts after Stop")
	}
}

func TestStopIdle(t *testing.T) {
	ta := startAgent(t, Options{})
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	if err := Stop(ctx, ta.sock, false); err != nil {
		t.Fatalf("Stop with no sessions = %v", err)
	}
	if err := ta.waitServed(t); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// TestIdleExit: with IdleExit set, Serve returns by itself once the agent
// has had no session and no client for that long, and not while it has.
func TestIdleExit(t *testing.T) {
	ta := startAgent(t, Options{IdleExit: 200 * time.Millisecond})
	tc := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "read x; echo got-$x"}})
	tc.input("it\r")
	tc.waitExit()
	tc.c.Close()
	select {
	case <-ta.served:
		t.Fatal("Serve returned while an exited session was still held")
	default:
	}
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	if err := Kill(ctx, ta.sock, "s1"); err != nil { // forget it now
		t.Fatal(err)
	}
	if ev := ta.ev.wait(t, EventStopping, ""); ev.Detail != "idle" {
		t.Errorf("stopping because %q, want idle", ev.Detail)
	}
	if err := ta.waitServed(t); err != nil {
		t.Errorf("Serve = %v", err)
	}
}

// TestSetMetaResizeSignal covers the stream's control frames.
func TestSetMetaResizeSignal(t *testing.T) {
	ta := startAgent(t, Options{})
	req := testShell()
	req.Meta = []byte("v1")
	req.Rows, req.Cols = 24, 80
	tc := ta.create(t, req)
	tc.waitOutput("$ ")
	if string(tc.rep.Session.Meta) != "v1" {
		t.Errorf("Meta = %q, want v1", tc.rep.Session.Meta)
	}
	tc.send(agentproto.SetMeta{Meta: []byte("v2")})
	tc.until("SetMeta reply", func() bool { return len(tc.replies) == 1 })
	if tc.replies[0].Status != agentproto.StatusOK {
		t.Errorf("SetMeta reply %+v", tc.replies[0])
	}
	if s, _ := ta.info(t, "s1"); string(s.Meta) != "v2" {
		t.Errorf("Meta after SetMeta = %q", s.Meta)
	}
	tc.send(agentproto.SetMeta{Meta: make([]byte, MaxMeta+1)})
	tc.until("second reply", func() bool { return len(tc.replies) == 2 })
	if tc.replies[1].Status != agentproto.StatusFailed {
		t.Errorf("oversized SetMeta reply %+v, want failed", tc.replies[1])
	}

	tc.input("stty size\r")
	tc.waitOutput("\r\n24 80\r\n$ ")
	// The reader applies frames in order: the resize is done before the
	// next input reaches the shell.
	tc.send(agentproto.Resize{Rows: 30, Cols: 100})
	tc.input("stty size\r")
	tc.waitOutput("\r\n30 100\r\n$ ")
	if s, _ := ta.info(t, "s1"); s.Rows != 30 || s.Cols != 100 {
		t.Errorf("size in List %dx%d", s.Rows, s.Cols)
	}

	tc.input("sleep 100\r")
	tc.waitFg("sleep", func(fg agentproto.Foreground) bool { return fg.Name == "sleep" })
	tc.send(agentproto.Signal{Name: "INT"})
	tc.waitFg("shell", func(fg agentproto.Foreground) bool { return fg.IsShell })
	tc.input("echo status-$?\r")
	tc.waitOutput("status-130")

	// A frame type the agent does not know is skipped.
	tc.sendFrame(agentproto.Type(200), []byte("future"))
	tc.input("echo still-$((2*3))\r")
	tc.waitOutput("still-6")
}

// TestEchoFlag: the Foreground frame reports the terminal's ECHO flag
// (programs clear it to read passwords).
func TestEchoFlag(t *testing.T) {
	ta := startAgent(t, Options{})
	tc := ta.create(t, testShell())
	tc.waitOutput("$ ")
	tc.waitFg("echo on", func(fg agentproto.Foreground) bool { return fg.Echo })
	tc.input("stty -echo\r")
	tc.waitFg("echo off", func(fg agentproto.Foreground) bool { return !fg.Echo })
}

func TestCreateFailures(t *testing.T) {
	ta := startAgent(t, Options{MaxSessions: 1})
	c := ta.dial(t)
	c.send(agentproto.Create{Command: "/no/such/program"})
	if r := c.reply(agentproto.StatusFailed); !strings.Contains(r.Message, "/no/such/program") {
		t.Errorf("message %q does not name the program", r.Message)
	}
	c = ta.dial(t)
	c.send(agentproto.Create{Command: "sh", Meta: make([]byte, MaxMeta+1)})
	c.reply(agentproto.StatusFailed)

	// The limit counts held sessions; an exited one nobody watches is
	// dropped to make room, a running one never is.
	first := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "exit 0"}})
	first.waitExit()
	id := first.rep.Session.ID
	ta.ev.wait(t, EventDetached, id)
	second := ta.create(t, testShell())
	if ev := ta.ev.wait(t, EventReaped, id); ev.Detail == "" {
		t.Errorf("eviction not explained: %+v", ev)
	}
	second.waitOutput("$ ")
	c = ta.dial(t)
	c.send(testShell())
	c.reply(agentproto.StatusLimit)
}

// TestUnknownRequest: a request type the agent does not know is answered
// with a failed Reply, not a dropped connection.
func TestUnknownRequest(t *testing.T) {
	ta := startAgent(t, Options{})
	c := ta.dial(t)
	c.sendFrame(agentproto.Type(77), nil)
	m := c.readMsg()
	if r, ok := m.(agentproto.Reply); !ok || r.Status != agentproto.StatusFailed || !strings.Contains(r.Message, "Type(77)") {
		t.Errorf("reply %#v", m)
	}
}

// TestVersionMismatch: a client of another protocol version is refused,
// and the agent's log and event name both versions; a client that reads the
// agent's header learns the same.
func TestVersionMismatch(t *testing.T) {
	ta := startAgent(t, Options{})
	c, err := net.Dial("unix", ta.sock)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	hdr := append([]byte(agentproto.Magic), 0, 99)
	if _, err := c.Write(hdr); err != nil {
		t.Fatal(err)
	}
	_ = c.SetReadDeadline(time.Now().Add(waitTimeout))
	if err := agentproto.ReadHeader(c); err != nil {
		t.Fatalf("the agent's own header: %v", err)
	}
	ev := ta.ev.wait(t, EventRefused, "")
	if !strings.Contains(ev.Detail, "client 99") || !strings.Contains(ev.Detail, "agent "+strconv.Itoa(agentproto.Version)) {
		t.Errorf("refusal %q does not name both versions", ev.Detail)
	}
	if n, err := c.Read(make([]byte, 1)); n != 0 || err == nil {
		t.Errorf("connection still open after a version mismatch: %d, %v", n, err)
	}

	// The client side: an agent that speaks version 99.
	fake := filepathJoin(shortTempDir(t), "fake.sock")
	l, err := net.Listen("unix", fake)
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		c, err := l.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		c.Write(hdr)
		c.Read(make([]byte, 64))
	}()
	ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
	defer cancel()
	_, err = Dial(ctx, fake)
	var ve *agentproto.VersionError
	if !errors.As(err, &ve) || ve.Remote != 99 || ve.Local != agentproto.Version {
		t.Fatalf("Dial = %v, want a VersionError", err)
	}
	if msg := err.Error(); !strings.Contains(msg, "99") || !strings.Contains(msg, strconv.Itoa(agentproto.Version)) {
		t.Errorf("%q does not name both versions", msg)
	}
}

// TestCloseHangsUp: Close disconnects clients, hangs up sessions and
// returns after Serve.
func TestCloseHangsUp(t *testing.T) {
	ta := startAgent(t, Options{})
	a := ta.create(t, testShell())
	a.waitOutput("$ ")
	b := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "trap '' HUP; while :; do sleep 1; done"}})
	_ = b
	start := time.Now()
	if err := ta.srv.Close(); err != nil {
		t.Fatal(err)
	}
	select {
	case <-ta.served:
	default:
		t.Fatal("Close returned before Serve")
	}
	ta.ev.wait(t, EventChildExited, "s1")
	ta.ev.wait(t, EventChildExited, "s2")
	if d := time.Since(start); d > 5*time.Second {
		t.Errorf("Close took %v", d)
	}
	if err := ta.srv.Close(); err != nil {
		t.Errorf("second Close: %v", err)
	}
}

func filepathJoin(dir, name string) string { return dir + "/" + name }

// TestSessionIDs: ids are s1, s2, … and never reused.
func TestSessionIDs(t *testing.T) {
	ta := startAgent(t, Options{})
	for i := 1; i <= 3; i++ {
		c := ta.create(t, agentproto.Create{Command: "sh", Args: []string{"-c", "exit 0"}})
		if want := fmt.Sprintf("s%d", i); c.rep.Session.ID != want {
			t.Errorf("session %d has id %q, want %q", i, c.rep.Session.ID, want)
		}
		c.waitExit()
		ctx, cancel := context.WithTimeout(t.Context(), waitTimeout)
		if err := Kill(ctx, ta.sock, c.rep.Session.ID); err != nil {
			t.Error(err)
		}
		cancel()
	}
}
