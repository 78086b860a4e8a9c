package session

import (
	"cmp"
	"log/slog"
	"path/filepath"

	"github.com/ttymux/ttymux/session/asciicast"
)

// A session's recording is an asciicast file (package asciicast writes
// it): the Manager starts or resumes it, the pump feeds it output, Send
// feeds it typed input, and a kept session stores its progress with the
// agent (persist.go) so a restarted server resumes it exactly.

// noteRecording tells the model, once, in a result that the session's
// recording stopped.
func (s *Session) noteRecording(r *Result) {
	if n := s.rec.TakeNote(); n != "" {
		r.Note = joinNote(r.Note, n)
	}
}

// persistRecording stores how far the recording goes with the agent, so a
// restarted server resumes it exactly; called by the recorder's writer.
func (s *Session) persistRecording() {
	s.mu.Lock()
	closed := s.closed
	s.mu.Unlock()
	if !closed {
		s.persist()
	}
}

// openRecording starts the recording an open asked for, for the session
// cfg describes, whose far end runs o.Target.
func (m *Manager) openRecording(cfg sessionConfig, req OpenRequest, k Kind, o *Opening) (*asciicast.Recorder, error) {
	t := o.Target
	env := map[string]string{}
	if k.RecordEnv != nil {
		env = k.RecordEnv(o)
	}
	r, err := asciicast.Create(asciicast.Options{
		Path: req.RecordPath, Dir: filepath.Join(m.opts.StateDir, "recordings"), ID: cfg.id,
		Rows: t.Size.Rows, Cols: t.Size.Cols, Env: env, Title: cmp.Or(req.Name, cfg.command),
		Log: cfg.log, Clock: m.now,
	})
	if err != nil {
		return nil, err
	}
	for _, sec := range k.secrets(t) {
		r.AddSecret(sec)
	}
	return r, nil
}

// resumeRecording continues the recording of a kept session an earlier
// server recorded (md), from the replay that starts at output offset from.
func (m *Manager) resumeRecording(md meta, from int64, log *slog.Logger) *asciicast.Recorder {
	switch {
	case md.RecPath == "":
		return nil
	case md.RecNote != "":
		return asciicast.Stopped(md.RecPath, md.RecNote)
	}
	return asciicast.Resume(asciicast.Options{Path: md.RecPath, Log: log, Clock: m.now}, md.RecOff, md.RecSize, from)
}
