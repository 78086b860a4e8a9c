package session

import (
	"bytes"
	"context"
	"encoding/hex"
	"errors"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/ttymux/ttymux/session/verdict"
)

// The line that runs is the line the shell's line editor holds at Enter,
// not the text a send typed: keys edit it (send "echo touch F" without
// Enter, then ctrl+a alt+d enter ran "touch F" while the checks saw an
// echo), recall it from history (up) or complete it (tab). So a send that
// submits a line at a hooked shell's prompt after such keys, or after text
// typed without Enter, is typed in two parts: everything before the Enter,
// then (once the shell reports the line it holds: ttymux's key ESC[9901~
// makes the hook print an L mark with it, shellinit) the Enter, if the
// checks let that line run. When the shell does not report the line the
// send is held: what would run cannot be known. A held line is emptied
// from the prompt (ESC[9902~), so a later Enter cannot run it.

const (
	// lineQueryKey and lineKillKey are the keys the hook binds (shellinit).
	lineQueryKey = "\x1b[9901~"
	lineKillKey  = "\x1b[9902~"
	// editorLineWait bounds the wait for the shell's L mark.
	editorLineWait = 3 * time.Second
)

// submitKeys are the keys that submit a line (ctrl+o: bash's
// operate-and-get-next).
var submitKeys = map[string]bool{"enter": true, "return": true, "ctrl+m": true, "ctrl+j": true, "ctrl+o": true}

// splitEditedSubmit returns the part of req typed before its Enter and the
// Enter (with the keys after it) when req submits a line at a shell's
// prompt whose content the text alone does not tell: keys other than Enter
// come before the Enter, or earlier sends typed text without Enter. ok is
// false otherwise (the gate has judged the text). unknown says why when the
// terminal is at a shell prompt whose line cannot be read: no ttymux hook
// (a shell over SSH without integration, a nested shell, a serial
// console), or a hook that said its shell cannot report the line (BusyBox
// ash, dash and mksh bind no keys to the line query).
func (s *Session) splitEditedSubmit(req SendRequest) (pre, rest SendRequest, ok bool, unknown string) {
	if req.Secret || req.lineChecked || len(req.Bytes) > 0 {
		return pre, rest, false, ""
	}
	at := slices.IndexFunc(req.Keys, func(k string) bool { return submitKeys[normKey(k)] })
	if at < 0 && !(req.Enter && req.Text != "" && len(req.Keys) == 0) {
		return pre, rest, false, "" // nothing submitted, or keys after the Enter: no line yet
	}
	// Another send may hold sendMu while it waits for its command: do not
	// wait for it here (Send's own check of the pending text still runs).
	pending := false
	if s.sendMu.TryLock() {
		pending = s.pending != ""
		s.sendMu.Unlock()
	}
	pre, rest = req, req
	switch {
	case at >= 0 && (pending || at > 0 || req.Text != "" && !req.Enter):
		pre.Keys, pre.Wait = slices.Clone(req.Keys[:at]), false
		rest.Text, rest.Enter, rest.Mark, rest.Keys = "", false, false, slices.Clone(req.Keys[at:])
	case at < 0 && pending:
		// Text and Enter after earlier text typed without Enter: the gate
		// saw the two joined, but keys in between may have changed it.
		pre.Enter, pre.Wait, pre.Mark = false, false, false
		rest.Text, rest.Enter, rest.Keys = "", false, []string{"enter"}
	default:
		return pre, rest, false, ""
	}
	rest.lineChecked = true
	hooked, noLine := s.atHookedPrompt()
	if !hooked {
		// A shell whose line editor holds the line: one at a prompt the
		// output shows, or a nested shell (its name) editing with echo off.
		st := s.classify()
		if nested := st.FGOK && st.EchoOff && shellKind(st.FG.Name) != ""; st.State == "prompt" || nested {
			return pre, rest, false, "no ttymux hook in this shell"
		}
		return pre, rest, false, ""
	}
	if noLine {
		// Asking would only wait out editorLineWait, with the keys typed.
		return pre, rest, false, "this shell cannot report the line its editor holds: bash, zsh and fish can"
	}
	return pre, rest, true, ""
}

func normKey(k string) string {
	k = strings.ToLower(strings.TrimSpace(k))
	k = strings.ReplaceAll(k, "-", "+")
	return strings.TrimSuffix(strings.TrimPrefix(k, "<"), ">")
}

// atHookedPrompt reports whether the session's own hooked shell is at its
// prompt (the last mark is not C), and whether its hook said it cannot
// report the line.
func (s *Session) atHookedPrompt() (at, noLine bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.shell || !s.ready || !s.det.Hooked() || s.exited || s.closed {
		return false, false
	}
	last, ok := s.det.Last()
	return ok && last.Kind != verdict.MarkCommand, s.det.NoLine()
}

// editorLine asks the hooked shell for the line its editor holds and waits
// (bounded) for the answer.
func (s *Session) editorLine(ctx context.Context) (string, error) {
	s.mu.Lock()
	from := s.ring.End()
	tag := []byte(";ttymux=" + s.det.Nonce() + "\a")
	s.mu.Unlock()
	if err := s.write([]byte(lineQueryKey)); err != nil {
		return "", err
	}
	t := time.NewTimer(editorLineWait)
	defer t.Stop()
	for {
		s.mu.Lock()
		b, _ := s.ring.AppendRange(nil, max(from, s.ring.Start()), s.ring.End())
		ch := s.changedLocked()
		s.mu.Unlock()
		if line, ok := findLineMark(b, tag); ok {
			return line, nil
		}
		select {
		case <-ch:
		case <-t.C:
			return "", errors.New("the shell did not report the line it holds")
		case <-ctx.Done():
			return "", ctx.Err()
		}
	}
}

// findLineMark finds the hook's L mark (ESC ] 133 ; L ; HEX tag) in b.
func findLineMark(b, tag []byte) (string, bool) {
	const start = "\x1b]133;L;"
	for i := 0; ; {
		j := bytes.Index(b[i:], []byte(start))
		if j < 0 {
			return "", false
		}
		rest := b[i+j+len(start):]
		if k := bytes.Index(rest, tag); k >= 0 {
			if line, ok := decodeLine(string(rest[:k])); ok {
				return line, true
			}
		}
		i += j + 1
	}
}

// decodeLine decodes an L mark's line: its bytes in hex (bash), "u" and
// code points in hex, each followed by a dot (zsh), or "x" and its bytes
// URL-escaped (fish's string escape --style=url).
func decodeLine(p string) (string, bool) {
	if esc, ok := strings.CutPrefix(p, "x"); ok {
		l, err := url.PathUnescape(esc)
		return l, err == nil
	}
	cps, ok := strings.CutPrefix(p, "u")
	if !ok {
		b, err := hex.DecodeString(p)
		return string(b), err == nil
	}
	var b strings.Builder
	for _, h := range strings.Split(strings.TrimSuffix(cps, "."), ".") {
		if h == "" {
			continue
		}
		r, err := strconv.ParseUint(h, 16, 32)
		if err != nil {
			return "", false
		}
		b.WriteRune(rune(r))
	}
	return b.String(), true
}

// sendEdited types pre, checks the line the shell then holds, and types
// rest (the Enter) when the checks let it run; else it empties the line and
// returns why it is held.
func (s *Session) sendEdited(ctx context.Context, pre, rest SendRequest) (Result, error) {
	if len(pre.Keys) > 0 || pre.Text != "" {
		if _, err := s.Send(ctx, pre); err != nil {
			return Result{}, err
		}
	}
	line, err := s.editorLine(ctx)
	if err != nil {
		s.killLine()
		return Result{}, s.unknownLine(err.Error() + "; the line was cleared")
	}
	if err := s.gate(ctx, line, false); err != nil {
		s.killLine()
		var ge *GateError
		if errors.As(err, &ge) {
			ge.Reason += "; this is the line the keys left at the prompt, and it was cleared: send it as text to run it"
		}
		return Result{}, err
	}
	return s.Send(ctx, rest)
}

// unknownLine refuses an Enter whose line cannot be read: nobody can
// approve a line nobody can see. At a prompt without the hook nothing of
// the send was typed; when the hook did not answer, the line was cleared.
func (s *Session) unknownLine(why string) *GateError {
	return &GateError{
		Rule: "unknown line", Session: s.id, Host: s.PolicyHost(), Denied: true,
		Line:   "the line at the shell's prompt after these keys",
		Reason: "it cannot be read (" + why + "), so Enter was not pressed; send the whole command as text, with enter",
	}
}

// killLine empties the hooked shell's line and forgets the pending text.
func (s *Session) killLine() {
	s.sendMu.Lock()
	defer s.sendMu.Unlock()
	_ = s.write([]byte(lineKillKey)) // best effort: the Enter is not typed either way
	s.pending = ""
}
