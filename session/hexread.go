package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"time"
)

// maxHexBytes bounds one hex read: 256 rows of 16 bytes, about 20 KB of
// text for the model.
const maxHexBytes = 4096

// ParseHex decodes bytes given in hex for send {hex}: pairs of hex digits,
// upper or lower case, with spaces, tabs, newlines, colons, dashes and a
// leading 0x on a group allowed between bytes ("de ad be ef",
// "DEADBEEF", "0x1b 0x5b", "de:ad"). Its errors say where the input is
// wrong.
func ParseHex(s string) ([]byte, error) {
	var out []byte
	digits := 0 // hex digits seen in the current group
	var hi byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == ':' || c == '-' || c == ',':
			if digits%2 == 1 {
				return nil, fmt.Errorf("hex: odd number of digits before position %d (%q): each byte is two hex digits, e.g. 0d for CR", i, groupBefore(s, i))
			}
			digits = 0
			continue
		case c == '0' && digits == 0 && i+1 < len(s) && (s[i+1] == 'x' || s[i+1] == 'X'):
			i++ // a 0x prefix on a group
			continue
		}
		v, ok := hexDigit(c)
		if !ok {
			return nil, fmt.Errorf("hex: %q at position %d is not a hex digit (0-9, a-f); give bytes as pairs like \"de ad be ef\"", string(rune(c)), i)
		}
		if digits%2 == 0 {
			hi = v
		} else {
			out = append(out, hi<<4|v)
		}
		digits++
	}
	if digits%2 == 1 {
		return nil, fmt.Errorf("hex: odd number of digits at the end (%q): each byte is two hex digits, e.g. 0d for CR", groupBefore(s, len(s)))
	}
	if len(out) == 0 {
		return nil, errors.New("hex holds no bytes: give pairs of hex digits, e.g. \"1b 5b 41\"")
	}
	return out, nil
}

func hexDigit(c byte) (byte, bool) {
	switch {
	case c >= '0' && c <= '9':
		return c - '0', true
	case c >= 'a' && c <= 'f':
		return c - 'a' + 10, true
	case c >= 'A' && c <= 'F':
		return c - 'A' + 10, true
	}
	return 0, false
}

// groupBefore returns the run of non-separator characters ending at i.
func groupBefore(s string, i int) string {
	j := i
	for j > 0 && !strings.ContainsRune(" \t\n\r:-,", rune(s[j-1])) {
		j--
	}
	return s[j:i]
}

// readHex returns bytes of the log as a hex dump: with from_line (and
// to_line) those lines, with FromOffset the bytes from there, otherwise
// the output not read yet, which it then marks read (with Wait, after
// waiting for some). At most maxHexBytes
// are returned; the note says how to go on.
func (s *Session) readHex(ctx context.Context, req ReadRequest, stamps string, start time.Time) (Result, error) {
	if req.FromOffset < 0 {
		return Result{}, errors.New("from_offset must not be negative")
	}
	if req.FromOffset > 0 && req.FromLine > 0 {
		return Result{}, errors.New("give from_offset or from_line for mode hex, not both")
	}
	if req.Wait && req.FromOffset == 0 && req.FromLine == 0 {
		timeout, err := clampTimeout(req.Timeout)
		if err != nil {
			return Result{}, err
		}
		s.mu.Lock()
		from := s.readOff
		s.mu.Unlock()
		s.waitOutput(ctx, from, timeout)
	}
	s.mu.Lock()
	end := s.ring.End()
	var from, to int64
	unread := false
	switch {
	case req.FromLine > 0:
		total := s.lines.Lines()
		if req.FromLine > total {
			s.mu.Unlock()
			return Result{}, fmt.Errorf("from_line %d is past the end: the session has %d lines so far", req.FromLine, total)
		}
		f, err := s.lines.LineStart(max(req.FromLine, s.lines.FirstLine()))
		if err != nil {
			s.mu.Unlock()
			return Result{}, fmt.Errorf("read lines from %d: %w", req.FromLine, err)
		}
		from, to = f, end
		if req.ToLine >= req.FromLine && req.ToLine < total {
			if o, err := s.lines.LineStart(req.ToLine + 1); err == nil {
				to = o
			}
		}
	case req.FromOffset > 0:
		if req.FromOffset > end {
			s.mu.Unlock()
			return Result{}, fmt.Errorf("from_offset %d is past the end: the session has %d bytes so far", req.FromOffset, end)
		}
		from, to = req.FromOffset, end
	default:
		from, to, unread = s.readOff, end, true
	}
	gone := int64(0)
	if st := s.ring.Start(); from < st {
		gone, from = st-from, st
	}
	more := to - from - maxHexBytes
	if more > 0 {
		to = from + maxHexBytes
	}
	b, _ := s.ring.AppendRange(nil, from, to)
	b = maskSecrets(b, s.secrets)
	var dump strings.Builder
	for i := 0; i < len(b); i += 16 {
		row := b[i:min(i+16, len(b))]
		if stamps != "" {
			t, ok := s.times.At(from + int64(i))
			dump.WriteString(s.stamp(t, ok, stamps))
		}
		hexRow(&dump, from+int64(i), row)
	}
	if unread {
		s.readOff = max(s.readOff, to)
	}
	s.mu.Unlock()
	r := Result{SessionID: s.id, Mode: "hex", Output: strings.TrimSuffix(dump.String(), "\n"), Offset: from, NextOffset: to, Gap: gone}
	if gone > 0 {
		r.Note = fmt.Sprintf("%d bytes before offset %d have left the %d-byte log", gone, from, s.ring.Size())
	}
	switch {
	case more > 0 && unread:
		addHint(&r, Hint{Kind: HintMoreHex, Total: int64(more), From: maxHexBytes, Unread: true})
	case more > 0:
		addHint(&r, Hint{Kind: HintMoreHex, Total: int64(more), SessionID: s.id, To: to})
	case len(b) == 0:
		r.Note = joinNote(r.Note, "no bytes in that range")
	}
	s.finish(&r, start)
	return r, nil
}

// hexRow writes one row of a dump as hexdump -C does: the offset (hex),
// 16 bytes in two groups of 8, and the printable ASCII ('.' for the rest).
func hexRow(w *strings.Builder, off int64, row []byte) {
	fmt.Fprintf(w, "%08x ", off)
	for j := range 16 {
		if j == 8 {
			w.WriteByte(' ')
		}
		if j < len(row) {
			fmt.Fprintf(w, " %02x", row[j])
		} else {
			w.WriteString("   ")
		}
	}
	w.WriteString("  |")
	for _, c := range row {
		if c >= 0x20 && c < 0x7f {
			w.WriteByte(c)
		} else {
			w.WriteByte('.')
		}
	}
	w.WriteString("|\n")
}

// maskSecrets replaces the bytes of every secret typed into the session
// (its echo) with '*', keeping offsets: a hex dump must not show them
// either.
func maskSecrets(b []byte, secrets []string) []byte {
	for _, sec := range secrets {
		if len(sec) < 3 {
			continue
		}
		if bytes.Contains(b, []byte(sec)) {
			b = bytes.ReplaceAll(b, []byte(sec), bytes.Repeat([]byte{'*'}, len(sec)))
		}
	}
	return b
}
