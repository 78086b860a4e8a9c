package console

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"os"
	"strconv"
	"time"

	"github.com/ttymux/ttymux/internal/audit"
	"github.com/ttymux/ttymux/internal/visible"
)

// The audit log's tail, one tab of the console: the last records of the
// current file, newest last, updating as servers append. Every text a model
// may have written is made visible (internal/visible), as ttymux audit
// shows it; the log holds no secret (secrets are written as ********).

// auditTail is how much of the log's end the tab reads, and at most how
// many records it shows.
const (
	auditTailBytes = 256 << 10
	auditTailMax   = 200
)

// AuditRow is one record as the page shows it.
type AuditRow struct {
	Seq      int64  `json:"seq,omitempty"`
	Time     string `json:"time"`
	Event    string `json:"event"`
	Session  string `json:"session,omitempty"`
	Host     string `json:"host,omitempty"`
	Command  string `json:"command,omitempty"`
	Decision string `json:"decision,omitempty"`
	Via      string `json:"via,omitempty"` // where the human was asked
	Reason   string `json:"reason,omitempty"`
	ExitCode *int   `json:"exit_code,omitempty"`
	Bad      string `json:"bad,omitempty"` // a line that is not a record, made visible
}

func (s *Server) registerAudit(mux *http.ServeMux) {
	mux.HandleFunc("GET /audit", s.page("audit.html"))
	mux.HandleFunc("GET /api/audit", func(w http.ResponseWriter, r *http.Request) {
		rows, err := tailAudit(s.audit)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		writeJSON(w, rows)
	})
	mux.HandleFunc("GET /api/audit/events", s.auditEvents)
}

// tailAudit reads the last records of the log at path ("" or missing: none).
func tailAudit(path string) ([]AuditRow, error) {
	rows := []AuditRow{}
	if path == "" {
		return rows, nil
	}
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return rows, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, err
	}
	off := max(st.Size()-auditTailBytes, 0)
	b, err := io.ReadAll(io.NewSectionReader(f, off, st.Size()-off))
	if err != nil {
		return nil, err
	}
	if off > 0 { // the first line is cut: skip it
		if i := bytes.IndexByte(b, '\n'); i >= 0 {
			b = b[i+1:]
		}
	}
	for line := range bytes.Lines(b) {
		line = bytes.TrimRight(line, "\n")
		if len(line) == 0 {
			continue
		}
		var e audit.Event
		if err := json.Unmarshal(line, &e); err != nil {
			rows = append(rows, AuditRow{Bad: visible.String(string(line))})
			continue
		}
		rows = append(rows, AuditRow{
			Seq: e.Seq, Time: e.Time.UTC().Format(time.RFC3339), Event: visible.String(string(e.Event)),
			Session: visible.String(e.Session), Host: visible.String(e.Host), Command: visible.String(e.Command),
			Decision: visible.String(string(e.Decision)), Via: visible.String(string(e.Via)), Reason: visible.String(e.Reason), ExitCode: e.ExitCode,
		})
	}
	if len(rows) > auditTailMax {
		rows = rows[len(rows)-auditTailMax:]
	}
	return rows, nil
}

// auditEvents streams the tail whenever the log changes (polled: servers
// in other processes append to it).
func (s *Server) auditEvents(w http.ResponseWriter, r *http.Request) {
	send, ok := sse(w)
	if !ok {
		return
	}
	t := time.NewTicker(s.poll)
	defer t.Stop()
	last := "-"
	for {
		stamp := ""
		if st, err := os.Stat(s.audit); err == nil {
			stamp = strconv.FormatInt(st.Size(), 10) + "/" + strconv.FormatInt(st.ModTime().UnixNano(), 10)
		}
		if stamp != last {
			last = stamp
			rows, err := tailAudit(s.audit)
			var b []byte
			if err != nil {
				b, _ = json.Marshal(map[string]string{"error": err.Error()})
			} else {
				b, _ = json.Marshal(rows)
			}
			if send("audit", string(b)) != nil {
				return
			}
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}
