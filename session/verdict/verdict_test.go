package verdict

import (
	"regexp"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/transport"
)

// fakeConn reports a foreground process, the ECHO flag and whether the
// shell blocks reading, as a local PTY would; a nil field is a capability
// the far end lacks (ask returns an error).
type fakeConn struct {
	fg     *transport.Foreground
	echo   *bool
	waits  *bool
	read   *int64 // bytes the shell has read
	linkUp bool
}

func (c *fakeConn) ShellReadCount() (int64, error) {
	if c.read == nil {
		return 0, transport.ErrNoSession
	}
	return *c.read, nil
}

func (c *fakeConn) Foreground() (transport.Foreground, error) {
	if c.fg == nil {
		return transport.Foreground{}, transport.ErrNoSession
	}
	return *c.fg, nil
}

func (c *fakeConn) Echo() (bool, error) {
	if c.echo == nil {
		return false, transport.ErrNoSession
	}
	return *c.echo, nil
}

func (c *fakeConn) ShellWaitsForInput() (bool, error) {
	if c.waits == nil {
		return false, transport.ErrNoSession
	}
	return *c.waits, nil
}

// fakeTerm is a session as the engine sees it, without a Session: a log,
// a detector, a clock the test moves and a scripted far end.
type fakeTerm struct {
	mu   sync.Mutex
	log  *ring.Ring
	det  *Detector
	held Held
	now  time.Time
	alt  bool
	conn fakeConn
	t    Terminal
}

func newFakeTerm(nonce string, shell bool) *fakeTerm {
	f := &fakeTerm{log: ring.New(1 << 20), det: NewDetector(nonce, 0), now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	f.held.LastOutput = f.now
	f.t = Terminal{
		Src: f, Conn: &f.conn, Shell: shell,
		AltScreen: func() bool { return f.alt },
		Now:       func() time.Time { return f.now },
	}
	return f
}

// View holds the fake terminal still, as the session's terminal does.
func (f *fakeTerm) View(fn func(State)) {
	f.mu.Lock()
	defer f.mu.Unlock()
	fn(State{Log: f.log, Det: f.det, Held: f.held})
}

// out is output arriving now; the marks in it count once ready.
func (f *fakeTerm) out(s string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.log.Write([]byte(s))
	n := f.det.Count()
	f.det.Write([]byte(s))
	if f.det.Count() != n {
		f.held.Ready = true
	}
	f.held.LastOutput = f.now
}

func (f *fakeTerm) wait(d time.Duration) { f.now = f.now.Add(d) }

// send makes the command Send would make for typed, at the cursor now.
func (f *fakeTerm) send(typed string, until *regexp.Regexp) *Command {
	f.mu.Lock()
	defer f.mu.Unlock()
	c := new(Command)
	*c = NewCommand(f.log.End(), f.now, typed, until)
	last, ok := f.det.Last()
	c.AtPrompt = ok && last.Kind != MarkCommand
	c.Prompt = LearnPrompt(f.log)
	c.NeedC = c.AtPrompt && f.held.Ready && typed != ""
	return c
}

func (f *fakeTerm) output(v Verdict) string {
	b, _ := f.log.AppendRange(nil, v.Anchor, v.End)
	return string(b)
}

const n1 = "n1"

func markA() string              { return "\x1b]133;A;ttymux=n1\x07" }
func markC() string              { return "\x1b]133;C;ttymux=n1\x07" }
func markD(status string) string { return "\x1b]133;D;" + status + ";ttymux=n1\x07" }

// TestEvaluateExitCode: with the hook, the command's own C and D marks
// decide: output between them, the D's status as the exit code.
func TestEvaluateExitCode(t *testing.T) {
	f := newFakeTerm(n1, true)
	f.out(markD("0") + markA() + "$ ")
	c := f.send("false\n", nil)
	f.out("false\r\n")
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete before the C mark: %+v", v)
	}
	f.out(markC() + "oops\r\n")
	f.wait(time.Minute)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete before the D mark, quiet or not: %+v", v)
	}
	f.out(markD("1") + markA() + "$ ")
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaExitCode || v.ExitCode == nil || *v.ExitCode != 1 || f.output(v) != "oops\r\n" {
		t.Fatalf("verdict %+v output %q; want exit-code 1, output oops", v, f.output(v))
	}
}

// TestEvaluateTypedAhead: a line typed while a command runs ends at the
// second D mark after it; the first ends what ran before (Earlier).
func TestEvaluateTypedAhead(t *testing.T) {
	f := newFakeTerm(n1, true)
	f.out(markD("0") + "$ ")
	f.out("sleep 1\r\n" + markC())
	c := f.send("echo B\n", nil)
	c.DueD, c.NeedC, c.AtPrompt = 2, true, true
	f.out("echo B\r\n")
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete while the earlier command runs: %+v", v)
	}
	f.out(markD("3") + "$ echo B\r\n" + markC() + "B\r\n" + markD("0") + "$ ")
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaExitCode || *v.ExitCode != 0 || f.output(v) != "B\r\n" || !v.Earlier || v.EarlierCode != 3 {
		t.Fatalf("verdict %+v output %q; want its own output B, exit 0, earlier exit 3", v, f.output(v))
	}
}

// TestEvaluatePrompt: without the hook, the prompt the command was typed
// at coming back, after a quiet moment, ends it.
func TestEvaluatePrompt(t *testing.T) {
	f := newFakeTerm("", false)
	f.out("box$ ")
	c := f.send("ls\n", nil)
	if c.Prompt != "box$ " {
		t.Fatalf("learned prompt %q", c.Prompt)
	}
	f.out("ls\r\na b\r\nbox$ ")
	v, poll := f.t.Evaluate(c)
	if v.Complete || !poll {
		t.Fatalf("complete (or not polling) with no quiet yet: %+v %v", v, poll)
	}
	f.wait(promptQuiet)
	v, _ = f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaPrompt || f.output(v) != "a b\r\n" {
		t.Fatalf("verdict %+v output %q; want prompt, a b", v, f.output(v))
	}
}

// TestEvaluatePromptShapedOutputWithHook pins issue #13: with the hook
// tracking the command, output shaped like the prompt must not end it.
func TestEvaluatePromptShapedOutputWithHook(t *testing.T) {
	f := newFakeTerm(n1, true)
	f.out(markD("0") + "$ ")
	c := f.send("printf '$ '; sleep 3\n", nil)
	f.out("printf '$ '; sleep 3\r\n" + markC() + "$ ")
	f.wait(time.Minute)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("prompt-shaped output ended a hooked command: %+v", v)
	}
}

// TestEvaluateMark: the sentinel line, with its newline, decides; its
// status is the exit code.
func TestEvaluateMark(t *testing.T) {
	f := newFakeTerm("", false)
	f.out("$ ")
	c := f.send("false; printf '\\n%s%s:%s\\n' __TTYMUX_ MARK_ab12 \"$?\"\n", nil)
	c.SetMark("ab12")
	f.out("false; printf '\\n%s%s:%s\\n' __TTYMUX_ MARK_ab12 \"$?\"\r\n\r\n__TTYMUX_MARK_ab12:4")
	f.wait(time.Minute)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete before the sentinel's newline (status 4 or 42?): %+v", v)
	}
	f.out("2\r\n$ ")
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaMark || *v.ExitCode != 42 {
		t.Fatalf("verdict %+v; want mark, exit 42", v)
	}
}

// TestEvaluateUntil: until matches rendered output after the echo, never
// the echo itself.
func TestEvaluateUntil(t *testing.T) {
	f := newFakeTerm("", false)
	f.out("$ ")
	c := f.send("echo READY\n", regexp.MustCompile(`READY`))
	f.out("echo READY\r\n")
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("until matched the echo: %+v", v)
	}
	f.out("READY\r\n")
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaUntil || v.Match != "READY" {
		t.Fatalf("verdict %+v; want until READY", v)
	}
}

// TestEvaluateExited: the end of the session decides, with its status.
func TestEvaluateExited(t *testing.T) {
	f := newFakeTerm("", false)
	c := f.send("exit 3\n", nil)
	f.out("exit 3\r\n")
	code := 3
	f.held.Exited, f.held.ExitCode = true, &code
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaExited || *v.ExitCode != 3 {
		t.Fatalf("verdict %+v; want exited 3", v)
	}
}

// TestShellLayerQuietFromShellBack is the engine's half of
// TestShellLayerQuietCountsFromShellBack (issue #13): without the hook,
// quiet counts from when the shell took the terminal back, not from the
// last output, so "sleep 0.5; echo slept" is not done the instant sleep
// ends.
func TestShellLayerQuietFromShellBack(t *testing.T) {
	f := newFakeTerm("", true)
	shell := &transport.Foreground{Pgid: 1, Name: "dash", IsShell: true}
	f.conn.fg = &transport.Foreground{Pgid: 2, Name: "sleep"}
	// A prompt of no well-known shape: the prompt layer leaves it to the
	// shell layer, which decides after the short quiet once it is back.
	f.out("~ \u276f ")
	c := f.send("sleep 0.5; echo slept\n", nil)
	f.out("sleep 0.5; echo slept\r\n")
	f.wait(2 * ShellQuietBare)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete via %s while sleep runs", v.Via)
	}
	if !c.RanProgram() || c.Anchor < 0 {
		t.Fatalf("ran program %v, anchor %d: the echo and sleep were not seen", c.RanProgram(), c.Anchor)
	}
	f.conn.fg = shell
	if v, poll := f.t.Evaluate(c); v.Complete || !poll {
		t.Fatalf("complete via %s (poll %v) the instant the shell took the terminal back", v.Via, poll)
	}
	f.out("slept\r\n~ \u276f ")
	f.wait(ShellQuiet)
	v, _ := f.t.Evaluate(c)
	if !v.Complete || v.Via != ViaShell || f.output(v) != "slept\r\n" {
		t.Fatalf("after echo: %+v output %q", v, f.output(v))
	}
}

// TestShellLayerAsksTheKernel: where the Conn can say whether the shell
// blocks reading the terminal, that decides, not a longer quiet.
func TestShellLayerAsksTheKernel(t *testing.T) {
	f := newFakeTerm("", true)
	f.conn.fg = &transport.Foreground{Pgid: 1, Name: "bash", IsShell: true}
	no, yes := false, true
	f.conn.waits = &no
	f.out("~ \u276f ")
	c := f.send("cd /tmp\n", nil)
	f.out("cd /tmp\r\n~ \u276f ")
	f.wait(time.Minute)
	if v, poll := f.t.Evaluate(c); v.Complete || !poll {
		t.Fatalf("complete (or not polling) while the shell runs: %+v %v", v, poll)
	}
	f.conn.waits = &yes
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete the instant the shell reads, quiet counting from when it took the terminal: %+v", v)
	}
	f.wait(ShellQuiet)
	if v, _ := f.t.Evaluate(c); !v.Complete || v.Via != ViaShell {
		t.Fatalf("verdict %+v; want shell", v)
	}
}

// TestShellLayerWaitsForTheShellToRead: a shell blocked reading its
// terminal has not run the typed line while it has read nothing since the
// send: on a busy machine the line waits in the kernel, echoed (the echo
// comes before the shell is woken) or not. Before, the shell layer called
// the command done with empty output after the quiet
// (session TestShellLayerWithoutIntegration/no_prompt under load).
func TestShellLayerWaitsForTheShellToRead(t *testing.T) {
	f := newFakeTerm("", true)
	f.conn.fg = &transport.Foreground{Pgid: 1, Name: "dash", IsShell: true}
	yes := true
	read := int64(1000)
	f.conn.waits, f.conn.read = &yes, &read
	c := f.send("sleep 0.5; echo slept\n", nil)
	c.ShellRead = f.t.ShellReadMark()
	if c.ShellRead != 1000 {
		t.Fatalf("ShellReadMark = %d, want 1000", c.ShellRead)
	}
	f.t.Evaluate(c)                    // polled from the send on
	f.out("sleep 0.5; echo slept\r\n") // the kernel's echo; the shell still sleeps
	f.wait(time.Minute)
	if v, poll := f.t.Evaluate(c); v.Complete || !poll {
		t.Fatalf("complete (or not polling) before the shell read the line: %+v %v", v, poll)
	}
	read += 22
	f.conn.fg = &transport.Foreground{Pgid: 2, Name: "sleep"}
	f.wait(time.Second)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("complete while sleep runs: %+v", v)
	}
	f.conn.fg = &transport.Foreground{Pgid: 1, Name: "dash", IsShell: true}
	f.out("slept\r\n")
	f.wait(ShellQuietBare)
	f.t.Evaluate(c) // the shell took the terminal back: quiet counts from now
	f.wait(ShellQuietBare)
	if v, _ := f.t.Evaluate(c); !v.Complete || v.Via != ViaShell || f.output(v) != "slept\r\n" {
		t.Fatalf("verdict %+v output %q; want shell, slept", v, f.output(v))
	}
	// A shell that reads but runs no program (a builtin) is done once it
	// has read more than at the send.
	c = f.send("cd /tmp\n", nil)
	c.ShellRead = f.t.ShellReadMark()
	f.t.Evaluate(c)
	f.out("cd /tmp\r\n")
	f.wait(time.Minute)
	if v, _ := f.t.Evaluate(c); v.Complete {
		t.Fatalf("builtin complete before the shell read it: %+v", v)
	}
	read += 8
	f.wait(ShellQuietBare)
	if v, _ := f.t.Evaluate(c); !v.Complete || v.Via != ViaShell {
		t.Fatalf("builtin after the shell read it: %+v", v)
	}
}

func TestClassify(t *testing.T) {
	off := false
	for _, tt := range []struct {
		name, out string
		fg        *transport.Foreground
		echo      *bool
		alt       bool
		want      string
	}{
		{name: "password", out: "[sudo] password for u: ", want: "password_prompt"},
		{name: "confirm", out: "Continue? [y/N] ", want: "confirm_prompt"},
		{name: "pager by name", out: "line\r\n:", fg: &transport.Foreground{Name: "less"}, want: "pager"},
		{name: "alternate screen", out: "x", alt: true, fg: &transport.Foreground{Name: "vim"}, want: "alt_screen"},
		{name: "echo off, a colon", out: "Enter PIN for token:", fg: &transport.Foreground{Name: "ssh"}, echo: &off, want: "password_prompt"},
		{name: "repl", out: ">>> ", fg: &transport.Foreground{Name: "python3"}, want: "repl"},
		{name: "known prompt, quiet", out: "user@host:~$ ", want: "prompt"},
		{name: "input prompt", out: "Name: ", fg: &transport.Foreground{Name: "read"}, want: "input_prompt"},
		{name: "running", out: "building...\r\n", fg: &transport.Foreground{Name: "make"}, want: "running"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFakeTerm("", false)
			f.conn.fg, f.conn.echo, f.alt = tt.fg, tt.echo, tt.alt
			f.out(tt.out)
			f.wait(time.Second)
			if got := f.t.Classify(); got.State != tt.want {
				t.Fatalf("state %q (%s), want %q", got.State, got.Describe(), tt.want)
			}
		})
	}
	f := newFakeTerm("", false)
	f.held.Exited = true
	if got := f.t.Classify(); got.State != "exited" {
		t.Fatalf("ended session: %q", got.State)
	}
}

// TestHumanWait: a password prompt ends the wait once quiet, but not
// while the password submitted to it is unanswered; a quiet running
// program does not.
func TestHumanWait(t *testing.T) {
	f := newFakeTerm("", false)
	f.conn.fg = &transport.Foreground{Name: "sudo"}
	c := f.send("sudo true\n", nil)
	f.wait(time.Millisecond)
	f.out("sudo true\r\n[sudo] password for u: ")
	if st, left := f.t.HumanWait(c); st.State != "" || left <= 0 {
		t.Fatalf("ended before the quiet: %+v %v", st, left)
	}
	f.wait(humanQuiet)
	if st, _ := f.t.HumanWait(c); st.State != "password_prompt" || st.LastLine == "" {
		t.Fatalf("state %+v; want password_prompt with its prompt line", st)
	}
	// The password, submitted: the prompt on the terminal is the one it
	// answered until the program shows something (sudo checks it for a
	// while), so that is not a human wait however long it is quiet; the
	// next prompt is.
	c = f.send("hunter2\n", nil)
	f.wait(time.Minute)
	if st, _ := f.t.HumanWait(c); st.State != "" {
		t.Fatalf("a submitted password the program has not answered waits for a human: %+v", st)
	}
	f.out("\r\nSorry, try again.\r\n[sudo] password for u: ")
	f.wait(humanQuiet)
	if st, _ := f.t.HumanWait(c); st.State != "password_prompt" {
		t.Fatalf("asked again: state %+v; want password_prompt", st)
	}
	g := newFakeTerm("", false)
	g.conn.fg = &transport.Foreground{Name: "sleep"}
	c = g.send("sleep 9\n", nil)
	g.out("sleep 9\r\n")
	g.wait(time.Minute)
	if st, _ := g.t.HumanWait(c); st.State != "" {
		t.Fatalf("a quiet sleep waits for a human: %+v", st)
	}
}

func TestEchoes(t *testing.T) {
	for _, tt := range []struct {
		got, want string
		ok        bool
	}{
		{"$ echo hi", "echo hi", true},
		{"hi", "echo hi", false},
		{"> a very long line typed into a prompt", "a very long line typed into a prompt", true},
		{"$ ", "", true},
		{"output", "", false},
	} {
		if got := echoes(tt.got, tt.want); got != tt.ok {
			t.Errorf("echoes(%q, %q) = %v, want %v", tt.got, tt.want, got, tt.ok)
		}
	}
}

func TestSkipRedraw(t *testing.T) {
	lines := []string{"for i in 1 2; do", "echo $i", "done"}
	for _, tt := range []struct {
		name  string
		b     string
		final bool
		want  int
	}{
		{"no redraw", "1\r\n2\r\n", false, 0},
		{"whole redraw", "for i in 1 2; do\r\necho $i\r\ndone\r\n1\r\n", false, len("for i in 1 2; do\r\necho $i\r\ndone\r\n")},
		{"redraw still arriving", "for i in 1 2; do\r\necho", false, -1},
		{"cut redraw, final: not one", "for i in 1 2; do\r\necho", true, 0},
	} {
		if got := skipRedraw([]byte(tt.b), lines, tt.final); got != tt.want {
			t.Errorf("%s: skipRedraw = %d, want %d", tt.name, got, tt.want)
		}
	}
}

func TestSamePromptShape(t *testing.T) {
	for _, tt := range []struct {
		a, b string
		ok   bool
	}{
		{"user@host:~/src$", "user@host:/tmp$", true},
		{"user@host:~$", "user@host:~#", false},
		{"a:x$", "a:y$", false}, // a head of one character proves nothing
		{"root@box /etc#", "root@box /#", true},
	} {
		if got := samePromptShape(tt.a, tt.b); got != tt.ok {
			t.Errorf("samePromptShape(%q, %q) = %v, want %v", tt.a, tt.b, got, tt.ok)
		}
	}
}
