package main

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/secretpage"
	"github.com/ttymux/ttymux/session"
	"github.com/ttymux/ttymux/transport/sshconn"
)

// Secrets from the human (DESIGN.md, "A human in the loop"): the model asks
// for a password by what to ask, not by knowing it. ttymux opens a one-time
// page on 127.0.0.1 (internal/secretpage) and offers it to the human by
// URL elicitation; what the human posts goes straight into the terminal
// (then Enter) or the SSH handshake. It never reaches a result, a log, a
// recording, the audit log, an error or a process's environment or argv.
// A client without URL elicitation gets the URL in the result's note for
// the model to pass on, and a repeat of the same call waits for the page.

// askSecretTimeout is how long a send {ask_secret} waits for the human when
// timeout_ms is not given: people need longer than commands.
const askSecretTimeout = 2 * time.Minute

// secretTargetWait is how long ask_secret waits for the terminal to reach
// its password prompt (the command asking for it was just typed) before it
// refuses.
const secretTargetWait = 3 * time.Second

// secretAsk is a page still waiting for the human, by "session:ID" or
// "ssh:HOST".
type secretAsk struct {
	page  *secretpage.Page
	state string // the request state of a multi round-trip question
}

// secretState is what the human struct keeps for secrets (approve.go).
type secretState struct {
	mu    sync.Mutex // mu protects asks and boxes
	asks  map[string]*secretAsk
	boxes map[string]*secretBox // open_ssh secrets delivered, not yet taken
	pages *secretpage.Server
	// targetWait is how long ask_secret waits for the terminal to reach a
	// password prompt (secretTargetWait unless a test says).
	targetWait time.Duration
}

// openAsk returns the page still open for key, or opens a new one.
func (hu *human) openAsk(key, prompt, asked string, deliver func(string) error) (a *secretAsk, fresh bool, err error) {
	hu.sec.mu.Lock()
	defer hu.sec.mu.Unlock()
	if a := hu.sec.asks[key]; a != nil && hu.now().Before(a.page.Deadline()) {
		// The same question again: wait for (or take) that page's answer.
		return a, false, nil
	}
	p, err := hu.sec.pages.OpenAsked(prompt, asked, deliver)
	if err != nil {
		return nil, false, err
	}
	a = &secretAsk{page: p, state: newID()}
	hu.sec.asks[key] = a
	return a, true, nil
}

// asking reports whether a page for key is still open.
func (hu *human) asking(key string) bool {
	hu.sec.mu.Lock()
	defer hu.sec.mu.Unlock()
	a := hu.sec.asks[key]
	return a != nil && hu.now().Before(a.page.Deadline())
}

func (hu *human) dropAsk(key string, a *secretAsk) {
	a.page.Close()
	hu.sec.mu.Lock()
	if hu.sec.asks[key] == a {
		delete(hu.sec.asks, key)
	}
	hu.sec.mu.Unlock()
}

// secretOutcome is how asking the human for a secret went.
type secretOutcome struct {
	answered bool                // the page was posted and delivered
	result   *mcp.CallToolResult // an input-required result to return as is
	note     string              // for a client without URL elicitation: where the human must go
	err      error
}

// offer puts the page before the human and waits for it (bounded by
// timeout): by URL elicitation when the client can, during the call
// (2025-06-18) or through an input-required result (2026-07-28); else the
// note carries the URL, and a repeat of the call (fresh false) waits.
func (hu *human) offer(ctx context.Context, req *mcp.CallToolRequest, key string, a *secretAsk, fresh bool, timeout time.Duration, ev audit.Event) secretOutcome {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	message := "ttymux: " + a.page.Prompt
	if a.page.Asked != "" {
		message += "\n\nThe AI's words: \"" + a.page.Asked + "\""
	}
	message += "\n\nOpen the page to type it: it goes straight into the terminal (or the SSH login), and the AI never sees it."
	if elicitURL(req) {
		params := &mcp.ElicitParams{Mode: "url", Message: message, URL: a.page.URL, ElicitationID: a.state}
		var res *mcp.ElicitResult
		switch {
		case multiRoundTrip(req) && req.Params.RequestState == a.state:
			res, _ = req.Params.InputResponses["secret"].(*mcp.ElicitResult)
		case multiRoundTrip(req):
			return secretOutcome{result: &mcp.CallToolResult{InputRequests: mcp.InputRequestMap{"secret": params}, RequestState: a.state}}
		default:
			var err error
			res, err = req.Session.Elicit(ctx, params)
			if err != nil {
				hu.dropAsk(key, a)
				return secretOutcome{err: fmt.Errorf("asking the human for the secret failed (%v); nothing was typed", err)}
			}
		}
		if res == nil || res.Action != "accept" {
			hu.dropAsk(key, a)
			ev.Event, ev.Decision = audit.KindSecretAnswered, audit.DeclinedByHuman
			hu.record(ev)
			return secretOutcome{err: errors.New("refused: the human declined to give the secret; nothing was typed. Do not ask again unless the user wants you to")}
		}
	} else if fresh {
		return secretOutcome{note: fmt.Sprintf("A human must type this secret: ask the user to open %s in a browser on this machine and type it there (the page works once, until %s). It goes straight into the terminal, followed by Enter; you never see it. Repeat this call to wait for it, or read {wait: true} later.", a.page.URL, a.page.Deadline().Format("15:04:05"))}
	}
	if err := a.page.Wait(ctx); err != nil {
		if ctx.Err() == nil && !errors.Is(err, secretpage.ErrExpired) {
			// Posted, and the terminal did not take it (the gate held it,
			// or the session ended): deliver recorded why.
			hu.dropAsk(key, a)
			return secretOutcome{err: fmt.Errorf("refused: the human's secret was not typed: %v", err)}
		}
		if elicitURL(req) || errors.Is(err, secretpage.ErrExpired) {
			hu.dropAsk(key, a)
			ev.Event, ev.Decision, ev.Reason = audit.KindSecretAnswered, audit.DeclinedByHuman, "no answer in time"
			hu.record(ev)
			return secretOutcome{err: fmt.Errorf("refused: the human did not type the secret within %s; nothing was typed", timeout)}
		}
		return secretOutcome{note: fmt.Sprintf("The human has not typed the secret yet: the page %s stays open until %s. Repeat this call to wait again.", a.page.URL, a.page.Deadline().Format("15:04:05"))}
	}
	hu.dropAsk(key, a)
	return secretOutcome{answered: true}
}

// sendAskSecret is send {ask_secret}: the human's secret is typed into the
// session, followed by Enter, and the call returns what the terminal does
// next, like any send.
func (h *handlers) sendAskSecret(ctx context.Context, req *mcp.CallToolRequest, in SendIn, s *session.Session, sreq session.SendRequest) (*mcp.CallToolResult, session.Result, error) {
	if in.Text != "" || len(in.Keys) > 0 || in.Integrate || in.Mark || in.Secret {
		return nil, session.Result{}, errors.New("ask_secret goes alone: send {session_id, ask_secret} at the password prompt, then your next command in another send")
	}
	if len(in.AskSecret) > 500 {
		return nil, session.Result{}, errors.New("ask_secret is what to ask the human, in a sentence (at most 500 bytes)")
	}
	timeout := sreq.Timeout
	if timeout <= 0 {
		timeout = askSecretTimeout
	}
	if timeout > session.MaxTimeout {
		return nil, session.Result{}, fmt.Errorf("timeout_ms is over the %d ms maximum", session.MaxTimeout.Milliseconds())
	}
	id := s.Info().ID
	key := "session:" + id + ":" + in.AskSecret
	// Only a password prompt gets the human's secret: typed where the
	// terminal echoes (base64 -w0, cat, the shell's prompt) it would come
	// back to the model in the output. A repeat of a call whose page is
	// still open waits for that page (deliver looks again).
	if !h.hu.asking(key) {
		if err := s.SecretTarget(ctx, h.hu.sec.targetWait); err != nil {
			return nil, session.Result{}, err
		}
	}
	ev := audit.Event{Event: audit.KindSecretAsked, Session: id, Host: s.PolicyHost(), Command: audit.Redacted, Reason: in.AskSecret}
	deliver := func(secret string) error {
		// A secret is not a command, but it is typed into a terminal like
		// one: it passes the gate as secret text (never quoted, redacted
		// from everything), the same way as the model's secret: true. Its
		// author is the human, yet the page's post is no approval of
		// whatever the terminal does with it: a hold is put to the
		// Approver, which has no client to ask here (the page answers
		// outside any tool call), so the policy's no_elicitation answer
		// applies without the model's confirm — it is refused and the page
		// says so. A password that looks like a destructive command, or
		// any text on a read-only host, is the human's to type through
		// ttymux attach.
		tctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		tctx = withCall(tctx, &callInfo{timeout: 30 * time.Second})
		// The terminal may have moved on while the human typed: look again.
		err := s.SecretTarget(tctx, time.Second)
		if err == nil {
			_, err = s.Send(tctx, session.SendRequest{Text: secret, Secret: true, Enter: true, Raw: true})
		}
		e := ev
		e.Event, e.Decision = audit.KindSecretAnswered, audit.Typed
		var refused *session.SecretRefusedError
		if errors.As(err, &refused) {
			e.Decision, e.Reason = audit.Failed, refused.Why
			h.hu.record(e)
			return fmt.Errorf("session %s no longer waits for a password (%s); nothing was typed", id, refused.Why)
		}
		if err != nil {
			// The human reads this on the page, the model in the result:
			// neither quotes the secret (the gate never does).
			e.Decision, e.Reason = callFrom(tctx).outcome(err)
			h.log.Warn("type the human's secret", "session", id, "err", err)
			err = fmt.Errorf("session %s did not take it (%s); nothing was typed. Type it yourself in the terminal (ttymux attach %s)", id, e.Reason, id)
		}
		h.hu.record(e)
		return err
	}
	prompt := fmt.Sprintf("A secret for session %s on %s, typed there followed by Enter", id, s.PolicyHost())
	if fg := s.Info().Foreground; fg != "" {
		prompt += ", where " + secretpage.Visible(fg) + " waits for it"
	}
	asked := h.hu.now()
	if done, err := h.hu.secretInConsole(ctx, console.Question{Session: id, Host: s.PolicyHost(), Prompt: prompt, Asked: in.AskSecret}, timeout, &ev, deliver); done {
		// Asked in the human's console (consolehold.go), not by a page.
		if err != nil {
			return nil, session.Result{}, err
		}
		rest := max(timeout-h.hu.now().Sub(asked), time.Second)
		r, err := s.Read(ctx, session.ReadRequest{Mode: "new", Wait: true, Timeout: rest, Progress: progressFunc(ctx, req)})
		if err != nil {
			return nil, session.Result{}, err
		}
		r.Note = joinNote("the human typed the secret in the console; it was typed, followed by Enter", r.Note)
		return textResult(summary(r)), forModel(r, in.Detail), nil
	}
	a, fresh, err := h.hu.openAsk(key, prompt, in.AskSecret, deliver)
	if err != nil {
		return nil, session.Result{}, err
	}
	if fresh {
		h.hu.record(ev)
	}
	start := h.hu.now()
	o := h.hu.offer(ctx, req, key, a, fresh, timeout, ev)
	switch {
	case o.result != nil:
		return o.result, session.Result{}, nil
	case o.err != nil:
		return nil, session.Result{}, o.err
	case o.note != "":
		r, err := s.Read(ctx, session.ReadRequest{Mode: "new"})
		if err != nil {
			return nil, session.Result{}, err
		}
		r = present(r) // worded before this note goes ahead of it, as it did
		r.Note = joinNote(o.note, r.Note)
		return toolResult(r, in.Detail)
	}
	rest := max(timeout-h.hu.now().Sub(start), time.Second)
	r, err := s.Read(ctx, session.ReadRequest{Mode: "new", Wait: true, Timeout: rest, Progress: progressFunc(ctx, req)})
	if err != nil {
		return nil, session.Result{}, err
	}
	r = present(r) // worded before this note goes ahead of it, as it did
	r.Note = joinNote("the human's secret was typed, followed by Enter", r.Note)
	return toolResult(r, in.Detail)
}

// needsPassword reports whether an SSH login failed for want of a password
// or a key passphrase that was not given.
func needsPassword(err error) bool {
	var ae *sshconn.AuthError
	if !errors.As(err, &ae) {
		return false
	}
	for _, a := range ae.Attempts {
		if a.Result == "no password given" || strings.Contains(a.Result, "pass password") {
			return true
		}
	}
	return false
}

// secretBox holds the SSH secret the page delivered until open_ssh takes
// it; it lives only in memory, for one login.
type secretBox struct {
	mu sync.Mutex
	v  string
}

func (b *secretBox) set(v string) error {
	b.mu.Lock()
	b.v = v
	b.mu.Unlock()
	return nil
}

// sshSecret asks the human for the password or passphrase open_ssh needs.
// It returns the secret, or an input-required result to return as is, or
// a note for the model (no URL elicitation), or why not.
func (h *handlers) sshSecret(ctx context.Context, req *mcp.CallToolRequest, host string) (string, *mcp.CallToolResult, string, error) {
	key := "ssh:" + host
	hu := h.hu
	hu.sec.mu.Lock()
	box := hu.sec.boxes[key]
	if box == nil {
		box = &secretBox{}
		hu.sec.boxes[key] = box
	}
	hu.sec.mu.Unlock()
	ev := audit.Event{Event: audit.KindSecretAsked, Host: host, Command: audit.Redacted, Reason: "SSH password or key passphrase"}
	a, fresh, err := hu.openAsk(key, "Password (or key passphrase) for SSH to "+secretpage.Visible(host), "", box.set)
	if err != nil {
		return "", nil, "", err
	}
	if fresh {
		hu.record(ev)
	}
	o := hu.offer(ctx, req, key, a, fresh, askSecretTimeout, ev)
	switch {
	case o.result != nil:
		return "", o.result, "", nil
	case o.err != nil:
		return "", nil, "", o.err
	case o.note != "":
		return "", nil, o.note, nil
	}
	hu.sec.mu.Lock()
	delete(hu.sec.boxes, key)
	hu.sec.mu.Unlock()
	box.mu.Lock()
	defer box.mu.Unlock()
	e := ev
	e.Event, e.Decision = audit.KindSecretAnswered, audit.Typed
	hu.record(e)
	return box.v, nil, "", nil
}

// openSSHAsking opens an SSH session; when the login needs a password or
// a key passphrase that was not given, it asks the human for it (never the
// model) and tries again with it.
func (h *handlers) openSSHAsking(ctx context.Context, req *mcp.CallToolRequest, oreq session.OpenRequest, confirm bool) (*session.Session, *mcp.CallToolResult, string, error) {
	s, ask, err := h.openWithApproval(ctx, req, oreq, confirm)
	p := oreq.Target.SSH()
	if ask != nil || err == nil || p.Password != "" || !needsPassword(err) {
		return s, ask, "", err
	}
	secret, ask, note, err2 := h.sshSecret(ctx, req, p.Host)
	switch {
	case ask != nil:
		return nil, ask, "", nil
	case note != "":
		return nil, nil, "open_ssh " + p.Host + " needs a password or key passphrase, and none was given. " + note, nil
	case err2 != nil:
		return nil, nil, "", fmt.Errorf("%w; asking the human for the password: %v", err, err2)
	}
	p.Password = secret
	oreq.Target.Spec = p
	s, ask, err = h.openWithApproval(ctx, req, oreq, confirm)
	return s, ask, "", err
}
