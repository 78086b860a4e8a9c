package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport"
)

// leakedPiece returns the longest piece of secret (4 bytes or more) that
// out shows, or "".
func leakedPiece(out, secret string) string {
	for n := len(secret); n >= 4; n-- {
		for i := 0; i+n <= len(secret); i++ {
			if strings.Contains(out, secret[i:i+n]) {
				return secret[i : i+n]
			}
		}
	}
	return ""
}

// TestSecretWrappedAcrossRows: a program prints a 20-byte secret where the
// terminal wraps it, 9 bytes on one row and 11 on the next. No view shows a
// piece of it: screen, diff, range (rendered and raw), new output and
// timestamps. Before, the screen showed the 9-byte row end (each piece was
// under the half-length threshold).
func TestSecretWrappedAcrossRows(t *testing.T) {
	m := newManager(t, session.Options{})
	ctx := context.Background()
	s, err := m.Open(ctx, session.OpenRequest{Transport: "local", Target: transport.Target{
		Env: []string{"HOME=" + t.TempDir(), "PS1=$ "}, Size: transport.Size{Rows: 24, Cols: 80}}})
	if err != nil {
		t.Fatal(err)
	}
	logOnFailure(t, s)
	const secret = "Qz7vK2pL9wX4mN8rT5yB"
	r := send(t, s, session.SendRequest{Text: "read -rs pw", Timeout: 300 * time.Millisecond})
	if r.Complete {
		t.Fatalf("read reported complete before input: %+v", r)
	}
	send(t, s, session.SendRequest{Text: secret, Secret: true})
	first, err := s.Read(ctx, session.ReadRequest{Mode: "diff"}) // the diff baseline
	if err != nil {
		t.Fatal(err)
	}
	// 71 spaces: the secret starts in column 72 of 80.
	r = send(t, s, session.SendRequest{Text: `printf '%71s%s\n' '' "$pw"; printf '%75s%s\n' '' "$pw"`})
	views := map[string]string{"send": r.Output, "first diff": first.Output}
	for _, req := range []session.ReadRequest{
		{Mode: "screen"}, {Mode: "diff"}, {Mode: "range", FromLine: 1, ToLine: 1000},
		{Mode: "range", FromLine: 1, ToLine: 1000, Raw: true},
		{Mode: "range", FromLine: 1, ToLine: 1000, Timestamps: session.StampRelative},
	} {
		rr, err := s.Read(ctx, req)
		if err != nil {
			t.Fatalf("read %+v: %v", req, err)
		}
		views[req.Mode+map[bool]string{true: " raw"}[req.Raw]+req.Timestamps] = rr.Output
	}
	for name, out := range views {
		if p := leakedPiece(out, secret); p != "" {
			t.Errorf("%s shows %q of the secret:\n%s", name, p, out)
		}
	}
	if !strings.Contains(views["screen"], "********\n") {
		t.Errorf("screen has no masked row end:\n%s", views["screen"])
	}
}
