package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/ttymux/ttymux/transport/sshconn"
)

// BenchmarkRemoteFirstDeploy measures a first use of a host: connect over
// SSH, probe, upload the agent (SFTP), verify its checksum, start it and
// reach its socket (a List round trip). Each iteration starts from a host
// with no agent installed or running.
func BenchmarkRemoteFirstDeploy(b *testing.B) {
	e := newRemoteEnv(b, "Subsystem sftp internal-sftp")
	ctx := context.Background()
	for b.Loop() {
		b.StopTimer()
		stopAgent(b, e)
		if err := os.RemoveAll(e.dir); err != nil {
			b.Fatal(err)
		}
		op := &sshconn.Opener{Config: e.opener.Config}
		r := e.remote(b)
		r.Connect = func(ctx context.Context) (SSHLink, error) { return op.Link(ctx, e.target()) }
		b.StartTimer()
		if _, err := r.List(ctx); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = op.Close()
		b.StartTimer()
	}
	b.StopTimer()
	if e.uploads.Load() < int32(b.N) {
		b.Fatalf("%d uploads for %d deploys", e.uploads.Load(), b.N)
	}
}

// BenchmarkRemoteReattach measures what a restarted server does to resume
// a remote session: connect over SSH, find the agent installed and
// running (no upload), attach from the offset it had read, and receive
// the output produced meanwhile.
func BenchmarkRemoteReattach(b *testing.B) {
	e := newRemoteEnv(b, "Subsystem sftp internal-sftp")
	ctx := context.Background()
	kc, ks, err := e.remote(b).Create(ctx, testShell(), nil)
	if err != nil {
		b.Fatal(err)
	}
	p := startPump(b, kc)
	if _, err := kc.Write([]byte("seq 1 2000\n")); err != nil {
		b.Fatal(err)
	}
	p.waitFor(b, "\n2000\r\n")
	off := kc.(*Resilient).Offset()
	uploads := e.uploads.Load()
	for b.Loop() {
		b.StopTimer()
		op := &sshconn.Opener{Config: e.opener.Config}
		r := e.remote(b)
		r.Connect = func(ctx context.Context) (SSHLink, error) { return op.Link(ctx, e.target()) }
		b.StartTimer()
		c, _, res, err := r.Attach(ctx, ks.ID, off-8000)
		if err != nil {
			b.Fatal(err)
		}
		buf := make([]byte, 32<<10)
		for got := res.From; got < off; {
			n, err := c.Read(buf)
			if err != nil {
				b.Fatal(err)
			}
			got += int64(n)
		}
		b.StopTimer()
		_ = c.Close()
		_ = op.Close()
		b.StartTimer()
	}
	if e.uploads.Load() != uploads {
		b.Fatal("a reattach uploaded the agent again")
	}
}

func stopAgent(t testing.TB, e *remoteEnv) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	c := &Client{Socket: filepath.Join(e.socketDir, "agent-v1.sock")}
	_ = c.Stop(ctx, true) // none running is fine
}
