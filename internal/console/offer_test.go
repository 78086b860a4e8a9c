package console

import (
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport"
)

func TestSplitOfferID(t *testing.T) {
	for _, tt := range []struct {
		name, id, rid string
		pid           int
		ok            bool
	}{
		{"a server's session", "s1@4242", "s1", 4242, true},
		{"a remote agent's", "web1/s3-k9x2@17", "web1/s3-k9x2", 17, true},
		{"the agent's", "s3-k9x2", "", 0, false},
		{"no pid", "s1@", "", 0, false},
		{"no id", "@12", "", 0, false},
		{"not a number", "s1@x1", "", 0, false},
		{"a signed pid", "s1@+12", "", 0, false},
		{"pid 0", "s1@0", "", 0, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			rid, pid, ok := SplitOfferID(tt.id)
			if rid != tt.rid || pid != tt.pid || ok != tt.ok {
				t.Fatalf("SplitOfferID(%q) = %q, %d, %v", tt.id, rid, pid, ok)
			}
		})
	}
}

// scripted is a Source of one session whose output is a script: chunks,
// a gap, more, then the end; it records what a person typed.
type scripted struct {
	mu    sync.Mutex
	typed []byte
}

func (s *scripted) List(context.Context) ([]Session, error) {
	return []Session{{ID: "s1", Name: "one", Transport: "serial", State: "running"}}, nil
}

func (s *scripted) AttachTail(_ context.Context, id string, _ int64) (Stream, Session, error) {
	if id != "s1" {
		return nil, Session{}, transport.ErrNoSession
	}
	return &scriptStream{src: s, steps: []any{"hello ", &transport.GapError{From: 6, To: 100}, "world", io.EOF}}, Session{ID: "s1"}, nil
}

type scriptStream struct {
	src   *scripted
	steps []any
}

func (st *scriptStream) Read(p []byte) (int, error) {
	if len(st.steps) == 0 {
		return 0, io.EOF
	}
	x := st.steps[0]
	st.steps = st.steps[1:]
	switch x := x.(type) {
	case string:
		return copy(p, x), nil
	case error:
		return 0, x
	}
	return 0, nil
}

func (st *scriptStream) Write(p []byte) (int, error) {
	st.src.mu.Lock()
	defer st.src.mu.Unlock()
	st.src.typed = append(st.src.typed, p...)
	return len(p), nil
}

func (st *scriptStream) Resize(context.Context, transport.Size) error {
	return transport.ErrUnsupported // a serial port
}

func (st *scriptStream) Close() error { return nil }

// TestOfferProtocol: through a server's socket the console lists, watches
// (output, a gap, the end come through as they were read) and drives (the
// keys arrive; a serial port's resize is unsupported, not a failure); an
// unknown id is ErrNoSession.
func TestOfferProtocol(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "rt")
	src := &scripted{}
	of, err := ListenOffer(OfferPath(dir, os.Getpid()), OfferOptions{Source: src, Client: func() string { return "c 1" }})
	if err != nil {
		t.Fatal(err)
	}
	defer of.Close()
	v := &Servers{Dir: dir}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	id := "s1@" + strconv.Itoa(os.Getpid())
	l, _ := v.List(ctx)
	if len(l) != 1 || l[0].ID != id || l[0].Server != "ttymux mcp, pid "+strconv.Itoa(os.Getpid())+" (c 1)" {
		t.Fatalf("list = %+v", l)
	}
	st, _, err := v.AttachTail(ctx, id, 10)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	buf := make([]byte, 64)
	for {
		n, err := st.Read(buf)
		if n > 0 {
			got = append(got, string(buf[:n]))
		}
		var gap *transport.GapError
		if errors.As(err, &gap) {
			got = append(got, "gap "+strconv.FormatInt(gap.To, 10))
			continue
		}
		if err != nil {
			if err != io.EOF {
				t.Fatal(err)
			}
			break
		}
	}
	st.Close()
	if want := []string{"hello ", "gap 100", "world"}; !slices.Equal(got, want) {
		t.Fatalf("watched %q, want %q", got, want)
	}
	d, err := v.Drive(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := d.Write([]byte("root\r")); err != nil {
		t.Fatal(err)
	}
	if err := d.Resize(ctx, transport.Size{Rows: 30, Cols: 100}); !errors.Is(err, transport.ErrUnsupported) {
		t.Fatalf("resize: %v, want ErrUnsupported", err)
	}
	d.Close()
	src.mu.Lock()
	typed := string(src.typed)
	src.mu.Unlock()
	if typed != "root\r" {
		t.Fatalf("typed %q", typed)
	}
	if _, _, err := v.AttachTail(ctx, "s9@"+strconv.Itoa(os.Getpid()), 0); !errors.Is(err, transport.ErrNoSession) {
		t.Fatalf("an unknown session: %v", err)
	}
	of.Close()
	if _, err := os.Lstat(OfferPath(dir, os.Getpid())); err == nil {
		t.Fatal("Close left the socket")
	}
}

// BenchmarkOfferList is what ttymux web pays per server each time it
// refreshes a watched list (twice a second): a connection, both peer
// checks, a request and its answer.
func BenchmarkOfferList(b *testing.B) {
	dir := filepath.Join(b.TempDir(), "rt")
	of, err := ListenOffer(OfferPath(dir, os.Getpid()), OfferOptions{Source: &scripted{}})
	if err != nil {
		b.Fatal(err)
	}
	defer of.Close()
	v := &Servers{Dir: dir}
	ctx := context.Background()
	for b.Loop() {
		if l, _ := v.List(ctx); len(l) != 1 {
			b.Fatalf("list = %+v", l)
		}
	}
}
