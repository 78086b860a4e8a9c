package main

import (
	"context"
	"encoding/json"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/session"
)

// readResource reads uri and returns its one text content.
func readResource(t *testing.T, cs *mcp.ClientSession, uri string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	r, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: uri})
	if err != nil {
		t.Fatalf("read %s: %v", uri, err)
	}
	if len(r.Contents) != 1 {
		t.Fatalf("read %s: %d contents", uri, len(r.Contents))
	}
	return r.Contents[0].Text
}

func listedURIs(t *testing.T, cs *mcp.ClientSession) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var uris []string
	for r, err := range cs.Resources(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		uris = append(uris, r.URI)
	}
	return uris
}

// TestResources reads every kind of ttymux:// resource of a real session
// and checks that the list follows sessions as they open and close, with
// list_changed notifications.
func TestResources(t *testing.T) {
	changed := make(chan struct{}, 16)
	srv := newServer(newTestManager(t), nil)
	cs := connect(t, srv, &mcp.ClientOptions{
		ResourceListChangedHandler: func(context.Context, *mcp.ResourceListChangedRequest) {
			select {
			case changed <- struct{}{}:
			default:
			}
		},
	})
	if got := listedURIs(t, cs); len(got) != 1 || got[0] != sessionsURI {
		t.Fatalf("before any session: resources %v, want only %s", got, sessionsURI)
	}
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"persistent": false, "name": "web"}, &open)
	id := open.ID
	select {
	case <-changed:
	case <-time.After(30 * time.Second):
		t.Fatal("no resources/list_changed after open_local")
	}
	screenURI := sessionURI(id, "screen")
	if got := listedURIs(t, cs); !slices.Contains(got, screenURI) {
		t.Fatalf("after open: resources %v lack %s", got, screenURI)
	}
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": id, "text": "for i in 1 2 3; do echo line-$i; done"}, &r)
	if !r.Complete {
		t.Fatalf("send: %+v", r)
	}

	var infos []session.Info
	if err := json.Unmarshal([]byte(readResource(t, cs, sessionsURI)), &infos); err != nil {
		t.Fatal(err)
	}
	if len(infos) != 1 || infos[0].ID != id || infos[0].Name != "web" {
		t.Fatalf("sessions resource: %+v", infos)
	}
	if s := readResource(t, cs, screenURI); !strings.Contains(s, "line-3") {
		t.Fatalf("screen resource lacks line-3:\n%s", s)
	}
	// The lines resource is exact history: find line-2 and read it alone.
	all := readResource(t, cs, sessionURI(id, "lines/1-200"))
	n := 0
	for i, l := range strings.Split(all, "\n") {
		if l == "line-2" {
			n = i + 1
		}
	}
	if n == 0 {
		t.Fatalf("lines 1-200 lack line-2:\n%s", all)
	}
	one := readResource(t, cs, sessionURI(id, "lines/"+strconv.Itoa(n)+"-"+strconv.Itoa(n)))
	if strings.TrimSpace(one) != "line-2" {
		t.Fatalf("lines %d-%d = %q, want line-2", n, n, one)
	}
	// A resource read is not a read: the model's next read still gets it.
	call(t, cs, "send", map[string]any{"session_id": id, "text": "echo after", "wait": true}, &r)
	if strings.Contains(r.Output, "line-1") {
		t.Fatalf("send after resource reads returned old output: %q", r.Output)
	}

	ctx := context.Background()
	for _, bad := range []string{
		sessionURI(id, "lines/5-2"),
		sessionURI(id, "lines/1-99999"),
		sessionURI("nosuch", "screen"),
		sessionURI(id, "recording"), // not recorded
	} {
		if _, err := cs.ReadResource(ctx, &mcp.ReadResourceParams{URI: bad}); err == nil {
			t.Errorf("read %s: no error", bad)
		}
	}

	call(t, cs, "close", map[string]any{"session_id": id}, nil)
	deadline := time.After(30 * time.Second)
	for slices.Contains(listedURIs(t, cs), screenURI) {
		select {
		case <-changed:
		case <-deadline:
			t.Fatalf("screen resource still listed after close")
		}
	}
}

// TestResourceRecording reads a recorded session's asciicast.
func TestResourceRecording(t *testing.T) {
	cs := newTestClient(t)
	var open OpenOut
	call(t, cs, "open_local", map[string]any{"persistent": false, "record": true}, &open)
	var r session.Result
	call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo recorded-text"}, &r)
	// The recorder writes the file in batches: wait for the batch.
	var got string
	waitUntil(t, "the recording resource holds the command's output", 30*time.Second, func() bool {
		got = readResource(t, cs, sessionURI(open.ID, "recording"))
		return strings.Contains(got, `recorded-text\r\n`)
	})
	if !strings.HasPrefix(got, `{"version":2`) {
		t.Fatalf("recording resource is no asciicast v2:\n%.300s", got)
	}
}

// TestScreenSubscription subscribes to a screen and expects an update when
// the session prints, at the revision Claude Code speaks (2025-06-18) and
// at the newest (subscriptions by subscriptions/listen).
func TestScreenSubscription(t *testing.T) {
	for _, version := range []string{"2025-06-18", mcp.SupportedProtocolVersions()[0]} {
		t.Run(version, func(t *testing.T) {
			updated := make(chan string, 16)
			// At the newest revision Subscribe only sends subscriptions/listen;
			// the server's acknowledgement says the subscription is in place.
			acked := make(chan struct{}, 1)
			ack := func(next mcp.MethodHandler) mcp.MethodHandler {
				return func(ctx context.Context, method string, req mcp.Request) (mcp.Result, error) {
					if method == "notifications/subscriptions/acknowledged" {
						select {
						case acked <- struct{}{}:
						default:
						}
					}
					return next(ctx, method, req)
				}
			}
			cs := connectAt(t, newServer(newTestManager(t), nil), &mcp.ClientOptions{
				ResourceUpdatedHandler: func(_ context.Context, req *mcp.ResourceUpdatedNotificationRequest) {
					select {
					case updated <- req.Params.URI:
					default:
					}
				},
			}, version, ack)
			var open OpenOut
			call(t, cs, "open_local", map[string]any{"persistent": false}, &open)
			uri := sessionURI(open.ID, "screen")
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: uri}); err != nil {
				t.Fatal(err)
			}
			if version == "2025-06-18" {
				if err := cs.Subscribe(ctx, &mcp.SubscribeParams{URI: sessionURI(open.ID, "lines/1-2")}); err == nil {
					t.Error("subscribing to a lines resource: no error")
				}
			} else {
				select {
				case <-acked:
				case <-ctx.Done():
					t.Fatal("no subscriptions/acknowledged after subscribing")
				}
			}
			call(t, cs, "send", map[string]any{"session_id": open.ID, "text": "echo hi", "wait": false}, nil)
			select {
			case got := <-updated:
				if got != uri {
					t.Fatalf("updated %s, want %s", got, uri)
				}
			case <-ctx.Done():
				t.Fatal("no resources/updated after the screen changed")
			}
		})
	}
}

// connectAt is connect at a chosen protocol revision, with the client's
// receiving middleware mw.
func connectAt(t testing.TB, srv *mcp.Server, opts *mcp.ClientOptions, version string, mw ...mcp.Middleware) *mcp.ClientSession {
	t.Helper()
	ctx := context.Background()
	st, ct := mcp.NewInMemoryTransports()
	ss, err := srv.Connect(ctx, st, nil)
	if err != nil {
		t.Fatal(err)
	}
	client := mcp.NewClient(&mcp.Implementation{Name: "test", Version: "v0"}, opts)
	client.AddReceivingMiddleware(mw...)
	cs, err := client.Connect(ctx, ct, &mcp.ClientSessionOptions{ProtocolVersion: version})
	if err != nil {
		t.Fatal(err)
	}
	if got := cs.InitializeResult().ProtocolVersion; got != version {
		t.Fatalf("negotiated %s, want %s", got, version)
	}
	t.Cleanup(func() {
		_ = cs.Close()
		_ = ss.Wait()
	})
	return cs
}

// TestPrompts gets each prompt and checks a required argument is enforced.
func TestPrompts(t *testing.T) {
	cs := newTestClient(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var names []string
	for p, err := range cs.Prompts(ctx, nil) {
		if err != nil {
			t.Fatal(err)
		}
		names = append(names, p.Name)
	}
	if len(names) != 3 {
		t.Fatalf("prompts %v, want 3", names)
	}
	for _, tc := range []struct {
		name string
		args map[string]string
		want string
	}{
		{"serial_bringup", map[string]string{"port": "/dev/ttyUSB3"}, "/dev/ttyUSB3"},
		{"homelab_ssh", map[string]string{"host": "nas", "jump": "gw"}, `jump: "gw"`},
		{"service_failure", map[string]string{"service": "nginx", "host": "web1"}, "journalctl -u nginx"},
	} {
		r, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: tc.name, Arguments: tc.args})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		txt := r.Messages[0].Content.(*mcp.TextContent).Text
		if !strings.Contains(txt, tc.want) {
			t.Errorf("%s: %q lacks %q", tc.name, txt, tc.want)
		}
	}
	if _, err := cs.GetPrompt(ctx, &mcp.GetPromptParams{Name: "homelab_ssh"}); err == nil || !strings.Contains(err.Error(), "host") {
		t.Errorf("homelab_ssh without host: %v", err)
	}
}
