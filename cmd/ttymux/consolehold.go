package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"net"
	"strings"
	"time"

	"github.com/ttymux/ttymux/internal/agentsock"
	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/session"
)

// The human's console as the approver's second way to the human
// (no_elicitation = "console"; docs/security.md, "The console decides").
// The server dials the console's socket in ttymux's private runtime
// directory and, before it sends anything, checks who listens there:
//
//   - the same user (SO_PEERCRED);
//   - the ttymux binary: /proc/PID/exe is the same file as this server's
//     own binary (a console of another ttymux version, or any other
//     program listening there, is refused);
//   - not inside a session: no ancestor of the console, nor of its
//     terminal session's leader, is a ttymux process (this binary,
//     ttymux-agent): every session's shell is a child of the server or the
//     agent that holds it, so a console the model started from a session —
//     which could approve its own holds through the token it printed — is
//     refused (console.CheckPeer).
//
// Only then is the question written; the answer read back is the human's,
// and the Approver mints the Grant from it (or refuses). The console keeps
// no grant and decides nothing.

// consoleConfig locates the console; the zero value is the console at
// console.DefaultSocket. It must run this very binary.
type consoleConfig struct {
	socket string // "": console.DefaultSocket() at each question
}

// errNoConsole: no console listens.
var errNoConsole = errors.New("no console is open")

// ConsoleRefusedError says why the process on the console's socket is not
// trusted with a decision.
type ConsoleRefusedError struct {
	PID int
	Why string
}

func (e *ConsoleRefusedError) Error() string {
	return fmt.Sprintf("the process listening on the console's socket (pid %d) is not trusted to decide: %s", e.PID, e.Why)
}

// dial connects to the console and checks who it is.
func (c consoleConfig) dial(ctx context.Context) (*net.UnixConn, int, error) {
	path := cmp.Or(c.socket, console.DefaultSocket())
	if err := agentsock.CheckSocket(path); err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, 0, errNoConsole
		}
		return nil, 0, fmt.Errorf("console socket: %w", err)
	}
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		return nil, 0, fmt.Errorf("%w (%s does not answer)", errNoConsole, path)
	}
	uc := nc.(*net.UnixConn)
	pid, err := c.verify(uc)
	if err != nil {
		_ = uc.Close() // refused: nothing was sent
		return nil, pid, err
	}
	return uc, pid, nil
}

// verify checks the process listening at the other end of uc
// (console.CheckPeer).
func (c consoleConfig) verify(uc *net.UnixConn) (int, error) {
	pid, err := console.CheckPeer(uc)
	var u *console.UntrustedError
	if errors.As(err, &u) {
		why := u.Why
		if strings.Contains(why, "not this ttymux binary") {
			why += " (start the console with the same ttymux: ttymux web)"
		} else if strings.Contains(why, "inside a session") {
			why += " (a console must be started by you, from a terminal of your own)"
		}
		return pid, &ConsoleRefusedError{PID: u.PID, Why: why}
	}
	return pid, err
}

// ask puts q to the console and waits for the human's answer, until ctx
// ends or timeout passes (then the question is withdrawn). sent, when not
// nil, is called once the question is on its way.
func (c consoleConfig) ask(ctx context.Context, q console.Question, timeout time.Duration, sent func(pid int)) (console.Answer, int, error) {
	dctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	uc, pid, err := c.dial(dctx)
	cancel()
	if err != nil {
		return console.Answer{}, pid, err
	}
	defer uc.Close()
	q.TimeoutMS = timeout.Milliseconds()
	b, err := json.Marshal(q)
	if err != nil {
		return console.Answer{}, pid, err
	}
	_ = uc.SetDeadline(time.Now().Add(timeout))
	stop := context.AfterFunc(ctx, func() { _ = uc.SetDeadline(time.Now()) })
	defer stop()
	if _, err := uc.Write(append(b, '\n')); err != nil {
		return console.Answer{}, pid, fmt.Errorf("the console (pid %d) went away: %w", pid, err)
	}
	if sent != nil {
		sent(pid)
	}
	line, err := bufio.NewReader(io.LimitReader(uc, 1<<20)).ReadBytes('\n')
	if err != nil {
		var ne net.Error
		if errors.As(err, &ne) && ne.Timeout() {
			return console.Answer{}, pid, context.DeadlineExceeded
		}
		return console.Answer{}, pid, fmt.Errorf("the console (pid %d) closed without an answer", pid)
	}
	var a console.Answer
	err = json.Unmarshal(line, &a)
	clear(line)
	if err != nil || (a.Decision != console.Approve && a.Decision != console.Decline) {
		return console.Answer{}, pid, fmt.Errorf("the console (pid %d) answered something it should not", pid)
	}
	return a, pid, nil
}

// askConsole settles h with the human in the console. It is the Approver's
// answer under no_elicitation = "console": the human's approval there, or
// a refusal saying where it waited and why.
func (hu *human) askConsole(ctx context.Context, c *callInfo, h *session.Hold, ev audit.Event) (answer, audit.Decision) {
	timeout := cmp.Or(c.timeout, session.DefaultTimeout)
	ev.Via = audit.ViaConsole
	if _, err := approvalMessage(h); err != nil { // the same bound on what is shown
		ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAsked, audit.Held, err.Error()
		hu.record(ev)
		return answer{err: err}, audit.Held
	}
	q := console.Question{Kind: console.KindHold, Op: h.Op, Command: h.Line, Secret: h.Secret, Session: h.Session, Host: h.Host, Where: where(h), Reasons: h.Reasons}
	start := hu.now()
	asked := false
	a, pid, err := hu.console.ask(ctx, q, timeout, func(pid int) {
		asked = true
		e := ev
		e.Event, e.Decision = audit.KindApprovalAsked, audit.Held
		e.Reason = fmt.Sprintf("%s; asked in the console (pid %d)", ev.Reason, pid)
		hu.record(e)
	})
	waited := hu.now().Sub(start).Round(100 * time.Millisecond)
	ev.Event = audit.KindApprovalAnswered
	var refused *ConsoleRefusedError
	switch {
	case errors.Is(err, errNoConsole):
		ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAsked, audit.Held, ev.Reason+"; no console is open"
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s needs the human's approval (%s); the policy (no_elicitation = \"console\") puts it to the human in the console, and no console is open. Nothing was typed or run. Ask the user to run `ttymux web` in a terminal of their own and open the URL it prints, then repeat this call", quoted(h), c.reason)}, audit.Held
	case errors.As(err, &refused):
		hu.log.Warn("console refused", "pid", refused.PID, "why", refused.Why)
		ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAsked, audit.Held, ev.Reason+"; "+refused.Error()
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s needs the human's approval (%s), and %v. Nothing was typed or run. Ask the user to start the console themselves (ttymux web, in their own terminal)", quoted(h), c.reason, refused)}, audit.Held
	case err != nil && !asked:
		ev.Event, ev.Decision, ev.Reason = audit.KindApprovalAsked, audit.Held, ev.Reason+"; the console could not be asked: "+err.Error()
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s needs the human's approval and asking the console failed (%v); nothing was typed or run", quoted(h), err)}, audit.Held
	case err != nil && (errors.Is(err, context.DeadlineExceeded) || ctx.Err() != nil):
		ev.Decision, ev.Reason = audit.DeclinedByHuman, fmt.Sprintf("no answer in the console (pid %d) within the call's timeout (%s)", pid, timeout)
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s waited %s in the console for the human, who did not answer within the call's timeout; nothing was typed or run. Repeat the call (with a longer timeout_ms) if the user is about to answer", quoted(h), waited)}, audit.DeclinedByHuman
	case err != nil:
		ev.Decision, ev.Reason = audit.DeclinedByHuman, "the console went away: "+err.Error()
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s waited %s in the console, which went away without an answer (%v); nothing was typed or run", quoted(h), waited, err)}, audit.DeclinedByHuman
	case a.Refused != "":
		ev.Decision, ev.Reason = audit.Held, "the console did not show it: "+a.Refused
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: %s needs the human's approval, and the console (pid %d) did not show the question: it does not trust this server (%s). Nothing was typed or run. A ttymux server that runs inside a ttymux session cannot use the console", quoted(h), pid, a.Refused)}, audit.Held
	case a.Decision != console.Approve:
		ev.Decision, ev.Reason = audit.DeclinedByHuman, fmt.Sprintf("declined in the console (pid %d)", pid)
		hu.record(ev)
		return answer{err: fmt.Errorf("refused: the human declined %s in the console (after %s); nothing was typed or run. Do not retry it unless the user asks you to", quoted(h), waited)}, audit.DeclinedByHuman
	}
	ev.Decision, ev.Reason = audit.ApprovedByHuman, fmt.Sprintf("%s; approved in the console (pid %d)", ev.Reason, pid)
	hu.record(ev)
	c.note = fmt.Sprintf("held (%s); waited %s for the human in the console, who approved it", c.reason, waited)
	return answer{}, audit.ApprovedByHuman
}

// webHolds opens the console's socket for ttymux web, and names the audit
// log whose tail the console shows. Without the socket the console still
// shows sessions; stderr says why it takes no questions.
func webHolds(stderr io.Writer, log *slog.Logger) (*console.Holds, string) {
	hs, err := console.ListenHolds(console.DefaultSocket(), log)
	if err != nil {
		fmt.Fprintf(stderr, "ttymux web: held commands and secrets will not come here: %v\n", err)
		hs = nil
	}
	return hs, audit.DefaultPath()
}

// secretInConsole asks the human for a secret in the console when one is
// open (ask_secret): done is false when none is, or when the process
// there is not trusted (then the one-time page is used, as before). The
// secret goes from the console's page over the socket straight to deliver,
// which types it; the model never sees it. ev is the secret_asked event,
// now marked via the console, which deliver's own record copies.
func (hu *human) secretInConsole(ctx context.Context, q console.Question, timeout time.Duration, ev *audit.Event, deliver func(string) error) (done bool, err error) {
	q.Kind = console.KindSecret
	a, pid, err := hu.console.ask(ctx, q, timeout, func(pid int) {
		ev.Via = audit.ViaConsole
		hu.record(*ev)
	})
	var refused *ConsoleRefusedError
	switch {
	case errors.Is(err, errNoConsole):
		return false, nil
	case errors.As(err, &refused):
		hu.log.Warn("console refused; the secret is asked by a one-time page instead", "pid", refused.PID, "why", refused.Why)
		return false, nil
	case err != nil && ev.Via == "":
		hu.log.Warn("console could not be asked; the secret is asked by a one-time page instead", "err", err)
		return false, nil
	}
	e := *ev
	e.Event = audit.KindSecretAnswered
	switch {
	case err != nil:
		e.Decision, e.Reason = audit.DeclinedByHuman, fmt.Sprintf("no answer in the console (pid %d) in time", pid)
		hu.record(e)
		return true, fmt.Errorf("refused: the human did not type the secret in the console within %s; nothing was typed", timeout)
	case a.Refused != "":
		// This server is not one the console trusts (it runs inside a
		// session): the one-time page asks instead.
		e.Decision, e.Reason = audit.Failed, fmt.Sprintf("the console (pid %d) did not show it (%s); asked by a one-time page instead", pid, a.Refused)
		hu.record(e)
		ev.Via = ""
		return false, nil
	case a.Decision != console.Approve:
		e.Decision, e.Reason = audit.DeclinedByHuman, fmt.Sprintf("declined in the console (pid %d)", pid)
		hu.record(e)
		return true, errors.New("refused: the human declined to give the secret in the console; nothing was typed. Do not ask again unless the user wants you to")
	}
	if err := deliver(a.Secret); err != nil {
		return true, fmt.Errorf("refused: the human's secret was not typed: %w", err)
	}
	return true, nil
}
