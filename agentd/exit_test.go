package agentd

import (
	"fmt"
	"io"
	"testing"

	"github.com/ttymux/ttymux/agentd/agentproto"
	"github.com/ttymux/ttymux/internal/ptyproc"
)

// TestExitOf: the exit of a real child on a PTY, as ptyproc reports it
// (transport's one ExitError, here under a wrapping), becomes the Exit
// message the agent sends, with status and signal name.
func TestExitOf(t *testing.T) {
	for _, tt := range []struct {
		name   string
		script string
		want   agentproto.Exit
	}{
		{name: "exit 0", script: "exit 0"},
		{name: "exit 3", script: "exit 3", want: agentproto.Exit{Status: 3}},
		{name: "terminated", script: "kill -TERM $$", want: agentproto.Exit{Status: 143, Signal: "TERM"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			p, err := ptyproc.Start(ptyproc.Spec{Path: "sh", Args: []string{"-c", tt.script}})
			if err != nil {
				t.Fatal(err)
			}
			defer p.Close()
			_, _ = io.Copy(io.Discard, p) // until the child is gone
			err = p.Wait()
			if err != nil {
				err = fmt.Errorf("session s1: %w", err)
			}
			if got := exitOf(err); got != tt.want {
				t.Errorf("exitOf(%v) = %+v, want %+v", err, got, tt.want)
			}
		})
	}
}
