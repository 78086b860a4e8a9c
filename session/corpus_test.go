package session

// The transcript corpus (issue #7): real programs recorded in a real local
// PTY session — nested ssh to an OpenSSH sshd, a docker-exec-style nested
// shell, su, a python3 REPL, psql, less and git's pager, vim, top, password
// prompts — with the verdict each step must get. TestCorpusEverySplit
// replays every transcript through a Session and evaluates the verdict with
// the output cut at every byte after each send, as if the output had
// stopped there for longer than every quiet period: before the point where
// the command really finished the verdict must not be complete, and from
// that point on it must be, by the expected layer with the expected exit
// code. TestRecordCorpus (-record-corpus) re-records the transcripts.

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/ttymux/ttymux/session/verdict"
	"io"
	"log/slog"
	"maps"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/sshdtest"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/local"
)

var recordCorpus = flag.Bool("record-corpus", false, "re-record testdata/corpus from real programs (go test -run TestRecordCorpus -record-corpus ./session)")

// A corpusFile is one recorded transcript: the session's raw output as
// timed chunks, and the steps typed into it with their expected verdicts.
type corpusFile struct {
	name   string
	nonce  string
	size   transport.Size
	shell  bool
	steps  []corpusStep
	events []corpusEvent
	data   []byte
}

// A corpusEvent is a chunk of output as one Read returned it, with what the
// terminal reported when it arrived: the foreground program and the ECHO
// flag. A chunk of no bytes records a change of those alone (sampled when
// a step had settled).
type corpusEvent struct {
	off  int64
	n    int
	at   time.Duration // since the session started
	fg   transport.Foreground
	fgOK bool
	echo bool
}

// A corpusStep is one send and its expected verdict.
type corpusStep struct {
	name   string
	text   string // what was sent (empty for a secret)
	keys   []string
	enter  bool
	secret bool
	markID string // the sentinel's id for a send with mark: true
	until  string
	lines  []string      // the typed lines whose echo the verdict skips (command.lines)
	at     int64         // output offset at the send
	sent   time.Duration // when it was sent, since the session started

	complete bool
	via      string
	exit     *int
	state    string // expected classify state when not complete
	finish   int64  // the first offset at which the command has finished; -1 if never
	live     string // what the live session said when recorded (information)
}

func (st corpusStep) expect() string {
	if !st.complete {
		return "waiting " + st.state
	}
	s := "complete " + st.via
	if st.exit != nil {
		s += " exit " + strconv.Itoa(*st.exit)
	}
	return s
}

// loadCorpus reads every transcript in testdata/corpus.
func loadCorpus(t testing.TB) []corpusFile {
	t.Helper()
	files, err := filepath.Glob("testdata/corpus/*.txt")
	if err != nil || len(files) == 0 {
		t.Fatalf("no transcripts in testdata/corpus (re-record with -record-corpus): %v", err)
	}
	var out []corpusFile
	for _, f := range files {
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		cf, err := parseCorpus(b)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		out = append(out, cf)
	}
	return out
}

func parseCorpus(b []byte) (corpusFile, error) {
	cf := corpusFile{shell: true}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(nil, 1<<20)
	n := 0
	var st *corpusStep
	inOutput := false
	for sc.Scan() {
		n++
		line := sc.Text()
		trimmed := strings.TrimSpace(line)
		if trimmed == "" || strings.HasPrefix(trimmed, "#") {
			continue
		}
		fail := func(err error) (corpusFile, error) {
			return corpusFile{}, fmt.Errorf("line %d: %w: %q", n, err, line)
		}
		key, rest, _ := strings.Cut(trimmed, " ")
		if inOutput {
			switch {
			case strings.HasPrefix(trimmed, "@"):
				ev, err := parseEvent(trimmed)
				if err != nil {
					return fail(err)
				}
				ev.off = int64(len(cf.data))
				cf.events = append(cf.events, ev)
			case strings.HasPrefix(trimmed, `"`):
				s, err := strconv.Unquote(trimmed)
				if err != nil {
					return fail(err)
				}
				if len(cf.events) == 0 {
					return fail(errors.New("output before the first @ line"))
				}
				cf.data = append(cf.data, s...)
				cf.events[len(cf.events)-1].n += len(s)
			default:
				return fail(errors.New("want @ or a quoted chunk"))
			}
			continue
		}
		var err error
		switch key {
		case "transcript":
			cf.name = rest
		case "nonce":
			cf.nonce = rest
		case "size":
			_, err = fmt.Sscanf(rest, "%d %d", &cf.size.Rows, &cf.size.Cols)
		case "shell":
			cf.shell, err = strconv.ParseBool(rest)
		case "step":
			_, name, _ := strings.Cut(rest, " ")
			cf.steps = append(cf.steps, corpusStep{finish: -1})
			st = &cf.steps[len(cf.steps)-1]
			st.name, err = strconv.Unquote(name)
		case "output":
			inOutput = true
		default:
			if st == nil {
				return fail(errors.New("unknown header line"))
			}
			err = st.parseField(key, rest)
		}
		if err != nil {
			return fail(err)
		}
	}
	if err := sc.Err(); err != nil {
		return corpusFile{}, err
	}
	if cf.name == "" || cf.size.Rows == 0 || len(cf.steps) == 0 || len(cf.events) == 0 {
		return corpusFile{}, errors.New("incomplete transcript: want transcript, size, steps and output")
	}
	return cf, nil
}

func (st *corpusStep) parseField(key, rest string) error {
	var err error
	switch key {
	case "text":
		st.text, err = strconv.Unquote(rest)
	case "lines":
		for rest != "" {
			q, qerr := strconv.QuotedPrefix(rest)
			if qerr != nil {
				return qerr
			}
			l, _ := strconv.Unquote(q)
			st.lines = append(st.lines, l)
			rest = strings.TrimLeft(rest[len(q):], " ")
		}
	case "until":
		st.until, err = strconv.Unquote(rest)
	case "keys":
		st.keys = strings.Split(rest, ",")
	case "enter":
		st.enter = true
	case "secret":
		st.secret = true
	case "mark":
		st.markID = rest
	case "at":
		st.at, err = strconv.ParseInt(rest, 10, 64)
	case "sent":
		st.sent, err = parseSeconds(rest)
	case "finish":
		st.finish, err = strconv.ParseInt(rest, 10, 64)
	case "live":
		st.live = rest
	case "expect":
		f := strings.Fields(rest)
		switch {
		case len(f) == 2 && f[0] == "waiting":
			st.state = f[1]
		case len(f) == 2 && f[0] == "complete":
			st.complete, st.via = true, f[1]
		case len(f) == 4 && f[0] == "complete" && f[2] == "exit":
			st.complete, st.via = true, f[1]
			code, cerr := strconv.Atoi(f[3])
			st.exit, err = &code, cerr
		default:
			err = errors.New("want expect complete VIA [exit N] or expect waiting STATE")
		}
	default:
		err = errors.New("unknown step field")
	}
	return err
}

func parseSeconds(s string) (time.Duration, error) {
	f, err := strconv.ParseFloat(s, 64)
	return time.Duration(f * float64(time.Second)), err
}

// parseEvent reads "@1.234 fg=\"bash\" shell noecho" (or fg=- when the
// foreground was unknown).
func parseEvent(l string) (corpusEvent, error) {
	var ev corpusEvent
	f := strings.Fields(l)
	at, err := parseSeconds(strings.TrimPrefix(f[0], "@"))
	if err != nil {
		return ev, err
	}
	ev.at, ev.echo = at, true
	for _, w := range f[1:] {
		switch {
		case w == "fg=-":
		case strings.HasPrefix(w, "fg="):
			name, err := strconv.Unquote(strings.TrimPrefix(w, "fg="))
			if err != nil {
				return ev, err
			}
			ev.fg.Name, ev.fgOK = name, true
		case w == "shell":
			ev.fg.IsShell = true
		case w == "noecho":
			ev.echo = false
		default:
			return ev, fmt.Errorf("unknown event field %q", w)
		}
	}
	return ev, nil
}

func formatEvent(ev corpusEvent) string {
	s := fmt.Sprintf("@%.3f", ev.at.Seconds())
	if !ev.fgOK {
		s += " fg=-"
	} else {
		s += " fg=" + strconv.Quote(ev.fg.Name)
		if ev.fg.IsShell {
			s += " shell"
		}
	}
	if !ev.echo {
		s += " noecho"
	}
	return s
}

// replayConn serves recorded output to a Session's pump, one feed at a time:
// feed returns once the pump has processed the bytes (it is back in Read),
// so the session's log, detector and screen hold exactly what was fed. It
// reports the foreground and ECHO state of the chunk being fed. Write
// discards: the replay does not answer.
type replayConn struct {
	in     chan []byte
	idle   chan struct{}
	done   chan struct{}
	once   sync.Once
	served bool // the pump has taken a chunk; touched only by the pump

	mu   sync.Mutex // protects ev
	ev   corpusEvent
	fgOn bool
}

func newReplayConn() *replayConn {
	return &replayConn{in: make(chan []byte), idle: make(chan struct{}), done: make(chan struct{})}
}

func (c *replayConn) Read(p []byte) (int, error) {
	if c.served {
		select {
		case c.idle <- struct{}{}:
		case <-c.done:
			return 0, io.EOF
		}
	}
	select {
	case b := <-c.in:
		if len(b) > len(p) {
			panic("replay chunk larger than the pump's buffer")
		}
		c.served = true
		return copy(p, b), nil
	case <-c.done:
		return 0, io.EOF
	}
}

// feed hands b to the pump and waits until it has been processed.
func (c *replayConn) feed(b []byte) {
	c.in <- b
	<-c.idle
}

func (c *replayConn) setState(ev corpusEvent) {
	c.mu.Lock()
	c.ev = ev
	c.mu.Unlock()
}

func (c *replayConn) Write(p []byte) (int, error) { return len(p), nil }
func (c *replayConn) Close() error                { c.once.Do(func() { close(c.done) }); return nil }
func (c *replayConn) Wait() error                 { <-c.done; return nil }

func (c *replayConn) Foreground() (transport.Foreground, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.ev.fgOK {
		return transport.Foreground{}, errors.New("foreground not recorded")
	}
	return c.ev.fg, nil
}

func (c *replayConn) Echo() (bool, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ev.echo, nil
}

// fakeClock is the Session's clock during a replay.
type fakeClock struct {
	base time.Time
	d    atomic.Int64
}

func (c *fakeClock) now() time.Time               { return c.base.Add(time.Duration(c.d.Load())) }
func (c *fakeClock) set(d time.Duration)          { c.d.Store(int64(d)) }
func (c *fakeClock) at(d time.Duration) time.Time { return c.base.Add(d) }

// longQuiet is how long the replay lets output be quiet before each
// evaluation: past every quiet period and grace of the verdict.
const longQuiet = 10 * time.Second

// replayer drives one transcript through a Session.
type replayer struct {
	cf   corpusFile
	conn *replayConn
	s    *Session
	clk  *fakeClock
	fed  int64 // bytes fed so far
	next int   // the next event to apply
	last time.Duration
}

func newReplayer(t *testing.T, cf corpusFile) *replayer {
	conn := newReplayConn()
	s := newSession(sessionConfig{
		id: "corpus", transport: "local", command: "/bin/bash", conn: conn, size: cf.size,
		ringSize: 8 << 20, nonce: cf.nonce, shell: cf.shell, log: slog.New(slog.DiscardHandler),
	})
	clk := &fakeClock{base: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	s.now = clk.now // before the first feed: the pump reads it only then
	t.Cleanup(func() { _ = s.Close() })
	return &replayer{cf: cf, conn: conn, s: s, clk: clk}
}

// feedTo feeds the output up to off, chunk by chunk as recorded, with the
// clock at each chunk's time, then applies the state changes recorded at
// off.
func (r *replayer) feedTo(off int64) {
	for r.fed < off || (r.next < len(r.cf.events) && r.cf.events[r.next].n == 0 && r.cf.events[r.next].off <= off) {
		ev := r.cf.events[r.next]
		r.conn.setState(ev)
		r.last = ev.at
		if ev.n == 0 {
			r.next++
			continue
		}
		to := min(off, ev.off+int64(ev.n))
		r.clk.set(ev.at)
		for from := r.fed; from < to; {
			n := min(to-from, 16<<10)
			r.conn.feed(r.cf.data[from : from+n])
			from += n
		}
		r.fed = to
		if to == ev.off+int64(ev.n) {
			r.next++
		}
	}
}

// command builds the step's command as Send does at the send: the prompt
// learned from the line at the cursor, whether the integrated shell was at
// its prompt, the mark and until.
func (r *replayer) command(t *testing.T, st corpusStep) *command {
	var until *regexp.Regexp
	if st.until != "" {
		var err error
		if until, err = compileUntil(st.until); err != nil {
			t.Fatal(err)
		}
	}
	c := newCommand(st.at, r.clk.at(st.sent), typedText(st.lines), until)
	r.s.mu.Lock()
	last, ok := r.s.det.Last()
	c.AtPrompt = ok && last.Kind != verdict.MarkCommand
	c.Prompt = verdict.LearnPrompt(r.s.ring)
	r.s.mu.Unlock()
	if st.markID != "" {
		c.SetMark(st.markID)
	}
	return c
}

// typedText gives back the text that newCommand splits into lines.
func typedText(lines []string) string {
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// evaluateAt evaluates a fresh copy of c with everything up to off fed and
// output quiet for longQuiet.
func (r *replayer) evaluateAt(c *command, off int64) verdict.Verdict {
	r.feedTo(off)
	r.clk.set(r.last + longQuiet)
	wc := *c
	v, _, _, _ := r.s.evaluate(&wc)
	return v
}

// corpusSplits returns the offsets in (at, end] to evaluate at: all of them
// for short outputs; for long ones (full-screen programs) every offset near
// the send and near the finish, and a stride elsewhere.
func corpusSplits(at, end, finish int64) []int64 {
	const exhaustive, window, stride = 64 << 10, 2 << 10, 7
	var out []int64
	for i := at + 1; i <= end; i++ {
		if end-at <= exhaustive || i-at <= window || i == end ||
			(finish >= 0 && i >= finish-window && i <= finish+window) || (i-at)%stride == 0 {
			out = append(out, i)
		}
	}
	return out
}

func describeVerdict(v verdict.Verdict) string {
	if !v.Complete {
		return "not complete"
	}
	s := "complete via " + v.Via
	if v.ExitCode != nil {
		s += fmt.Sprintf(" exit %d", *v.ExitCode)
	}
	return s
}

// TestCorpusEverySplit replays the corpus (see the top of this file). A
// false complete is a verdict that says finished before the command was;
// an early give-up is one that is not complete (or not by the expected
// layer) once it has finished.
func TestCorpusEverySplit(t *testing.T) {
	for _, cf := range loadCorpus(t) {
		t.Run(cf.name, func(t *testing.T) {
			t.Parallel()
			start := time.Now()
			splits := replayCorpus(t, cf)
			t.Logf("%d steps, %d bytes, %d split points in %s", len(cf.steps), len(cf.data), splits, time.Since(start).Round(time.Millisecond))
		})
	}
}

func replayCorpus(t *testing.T, cf corpusFile) int {
	r := newReplayer(t, cf)
	total := 0
	for k, st := range cf.steps {
		end := int64(len(cf.data))
		if k+1 < len(cf.steps) {
			end = cf.steps[k+1].at
		}
		if st.at < r.fed || st.at > end || (st.complete && (st.finish <= st.at || st.finish > end)) {
			t.Fatalf("step %d %q: bad offsets: at %d finish %d end %d", k+1, st.name, st.at, st.finish, end)
		}
		r.feedTo(st.at)
		c := r.command(t, st)
		tail := func(i int64) string {
			return strconv.Quote(string(cf.data[max(st.at, i-100):i]))
		}
		falseComplete, gaveUp := false, false
		for _, i := range corpusSplits(st.at, end, st.finish) {
			total++
			v := r.evaluateAt(c, i)
			switch {
			case (!st.complete || i < st.finish) && v.Complete:
				if !falseComplete {
					t.Errorf("step %d %q: FALSE COMPLETE at offset %d (%d bytes after the send; finish %d): %s; want %s; output ends %s",
						k+1, st.name, i, i-st.at, st.finish, describeVerdict(v), st.expect(), tail(i))
				}
				falseComplete = true
			case st.complete && i >= st.finish && !sameVerdict(v, st):
				if !gaveUp {
					t.Errorf("step %d %q: at offset %d (%d past the finish %d): %s; want %s; output ends %s",
						k+1, st.name, i, i-st.finish, st.finish, describeVerdict(v), st.expect(), tail(i))
				}
				gaveUp = true
			case st.complete && i == st.finish:
				// The command's output, as a result returns it, does not
				// start with the echo of what was typed.
				out, _ := r.s.ring.AppendRange(nil, v.Anchor, v.End)
				first, _, _ := strings.Cut(strings.Join(reduce.Render(out), "\n"), "\n")
				for _, l := range st.lines {
					if l = strings.TrimSpace(l); len(l) >= 8 && strings.Contains(first, l) {
						t.Errorf("step %d %q: the output at the finish starts with the echo %q", k+1, st.name, l)
					}
				}
			}
		}
		if !st.complete {
			r.feedTo(end)
			r.clk.set(r.last + longQuiet)
			if got := r.s.classify(); got.State != st.state {
				t.Errorf("step %d %q: state %q at the end of its output, want %q (%s)", k+1, st.name, got.State, st.state, got.Describe())
			}
		}
	}
	return total
}

// TestCorpusRecordedTime replays each transcript as it was recorded: chunk
// by chunk, the clock at each chunk's time, one command per step evaluated
// as await does — when a chunk arrives and again just before the next one —
// so that what evaluations carry from one to the next (the anchor, how far
// until and mark have scanned) is exercised too. The first complete verdict
// must come no earlier than the finish, and by the end of the step's output
// it must be the expected one.
func TestCorpusRecordedTime(t *testing.T) {
	for _, cf := range loadCorpus(t) {
		t.Run(cf.name, func(t *testing.T) {
			t.Parallel()
			r := newReplayer(t, cf)
			for k, st := range cf.steps {
				end := int64(len(cf.data))
				if k+1 < len(cf.steps) {
					end = cf.steps[k+1].at
				}
				r.feedTo(st.at)
				c := r.command(t, st)
				var v verdict.Verdict
				for ei := r.next; ei < len(cf.events) && !v.Complete; ei++ {
					ev := cf.events[ei]
					if ev.off >= end || ev.n == 0 {
						continue
					}
					r.feedTo(ev.off + int64(ev.n))
					quiet := []time.Duration{0}
					if ei+1 < len(cf.events) && cf.events[ei+1].off < end {
						if gap := cf.events[ei+1].at - ev.at - time.Millisecond; gap > 0 {
							quiet = append(quiet, gap)
						}
					}
					for _, q := range quiet {
						r.clk.set(ev.at + q)
						if v, _, _, _ = r.s.evaluate(c); v.Complete {
							break
						}
					}
					if v.Complete && (!st.complete || r.fed < st.finish) {
						t.Fatalf("step %d %q: FALSE COMPLETE with output up to %d (finish %d): %s; want %s",
							k+1, st.name, r.fed, st.finish, describeVerdict(v), st.expect())
					}
				}
				if !v.Complete {
					r.feedTo(end)
					r.clk.set(r.last + longQuiet)
					v, _, _, _ = r.s.evaluate(c)
				}
				if st.complete && !sameVerdict(v, st) || !st.complete && v.Complete {
					t.Fatalf("step %d %q: %s at the end of its output; want %s", k+1, st.name, describeVerdict(v), st.expect())
				}
			}
		})
	}
}

func sameVerdict(v verdict.Verdict, st corpusStep) bool {
	if !v.Complete || v.Via != st.via {
		return false
	}
	if (v.ExitCode == nil) != (st.exit == nil) {
		return false
	}
	return v.ExitCode == nil || *v.ExitCode == *st.exit
}

// TestCorpusFormat checks that the transcripts round-trip through the
// writer, so re-recording only ever changes what was recorded.
func TestCorpusFormat(t *testing.T) {
	for _, cf := range loadCorpus(t) {
		again, err := parseCorpus([]byte(formatCorpus(cf, nil)))
		if err != nil {
			t.Fatalf("%s: %v", cf.name, err)
		}
		if again.name != cf.name || !bytes.Equal(again.data, cf.data) || len(again.events) != len(cf.events) || len(again.steps) != len(cf.steps) {
			t.Fatalf("%s does not round-trip", cf.name)
		}
		for i := range cf.steps {
			if again.steps[i].expect() != cf.steps[i].expect() || again.steps[i].finish != cf.steps[i].finish || !slices.Equal(again.steps[i].lines, cf.steps[i].lines) {
				t.Fatalf("%s step %d does not round-trip", cf.name, i+1)
			}
		}
	}
}

// formatCorpus writes a transcript: a header of steps, then the output as
// quoted chunks, one per Read, broken after each newline and at the send
// and finish offsets (with a comment there) for reading and diffing.
func formatCorpus(cf corpusFile, about []string) string {
	var b strings.Builder
	b.WriteString("# ttymux transcript corpus (issue #7); re-record with\n")
	b.WriteString("#   go test -run TestRecordCorpus -record-corpus ./session\n")
	for _, a := range about {
		b.WriteString("# " + a + "\n")
	}
	b.WriteString("# Offsets count bytes of output from the start of the session. A step's finish is\n")
	b.WriteString("# the first offset at which the command has really finished; the replay cuts the\n")
	b.WriteString("# output at every offset after the send and wants no verdict before the finish and\n")
	b.WriteString("# the expected one from there on. @ lines give each chunk's time, foreground program\n")
	b.WriteString("# (shell: the session's own shell) and ECHO flag.\n")
	fmt.Fprintf(&b, "transcript %s\nnonce %s\nsize %d %d\nshell %v\n", cf.name, cf.nonce, cf.size.Rows, cf.size.Cols, cf.shell)
	cuts := map[int64][]string{}
	for k, st := range cf.steps {
		fmt.Fprintf(&b, "step %d %s\n", k+1, strconv.Quote(st.name))
		if st.secret {
			b.WriteString("\tsecret\n")
		} else if st.text != "" {
			fmt.Fprintf(&b, "\ttext %s\n", strconv.Quote(st.text))
		}
		if len(st.keys) > 0 {
			fmt.Fprintf(&b, "\tkeys %s\n", strings.Join(st.keys, ","))
		}
		if st.enter {
			b.WriteString("\tenter\n")
		}
		if st.markID != "" {
			fmt.Fprintf(&b, "\tmark %s\n", st.markID)
		}
		if st.until != "" {
			fmt.Fprintf(&b, "\tuntil %s\n", strconv.Quote(st.until))
		}
		if len(st.lines) > 0 {
			b.WriteString("\tlines")
			for _, l := range st.lines {
				b.WriteString(" " + strconv.Quote(l))
			}
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "\tat %d\n\tsent %.3f\n\texpect %s\n", st.at, st.sent.Seconds(), st.expect())
		if st.complete {
			fmt.Fprintf(&b, "\tfinish %d\n", st.finish)
		}
		if st.live != "" {
			fmt.Fprintf(&b, "\tlive %s\n", st.live)
		}
		what := st.text
		if st.secret {
			what = "(secret)"
		} else if what == "" {
			what = strings.Join(st.keys, ",")
		}
		cuts[st.at] = append(cuts[st.at], fmt.Sprintf("# step %d sent: %s", k+1, strconv.Quote(truncate(what, 60))))
		if st.complete {
			cuts[st.finish] = append(cuts[st.finish], fmt.Sprintf("# step %d finished here (%s)", k+1, st.expect()))
		}
	}
	b.WriteString("output\n")
	for _, ev := range cf.events {
		for _, c := range cuts[ev.off] {
			b.WriteString(c + "\n")
		}
		delete(cuts, ev.off)
		b.WriteString(formatEvent(ev) + "\n")
		p := cf.data[ev.off : ev.off+int64(ev.n)]
		off := ev.off
		for len(p) > 0 {
			n := min(len(p), 72)
			if i := bytes.IndexByte(p[:n], '\n'); i >= 0 {
				n = i + 1
			}
			for o := off + 1; o < off+int64(n); o++ {
				if _, ok := cuts[o]; ok {
					n = int(o - off)
					break
				}
			}
			b.WriteString(strconv.Quote(string(p[:n])) + "\n")
			p, off = p[n:], off+int64(n)
			if len(p) > 0 {
				for _, c := range cuts[off] {
					b.WriteString(c + "\n")
				}
				delete(cuts, off)
			}
		}
	}
	for _, off := range slices.Sorted(maps.Keys(cuts)) {
		for _, c := range cuts[off] {
			b.WriteString(c + "\n")
		}
	}
	return b.String()
}

func truncate(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// ---- Recording ----

// A corpusScript says how to record one transcript.
type corpusScript struct {
	name  string
	about []string
	needs []string // programs without which it is not recorded
	// setup prepares what the steps need (a server, files) and returns
	// values for {name} placeholders in the steps' text, and extra
	// environment for the session.
	setup func(t *testing.T, dir string) (vars map[string]string, env []string)
	steps []scriptStep
}

type scriptStep struct {
	name      string
	text      string
	keys      []string
	noEnter   bool
	mark      bool
	secret    bool
	integrate bool
	until     string

	// The expected verdict: via "" means never complete, in state.
	via    string
	exit   string // "" when the verdict has no exit code
	state  string
	prompt string // via prompt: a regexp the line at the cursor matches when finished (via until: once the command ended)
	// via until: a regexp ((?m) anchors) on the rendered output, echo
	// included, that matches first where until should: an output line,
	// never the echo.
	untilAt string

	settle  string        // a regexp the screen shows once the step has settled
	timeout time.Duration // for the live send; default 15 s (1.5 s when waiting)
}

const remotePrompt = `[#$]$`

func corpusScripts() []corpusScript {
	return []corpusScript{
		{
			name: "nested-ssh",
			about: []string{
				"ssh typed into a local bash (ttymux's hook) to a real OpenSSH sshd on 127.0.0.1 (internal/sshdtest, key",
				"auth), a login shell there: the prompt layer, mark, integrate on demand, python3 over ssh, exit back.",
			},
			needs: []string{"ssh", "python3"},
			setup: func(t *testing.T, dir string) (map[string]string, []string) {
				d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
				return sshVars(t, d, dir), nil
			},
			steps: []scriptStep{
				{name: "ssh to the sshd", text: "ssh -F {cfg} -p {port} box", via: ViaPrompt, prompt: remotePrompt},
				{name: "echo", text: "echo remote-$((6*7))", via: ViaPrompt, prompt: remotePrompt},
				{name: "false without mark", text: "false", via: ViaPrompt, prompt: remotePrompt},
				{name: "quiet command", text: "sleep 1; echo x", via: ViaPrompt, prompt: remotePrompt},
				{name: "false with mark", text: "false", mark: true, via: ViaMark, exit: "1"},
				{name: "not found with mark", text: "no-such-command-ttymux", mark: true, via: ViaMark, exit: "127"},
				{name: "cd changes the prompt", text: "cd /tmp", via: ViaPrompt, prompt: remotePrompt},
				{name: "integrate on demand", integrate: true, via: ViaExitCode, exit: "0"},
				{name: "exit code after integrate", text: "(exit 3)", via: ViaExitCode, exit: "3"},
				{name: "quiet command integrated", text: "sleep 1; echo x", via: ViaExitCode, exit: "0"},
				{name: "until, its text in the echo", text: "sleep 1; echo until-marker; sleep 1", until: "until-marker", untilAt: `(?m)^until-marker$`, via: ViaUntil, prompt: remotePrompt},
				{name: "python3 over ssh", text: "python3 -q", via: ViaPrompt, prompt: `^>>>$`},
				{name: "print", text: "print(6*7)", via: ViaPrompt, prompt: `^>>>$`},
				{name: "exit python", text: "exit()", via: ViaExitCode, exit: "0"},
				{name: "exit ssh", text: "exit", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "ssh-password",
			about: []string{"ssh asking for a password (password authentication on a real sshd), abandoned with ctrl+c."},
			needs: []string{"ssh"},
			setup: func(t *testing.T, dir string) (map[string]string, []string) {
				d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{"PasswordAuthentication yes"}})
				return sshVars(t, d, dir), nil
			},
			steps: []scriptStep{
				{name: "password prompt", text: "ssh -F {cfg} -p {port} -o PubkeyAuthentication=no -o PreferredAuthentications=password box", state: "password_prompt", settle: `password: *$`},
				{name: "ctrl+c", keys: []string{"ctrl+c"}, via: ViaExitCode, exit: "130"},
			},
		},
		{
			name:  "getpass",
			about: []string{"password prompts on the local terminal: python's getpass and bash's read -s, answered with secret text."},
			needs: []string{"python3"},
			steps: []scriptStep{
				{name: "getpass", text: `python3 -c 'import getpass; print(len(getpass.getpass()))'`, state: "password_prompt", settle: `Password: *$`},
				{name: "answer getpass", text: "hunter2", secret: true, via: ViaExitCode, exit: "0"},
				{name: "read -s", text: `read -rs -p 'Password: ' pw; echo; echo ${#pw}`, state: "password_prompt", settle: `Password: *$`},
				{name: "answer read", text: "s3cret", secret: true, via: ViaExitCode, exit: "0"},
			},
		},
		{
			name: "docker-exec",
			about: []string{
				"docker-exec-style nesting. `docker` here is a stand-in script: unshare --uts --fork, hostname 3f2a1b9c7d,",
				"cd /, env -i and bash --norc with PS1='\\u@\\h:\\w\\$ ', as a container's shell would be.",
			},
			needs: []string{"unshare", "hostname"},
			setup: func(t *testing.T, dir string) (map[string]string, []string) {
				bin := filepath.Join(dir, "bin")
				writeScript(t, filepath.Join(bin, "container-shell"), `#!/bin/sh
hostname "$1" && cd / && exec env -i TERM="$TERM" HOME=/root PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin PS1='\u@\h:\w\$ ' bash --norc --noprofile
`)
				writeScript(t, filepath.Join(bin, "docker"), `#!/bin/sh
# docker exec -it ID bash: a shell in a new UTS namespace named ID.
exec unshare --uts --fork "$(dirname "$0")/container-shell" "$3"
`)
				return nil, []string{"PATH=" + bin + ":" + os.Getenv("PATH")}
			},
			steps: []scriptStep{
				{name: "docker exec", text: "docker exec -it 3f2a1b9c7d bash", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/#$`},
				{name: "hostname", text: "hostname", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/#$`},
				{name: "cd changes the prompt", text: "cd /etc", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/etc#$`},
				{name: "quiet command", text: "sleep 1; echo x", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/etc#$`},
				{name: "false without mark", text: "false", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/etc#$`},
				{name: "exit 42 with mark", text: "(exit 42)", mark: true, via: ViaMark, exit: "42"},
				{name: "two lines", text: "echo one\necho two", via: ViaPrompt, prompt: `^root@3f2a1b9c7d:/etc#$`},
				{name: "until, a pasted block", text: "sleep 1\necho until-marker", until: "until-marker", untilAt: `(?m)^until-marker$`,
					via: ViaUntil, prompt: `^root@3f2a1b9c7d:/etc#$`},
				{name: "exit the container", text: "exit", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "su",
			about: []string{"su to another user (as root: su -s /bin/bash nobody), a shell without ttymux's hook."},
			needs: []string{"su"},
			steps: []scriptStep{
				{name: "su", text: "su -s /bin/bash nobody", via: ViaPrompt, prompt: `[$#]$`},
				{name: "id", text: "id -un", via: ViaPrompt, prompt: `[$#]$`},
				{name: "quiet command", text: "sleep 1; echo x", via: ViaPrompt, prompt: `[$#]$`},
				{name: "ls with mark", text: "ls /nonexistent", mark: true, via: ViaMark, exit: "2"},
				{name: "exit", text: "exit", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "python",
			about: []string{"the python3 REPL: output, a multi-line block, an exception, a quiet statement, input(), ctrl+c."},
			needs: []string{"python3"},
			steps: []scriptStep{
				{name: "start", text: "python3 -q", via: ViaPrompt, prompt: `^>>>$`},
				{name: "print", text: "print(6*7)", via: ViaPrompt, prompt: `^>>>$`},
				{name: "block", text: "for i in range(3):\n    print(i)\n", via: ViaPrompt, prompt: `^>>>$`},
				{name: "exception", text: "1/0", via: ViaPrompt, prompt: `^>>>$`},
				{name: "quiet statement", text: "import time; time.sleep(1); print('x')", via: ViaPrompt, prompt: `^>>>$`},
				{name: "until, its text in the echo", text: "time.sleep(0.5); print('until-marker'); time.sleep(1)", until: "until-marker", untilAt: `(?m)^until-marker$`, via: ViaUntil, prompt: `^>>>$`},
				{name: "input", text: "input('name? ')", state: "repl", settle: `name\? *$`},
				{name: "answer input", text: "bob", via: ViaPrompt, prompt: `^>>>$`},
				{name: "long sleep", text: "time.sleep(30)", state: "repl", timeout: time.Second},
				{name: "ctrl+c", keys: []string{"ctrl+c"}, via: ViaPrompt, prompt: `^>>>$`},
				{name: "exit", text: "exit()", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "psql",
			about: []string{"psql against a throwaway PostgreSQL server (unix socket, trust auth), with its pager."},
			needs: []string{"psql", "runuser"},
			setup: setupPostgres,
			steps: []scriptStep{
				{name: "psql", text: "psql -h {pgsock} -U postgres", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "select", text: "select 6*7 as answer;", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "error", text: "select nosuch;", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "quiet query", text: "select pg_sleep(1);", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "continuation", text: "select 1 +", via: ViaPrompt, prompt: `^postgres-#$`},
				{name: "end the statement", text: "1;", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "two lines", text: "select n\nfrom generate_series(1, 3) as n;", via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "pager", text: "select n from generate_series(1, 200) as n;", state: "pager"},
				{name: "quit the pager", text: "q", noEnter: true, via: ViaPrompt, prompt: `^postgres=#$`},
				{name: "quit", text: `\q`, via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "pager",
			about: []string{"less on a long file (alternate screen) and git log through its pager (less -FRX, no alternate screen)."},
			needs: []string{"less", "git"},
			setup: func(t *testing.T, dir string) (map[string]string, []string) {
				var b strings.Builder
				for i := 1; i <= 2000; i++ {
					fmt.Fprintf(&b, "line %d of a long file\n", i)
				}
				if err := os.WriteFile(filepath.Join(dir, "long.txt"), []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				gitRepo(t, filepath.Join(dir, "repo"), 60)
				return nil, []string{"GIT_CONFIG_GLOBAL=/dev/null"}
			},
			steps: []scriptStep{
				{name: "less", text: "less long.txt", state: "pager", settle: `line 39 of`},
				{name: "to the end", text: "G", noEnter: true, state: "pager", settle: `line 2000 of`},
				{name: "quit less", text: "q", noEnter: true, via: ViaExitCode, exit: "0"},
				{name: "git log", text: "cd repo && git log", state: "pager", settle: `^:\s*$`},
				{name: "quit git's pager", text: "q", noEnter: true, via: ViaExitCode, exit: "0"},
				{name: "git without pager", text: "git --no-pager log --oneline -3", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name:  "vim",
			about: []string{"vim: open a file, insert text, write and quit; open it again and :q."},
			needs: []string{"vim"},
			steps: []scriptStep{
				{name: "vim", text: "vim notes.txt", state: "alt_screen", settle: `notes.txt`},
				{name: "insert", text: "ihello from vim", noEnter: true, state: "alt_screen", settle: `hello from vim`},
				{name: "escape", keys: []string{"esc"}, state: "alt_screen"},
				{name: "write and quit", text: ":wq", via: ViaExitCode, exit: "0"},
				{name: "cat", text: "cat notes.txt", via: ViaExitCode, exit: "0"},
				{name: "vim again", text: "vim notes.txt", state: "alt_screen", settle: `hello from vim`},
				{name: "quit", text: ":q", via: ViaExitCode, exit: "0"},
			},
		},
		{
			name: "top",
			about: []string{
				"top and htop, quit with q. top (procps) draws on the normal screen, so it is a running",
				"program; htop uses the alternate screen.",
			},
			needs: []string{"top", "htop"},
			steps: []scriptStep{
				{name: "top", text: "top", state: "running", settle: `PID`},
				{name: "quit top", text: "q", noEnter: true, via: ViaExitCode, exit: "0"},
				{name: "htop", text: "htop", state: "alt_screen", settle: `PID`},
				{name: "quit htop", text: "q", noEnter: true, via: ViaExitCode, exit: "0"},
			},
		},
	}
}

// sshVars writes an ssh_config for d (host box, key auth, host key not
// checked) and returns the placeholders {cfg} and {port}.
func sshVars(t *testing.T, d *sshdtest.SSHD, dir string) map[string]string {
	cfg := filepath.Join(dir, "ssh_config")
	block := d.ConfigBlock("box", "/dev/null", "StrictHostKeyChecking no", "LogLevel ERROR")
	if err := os.WriteFile(cfg, []byte(block), 0o600); err != nil {
		t.Fatal(err)
	}
	return map[string]string{"cfg": cfg, "port": strconv.Itoa(d.Port)}
}

func writeScript(t *testing.T, path, body string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(body), 0o755); err != nil {
		t.Fatal(err)
	}
}

// gitRepo makes a repository with n commits of fixed authors and dates.
func gitRepo(t *testing.T, dir string, n int) {
	t.Helper()
	run := func(env []string, args ...string) {
		cmd := exec.Command("git", args...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1")
		cmd.Env = append(cmd.Env, env...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	run(nil, "init", "-q", "-b", "main")
	for i := 1; i <= n; i++ {
		date := fmt.Sprintf("2026-01-%02dT12:00:00Z", 1+i%28)
		run([]string{"GIT_AUTHOR_NAME=Ada", "GIT_AUTHOR_EMAIL=ada@example.com", "GIT_COMMITTER_NAME=Ada",
			"GIT_COMMITTER_EMAIL=ada@example.com", "GIT_AUTHOR_DATE=" + date, "GIT_COMMITTER_DATE=" + date},
			"commit", "-q", "--allow-empty", "-m", fmt.Sprintf("commit number %d", i))
	}
}

// setupPostgres starts a throwaway PostgreSQL server (as the postgres user,
// listening only on a unix socket, trust auth) for the psql recording.
func setupPostgres(t *testing.T, _ string) (map[string]string, []string) {
	initdb, _ := filepath.Glob("/usr/lib/postgresql/*/bin/initdb")
	if len(initdb) == 0 || os.Geteuid() != 0 {
		t.Skip("psql is recorded against a local PostgreSQL server run as root via runuser: install postgresql")
	}
	bin := filepath.Dir(initdb[len(initdb)-1])
	dir, err := os.MkdirTemp("", "ttymux-pg-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	if err := os.Chmod(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command("chown", "postgres:", dir).CombinedOutput(); err != nil {
		t.Fatalf("chown: %v %s", err, out)
	}
	pg := func(args ...string) {
		cmd := exec.Command("runuser", append([]string{"-u", "postgres", "--"}, args...)...)
		if out, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("%v: %v\n%s", args, err, out)
		}
	}
	data := filepath.Join(dir, "data")
	pg(filepath.Join(bin, "initdb"), "-D", data, "-A", "trust", "-U", "postgres", "--no-sync")
	pg(filepath.Join(bin, "pg_ctl"), "-D", data, "-o", "-k "+dir+" -c listen_addresses=''", "-l", filepath.Join(dir, "log"), "-w", "start")
	t.Cleanup(func() { pg(filepath.Join(bin, "pg_ctl"), "-D", data, "-m", "immediate", "stop") })
	return map[string]string{"pgsock": dir}, []string{"PAGER=less"}
}

// recordingOpener opens local PTYs whose output it records.
type recordingOpener struct {
	local local.Opener
	conn  *recordingConn
}

func (o *recordingOpener) Open(ctx context.Context, t transport.Target) (transport.Conn, error) {
	start := time.Now()
	c, err := o.local.Open(ctx, t)
	if err != nil {
		return nil, err
	}
	o.conn = &recordingConn{Conn: c, start: start}
	return o.conn, nil
}

// recordingConn is a local Conn that keeps every chunk it reads, with the
// time and the terminal's foreground and ECHO state.
type recordingConn struct {
	transport.Conn
	start time.Time

	mu     sync.Mutex // protects the following
	data   []byte
	events []corpusEvent
}

func (c *recordingConn) sample() corpusEvent {
	ev := corpusEvent{at: time.Since(c.start), echo: true}
	if f, ok := c.Conn.(transport.Foregrounder); ok {
		if fg, err := f.Foreground(); err == nil {
			ev.fg, ev.fgOK = transport.Foreground{Name: fg.Name, IsShell: fg.IsShell}, true
		}
	}
	if e, ok := c.Conn.(transport.EchoReporter); ok {
		if on, err := e.Echo(); err == nil {
			ev.echo = on
		}
	}
	return ev
}

func (c *recordingConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		ev := c.sample()
		c.mu.Lock()
		ev.off, ev.n = int64(len(c.data)), n
		c.data = append(c.data, p[:n]...)
		c.events = append(c.events, ev)
		c.mu.Unlock()
	}
	return n, err
}

// settled records the terminal's state once a step has settled, when it
// differs from that of the last chunk.
func (c *recordingConn) settled() {
	ev := c.sample()
	c.mu.Lock()
	defer c.mu.Unlock()
	last := c.events[len(c.events)-1]
	if last.fg != ev.fg || last.fgOK != ev.fgOK || last.echo != ev.echo {
		ev.off = int64(len(c.data))
		c.events = append(c.events, ev)
	}
}

func (c *recordingConn) Resize(ctx context.Context, sz transport.Size) error {
	return c.Conn.(transport.Resizer).Resize(ctx, sz)
}

func (c *recordingConn) Signal(ctx context.Context, sig transport.Signal) error {
	return c.Conn.(transport.Signaler).Signal(ctx, sig)
}

func (c *recordingConn) Foreground() (transport.Foreground, error) {
	return c.Conn.(transport.Foregrounder).Foreground()
}

func (c *recordingConn) Echo() (bool, error) { return c.Conn.(transport.EchoReporter).Echo() }

// TestRecordCorpus re-records testdata/corpus from real programs; it runs
// only with -record-corpus. A script whose programs are missing is skipped
// (its old transcript stays).
func TestRecordCorpus(t *testing.T) {
	if !*recordCorpus {
		t.Skip("run with -record-corpus to re-record testdata/corpus")
	}
	for _, sc := range corpusScripts() {
		t.Run(sc.name, func(t *testing.T) {
			for _, p := range sc.needs {
				if _, err := exec.LookPath(p); err != nil {
					t.Skipf("%s not installed; %s not recorded", p, sc.name)
				}
			}
			cf := recordScript(t, sc)
			f := filepath.Join("testdata", "corpus", sc.name+".txt")
			if err := os.MkdirAll(filepath.Dir(f), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(f, []byte(formatCorpus(cf, sc.about)), 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func recordScript(t *testing.T, sc corpusScript) corpusFile {
	dir := t.TempDir()
	vars, env := map[string]string{}, []string(nil)
	if sc.setup != nil {
		vars, env = sc.setup(t, dir)
	}
	op := &recordingOpener{}
	m := NewManager(Options{
		Kinds: []Kind{LocalKind(op)}, StateDir: t.TempDir(), Shell: "/bin/bash", NoRC: true,
	})
	defer m.CloseAll()
	ctx := t.Context()
	home := t.TempDir()
	s, err := m.Open(ctx, OpenRequest{Transport: "local", Target: transport.Target{
		Dir: dir,
		Env: append([]string{"HOME=" + home, "PS1=$ ", "LANG=C.UTF-8"}, env...),
	}})
	if err != nil {
		t.Fatal(err)
	}
	rc := op.conn
	s.mu.Lock()
	cf := corpusFile{name: sc.name, nonce: s.det.Nonce(), size: s.size, shell: s.shell}
	s.mu.Unlock()
	for k, ss := range sc.steps {
		text := ss.text
		for name, v := range vars {
			text = strings.ReplaceAll(text, "{"+name+"}", v)
		}
		timeout := ss.timeout
		if timeout == 0 {
			timeout = 15 * time.Second
			if ss.via == "" {
				timeout = 1500 * time.Millisecond
			}
		}
		res, err := s.Send(ctx, SendRequest{Text: text, Keys: ss.keys, Enter: !ss.noEnter, Mark: ss.mark, Secret: ss.secret,
			Integrate: ss.integrate, Until: ss.until, Wait: true, Timeout: timeout})
		if err != nil {
			t.Fatalf("step %d %q: %v", k+1, ss.name, err)
		}
		s.mu.Lock()
		c := s.cmd
		s.mu.Unlock()
		st := corpusStep{
			name: ss.name, text: text, keys: ss.keys, enter: text != "" && !ss.noEnter, secret: ss.secret, until: ss.until,
			markID: strings.TrimPrefix(c.MarkEcho(), "__TTYMUX_ MARK_"), lines: c.Lines,
			at: c.SendOff, sent: c.Sent.Sub(rc.start), complete: ss.via != "", via: ss.via, state: ss.state, finish: -1,
		}
		if ss.secret {
			st.text = ""
		}
		if ss.exit != "" {
			code, _ := strconv.Atoi(ss.exit)
			st.exit = &code
		}
		st.live = fmt.Sprintf("complete=%v via=%s exit=%s state=%s in %dms", res.Complete, cmpOr(res.Via, "-"), codeString(res.ExitCode), res.State, res.ElapsedMS)
		waitSettled(t, s, c, ss)
		rc.settled()
		rc.mu.Lock()
		data := slices.Clone(rc.data)
		rc.mu.Unlock()
		if st.complete {
			st.finish = findFinish(t, cf.nonce, data, c, ss)
		}
		liveOK := res.Complete == st.complete && (!st.complete || res.Via == st.via && codeString(res.ExitCode) == codeString(st.exit)) &&
			(st.complete || res.State == st.state)
		if !liveOK {
			t.Errorf("step %d %q: live verdict %s; want %s", k+1, ss.name, st.live, st.expect())
		}
		t.Logf("step %d %q: %s (live %s)", k+1, ss.name, st.expect(), st.live)
		cf.steps = append(cf.steps, st)
	}
	m.CloseAll()
	rc.mu.Lock()
	cf.data, cf.events = rc.data, rc.events
	rc.mu.Unlock()
	return cf
}

func cmpOr(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

func codeString(c *int) string {
	if c == nil {
		return "-"
	}
	return strconv.Itoa(*c)
}

// waitSettled waits until the step has really finished (by a test of its
// own, not the verdict's) or, for a step that never finishes, until its
// screen is drawn; then until output has been quiet for a while.
func waitSettled(t *testing.T, s *Session, c *command, ss scriptStep) {
	t.Helper()
	var promptRe, settleRe *regexp.Regexp
	if ss.prompt != "" {
		promptRe = regexp.MustCompile(ss.prompt)
	}
	if ss.settle != "" {
		settleRe = regexp.MustCompile(ss.settle)
	}
	cond := func() bool {
		s.mu.Lock()
		end := s.ring.End()
		b, _ := s.ring.AppendRange(nil, c.SendOff, end)
		_, done := s.det.FirstAfter(verdict.MarkDone, c.SendOff)
		s.mu.Unlock()
		switch ss.via {
		case ViaUntil:
			// The command goes on after the match: let it end (its prompt).
			return untilFinish(ss.untilAt, b) >= 0 && (promptRe == nil || promptRe.MatchString(cursorLine(b)))
		case ViaExitCode:
			return done
		case ViaMark:
			return markLineRe(c.MarkEcho()).Match(b)
		case ViaPrompt:
			return promptRe.MatchString(cursorLine(b))
		}
		if settleRe != nil {
			return slices.ContainsFunc(s.scr.Snapshot().Lines, settleRe.MatchString)
		}
		return true
	}
	if !testwait.Poll(t.Context(), 20*time.Second, cond) {
		s.mu.Lock()
		b, _ := s.ring.AppendRange(nil, c.SendOff, s.ring.End())
		s.mu.Unlock()
		t.Fatalf("step %q did not finish as expected (%s); output since the send: %q", ss.name, ss.via, b)
	}
	// Then let output be quiet: a program may draw more.
	for {
		q := 400*time.Millisecond - time.Since(s.lastOutputAt())
		if q <= 0 {
			break
		}
		time.Sleep(q)
	}
}

// untilFinish returns the length of the shortest prefix of out whose
// rendered text matches pattern, or -1.
func untilFinish(pattern string, out []byte) int {
	re := regexp.MustCompile(pattern)
	for j := 1; j <= len(out); j++ {
		if re.MatchString(strings.Join(reduce.Render(out[:j]), "\n")) {
			return j
		}
	}
	return -1
}

func markLineRe(markEcho string) *regexp.Regexp {
	id := strings.TrimPrefix(markEcho, "__TTYMUX_ MARK_")
	return regexp.MustCompile(`(?m)^__TTYMUX_MARK_` + id + `:\d+\r?\n`)
}

// cursorLine renders the line at the cursor in b: its last, unterminated
// line, without trailing spaces.
func cursorLine(b []byte) string { return strings.TrimRight(rawCursorLine(b), " ") }

// rawCursorLine is cursorLine with the trailing spaces.
func rawCursorLine(b []byte) string {
	i := bytes.LastIndexByte(b, '\n')
	if i == len(b)-1 {
		return ""
	}
	lines := reduce.Render(b[i+1:])
	if len(lines) == 0 {
		return ""
	}
	return lines[len(lines)-1]
}

// findFinish returns the first offset at which the step has really
// finished, from the recorded output alone: the end of the shell hook's D
// mark; the end of the mark's sentinel line (with its newline); or, for a
// prompt, the offset from which on the line at the cursor is the prompt the
// command returned to, completely drawn (trailing space included), up to
// the end of the step's output.
func findFinish(t *testing.T, nonce string, data []byte, c *command, ss scriptStep) int64 {
	at := c.SendOff
	switch ss.via {
	case ViaExitCode:
		d := verdict.NewDetector(nonce, 0)
		d.Write(data)
		if m, ok := d.FirstAfter(verdict.MarkDone, at); ok {
			return m.End
		}
	case ViaMark:
		if loc := markLineRe(c.MarkEcho()).FindIndex(data[at:]); loc != nil {
			return at + int64(loc[1])
		}
	case ViaUntil:
		if j := untilFinish(ss.untilAt, data[at:]); j >= 0 {
			return at + int64(j)
		}
	case ViaPrompt:
		end := int64(len(data))
		final := rawCursorLine(data[at:end])
		if !regexp.MustCompile(ss.prompt).MatchString(strings.TrimRight(final, " ")) {
			t.Fatalf("step %q ends at %q, not a prompt matching %s", ss.name, final, ss.prompt)
		}
		j := end
		for j-1 > at && rawCursorLine(data[at:j-1]) == final {
			j--
		}
		return j
	}
	t.Fatalf("step %q: no finish for via %q in the recorded output", ss.name, ss.via)
	return -1
}
