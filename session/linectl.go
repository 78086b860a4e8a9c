package session

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// A lineControl is a key that is not bytes: a serial BREAK or a change of a
// modem control line (DTR, RTS), used to reset boards or drop them into
// their bootloader.
type lineControl struct {
	op   string // "break", "on", "off", "pulse"
	line transport.ModemLine
}

// pulseFor is how long a pulse or BREAK lasts.
const pulseFor = 250 * time.Millisecond

// parseLineControl recognises "break", "dtr:on", "dtr:off", "dtr:pulse" and
// the same for rts. ok is false for ordinary keys.
func parseLineControl(key string) (lc lineControl, ok bool, err error) {
	k := strings.ToLower(strings.TrimSpace(key))
	if k == "break" {
		return lineControl{op: "break"}, true, nil
	}
	line, op, found := strings.Cut(k, ":")
	if !found || (line != "dtr" && line != "rts") {
		return lineControl{}, false, nil
	}
	switch op {
	case "on", "off", "pulse":
		return lineControl{op: op, line: transport.ModemLine(line)}, true, nil
	}
	return lineControl{}, true, fmt.Errorf("unknown %s action %q: use %s:on, %s:off or %s:pulse", line, op, line, line, line)
}

// doLineControl performs lc and returns a short note of what was done.
func (s *Session) doLineControl(ctx context.Context, lc lineControl) (string, error) {
	if lc.op == "break" {
		br, ok := s.conn.(transport.Breaker)
		if !ok {
			return "", fmt.Errorf("session %s (%s) has no serial line: break only applies to serial consoles; for a shell send keys [\"ctrl+c\"]", s.id, s.transport)
		}
		if err := br.Break(ctx, pulseFor); err != nil {
			return "", fmt.Errorf("send BREAK on session %s: %w", s.id, err)
		}
		return "sent BREAK", nil
	}
	mc, ok := s.conn.(transport.ModemController)
	if !ok {
		return "", fmt.Errorf("session %s (%s) has no modem control lines: %s applies to serial consoles only", s.id, s.transport, strings.ToUpper(string(lc.line)))
	}
	name := strings.ToUpper(string(lc.line))
	set := func(on bool) error {
		if err := mc.SetModemLine(lc.line, on); err != nil {
			if errors.Is(err, transport.ErrUnsupported) {
				return fmt.Errorf("%s not changed: %w", name, err)
			}
			return fmt.Errorf("set %s on session %s: %w", name, s.id, err)
		}
		return nil
	}
	switch lc.op {
	case "on", "off":
		if err := set(lc.op == "on"); err != nil {
			return "", err
		}
		return name + " " + lc.op, nil
	}
	// A pulse asserts the line briefly, as auto-reset circuits expect.
	if err := set(true); err != nil {
		return "", err
	}
	t := time.NewTimer(pulseFor)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
	if err := set(false); err != nil {
		return "", err
	}
	return name + " pulsed for " + pulseFor.String(), nil
}
