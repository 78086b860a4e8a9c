package main

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/ttymux/ttymux/session"
)

// The serial bring-up parameters (docs/serial.md): open_serial's pacing
// and modem lines, send's hex and per-send pacing, read's timestamps and
// hex offsets.

// Stamps is read's timestamps parameter: true, false, "iso" (or
// "relative", "true", "false" as strings, which clients that cannot send a
// boolean for a union type send instead).
type Stamps string

// UnmarshalJSON takes a boolean or a string.
func (t *Stamps) UnmarshalJSON(b []byte) error {
	var on bool
	if err := json.Unmarshal(b, &on); err == nil {
		*t = ""
		if on {
			*t = Stamps(session.StampRelative)
		}
		return nil
	}
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return fmt.Errorf("timestamps must be true, false or \"iso\"")
	}
	*t = Stamps(s)
	return nil
}

// readSchema is read's input schema: timestamps takes a boolean or a
// string.
func readSchema(in *jsonschema.Schema) {
	if p := in.Properties["timestamps"]; p != nil {
		// One type for every client (schema.go); readStamps still takes
		// the booleans earlier versions documented.
		p.Type, p.Types = "string", nil
	}
}

// sendSchema is send's input schema. The per-send delays are optional
// integers: a ["null","integer"] union cannot be filled by every client
// (the MCP Inspector CLI), and null means nothing a missing value does
// not.
func sendSchema(in *jsonschema.Schema) {
	for _, k := range []string{"char_delay_ms", "line_delay_ms"} {
		if p := in.Properties[k]; p != nil {
			p.Type, p.Types = "integer", nil
		}
	}
}

// pacing checks delays given in milliseconds.
func pacing(charMS, lineMS int) (session.Pacing, error) {
	p := session.Pacing{Char: time.Duration(charMS) * time.Millisecond, Line: time.Duration(lineMS) * time.Millisecond}
	return p, p.Validate()
}

// serialOpenOptions checks open_serial's pacing and modem-line choices. A
// persistent console is held by the agent, which opens ports with both
// lines on: asking for off or keep opens the port in this server instead,
// and the note says so.
func serialOpenOptions(in *OpenSerialIn) (session.Pacing, string, error) {
	p, err := pacing(in.CharDelayMS, in.LineDelayMS)
	if err != nil {
		return p, "", err
	}
	for _, l := range []struct{ name, v string }{{"dtr", in.DTR}, {"rts", in.RTS}} {
		switch strings.ToLower(strings.TrimSpace(l.v)) {
		case "", "on", "off", "keep":
		default:
			return p, "", fmt.Errorf("%s %q is not allowed: use on (default), off or keep", l.name, l.v)
		}
	}
	on := func(v string) bool { v = strings.ToLower(strings.TrimSpace(v)); return v == "" || v == "on" }
	if in.Persistent && (!on(in.DTR) || !on(in.RTS)) {
		in.Persistent = false
		return p, "not persistent: the agent opens ports with DTR and RTS on, so with dtr or rts off or keep the port is held by this server", nil
	}
	return p, "", nil
}

// serialSend refuses input to a read-only console and adds send's hex
// bytes and per-send pacing to sreq.
func serialSend(sreq *session.SendRequest, in SendIn, s *session.Session) error {
	if err := s.CheckWritable(); err != nil {
		return err // before ask_secret asks the human for nothing
	}
	if in.Hex != "" {
		b, err := session.ParseHex(in.Hex)
		if err != nil {
			return err
		}
		sreq.Bytes = b
	}
	if in.CharDelayMS != nil || in.LineDelayMS != nil {
		p := s.Pacing()
		if in.CharDelayMS != nil {
			p.Char = time.Duration(*in.CharDelayMS) * time.Millisecond
		}
		if in.LineDelayMS != nil {
			p.Line = time.Duration(*in.LineDelayMS) * time.Millisecond
		}
		if err := p.Validate(); err != nil {
			return err
		}
		sreq.Pacing = &p
	}
	return nil
}
