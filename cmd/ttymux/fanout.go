package main

import (
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/fanout"
	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/session/reduce"
	"github.com/ttymux/ttymux/sshconf"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// FanoutIn are fanout's parameters.
type FanoutIn struct {
	Hosts       []string `json:"hosts" jsonschema:"ssh_config aliases (or host names), patterns matched against the Host aliases of your ssh_config ('web*', 'db?'), negations ('!web3'), and group names from ~/.config/ttymux/hosts.toml"`
	Command     string   `json:"command" jsonschema:"the command line each host's login shell runs, without a terminal (an exec channel, like ssh host 'command')"`
	TimeoutMS   int      `json:"timeout_ms,omitempty" jsonschema:"how long each host's command may run, in milliseconds (default 30000, max 600000); a host past it is killed and reported timeout (connecting is bounded by ssh_config ConnectTimeout, else 15 s)"`
	MaxParallel int      `json:"max_parallel,omitempty" jsonschema:"how many hosts connect and run at once (default 32, max 1024)"`
	Confirm     bool     `json:"confirm,omitempty" jsonschema:"run a command the destructive-command gate refused"`
}

// maxFanoutTimeout is the longest timeout_ms, as for send.
const maxFanoutTimeout = 600 * time.Second

// fanoutTool is what the fanout tool and its resources need: the runner
// (holding the connections) and where hosts and groups are defined.
type fanoutTool struct {
	runner *fanout.Runner
	// ssh says which ssh_config files define the aliases patterns match;
	// the same the SSH opener reads.
	ssh sshconf.Options
	// groupsFile is hosts.toml; "" means no groups.
	groupsFile string
	log        *slog.Logger
}

// newFanoutTool returns the fanout tool over an SSH opener, holding each
// host's connection idle after use (fanout.Options.Idle).
func newFanoutTool(o *sshconn.Opener, idle time.Duration, groupsFile string, log *slog.Logger) *fanoutTool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &fanoutTool{
		runner: fanout.New(fanout.Options{
			Link: func(ctx context.Context, host string) (fanout.Link, error) {
				return o.Link(ctx, transport.SSHTarget(host))
			},
			Idle:   idle,
			Logger: log,
		}),
		ssh:        o.Config,
		groupsFile: groupsFile,
		log:        log,
	}
}

// Close releases the connections the tool holds.
func (ft *fanoutTool) Close() error { return ft.runner.Close() }

// fanoutSchema adjusts fanout's input schema. A list typed
// ["null","array"] cannot be filled by every client (the MCP Inspector
// CLI); hosts is required anyway.
func fanoutSchema(in *jsonschema.Schema) {
	if h := in.Properties["hosts"]; h != nil {
		h.Type, h.Types, h.MinItems = "array", nil, ptr(1)
	}
}

func fanoutToolDef() toolDef {
	return toolDef{&mcp.Tool{
		Name: "fanout",
		Description: "Run one command on many SSH hosts at once (exec channels on the pooled connections, no terminal; each host's login shell runs it) and get one answer: a summary line, " +
			"hosts grouped by identical exit code and output (hosts in pdsh notation, node[01-28]), and failures by kind (unreachable, auth, host_key_unknown, host_key_changed, timeout, killed, refused_by_policy). " +
			"Each host's full output is the resource ttymux://fanout/{fanout_id}/{host}. For an interactive shell on one host use open_ssh.",
		Annotations: &mcp.ToolAnnotations{Title: "Run a command on many hosts", DestructiveHint: ptr(true), OpenWorldHint: ptr(true)},
	}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.fanout) }}
}

func (h *handlers) fanout(ctx context.Context, req *mcp.CallToolRequest, in FanoutIn) (*mcp.CallToolResult, fanout.Report, error) {
	ft := h.fan
	if ft == nil {
		return nil, fanout.Report{}, errors.New("fanout is not available in this server (it has no SSH transport)")
	}
	if strings.TrimSpace(in.Command) == "" {
		return nil, fanout.Report{}, errors.New("command is required: the command line each host runs")
	}
	if in.TimeoutMS < 0 || time.Duration(in.TimeoutMS)*time.Millisecond > maxFanoutTimeout {
		return nil, fanout.Report{}, fmt.Errorf("timeout_ms must be between 1 and %d (0: the default, 30000)", maxFanoutTimeout.Milliseconds())
	}
	if in.MaxParallel < 0 || in.MaxParallel > fanout.MaxParallel {
		return nil, fanout.Report{}, fmt.Errorf("max_parallel must be between 1 and %d (0: the default, 32)", fanout.MaxParallel)
	}
	if len(in.Hosts) == 0 {
		return nil, fanout.Report{}, errors.New(`hosts is required: aliases, patterns ("web*") or groups, e.g. hosts: ["web*", "!web3"]`)
	}
	hosts, err := ft.selectHosts(in.Hosts)
	if err != nil {
		return nil, fanout.Report{}, err
	}
	start := h.hu.now()
	timeout := cmp.Or(time.Duration(in.TimeoutMS)*time.Millisecond, session.DefaultTimeout)
	ctx = withCall(ctx, &callInfo{req: req, confirm: in.Confirm, timeout: timeout})
	ev := audit.Event{Event: audit.KindFanout, Host: hostList(hosts), Command: in.Command}
	check, err := h.fanoutApprove(ctx, hosts, in)
	if err != nil {
		h.hu.finish(ctx, ev, start, err)
		if q := questionIn(err); q != nil {
			return q, fanout.Report{}, nil
		}
		return nil, fanout.Report{}, err
	}
	r := fanout.Request{
		Hosts: hosts, Command: in.Command,
		Timeout:     time.Duration(in.TimeoutMS) * time.Millisecond,
		MaxParallel: in.MaxParallel,
		Check:       check,
	}
	if token := req.Params.GetProgressToken(); token != nil && req.Session != nil {
		r.Progress = func(done, total int, hr fanout.HostResult) {
			msg := fmt.Sprintf("%s: exit %d", hr.Host, derefOr(hr.ExitCode, -1))
			if hr.Kind != "" {
				msg = hr.Host + ": " + hr.Kind
			}
			_ = req.Session.NotifyProgress(ctx, &mcp.ProgressNotificationParams{ // best effort
				ProgressToken: token, Progress: float64(done), Total: float64(total),
				Message: fmt.Sprintf("%s (%d/%d)", msg, done, total),
			})
		}
	}
	f, err := ft.runner.Run(ctx, r)
	if err != nil {
		h.hu.finish(ctx, ev, start, err)
		return nil, fanout.Report{}, fmt.Errorf("fanout: %w", err)
	}
	rep := f.Report()
	c := callFrom(ctx)
	ev.Decision, ev.Reason = cmp.Or(c.decision, audit.Ran), rep.Summary
	ev.DurationMS = h.hu.now().Sub(start).Milliseconds()
	h.hu.record(ev)
	// The gate refuses the command itself, so every host says the same:
	// answer like send does, with one error.
	if reason, ok := allRefused(f); ok {
		return nil, fanout.Report{}, fmt.Errorf("%s (nothing ran on any of the %d hosts)", reason, len(hosts))
	}
	return textResult(rep.Text()), rep, nil
}

// fanoutApprove decides, before anything runs, which hosts may run the
// command: the policy and the gate per host, the held ones put to the
// Approver once for the whole set (Manager.CheckCommand), so one held host
// never asks twice and the hosts that need no approval do not wait on a
// second question. It returns the runner's per-host Check, or the error
// when nothing may run (a question for the client included).
func (h *handlers) fanoutApprove(ctx context.Context, hosts []string, in FanoutIn) (func(context.Context, string, string) (bool, string, error), error) {
	refused, err := h.mgr.CheckCommand(ctx, session.Command{Op: session.OpFanout, Line: in.Command, Hosts: hosts})
	if questionIn(err) != nil {
		return nil, err
	}
	if len(refused) == len(hosts) {
		if err == nil {
			for _, e := range refused {
				err = e
				break
			}
		}
		return nil, fmt.Errorf("%w (nothing ran on any of the %d hosts)", err, len(hosts))
	}
	return func(_ context.Context, host, _ string) (bool, string, error) {
		if why, ok := refused[host]; ok {
			return false, why.Error(), nil
		}
		return true, "", nil
	}, nil
}

// hostList names hosts for a person: all of them up to eight, else the
// first eight and how many more.
func hostList(hosts []string) string {
	const show = 8
	if len(hosts) <= show {
		return strings.Join(hosts, ", ")
	}
	return fmt.Sprintf("%s and %d more (%d hosts)", strings.Join(hosts[:show], ", "), len(hosts)-show, len(hosts))
}

// allRefused reports whether every host was refused for the same reason.
func allRefused(f *fanout.Fanout) (string, bool) {
	reason := ""
	for i, h := range f.Hosts() {
		if h.Kind != fanout.KindRefused || (i > 0 && h.Err != reason) {
			return "", false
		}
		reason = h.Err
	}
	return reason, reason != ""
}

// selectHosts expands the hosts parameter against the ssh_config aliases
// and hosts.toml, read afresh on each call so edits apply at once.
func (ft *fanoutTool) selectHosts(patterns []string) ([]string, error) {
	var aliases []string
	needAliases := false
	for _, p := range patterns {
		needAliases = needAliases || strings.ContainsAny(p, "*?")
	}
	groups, err := fanout.LoadGroups(ft.groupsFile)
	if err != nil {
		return nil, fmt.Errorf("host groups: %w", err)
	}
	if needAliases || len(groups) > 0 {
		if aliases, err = sshconf.HostAliases(ft.ssh); err != nil {
			return nil, fmt.Errorf("read the Host aliases of ssh_config: %w", err)
		}
	}
	return fanout.Select(patterns, aliases, groups)
}

func derefOr(p *int, d int) int {
	if p == nil {
		return d
	}
	return *p
}

// Resources: ttymux://fanout/{id} lists each host's outcome (JSON), and
// ttymux://fanout/{id}/{host} is one host's full output, rendered (colour
// and progress bars resolved) but not reduced, then a line with its exit
// code or error. The runner keeps the last fanout.DefaultKeep fanouts.
const fanoutURIPrefix = resourceScheme + "fanout/"

func (ft *fanoutTool) register(srv *mcp.Server) {
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: fanoutURIPrefix + "{id}", Name: "fanout", Title: "Fanout hosts", MIMEType: "application/json",
		Description: "Each host of a fanout (fanout_id from its result) with its exit code or error kind and output size.",
	}, ft.readResource)
	srv.AddResourceTemplate(&mcp.ResourceTemplate{
		URITemplate: fanoutURIPrefix + "{id}/{host}", Name: "fanout-host", Title: "Fanout output of one host", MIMEType: "text/plain",
		Description: "One host's full output of a fanout (head and tail when it was very long), then its exit code or error.",
	}, ft.readResource)
}

// fanoutHostInfo is one host in ttymux://fanout/{id}.
type fanoutHostInfo struct {
	Host      string `json:"host"`
	ExitCode  *int   `json:"exit_code,omitempty"`
	Kind      string `json:"kind,omitempty"`
	Bytes     int    `json:"bytes"`
	ElapsedMS int64  `json:"elapsed_ms"`
}

func (ft *fanoutTool) readResource(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	rest, ok := strings.CutPrefix(uri, fanoutURIPrefix)
	if !ok {
		return nil, mcp.ResourceNotFoundError(uri)
	}
	id, host, hasHost := strings.Cut(rest, "/")
	f, ok := ft.runner.Get(id)
	if !ok {
		return nil, fmt.Errorf("no fanout %q is kept (the last %d are: %s)", id, fanout.DefaultKeep, strings.Join(ft.runner.Recent(), " "))
	}
	text := func(mime, t string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: t}}}
	}
	if !hasHost {
		infos := []fanoutHostInfo{}
		for _, h := range f.Hosts() {
			infos = append(infos, fanoutHostInfo{Host: h.Host, ExitCode: h.ExitCode, Kind: h.Kind, Bytes: len(h.Output), ElapsedMS: h.Elapsed.Milliseconds()})
		}
		b, err := json.Marshal(infos)
		if err != nil {
			return nil, err
		}
		return text("application/json", string(b)), nil
	}
	if h, err := url.PathUnescape(host); err == nil {
		host = h
	}
	h, ok := f.Host(host)
	if !ok {
		return nil, fmt.Errorf("fanout %s did not run on %q; ttymux://fanout/%s lists its hosts", id, host, id)
	}
	var b strings.Builder
	if len(h.Output) > 0 {
		b.WriteString(strings.Join(reduce.Render(h.Output), "\n"))
		b.WriteByte('\n')
	}
	switch {
	case !h.Done:
		b.WriteString("[still running]")
	case h.ExitCode != nil:
		fmt.Fprintf(&b, "[exit %d]", *h.ExitCode)
	default:
		fmt.Fprintf(&b, "[%s: %s]", h.Kind, h.Err)
	}
	return text("text/plain", b.String()), nil
}
