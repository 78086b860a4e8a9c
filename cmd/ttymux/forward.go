package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/forward"
	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// ForwardIn are forward's parameters.
type ForwardIn struct {
	Host      string `json:"host,omitempty" jsonschema:"the ssh_config alias (or host name) whose pooled SSH connection carries the forward; or give session_id"`
	SessionID string `json:"session_id,omitempty" jsonschema:"an SSH session whose host carries the forward (it closes with the session)"`
	Remote    string `json:"remote,omitempty" jsonschema:"host:port. Without reverse: the address reached from the host (like ssh -L's second half), e.g. 127.0.0.1:5432. With reverse: where the host listens (port 0: any free port), e.g. 127.0.0.1:0"`
	Local     string `json:"local,omitempty" jsonschema:"host:port here. Without reverse: where to listen (default 127.0.0.1:0, any free port; the result gives the address). With reverse: the address here that the host's connections reach (required)"`
	Reverse   bool   `json:"reverse,omitempty" jsonschema:"like ssh -R: a port on the host reaching local here"`
	Socks     bool   `json:"socks,omitempty" jsonschema:"like ssh -D: a SOCKS5 proxy at local whose connections leave from the host (no remote)"`
	Confirm   bool   `json:"confirm,omitempty" jsonschema:"open a forward the policy held, where it lets the model confirm"`
}

// ForwardOut is what forward returns.
type ForwardOut struct {
	ForwardID string `json:"forward_id"`
	Local     string `json:"local"`            // the address to use (local, socks); where connections go (reverse)
	Remote    string `json:"remote,omitempty"` // on the host; for reverse, the address the host listens on
	Note      string `json:"note,omitempty"`
}

// ForwardInfo is one forward in list.
type ForwardInfo struct {
	ForwardID string `json:"forward_id"`
	SessionID string `json:"session_id,omitempty"`
	forward.Info
}

// forwardTool holds the open forwards of this server.
type forwardTool struct {
	ssh *sshconn.Opener
	log *slog.Logger

	mu   sync.Mutex // protects fwds
	fwds map[string]*fwdEntry
}

type fwdEntry struct {
	id, session string
	f           *forward.Forward
	opened      time.Time
}

func newForwardTool(o *sshconn.Opener, log *slog.Logger) *forwardTool {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &forwardTool{ssh: o, log: log, fwds: map[string]*fwdEntry{}}
}

// sshLink adapts a pooled connection to forward.Link.
type sshLink struct{ *sshconn.Link }

func (l sshLink) Dial(n, a string) (net.Conn, error)       { return l.Client().Dial(n, a) }
func (l sshLink) Listen(n, a string) (net.Listener, error) { return l.Client().Listen(n, a) }

func forwardToolDef() toolDef {
	return toolDef{&mcp.Tool{
		Name: "forward",
		Description: "Forward a TCP port over a host's pooled SSH connection (through its ProxyJump chain): " +
			"{host, remote: \"127.0.0.1:5432\"} listens here (default 127.0.0.1, any free port) and reaches remote from the host, like ssh -L; " +
			"{host, reverse: true, remote: \"127.0.0.1:0\", local: \"127.0.0.1:8080\"} listens on the host and reaches local here, like ssh -R; " +
			"{host, socks: true} is a SOCKS5 proxy here whose connections leave from the host, like ssh -D. " +
			"The result's local is the address to use. A forward survives a reconnect of the connection, is listed by list, and ends with close {forward_id} or with its session.",
		Annotations: &mcp.ToolAnnotations{Title: "Forward a port over SSH", DestructiveHint: ptr(false), OpenWorldHint: ptr(true)},
	}, func(s *mcp.Server, t *mcp.Tool, h *handlers) { addTool(s, t, h.forward) }}
}

// spec checks the parameters and returns what to forward.
func (in ForwardIn) spec() (forward.Spec, error) {
	switch {
	case in.Reverse && in.Socks:
		return forward.Spec{}, errors.New("reverse and socks cannot both be set: a SOCKS proxy listens here (socks), a reverse forward listens on the host (reverse)")
	case in.Socks:
		if in.Remote != "" {
			return forward.Spec{}, errors.New("a SOCKS forward has no remote: each connection names where it goes; leave remote out")
		}
		return forward.Spec{Kind: forward.SOCKS, Local: cmpOr(in.Local, "127.0.0.1:0")}, nil
	case in.Reverse:
		if in.Local == "" {
			return forward.Spec{}, errors.New(`a reverse forward needs local: the address here its connections reach, e.g. local: "127.0.0.1:8080" (and remote: where the host listens, default 127.0.0.1:0)`)
		}
		return forward.Spec{Kind: forward.Reverse, Local: in.Local, Remote: cmpOr(in.Remote, "127.0.0.1:0")}, nil
	}
	if in.Remote == "" {
		return forward.Spec{}, errors.New(`remote is required: the address the host reaches, e.g. remote: "127.0.0.1:5432" (or socks: true for a SOCKS proxy)`)
	}
	return forward.Spec{Kind: forward.Local, Local: cmpOr(in.Local, "127.0.0.1:0"), Remote: in.Remote}, nil
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// target resolves where the forward goes: a host alias, or an SSH
// session's host (the forward then closes with the session).
func (h *handlers) forwardTarget(ctx context.Context, in ForwardIn) (transport.Target, string, error) {
	switch {
	case in.Host != "" && in.SessionID != "":
		return transport.Target{}, "", errors.New("give host or session_id, not both")
	case in.Host != "":
		return transport.SSHTarget(in.Host), "", nil
	case in.SessionID == "":
		return transport.Target{}, "", errors.New("host is required (an ssh_config alias), or session_id of an SSH session")
	}
	s, err := h.mgr.Get(ctx, in.SessionID)
	if err != nil {
		return transport.Target{}, "", err
	}
	pl := s.Place()
	k, _ := h.mgr.Kind(pl.Transport)
	switch {
	case k.Files.SSH:
		return pl.Target, s.ID(), nil
	case k.Files.Here:
		return transport.Target{}, "", fmt.Errorf("session %s runs on this machine (%s): its ports are reached directly, no forward is needed; to reach a port on or through a host, give host (an ssh_config alias)", s.ID(), pl.Transport)
	}
	return transport.Target{}, "", fmt.Errorf("session %s (%s) carries no TCP connections; to reach a network service from where it is, forward over SSH to a host on that network (forward {host})", s.ID(), pl.Transport)
}

func (h *handlers) forward(ctx context.Context, req *mcp.CallToolRequest, in ForwardIn) (*mcp.CallToolResult, ForwardOut, error) {
	ft := h.fwd
	if ft == nil || ft.ssh == nil {
		return nil, ForwardOut{}, errors.New("forward is not available in this server (it has no SSH transport)")
	}
	spec, err := in.spec()
	if err != nil {
		return nil, ForwardOut{}, err
	}
	t, sid, err := h.forwardTarget(ctx, in)
	if err != nil {
		return nil, ForwardOut{}, err
	}
	host := t.SSH().Host
	kind, listen, reach := spec.Kind.String(), spec.Local, spec.Remote
	if spec.Kind == forward.Reverse {
		listen, reach = spec.Remote, spec.Local
	}
	line := forwardLine(spec, host)
	start := h.hu.now()
	ctx = withCall(ctx, &callInfo{req: req, confirm: in.Confirm, timeout: session.DefaultTimeout})
	ev := audit.Event{Event: audit.KindForward, Session: sid, Host: host, Command: line}
	if err := h.mgr.CheckForward(ctx, session.ForwardCheck{Host: host, Session: sid, Kind: kind, Listen: listen, Target: reach, Line: line}); err != nil {
		h.hu.finish(ctx, ev, start, err)
		if q := questionIn(err); q != nil {
			return q, ForwardOut{}, nil
		}
		return nil, ForwardOut{}, err
	}
	f, err := forward.Start(ctx, spec, forward.Options{
		Host:   host,
		Logger: ft.log,
		Connect: func(ctx context.Context) (forward.Link, error) {
			l, err := ft.ssh.Link(ctx, t)
			if err != nil {
				return nil, err
			}
			return sshLink{l}, nil
		},
	})
	if err != nil {
		err = fmt.Errorf("forward over %s: %w", host, err)
		h.hu.finish(ctx, ev, start, err)
		return nil, ForwardOut{}, err
	}
	id := ft.add(f, sid)
	ev.Reason = "forward_id " + id
	h.hu.finish(ctx, ev, start, nil)
	in2 := f.Info()
	out := ForwardOut{ForwardID: id, Local: in2.Local, Remote: in2.Remote}
	text := fmt.Sprintf("%s: %s", id, forwardLine(spec, host))
	switch spec.Kind {
	case forward.Local:
		text = fmt.Sprintf("%s: connect to %s to reach %s from %s", id, out.Local, out.Remote, host)
	case forward.SOCKS:
		text = fmt.Sprintf("%s: SOCKS5 proxy at %s (e.g. curl --socks5-hostname %s URL) reaching from %s", id, out.Local, out.Local, host)
	case forward.Reverse:
		text = fmt.Sprintf("%s: %s listens on %s and reaches %s here", id, host, out.Remote, out.Local)
	}
	return textResult(text), out, nil
}

// forwardLine says what a forward does as ssh's options would, for the
// human's approval and the audit log.
func forwardLine(s forward.Spec, host string) string {
	switch s.Kind {
	case forward.Reverse:
		return fmt.Sprintf("ssh -R %s:%s %s", s.Remote, s.Local, host)
	case forward.SOCKS:
		return fmt.Sprintf("ssh -D %s %s", s.Local, host)
	}
	return fmt.Sprintf("ssh -L %s:%s %s", s.Local, s.Remote, host)
}

func (ft *forwardTool) add(f *forward.Forward, sid string) string {
	var b [3]byte
	rand.Read(b[:])
	ft.mu.Lock()
	defer ft.mu.Unlock()
	id := fmt.Sprintf("f%d-%s", len(ft.fwds)+1, hex.EncodeToString(b[:]))
	ft.fwds[id] = &fwdEntry{id: id, session: sid, f: f, opened: time.Now()}
	return id
}

// close ends one forward; ok is false when there is none by that id.
func (ft *forwardTool) close(id string) (forward.Info, bool) {
	ft.mu.Lock()
	e := ft.fwds[id]
	delete(ft.fwds, id)
	ft.mu.Unlock()
	if e == nil {
		return forward.Info{}, false
	}
	e.f.Close()
	return e.f.Info(), true
}

// closeSession ends the forwards made for session sid.
func (ft *forwardTool) closeSession(sid string) []string {
	ft.mu.Lock()
	var ids []string
	for id, e := range ft.fwds {
		if e.session == sid {
			ids = append(ids, id)
		}
	}
	ft.mu.Unlock()
	slices.Sort(ids)
	for _, id := range ids {
		ft.close(id)
	}
	return ids
}

// list returns the open forwards, oldest first.
func (ft *forwardTool) list() []ForwardInfo {
	ft.mu.Lock()
	es := make([]*fwdEntry, 0, len(ft.fwds))
	for _, e := range ft.fwds {
		es = append(es, e)
	}
	ft.mu.Unlock()
	slices.SortFunc(es, func(a, b *fwdEntry) int { return a.opened.Compare(b.opened) })
	out := make([]ForwardInfo, 0, len(es))
	for _, e := range es {
		out = append(out, ForwardInfo{ForwardID: e.id, SessionID: e.session, Info: e.f.Info()})
	}
	return out
}

// Close ends every forward (the server is stopping).
func (ft *forwardTool) Close() error {
	if ft == nil {
		return nil
	}
	ft.mu.Lock()
	ids := make([]string, 0, len(ft.fwds))
	for id := range ft.fwds {
		ids = append(ids, id)
	}
	ft.mu.Unlock()
	for _, id := range ids {
		ft.close(id)
	}
	return nil
}

// closeForward is close {forward_id}.
func (h *handlers) closeForward(id string) (*mcp.CallToolResult, CloseOut, error) {
	if h.fwd == nil {
		return nil, CloseOut{}, fmt.Errorf("no forward %q: this server has no forwards", id)
	}
	info, ok := h.fwd.close(id)
	if !ok {
		return nil, CloseOut{}, fmt.Errorf("no forward %q is open; list shows the open forwards", id)
	}
	h.hu.record(audit.Event{Event: audit.KindForwardClose, Decision: audit.Ran, Host: info.Host, Reason: fmt.Sprintf("forward_id %s: %d connections, %d bytes", id, info.Connections, info.Bytes)})
	return textResult(fmt.Sprintf("closed %s (%d connections, %d bytes carried)", id, info.Connections, info.Bytes)), CloseOut{ForwardID: id, Closed: true}, nil
}

// forwardsText is the text form of list's forwards.
func forwardsText(fs []ForwardInfo) string {
	var b strings.Builder
	for _, f := range fs {
		fmt.Fprintf(&b, "%s %s %s", f.ForwardID, f.Kind, f.Host)
		switch f.Kind {
		case "reverse":
			fmt.Fprintf(&b, " %s→%s", f.Remote, f.Local)
		case "socks":
			fmt.Fprintf(&b, " %s", f.Local)
		default:
			fmt.Fprintf(&b, " %s→%s", f.Local, f.Remote)
		}
		fmt.Fprintf(&b, " %s, %d connections, %d bytes", f.State, f.Connections, f.Bytes)
		if f.Note != "" {
			fmt.Fprintf(&b, " (%s)", f.Note)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
