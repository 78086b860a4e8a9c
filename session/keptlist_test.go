package session

import (
	"context"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// countingKeeper answers List with its sessions and counts the calls.
type countingKeeper struct {
	transport.Keeper
	mu       sync.Mutex
	calls    int
	sessions []transport.KeptSession
}

func (k *countingKeeper) List(context.Context) ([]transport.KeptSession, error) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.calls++
	return k.sessions, nil
}

func (k *countingKeeper) set(ids ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.sessions = nil
	for _, id := range ids {
		k.sessions = append(k.sessions, transport.KeptSession{ID: id})
	}
}

func (k *countingKeeper) count() int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.calls
}

// TestKeptListAnswersFromWhatItKnows (issue #17): list asks the agent the
// first time and after this server changed its sessions; otherwise it
// answers from what it learnt, and a list older than keptFresh is refreshed
// in the background for the next call, which then sees another server's
// new session.
func TestKeptListAnswersFromWhatItKnows(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		k := &countingKeeper{}
		k.set("s1")
		var c keptList
		ctx := context.Background()
		ids := func() []string {
			var out []string
			for _, s := range c.keptSessions(ctx, k, func(err error) { t.Error(err) }) {
				out = append(out, s.ID)
			}
			return out
		}
		if got := ids(); len(got) != 1 || k.count() != 1 {
			t.Fatalf("first list: %v after %d calls", got, k.count())
		}
		k.set("s1", "s2") // another server opened s2
		if got := ids(); len(got) != 1 || k.count() != 1 {
			t.Fatalf("second list within keptFresh: %v after %d calls, want the list learnt", got, k.count())
		}
		time.Sleep(keptFresh + time.Millisecond)
		if got := ids(); len(got) != 1 {
			t.Fatalf("stale list: %v, want the old answer at once", got)
		}
		synctest.Wait() // the background refresh
		if got := ids(); len(got) != 2 || k.count() != 2 {
			t.Fatalf("after the refresh: %v after %d calls", got, k.count())
		}
		k.set("s2") // this server closed s1
		c.changed()
		if got := ids(); len(got) != 1 || got[0] != "s2" || k.count() != 3 {
			t.Fatalf("after a change: %v after %d calls, want the agent asked at once", got, k.count())
		}
		c.wait()
	})
}
