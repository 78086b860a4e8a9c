package console

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"
)

// brokenAgent is an agent that cannot list its sessions (an agent of
// another version, or one that does not answer).
type brokenAgent struct{ scripted }

func (*brokenAgent) List(context.Context) ([]Session, error) {
	return nil, errors.New("connect to agent on /run/x/agent.sock: connection reset by peer")
}

// TestWebAgentFailsServersShow: when the agent fails to list, ttymux web
// still lists the servers' sessions, with the agent's problem as a notice
// (on /api/sessions and on the event stream). Before, the page showed the
// error and no rows (the list was a 502).
func TestWebAgentFailsServersShow(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rt")
	of, err := ListenOffer(OfferPath(dir, os.Getpid()), OfferOptions{Source: &scripted{}})
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	cs := New(Options{Source: WithServers(&brokenAgent{}, &Servers{Dir: dir}), Token: "tok", Poll: time.Hour})
	defer cs.Close()
	srv := httptest.NewServer(cs)
	defer srv.Close()
	get := func(path string) *http.Response {
		req, _ := http.NewRequest("GET", srv.URL+path, nil)
		req.Header.Set("Authorization", "Bearer tok")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		return resp
	}
	id := "s1@" + strconv.Itoa(os.Getpid())
	resp := get("/api/sessions")
	var l []Session
	err = json.NewDecoder(resp.Body).Decode(&l)
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || err != nil || len(l) != 1 || l[0].ID != id {
		t.Fatalf("/api/sessions: %s, %v, %+v", resp.Status, err, l)
	}
	if n := resp.Header.Get(NoticeHeader); !strings.Contains(n, "the agent's sessions are not shown") || !strings.Contains(n, "connection reset") {
		t.Fatalf("the notice: %q", n)
	}

	// The event stream: the notice, then the rows.
	resp = get("/api/events")
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	got := map[string]string{}
	event := ""
	for len(got) < 2 && sc.Scan() {
		line := sc.Text()
		if e, ok := strings.CutPrefix(line, "event: "); ok {
			event = e
		} else if d, ok := strings.CutPrefix(line, "data: "); ok && event != "" {
			got[event] = d
		}
	}
	if !strings.Contains(got["notice"], "the agent's sessions are not shown") || !strings.Contains(got["sessions"], `"id":"`+id+`"`) {
		t.Fatalf("events: %q", got)
	}
}
