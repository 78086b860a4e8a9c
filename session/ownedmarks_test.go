package session_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/ttymux/ttymux/session"
)

// sendNoWait types req without waiting for its verdict.
func sendNoWait(t *testing.T, s *session.Session, req session.SendRequest) {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
	defer cancel()
	req.Wait = false
	if _, err := s.Send(ctx, req); err != nil {
		t.Fatalf("send %q %v: %v", req.Text, req.Keys, err)
	}
}

// TestWaitFalseCommandIsTypedAhead: text sent while a command sent without
// wait still runs, its foreground a program that reads no input, is a
// command typed ahead, as after a timeout (issue #13): its result is its
// own, the earlier command's rest and exit code are in earlier. The
// result of `echo next` was the earlier command's (output, exit 4).
func TestWaitFalseCommandIsTypedAhead(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	sendNoWait(t, s, session.SendRequest{Text: "sleep 1.5; echo WF-DONE; (exit 4)", Enter: true})
	waitForeground(t, s, "sleep")
	r := send(t, s, session.SendRequest{Text: "echo next"})
	if !r.Complete || r.Output != "next" || exitCode(r) != "0" {
		t.Fatalf("typed ahead of a wait:false command: complete=%v output=%q exit=%s earlier=%s note=%q", r.Complete, r.Output, exitCode(r), earlierString(r), r.Note)
	}
	if r.Earlier == nil || r.Earlier.Output != "WF-DONE" || r.Earlier.ExitCode == nil || *r.Earlier.ExitCode != 4 {
		t.Fatalf("earlier = %s, want WF-DONE, exit 4", earlierString(r))
	}
	if r := send(t, s, session.SendRequest{Text: "echo again"}); r.Output != "again" || r.Earlier != nil {
		t.Fatalf("the send after: output %q earlier %s", r.Output, earlierString(r))
	}
}

// TestTextReadByAProgramNobodyWaitedFor: the other way round. Lines typed
// while cat (sent without wait) runs are taken for commands typed ahead,
// but cat reads them: the shell never prints their D marks. Once the shell
// sits idle at its prompt, the marks still counted are known never to
// come: ctrl+d ends cat, its send completes, and the next command is
// itself (it waited for marks that never came, and its own D was taken
// for one of them).
func TestTextReadByAProgramNobodyWaitedFor(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	sendNoWait(t, s, session.SendRequest{Text: "cat", Enter: true})
	waitForeground(t, s, "cat")
	sendNoWait(t, s, session.SendRequest{Text: "hello-cat", Enter: true})
	r := send(t, s, session.SendRequest{Keys: []string{"ctrl+d"}, Timeout: 15 * time.Second})
	if !r.Complete || r.Via == session.ViaExitCode && exitCode(r) != "0" {
		t.Fatalf("ctrl+d to cat: complete=%v via=%q exit=%s output=%q earlier=%s note=%q", r.Complete, r.Via, exitCode(r), r.Output, earlierString(r), r.Note)
	}
	r = send(t, s, session.SendRequest{Text: "echo after-cat", Timeout: 15 * time.Second})
	if !r.Complete || r.Output != "after-cat" || exitCode(r) != "0" || r.Earlier != nil {
		t.Fatalf("after cat: complete=%v output=%q exit=%s earlier=%s note=%q", r.Complete, r.Output, exitCode(r), earlierString(r), r.Note)
	}
}

// TestInputRunByTheShellIsACommand: text sent while a command runs with
// the terminal's echo off is taken as that program's input; when the
// program never reads it, the shell runs it once the program ends (a C
// mark right after the D). Its result is then its own, the earlier
// command's rest in earlier, not the earlier command's end.
func TestInputRunByTheShellIsACommand(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m)
	r := send(t, s, session.SendRequest{Text: "stty -echo; sleep 1.5; stty echo; echo EO-DONE; (exit 6)", Timeout: 300 * time.Millisecond})
	if r.Complete {
		t.Fatalf("first command complete early: %+v", r)
	}
	waitForeground(t, s, "sleep")
	r = send(t, s, session.SendRequest{Text: "echo mine"})
	if !r.Complete || r.Output != "mine" || exitCode(r) != "0" {
		t.Fatalf("text the shell ran: complete=%v output=%q exit=%s earlier=%s note=%q", r.Complete, r.Output, exitCode(r), earlierString(r), r.Note)
	}
	if r.Earlier == nil || !strings.Contains(r.Earlier.Output, "EO-DONE") || r.Earlier.ExitCode == nil || *r.Earlier.ExitCode != 6 {
		t.Fatalf("earlier = %s, want EO-DONE, exit 6", earlierString(r))
	}
	if r := send(t, s, session.SendRequest{Text: "echo again"}); r.Output != "again" || r.Earlier != nil {
		t.Fatalf("the send after: output %q earlier %s", r.Output, earlierString(r))
	}
}

// TestEveryEnterOwesAMark: a send that submits two lines (its text's
// Enter, then keys enter, ctrl+j or a carriage return in hex) owes two D marks; the second line's, late
// (a slow prompt hook), must not complete the next send, which types a
// line without Enter (issue #13: complete, exit 0 after 9 ms).
func TestEveryEnterOwesAMark(t *testing.T) {
	m := newManager(t, session.Options{})
	s := openShell(t, m, "PROMPT_COMMAND=sleep 0.3")
	for _, tt := range []struct {
		name string
		req  session.SendRequest
		out  string
	}{
		{"keys enter", session.SendRequest{Text: "echo K1", Enter: true, Keys: []string{"enter"}}, "K1"},
		{"ctrl+j", session.SendRequest{Text: "echo K2", Enter: true, Keys: []string{"ctrl+j"}}, "K2"},
		{"hex carriage return", session.SendRequest{Text: "echo K3", Enter: true, Bytes: []byte("\r")}, "K3"},
		// ctrl+c at the prompt ends the line with a D mark too (bash and
		// zsh run their prompt hook again), which the next send, made at
		// once, must not take for its own.
		{"ctrl+c without wait", session.SendRequest{Text: "echo K4", Keys: []string{"ctrl+c"}}, ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
			defer cancel()
			tt.req.Wait, tt.req.Timeout = tt.out != "", 20*time.Second
			r, err := s.Send(ctx, tt.req)
			if err != nil {
				t.Fatal(err)
			}
			if tt.req.Wait && (!r.Complete || r.Output != tt.out) {
				t.Fatalf("complete=%v output %q, want %q (earlier %s)", r.Complete, r.Output, tt.out, earlierString(r))
			}
			r, err = s.Send(ctx, session.SendRequest{Text: "echo never-run", Wait: true, Timeout: 2 * time.Second})
			if err != nil {
				t.Fatal(err)
			}
			if r.Complete {
				t.Fatalf("a send that ran nothing came back complete (exit %s, via %q, output %q)", exitCode(r), r.Via, r.Output)
			}
			if _, err := s.Send(ctx, session.SendRequest{Keys: []string{"ctrl+u"}, Wait: true, Timeout: 2 * time.Second}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
