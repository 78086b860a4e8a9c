package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
)

// Resources let a person @-mention a terminal in a client (Claude Code lists
// a server's resources) and let a client watch a screen:
//
//	ttymux://sessions                          the open sessions (JSON)
//	ttymux://session/{id}/screen               the rendered screen
//	ttymux://session/{id}/lines/{from}-{to}    exact history by line
//	ttymux://session/{id}/recording            the asciicast recording
//	ttymux://fanout/{id}                       a fanout's hosts and outcomes (fanout.go)
//	ttymux://fanout/{id}/{host}                one host's full fanout output
//
// A remote persistent session's id "host/s4" is written percent-encoded
// (host%2Fs4). Each open session's screen is also listed as a resource of
// its own, so the list changes (notifications/resources/list_changed) as
// sessions come and go; a client that subscribes to a screen gets
// notifications/resources/updated when it changes, at most every
// screenUpdateEvery.
const (
	resourceScheme   = "ttymux://"
	sessionsURI      = resourceScheme + "sessions"
	sessionURIPrefix = resourceScheme + "session/"
)

// maxRecordingResource bounds what a recording resource returns; a longer
// recording is read from its file (the error names it).
const maxRecordingResource = 4 << 20

// maxResourceLines bounds one lines resource, as read's range mode does.
const maxResourceLines = 2000

// screenUpdateEvery is the shortest time between two updated notifications
// for one screen, so a flood of output costs a client a few notifications a
// second, not one per chunk.
const screenUpdateEvery = 250 * time.Millisecond

// resources serves the ttymux:// resources of one server and keeps the
// per-session entries and subscriptions in step with the manager.
type resources struct {
	mgr *session.Manager
	srv *mcp.Server
	log *slog.Logger

	mu       sync.Mutex
	listed   map[string]bool               // session ids whose screen is listed
	watchers map[string]context.CancelFunc // screen URI -> its watcher
}

func newResources(mgr *session.Manager, log *slog.Logger) *resources {
	return &resources{mgr: mgr, log: log, listed: map[string]bool{}, watchers: map[string]context.CancelFunc{}}
}

// register adds the fixed resource and the templates to srv.
func (rs *resources) register(srv *mcp.Server) {
	rs.srv = srv
	srv.AddResource(&mcp.Resource{
		URI: sessionsURI, Name: "sessions", Title: "ttymux sessions", MIMEType: "application/json",
		Description: "The open terminal sessions: id, transport, state, foreground program, size, idle time.",
	}, rs.readSessions)
	for _, t := range []*mcp.ResourceTemplate{
		{URITemplate: sessionURIPrefix + "{id}/screen", Name: "screen", Title: "Terminal screen", MIMEType: "text/plain",
			Description: "The rendered screen of a session, as a person would see it."},
		{URITemplate: sessionURIPrefix + "{id}/lines/{range}", Name: "lines", Title: "Terminal history by line", MIMEType: "text/plain",
			Description: "Session lines from-to (1-based, as in fold markers), e.g. ttymux://session/s1/lines/1-200; at most 2000 lines."},
		{URITemplate: sessionURIPrefix + "{id}/recording", Name: "recording", Title: "Session recording", MIMEType: "application/x-asciicast",
			Description: "The asciicast v2 recording of a session opened with record: true."},
	} {
		srv.AddResourceTemplate(t, rs.readSession)
	}
}

// subscriptionOptions are the server options that turn subscriptions on.
func (rs *resources) subscriptionOptions(o *mcp.ServerOptions) {
	o.SubscribeHandler = rs.subscribe
	o.UnsubscribeHandler = rs.unsubscribe
}

func (rs *resources) readSessions(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	list := rs.mgr.List(ctx)
	if list == nil {
		list = []session.Info{}
	}
	b, err := json.Marshal(list)
	if err != nil {
		return nil, err
	}
	return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: req.Params.URI, MIMEType: "application/json", Text: string(b)}}}, nil
}

// sessionURI is the URI of what (screen, recording, lines/a-b) of session id.
func sessionURI(id, what string) string {
	return sessionURIPrefix + url.PathEscape(id) + "/" + what
}

// parseSessionURI splits ttymux://session/{id}/{what…}.
func parseSessionURI(uri string) (id, what string, err error) {
	rest, ok := strings.CutPrefix(uri, sessionURIPrefix)
	if !ok {
		return "", "", fmt.Errorf("not a ttymux session resource: %s", uri)
	}
	esc, what, ok := strings.Cut(rest, "/")
	if !ok || esc == "" {
		return "", "", fmt.Errorf("resource %s names no session; use ttymux://session/<id>/screen", uri)
	}
	id, err = url.PathUnescape(esc)
	if err != nil {
		return "", "", fmt.Errorf("resource %s: bad session id: %v", uri, err)
	}
	return id, what, nil
}

func (rs *resources) readSession(ctx context.Context, req *mcp.ReadResourceRequest) (*mcp.ReadResourceResult, error) {
	uri := req.Params.URI
	id, what, err := parseSessionURI(uri)
	if err != nil {
		return nil, invalidParams("%v", err)
	}
	s, err := rs.mgr.Get(ctx, id)
	if err != nil {
		var nf *session.NotFoundError
		if errors.As(err, &nf) {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		return nil, err
	}
	text := func(mime, t string) *mcp.ReadResourceResult {
		return &mcp.ReadResourceResult{Contents: []*mcp.ResourceContents{{URI: uri, MIMEType: mime, Text: t}}}
	}
	switch {
	case what == "screen":
		r, err := s.Read(ctx, session.ReadRequest{Mode: "screen"})
		if err != nil {
			return nil, err
		}
		return text("text/plain", r.Output), nil
	case strings.HasPrefix(what, "lines/"):
		from, to, err := parseLineRange(strings.TrimPrefix(what, "lines/"))
		if err != nil {
			return nil, invalidParams("resource %s: %v", uri, err)
		}
		r, err := s.Read(ctx, session.ReadRequest{Mode: "range", FromLine: from, ToLine: to})
		if err != nil {
			return nil, err
		}
		return text("text/plain", r.Output), nil
	case what == "recording":
		path := s.Info().Recording
		if path == "" {
			return nil, mcp.ResourceNotFoundError(uri)
		}
		b, err := readCapped(path, maxRecordingResource)
		if err != nil {
			return nil, fmt.Errorf("resource %s: %v", uri, err)
		}
		return text("application/x-asciicast", string(b)), nil
	}
	return nil, mcp.ResourceNotFoundError(uri)
}

// parseLineRange reads "from-to" (1-based, inclusive; at most
// maxResourceLines lines).
func parseLineRange(s string) (from, to int64, err error) {
	a, b, ok := strings.Cut(s, "-")
	if ok {
		from, err = strconv.ParseInt(a, 10, 64)
		if err == nil {
			to, err = strconv.ParseInt(b, 10, 64)
		}
	}
	switch {
	case !ok || err != nil || from < 1 || to < from:
		return 0, 0, fmt.Errorf("lines wants from-to with 1 <= from <= to, e.g. lines/1-200; got %q", s)
	case to-from+1 > maxResourceLines:
		return 0, 0, fmt.Errorf("at most %d lines at once (asked %d); split the range", maxResourceLines, to-from+1)
	}
	return from, to, nil
}

// readCapped reads a file of at most limit bytes.
func readCapped(path string, limit int64) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	if st.Size() > limit {
		return nil, fmt.Errorf("the recording is %d bytes, more than a resource returns (%d); read the file %s (asciinema play plays it)", st.Size(), limit, path)
	}
	b := make([]byte, st.Size())
	_, err = f.ReadAt(b, 0)
	return b, err
}

// sync lists each session this server holds as a screen resource of its
// own and forgets closed and detached ones (the SDK sends list_changed for each change), and
// stops the watchers of sessions that are gone. It runs after every tool
// call, which is where sessions come and go.
func (rs *resources) sync() {
	open := map[string]string{} // id -> name
	for _, s := range rs.mgr.Sessions() {
		open[s.ID()] = s.Name()
	}
	rs.mu.Lock()
	var add, gone []string
	for id := range open {
		if !rs.listed[id] {
			rs.listed[id] = true
			add = append(add, id)
		}
	}
	for id := range rs.listed {
		if _, ok := open[id]; ok {
			continue
		}
		delete(rs.listed, id)
		uri := sessionURI(id, "screen")
		gone = append(gone, uri)
		if stop := rs.watchers[uri]; stop != nil {
			stop()
			delete(rs.watchers, uri)
		}
	}
	rs.mu.Unlock()
	if len(gone) > 0 {
		rs.srv.RemoveResources(gone...)
	}
	for _, id := range add {
		title := "terminal " + id
		if n := open[id]; n != "" {
			title += " (" + n + ")"
		}
		rs.srv.AddResource(&mcp.Resource{
			URI: sessionURI(id, "screen"), Name: "screen-" + id, Title: title, MIMEType: "text/plain",
			Description: "The rendered screen of ttymux session " + id + ".",
		}, rs.readSession)
	}
}

// syncAfterTools is receiving middleware that runs sync after each tool call.
func (rs *resources) syncAfterTools(next mcp.MethodHandler) mcp.MethodHandler {
	return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
		res, err := next(ctx, method, req)
		if method == "tools/call" {
			rs.sync() // also after a cancelled call: it may have opened or closed one
		}
		return res, err
	}
}

func (rs *resources) subscribe(ctx context.Context, req *mcp.SubscribeRequest) error {
	uri := req.Params.URI
	id, what, err := parseSessionURI(uri)
	if err != nil || what != "screen" {
		return invalidParams("only screens can be subscribed to (ttymux://session/<id>/screen), not %s", uri)
	}
	s, err := rs.mgr.Get(ctx, id)
	if err != nil {
		var nf *session.NotFoundError
		if errors.As(err, &nf) {
			return mcp.ResourceNotFoundError(uri)
		}
		return err
	}
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if rs.watchers[uri] != nil {
		return nil // one watcher serves every subscriber; the SDK fans out
	}
	wctx, cancel := context.WithCancel(context.Background())
	rs.watchers[uri] = cancel
	// Taken here, not in the goroutine: a change right after the subscribe
	// answered (the model's next send) must make a notification, however
	// late the goroutine runs.
	go rs.watch(wctx, s, uri, s.Changed())
	return nil
}

func (rs *resources) unsubscribe(_ context.Context, req *mcp.UnsubscribeRequest) error {
	// The SDK keeps the subscriber list; the watcher only costs a goroutine
	// parked on the session, and sync stops it when the session goes.
	return nil
}

// watch sends an updated notification for uri after each change of s
// from ch on, at most every screenUpdateEvery, until ctx ends.
func (rs *resources) watch(ctx context.Context, s *session.Session, uri string, ch <-chan struct{}) {
	t := time.NewTimer(screenUpdateEvery)
	t.Stop()
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ch:
		}
		// Coalesce the burst: one notification for what changed meanwhile.
		t.Reset(screenUpdateEvery)
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		// Before the notification: a change while it is sent makes the
		// next one.
		ch = s.Changed()
		if err := rs.srv.ResourceUpdated(ctx, &mcp.ResourceUpdatedNotificationParams{URI: uri}); err != nil {
			rs.log.Debug("resource updated notification failed", "uri", uri, "err", err)
		}
	}
}

// stop ends every watcher (server shutdown).
func (rs *resources) stop() {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	for uri, cancel := range rs.watchers {
		cancel()
		delete(rs.watchers, uri)
	}
}
