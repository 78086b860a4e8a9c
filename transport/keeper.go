package transport

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// A Keeper holds sessions that outlive their client: the ttymux agent, local
// or on a remote host. The session layer reaches kept sessions only through
// this interface.
type Keeper interface {
	// Create starts a session and attaches to it from its first byte. meta is
	// opaque client data kept with the session (see KeptConn.SetMeta).
	Create(ctx context.Context, t Target, meta []byte) (KeptConn, KeptSession, error)
	// Attach connects to a running (or exited, still kept) session and
	// streams its output from offset from; from < 0 means from the oldest
	// byte still held. An unknown id is an error wrapping ErrNoSession.
	Attach(ctx context.Context, id string, from int64) (KeptConn, KeptSession, Resume, error)
	// List describes every kept session.
	List(ctx context.Context) ([]KeptSession, error)
	// Kill ends a session: its program is hung up and the keeper forgets it
	// once its exit is recorded.
	Kill(ctx context.Context, id string) error
}

// KeptConn is a Conn to a kept session. Its Read returns the session's output
// in order starting at the attach offset. Close detaches: the session keeps
// running and can be attached again.
type KeptConn interface {
	Conn
	// SetMeta replaces the client metadata the keeper stores with the
	// session (ttymux keeps its read position and integration nonce there,
	// so a restarted server resumes exactly).
	SetMeta(meta []byte) error
}

// KeptSession describes a session a Keeper holds.
type KeptSession struct {
	ID         string
	Command    string
	Pid        int
	Created    time.Time
	Size       Size
	Exited     bool
	ExitStatus int
	ExitSignal Signal
	// Start and End are the output offsets the keeper still holds; StartLine
	// is the 1-based line number of the line holding offset Start.
	Start, End int64
	StartLine  int64
	Clients    int
	Foreground string
	Meta       []byte
	// Confined is the Landlock ABI version the session's program runs
	// under (Target.Confine), 0 for none or a keeper that predates it.
	Confined int
}

// Resume says where an attach's output starts.
type Resume struct {
	From     int64 // offset of the first byte Read will return
	FromLine int64 // 1-based line number of the line holding From
	Lost     int64 // bytes asked for that had already left the keeper's log
}

// ErrNoSession is wrapped by a Keeper's errors for an unknown session id.
var ErrNoSession = errors.New("no such session")

// GapError reports output between offsets From and To that was lost
// before it was read: a KeptConn's Read returns it (with n == 0) when this
// client fell too far behind the keeper, and the next Read continues at To;
// internal/ring's ReadAt returns it for offsets that have left the ring.
type GapError struct {
	From, To int64 // the bytes lost: offsets From up to To
	// End is one past the newest byte the log held, when the log said
	// (a ring's ReadAt); 0 when it did not (a keeper's Gap).
	End int64
}

// Lost returns how many bytes are gone.
func (e *GapError) Lost() int64 { return e.To - e.From }

func (e *GapError) Error() string {
	if e.End == 0 {
		return fmt.Sprintf("output from offset %d to %d was lost (%d bytes)", e.From, e.To, e.Lost())
	}
	return fmt.Sprintf("output from offset %d to %d is gone (ring holds %d..%d): %d bytes lost; continue from offset %d",
		e.From, e.To, e.To, e.End, e.Lost(), e.To)
}
