package transport_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/transport"
)

// TestGapErrorOneType: the gap a ring reports and the gap a keeper's
// client reports are one type, found by errors.As under a wrapping, and
// each keeps its message (the ring's names what it still holds; a keeper
// does not say, and a human's attach prints its message as it was).
func TestGapErrorOneType(t *testing.T) {
	r := ring.New(4)
	r.Write([]byte("0123456789"))
	_, rerr := r.ReadAt(make([]byte, 4), 2)
	tests := []struct {
		name string
		err  error
		want transport.GapError
		msg  string
	}{
		{"ring", rerr, transport.GapError{From: 2, To: 6, End: 10},
			"output from offset 2 to 6 is gone (ring holds 6..10): 4 bytes lost; continue from offset 6"},
		{"keeper", &transport.GapError{From: 3, To: 100}, transport.GapError{From: 3, To: 100},
			"output from offset 3 to 100 was lost (97 bytes)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := fmt.Errorf("read session s1: %w", tt.err)
			var gap *transport.GapError
			if !errors.As(err, &gap) || *gap != tt.want || gap.Lost() != tt.want.To-tt.want.From {
				t.Fatalf("errors.As(%v) = %+v, want %+v", err, gap, tt.want)
			}
			if gap.Error() != tt.msg {
				t.Errorf("message %q, want %q", gap.Error(), tt.msg)
			}
		})
	}
}
