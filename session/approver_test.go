package session

import (
	"context"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/internal/policy"
	"github.com/ttymux/ttymux/internal/testwait"
)

// approverFunc is an Approver from a function.
type approverFunc func(context.Context, *Hold) (Grant, error)

func (f approverFunc) Approve(ctx context.Context, h *Hold) (Grant, error) { return f(ctx, h) }

// writes records what a scripted session was sent.
type writes struct {
	mu  sync.Mutex
	all strings.Builder
}

func (w *writes) add(p []byte) {
	w.mu.Lock()
	w.all.Write(p)
	w.mu.Unlock()
}

func (w *writes) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.all.String()
}

// newGatedSession is a scripted shell on a read-only "local" whose input
// is recorded, with approver a (nil: none).
func newGatedSession(t *testing.T, a Approver) (*Session, *writes) {
	t.Helper()
	pol, err := policy.Parse("policy.toml", []byte("[[rule]]\nhosts = [\"local\"]\nread_only = true\nask = ['^touch']\n"))
	if err != nil {
		t.Fatal(err)
	}
	c := newScriptConn()
	w := &writes{}
	c.onWrite = w.add
	s := newScriptSession(t, c, 1<<16)
	s.policy, s.approver, s.policyHost = pol, a, "local"
	return s, w
}

// TestApproverIsTheOnlyWayThrough: a held line reaches the terminal only
// with the Grant minted from its own Hold. No Approver, a zero Grant, a
// Grant minted from an earlier Hold, or a refusal: nothing is typed.
func TestApproverIsTheOnlyWayThrough(t *testing.T) {
	var stale *Hold
	tests := []struct {
		name    string
		a       Approver
		typed   bool
		errWant string
	}{
		{"no approver", nil, false, "needs approval"},
		{"zero grant", approverFunc(func(context.Context, *Hold) (Grant, error) { return Grant{}, nil }), false, "does not fit"},
		{"another hold's grant", approverFunc(func(_ context.Context, h *Hold) (Grant, error) {
			if stale == nil {
				stale = h
				return Grant{}, errors.New("first")
			}
			return stale.Grant("approved_by_human"), nil
		}), false, "does not fit"},
		{"refused", approverFunc(func(context.Context, *Hold) (Grant, error) { return Grant{}, errors.New("refused: no") }), false, "refused: no"},
		{"granted", approverFunc(func(_ context.Context, h *Hold) (Grant, error) { return h.Grant("approved_by_human"), nil }), true, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, w := newGatedSession(t, tt.a)
			if tt.name == "another hold's grant" {
				_, _ = s.Send(t.Context(), SendRequest{Text: "touch /tmp/a", Enter: true})
			}
			_, err := s.Send(t.Context(), SendRequest{Text: "touch /tmp/x", Enter: true})
			if typed := strings.Contains(w.String(), "touch /tmp/x"); typed != tt.typed {
				t.Fatalf("typed %v, want %v (err %v)", typed, tt.typed, err)
			}
			if tt.errWant == "" && err != nil || tt.errWant != "" && (err == nil || !strings.Contains(err.Error(), tt.errWant)) {
				t.Fatalf("err %v, want %q", err, tt.errWant)
			}
		})
	}
}

// TestHoldIsWholeWithEveryReason: the Hold carries the whole line (never
// cut), where it runs and every reason.
func TestHoldIsWholeWithEveryReason(t *testing.T) {
	var got *Hold
	s, _ := newGatedSession(t, approverFunc(func(_ context.Context, h *Hold) (Grant, error) {
		got = h
		return Grant{}, errors.New("refused")
	}))
	line := "touch x" + strings.Repeat(" ", 600) + "; rm -rf /"
	_, _ = s.Send(t.Context(), SendRequest{Text: line, Enter: true})
	if got == nil {
		t.Fatal("the approver was not asked")
	}
	if got.Line != line || got.Session != "t1" || got.Host != "local" || got.Op != OpSend || len(got.Reasons) != 3 {
		t.Fatalf("hold %+v", got)
	}
}

// TestApproverHoldsTheInput: while the Approver decides, nothing else is
// typed into the session; the approved line goes first.
func TestApproverHoldsTheInput(t *testing.T) {
	asked, release := make(chan struct{}), make(chan struct{})
	s, w := newGatedSession(t, approverFunc(func(_ context.Context, h *Hold) (Grant, error) {
		close(asked)
		<-release
		return h.Grant("approved_by_human"), nil
	}))
	errs := make(chan error, 2)
	go func() {
		_, err := s.Send(context.Background(), SendRequest{Text: "touch /tmp/held", Enter: true})
		errs <- err
	}()
	<-asked
	go func() {
		_, err := s.Send(context.Background(), SendRequest{Text: "echo other", Enter: true})
		errs <- err
	}()
	// The second send must wait for the input lock. Nothing marks "waiting
	// on the lock", so this is a bounded negative check: without the lock
	// the text is typed within microseconds.
	if testwait.Poll(t.Context(), 300*time.Millisecond, func() bool { return strings.Contains(w.String(), "echo other") }) {
		t.Fatal("a send was typed while a held line was being approved")
	}
	close(release)
	for range 2 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
	all := w.String()
	if i, j := strings.Index(all, "touch /tmp/held"), strings.Index(all, "echo other"); i < 0 || j < i {
		t.Fatalf("typed %q", all)
	}
}

// TestCheckCommandOneHold: a command run on many hosts (fanout) is put to
// the Approver once, as one Hold naming every held host with every
// host's reasons; hosts the policy denies are refused whatever the
// Approver says, hosts it lets run are not held, and the Approver's
// refusal refuses only the held hosts.
func TestCheckCommandOneHold(t *testing.T) {
	pol, err := policy.Parse("policy.toml", []byte(`
[[rule]]
hosts = ["ro*"]
read_only = true
[[rule]]
hosts = ["ask*"]
ask = ['^touch']
[[rule]]
hosts = ["deny*"]
deny = ['^touch']
`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		name  string
		grant bool
	}{{"granted", true}, {"refused", false}} {
		t.Run(tt.name, func(t *testing.T) {
			var holds []*Hold
			m := NewManager(Options{Policy: pol, Approver: approverFunc(func(_ context.Context, h *Hold) (Grant, error) {
				holds = append(holds, h)
				if tt.grant {
					return h.Grant("approved_by_human"), nil
				}
				return Grant{}, errors.New("refused: declined")
			})})
			hosts := []string{"ro1", "ask1", "deny1", "free1", "ro2"}
			refused, err := m.CheckCommand(t.Context(), Command{Op: OpFanout, Line: "touch /tmp/x", Hosts: hosts})
			if len(holds) != 1 {
				t.Fatalf("asked %d times", len(holds))
			}
			h := holds[0]
			if strings.Join(h.Hosts, ",") != "ro1,ask1,ro2" || len(h.Reasons) != 3 || h.Op != OpFanout {
				t.Fatalf("hold %+v", h)
			}
			want := "deny1"
			if !tt.grant {
				want = "ask1,deny1,ro1,ro2"
				if err == nil {
					t.Fatal("no refusal")
				}
			}
			var got []string
			for _, host := range hosts {
				if refused[host] != nil {
					got = append(got, host)
				}
			}
			slices.Sort(got)
			if strings.Join(got, ",") != want {
				t.Fatalf("refused %v, want %s", got, want)
			}
		})
	}
}
