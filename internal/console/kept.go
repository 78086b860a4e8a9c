package console

import (
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/ttymux/ttymux/transport"
)

// visibleMeta is the part of a kept session's metadata the page may see
// (the rest holds the session's nonce).
type visibleMeta struct {
	Name      string `json:"name"`
	Transport string `json:"transport"`
	Host      string `json:"host"`
}

// KeptRows returns the console's rows for the sessions an agent keeps,
// oldest first.
func KeptRows(ks []transport.KeptSession) []Session {
	ks = slices.Clone(ks)
	slices.SortFunc(ks, func(a, b transport.KeptSession) int { return a.Created.Compare(b.Created) })
	out := make([]Session, 0, len(ks))
	for _, k := range ks {
		out = append(out, KeptRow(k))
	}
	return out
}

// KeptRow returns the console's row for one kept session.
func KeptRow(k transport.KeptSession) Session {
	var m visibleMeta
	json.Unmarshal(k.Meta, &m)
	st := "running"
	switch {
	case k.Exited && k.ExitSignal != "":
		st = "killed (" + string(k.ExitSignal) + ")"
	case k.Exited:
		st = fmt.Sprintf("exited (%d)", k.ExitStatus)
	}
	return Session{
		ID: k.ID, Name: m.Name, Transport: cmpOr(m.Transport, "local"), Host: m.Host,
		Command: k.Command, State: st, Foreground: k.Foreground, Clients: k.Clients,
		Rows: k.Size.Rows, Cols: k.Size.Cols, Created: k.Created.UTC().Format(time.RFC3339),
	}
}
