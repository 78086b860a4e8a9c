package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ttymux/ttymux/internal/ring"
	"github.com/ttymux/ttymux/session/reduce"
)

// Timestamp formats for ReadRequest.Timestamps.
const (
	// StampRelative prefixes a line with the seconds since the session
	// started, to the millisecond, as dmesg does: "[  12.345] ".
	StampRelative = "relative"
	// StampISO prefixes a line with the UTC time it arrived:
	// "[2026-11-24T05:14:11.123Z] ".
	StampISO = "iso"
)

// ParseTimestamps turns read's timestamps parameter into a format: "" (or
// "false") for none, "true" or "relative" for StampRelative, "iso" for
// StampISO.
func ParseTimestamps(v string) (string, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "false":
		return "", nil
	case "true", StampRelative:
		return StampRelative, nil
	case StampISO:
		return StampISO, nil
	}
	return "", fmt.Errorf("timestamps %q is not one of true (seconds since the session started), \"iso\" (UTC time) or false", v)
}

// readExtra serves the read modes and options kept out of Read's main
// path: mode hex (hexread.go) and timestamps.
func (s *Session) readExtra(ctx context.Context, req ReadRequest) (Result, error) {
	stamps, err := ParseTimestamps(req.Timestamps)
	if err != nil {
		return Result{}, err
	}
	if req.Mode == "hex" {
		return s.readHex(ctx, req, stamps, s.now())
	}
	req.Timestamps = ""
	switch {
	case stamps == "":
		return s.Read(ctx, req)
	case req.Raw:
		return Result{}, errors.New("timestamps prefix rendered lines: leave raw out, or use mode hex, whose rows are stamped too")
	case req.Mode != "" && req.Mode != "new" && req.Mode != "range":
		return Result{}, fmt.Errorf("timestamps apply to modes new and range (lines of output), not %s", req.Mode)
	}
	r, err := s.Read(ctx, req)
	if err != nil {
		return r, err
	}
	if r.Mode != "new" && r.Mode != "range" {
		r.Note = joinNote(r.Note, "no timestamps: a full-screen program's screen has no lines in arrival order")
		return r, nil
	}
	s.stampResult(&r, stamps, req)
	return r, nil
}

// stampResult renders r's log range [Offset, NextOffset) again with each
// line prefixed by the time its first byte arrived, reduced as fill
// reduces output (folds keep head and tail; repeated lines are not
// collapsed, since their times differ).
func (s *Session) stampResult(r *Result, format string, req ReadRequest) {
	s.mu.Lock()
	from := max(r.Offset, s.ring.Start())
	to := r.NextOffset
	if from >= to {
		s.mu.Unlock()
		return
	}
	b, _ := s.ring.AppendRange(nil, from, to)
	first := s.lines.LineAt(from)
	// starts[k] is where raw line k of b begins; the first may begin
	// before from, in which case its start is looked up.
	starts := []int64{from}
	if ls, err := s.lines.LineStart(first); err == nil && ls >= s.ring.Start() {
		starts[0] = ls
	}
	offs, ns := s.times.Stamps(starts[0], to)
	secrets := s.secrets
	s.mu.Unlock()
	// Rendering takes time: not under the lock the reader needs.
	for i, c := range b {
		if c == '\n' {
			starts = append(starts, from+int64(i)+1)
		}
	}
	lines, nums := reduce.RenderNumbered(b)
	stamped := make([]string, len(lines))
	for i, l := range lines {
		k := int(nums[i])
		if k >= len(starts) {
			k = len(starts) - 1
		}
		t, ok := ring.Lookup(offs, ns, starts[k])
		stamped[i] = s.stamp(t, ok, format) + l
	}
	for len(stamped) > 0 && strings.TrimSpace(lines[len(stamped)-1]) == "" {
		stamped = stamped[:len(stamped)-1]
	}
	if r.Mode == "range" {
		if n := int(r.LastLine - r.FirstLine + 1); n > 0 && len(stamped) > n {
			stamped = stamped[:n]
		}
		r.Output = redact(strings.Join(stamped, "\n"), secrets)
		return
	}
	id := s.id
	stampArg := `true`
	if format == StampISO {
		stampArg = `"iso"`
	}
	red := reduce.Reduce(stamped, reduce.Options{
		DigitRun:    -1,
		FirstLine:   first,
		LineNumbers: nums,
		ReadHint: func(a, z int64) string {
			return fmt.Sprintf(`read {"session_id":%q,"mode":"range","from_line":%d,"to_line":%d,"timestamps":%s}`, id, a, z, stampArg)
		},
	})
	r.Output = redact(red.Text, secrets)
	r.Reduction = nil
	r.FirstLine, r.LastLine = 0, 0
	if len(stamped) > 0 {
		r.FirstLine, r.LastLine = first, first+nums[len(stamped)-1]
	}
	if red.Elided > 0 || red.Collapsed > 0 || red.Cut > 0 {
		r.Reduction = &Reduction{
			RawBytes: len(b), RawLines: red.RawLines, Lines: len(red.Lines), Bytes: len(red.Text),
			Elided: red.Elided, Collapsed: red.Collapsed, Cut: red.Cut, Notes: red.Notes,
		}
	}
}

// stamp formats one arrival time as a line prefix.
func (s *Session) stamp(t time.Time, ok bool, format string) string {
	switch {
	case !ok && format == StampISO:
		return "[" + strings.Repeat(" ", 23) + "?] "
	case !ok:
		return "[       ?] "
	case format == StampISO:
		return "[" + t.UTC().Format("2006-01-02T15:04:05.000Z07:00") + "] "
	}
	return fmt.Sprintf("[%8.3f] ", t.Sub(s.created).Seconds())
}
