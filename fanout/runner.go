package fanout

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"sync"
	"time"

	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// Defaults for the zero fields of Options and Request.
const (
	DefaultIdle        = 5 * time.Minute
	DefaultKeep        = 16
	DefaultTimeout     = 30 * time.Second
	DefaultMaxParallel = 32
	MaxParallel        = 1024
	// DefaultOutputBudget bounds the output kept for one fanout (every
	// host's together) and for all the kept fanouts together: each host
	// keeps at most min(maxHostOutput, budget/hosts) bytes (head and tail).
	DefaultOutputBudget = 64 << 20
	maxHostOutput       = 256 << 10
	minHostOutput       = 4 << 10
)

// Kinds of host failure, as HostResult.Kind and in results.
const (
	KindUnreachable    = "unreachable"      // no connection: refused, no route, DNS, handshake timeout, link died
	KindAuth           = "auth"             // every authentication method failed
	KindHostKeyUnknown = "host_key_unknown" // not in known_hosts: nothing is accepted without the user
	KindHostKeyChanged = "host_key_changed" // differs from known_hosts: always refused
	KindTimeout        = "timeout"          // timeout_ms passed (connecting or running)
	KindKilled         = "killed"           // the call was cancelled while the host ran
	KindRefused        = "refused_by_policy"
	KindError          = "error" // anything else (a config error, a refused channel)
)

// kindOrder is the order kinds appear in a summary.
var kindOrder = []string{KindUnreachable, KindAuth, KindHostKeyUnknown, KindHostKeyChanged, KindTimeout, KindKilled, KindRefused, KindError}

// A Link is a reference to a pooled SSH connection that runs commands:
// *sshconn.Link.
type Link interface {
	// Exec runs command in an exec channel, writing its output to out,
	// and returns as sshconn.Link.Exec does.
	Exec(ctx context.Context, command string, out io.Writer) error
	// Done is closed when the connection is gone.
	Done() <-chan struct{}
	// Release drops the reference.
	Release()
}

// Options configure a Runner. The zero value of each field but Link works.
type Options struct {
	// Link returns a reference to the pooled connection to host, dialling
	// when there is none (sshconn.Opener.Link). ctx bounds the dial.
	Link func(ctx context.Context, host string) (Link, error)
	// Idle is how long a host's connection is kept after the last fanout
	// that used it ended, so the next fanout needs no handshake. Zero means
	// DefaultIdle; negative releases each connection when its host is done.
	Idle time.Duration
	// Keep is how many fanouts stay readable by Get (their per-host
	// output); zero means DefaultKeep.
	Keep int
	// OutputBudget bounds the output kept (see DefaultOutputBudget); zero
	// means the default.
	OutputBudget int
	Logger       *slog.Logger

	// fds reports the file descriptor limit and how many are open; nil
	// means the process's (export_test.go replaces it).
	fds func() (limit, open int, err error)
}

// Runner runs fanouts and keeps their connections warm and their results
// readable. Its methods may be called concurrently. Close it to release
// the connections it holds.
type Runner struct {
	opts Options
	log  *slog.Logger

	timers sync.WaitGroup // idle-release callbacks running

	mu sync.Mutex // protects the following
	// links are the connections held for reuse, by host alias.
	links  map[string]*held
	closed bool
	serial int
	recent []*Fanout // oldest first
}

// held is one host's connection, shared by the fanouts running on it and
// kept Idle after the last one.
type held struct {
	host  string
	link  Link
	users int         // guarded by Runner.mu
	timer *time.Timer // the idle release, while users == 0
}

// New returns a Runner.
func New(opts Options) *Runner {
	if opts.Idle == 0 {
		opts.Idle = DefaultIdle
	}
	if opts.Keep <= 0 {
		opts.Keep = DefaultKeep
	}
	if opts.OutputBudget <= 0 {
		opts.OutputBudget = DefaultOutputBudget
	}
	if opts.fds == nil {
		opts.fds = processFDs
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Runner{opts: opts, log: log, links: map[string]*held{}}
}

// Request is one fanout.
type Request struct {
	// Hosts are the aliases or host names to run on (Select expands
	// patterns and groups into them), each once.
	Hosts   []string
	Command string
	// Timeout bounds each host's command, from when its channel opens.
	// Connecting is bounded by the SSH settings (ConnectTimeout, else
	// 15 s) and the policy check by the caller. Zero means DefaultTimeout.
	Timeout time.Duration
	// MaxParallel is how many hosts connect and run at once; zero means
	// DefaultMaxParallel.
	MaxParallel int
	// Check is the policy seam: it decides, per host, whether Command may
	// run there. It is called for every host before that host connects,
	// concurrently and independently of the parallelism limit, so a
	// check that waits (a human asked to approve) holds only its host;
	// allowed false or an error reports the host refused_by_policy with
	// reason (or the error) and nothing is run or dialled there. nil
	// allows every host.
	Check func(ctx context.Context, host, command string) (allowed bool, reason string, err error)
	// Progress is called as each host finishes, one call at a time, with
	// how many are done of how many.
	Progress func(done, total int, h HostResult)
}

// Fanout is one run: what was asked and each host's outcome. It is safe
// for concurrent use; the hosts fill in as they finish.
type Fanout struct {
	ID      string
	Command string
	Started time.Time

	finished chan struct{} // closed when every host is done

	mu      sync.Mutex // protects the following
	hosts   []HostResult
	done    bool
	elapsed time.Duration
	note    string
	bytes   int
}

// HostResult is one host's outcome. Exactly one of ExitCode and Kind is
// set once the host is done.
type HostResult struct {
	Host     string
	ExitCode *int
	Kind     string // a Kind constant when the host failed
	Err      string // the failure, for the model: what happened and what to do
	Output   []byte // stdout and stderr as they came, capped (head and tail)
	Elapsed  time.Duration
	Done     bool
}

// Hosts returns a copy of the hosts' results, in request order.
func (f *Fanout) Hosts() []HostResult {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]HostResult(nil), f.hosts...)
}

// Host returns one host's result.
func (f *Fanout) Host(host string) (HostResult, bool) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, h := range f.hosts {
		if h.Host == host {
			return h, true
		}
	}
	return HostResult{}, false
}

// Done reports whether every host has finished, and the elapsed time.
func (f *Fanout) Done() (bool, time.Duration) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.done, f.elapsed
}

// Finished is closed once every host is done (the run's Report is final).
func (f *Fanout) Finished() <-chan struct{} { return f.finished }

// Note is what the run said about itself (connections not kept), or "".
func (f *Fanout) Note() string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.note
}

func (f *Fanout) set(i int, h HostResult) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.hosts[i] = h
	f.bytes += len(h.Output)
}

// fdMargin is the file descriptors left for everything but fanout
// connections: sessions, their PTYs, logs, the MCP transport.
const fdMargin = 64

// Run runs req.Command on every host and returns when each has finished
// (or failed, timed out, or was stopped because ctx ended: then the hosts
// still running are killed and reported killed). The returned Fanout is
// kept for Get until Keep newer ones replace it. An error means nothing
// ran: a bad request, or not enough file descriptors.
func (r *Runner) Run(ctx context.Context, req Request) (*Fanout, error) {
	n := len(req.Hosts)
	switch {
	case n == 0:
		return nil, errors.New("no hosts to run on")
	case n > MaxHosts:
		return nil, fmt.Errorf("%d hosts; a fanout runs on at most %d", n, MaxHosts)
	case req.Command == "":
		return nil, errors.New("command is required")
	case req.MaxParallel < 0 || req.MaxParallel > MaxParallel:
		return nil, fmt.Errorf("max_parallel must be 1-%d", MaxParallel)
	case req.Timeout < 0:
		return nil, errors.New("timeout must not be negative")
	}
	parallel := req.MaxParallel
	if parallel == 0 {
		parallel = DefaultMaxParallel
	}
	parallel = min(parallel, n)
	timeout := req.Timeout
	if timeout == 0 {
		timeout = DefaultTimeout
	}
	keep, parallel, note, err := r.budgetFDs(req.Hosts, parallel)
	if err != nil {
		return nil, err
	}
	f := &Fanout{Command: req.Command, Started: time.Now(), hosts: make([]HostResult, n), note: note, finished: make(chan struct{})}
	for i, h := range req.Hosts {
		f.hosts[i] = HostResult{Host: h}
	}
	if err := r.store(f); err != nil {
		return nil, err
	}
	limit := min(maxHostOutput, max(minHostOutput, r.opts.OutputBudget/n))

	// Progress goes through one goroutine, so a slow client never holds
	// a worker.
	type finished struct {
		done int
		h    HostResult
	}
	var progress chan finished
	var background sync.WaitGroup
	if req.Progress != nil {
		progress = make(chan finished, n)
		background.Go(func() {
			for p := range progress {
				req.Progress(p.done, n, p.h)
			}
		})
	}
	var doneMu sync.Mutex
	done := 0
	finish := func(i int, h HostResult) {
		h.Done = true
		f.set(i, h)
		if progress != nil {
			doneMu.Lock()
			done++
			progress <- finished{done, h} // buffered for every host
			doneMu.Unlock()
		}
	}

	// Hosts cleared by Check go to the workers; checks run one goroutine
	// per host, so a check that waits holds no worker.
	work := make(chan int, n)
	var checks sync.WaitGroup
	if req.Check == nil {
		for i := range n {
			work <- i
		}
	} else {
		for i, host := range req.Hosts {
			checks.Go(func() {
				if h, ok := r.check(ctx, req, host); !ok {
					finish(i, h)
					return
				}
				work <- i // buffered for every host
			})
		}
	}
	background.Go(func() {
		checks.Wait()
		close(work)
	})
	var workers sync.WaitGroup
	for range parallel {
		workers.Go(func() {
			for i := range work {
				finish(i, r.runHost(ctx, req.Hosts[i], req.Command, timeout, limit, keep))
			}
		})
	}
	workers.Wait()
	if progress != nil {
		close(progress)
	}
	background.Wait()

	f.mu.Lock()
	f.done, f.elapsed = true, time.Since(f.Started)
	f.mu.Unlock()
	close(f.finished)
	r.trim()
	return f, nil
}

// check runs req.Check for host.
func (r *Runner) check(ctx context.Context, req Request, host string) (HostResult, bool) {
	start := time.Now()
	ok, reason, err := req.Check(ctx, host, req.Command)
	h := HostResult{Host: host, Kind: KindRefused, Elapsed: time.Since(start)}
	switch {
	case err != nil && ctx.Err() != nil:
		h.Kind, h.Err = KindKilled, "the call was cancelled before the policy check finished; nothing ran"
	case err != nil:
		h.Err = "policy check failed, so nothing ran: " + err.Error()
	case !ok:
		h.Err = reason
		if h.Err == "" {
			h.Err = "refused by the policy; nothing ran"
		}
	default:
		return HostResult{}, true
	}
	return h, false
}

// runHost connects (or reuses the held connection) and runs the command.
func (r *Runner) runHost(ctx context.Context, host, command string, timeout time.Duration, limit int, keep bool) HostResult {
	start := time.Now()
	h := HostResult{Host: host}
	if ctx.Err() != nil {
		h.Kind, h.Err = KindKilled, "the call was cancelled before this host started; nothing ran"
		return h
	}
	// Connecting is bounded by the opener (ConnectTimeout, else 15 s), not
	// by the command's timeout: a slow handshake on a busy machine must
	// not eat the command's time.
	hl, err := r.acquire(ctx, host)
	if err != nil {
		h.Kind, h.Err = classify(err, ctx, ctx, timeout, true)
		h.Elapsed = time.Since(start)
		return h
	}
	defer r.release(hl, keep)
	hctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	buf := newCapBuf(limit)
	err = hl.link.Exec(hctx, command, buf)
	h.Output = buf.Bytes()
	h.Elapsed = time.Since(start)
	var ee *transport.ExitError
	switch {
	case err == nil:
		h.ExitCode = new(int)
	case errors.As(err, &ee):
		h.ExitCode = &ee.Status
	default:
		h.Kind, h.Err = classify(err, ctx, hctx, timeout, false)
	}
	return h
}

// classify names the kind of a host's failure and words it for the model.
func classify(err error, call, host context.Context, timeout time.Duration, connecting bool) (kind, msg string) {
	var (
		changed *sshconn.HostKeyChangedError
		unknown *sshconn.UnknownHostKeyError
		auth    *sshconn.AuthError
		stopped *sshconn.StoppedError
		refused *sshconn.RefusedError
		name    *sshconn.NameError
		dial    *sshconn.DialError
		slow    *sshconn.TimeoutError
		link    *sshconn.LinkError
	)
	ms := strconv.FormatInt(timeout.Milliseconds(), 10)
	switch {
	case errors.As(err, &changed):
		return KindHostKeyChanged, err.Error()
	case errors.As(err, &unknown):
		return KindHostKeyUnknown, err.Error() + " (fanout never records a key: open_ssh with accept_new_host_key records it once)"
	case errors.As(err, &auth):
		return KindAuth, err.Error()
	case errors.As(err, &stopped) && errors.Is(err, context.DeadlineExceeded):
		return KindTimeout, fmt.Sprintf("still running after timeout_ms %s: %s", ms, err)
	case errors.As(err, &stopped):
		return KindKilled, err.Error()
	case call.Err() != nil:
		return KindKilled, "the call was cancelled while connecting; nothing ran"
	case host.Err() != nil && !connecting:
		return KindTimeout, fmt.Sprintf("timeout_ms %s passed before the command started: %v", ms, err)
	case errors.As(err, &refused), errors.As(err, &name), errors.As(err, &dial), errors.As(err, &slow), errors.As(err, &link):
		return KindUnreachable, err.Error()
	}
	return KindError, err.Error()
}

// acquire returns host's held connection, or dials one and holds it.
func (r *Runner) acquire(ctx context.Context, host string) (*held, error) {
	r.mu.Lock()
	if r.closed {
		r.mu.Unlock()
		return nil, errors.New("fanout: the server is shutting down")
	}
	var dead *held
	if h := r.links[host]; h != nil {
		select {
		case <-h.link.Done():
			// The connection died while held: forget it, and dial anew.
			delete(r.links, host)
			if h.users == 0 {
				r.stopTimer(h)
				dead = h
			}
		default:
			h.users++
			r.stopTimer(h)
			r.mu.Unlock()
			return h, nil
		}
	}
	r.mu.Unlock()
	if dead != nil {
		dead.link.Release()
	}

	l, err := r.opts.Link(ctx, host)
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	if h := r.links[host]; h != nil && !r.closed {
		// Another fanout held one meanwhile: it is the same pooled
		// connection, so share its hold and drop this reference.
		h.users++
		r.stopTimer(h)
		r.mu.Unlock()
		l.Release()
		return h, nil
	}
	h := &held{host: host, link: l, users: 1}
	if !r.closed {
		r.links[host] = h
	}
	r.mu.Unlock()
	return h, nil
}

// stopTimer cancels h's idle release; r.mu is held. A callback that has
// already fired sees h in use (or gone) and does nothing.
func (r *Runner) stopTimer(h *held) {
	if h.timer != nil {
		h.timer.Stop()
		h.timer = nil
	}
}

// release ends one use of h: the connection is kept Idle for the next
// fanout, or released now when keep is false, Idle is negative, h is no
// longer the held one, or the connection died.
func (r *Runner) release(h *held, keep bool) {
	r.mu.Lock()
	h.users--
	if h.users > 0 {
		r.mu.Unlock()
		return
	}
	dead := false
	select {
	case <-h.link.Done():
		dead = true
	default:
	}
	if r.closed || !keep || r.opts.Idle < 0 || dead || r.links[h.host] != h {
		if r.links[h.host] == h {
			delete(r.links, h.host)
		}
		r.mu.Unlock()
		h.link.Release()
		return
	}
	h.timer = time.AfterFunc(r.opts.Idle, func() { r.expire(h) })
	r.mu.Unlock()
}

// expire releases h after its idle time, unless it is in use again.
func (r *Runner) expire(h *held) {
	r.mu.Lock()
	if r.closed || h.users > 0 || r.links[h.host] != h {
		r.mu.Unlock()
		return
	}
	delete(r.links, h.host)
	h.timer = nil
	r.timers.Add(1) // before closed is set: Close waits for it
	r.mu.Unlock()
	defer r.timers.Done()
	r.log.Debug("fanout: idle connection released", "host", h.host, "idle", r.opts.Idle)
	h.link.Release()
}

// Held reports how many hosts' connections the Runner holds.
func (r *Runner) Held() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return len(r.links)
}

// Close releases every held connection (those still in use are released
// when their fanout ends) and waits for idle releases under way. Runs
// that start afterwards fail for each host. Close is idempotent.
func (r *Runner) Close() error {
	r.mu.Lock()
	r.closed = true
	var idle []*held
	for host, h := range r.links {
		delete(r.links, host)
		r.stopTimer(h)
		if h.users == 0 {
			idle = append(idle, h)
		}
	}
	r.mu.Unlock()
	r.timers.Wait()
	for _, h := range idle {
		h.link.Release()
	}
	return nil
}

// budgetFDs checks that the connections a fanout needs fit under the file
// descriptor limit: one per host not already held (two or more through a
// jump host). When all cannot be kept open, each is released when its host
// is done (keep false) and the parallelism shrinks to what fits; when not
// even that fits, the fanout is refused, naming the limit.
func (r *Runner) budgetFDs(hosts []string, parallel int) (keep bool, par int, note string, err error) {
	limit, open, err := r.opts.fds()
	if err != nil || limit <= 0 {
		return true, parallel, "", nil // unknown: nothing to check
	}
	r.mu.Lock()
	need := 0
	for _, h := range hosts {
		if r.links[h] == nil {
			need++
		}
	}
	r.mu.Unlock()
	room := limit - open - fdMargin
	switch {
	case need <= room:
		return true, parallel, "", nil
	case room >= 1:
		par = min(parallel, room)
		note = fmt.Sprintf("%d hosts need %d new connections, but the file descriptor limit (RLIMIT_NOFILE %d, %d open) leaves room for %d: each host's connection was closed when it finished instead of kept warm, and at most %d ran at once. Raise the limit where the MCP client starts ttymux (ulimit -n %d) to keep them",
			len(hosts), need, limit, open, room, par, max(4096, 2*(open+need+fdMargin)))
		return false, par, note, nil
	}
	return false, 0, "", fmt.Errorf("no file descriptors to spare for SSH connections: %d of the limit %d (RLIMIT_NOFILE) are open; raise it where the MCP client starts ttymux (ulimit -n %d), or close sessions; max_parallel cannot go below 1",
		open, limit, max(4096, 2*(open+len(hosts)+fdMargin)))
}

// store adds f to the kept fanouts and gives it its id.
func (r *Runner) store(f *Fanout) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.closed {
		return errors.New("fanout: the server is shutting down")
	}
	r.serial++
	f.ID = "f" + strconv.Itoa(r.serial)
	r.recent = append(r.recent, f)
	return nil
}

// trim forgets the oldest fanouts beyond Keep, or while the output kept
// exceeds the budget (the newest always stays).
func (r *Runner) trim() {
	r.mu.Lock()
	defer r.mu.Unlock()
	total := 0
	for _, f := range r.recent {
		f.mu.Lock()
		total += f.bytes
		f.mu.Unlock()
	}
	for len(r.recent) > 1 && (len(r.recent) > r.opts.Keep || total > r.opts.OutputBudget) {
		f := r.recent[0]
		f.mu.Lock()
		running := !f.done
		total -= f.bytes
		f.mu.Unlock()
		if running {
			break // a run still under way is never forgotten
		}
		r.recent[0] = nil
		r.recent = r.recent[1:]
	}
}

// Get returns a kept fanout by id.
func (r *Runner) Get(id string) (*Fanout, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, f := range r.recent {
		if f.ID == id {
			return f, true
		}
	}
	return nil, false
}

// Recent lists the ids of the kept fanouts, newest last.
func (r *Runner) Recent() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	ids := make([]string, len(r.recent))
	for i, f := range r.recent {
		ids[i] = f.ID
	}
	return ids
}
