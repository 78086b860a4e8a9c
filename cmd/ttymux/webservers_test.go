package main

import (
	"bytes"
	"context"
	"encoding/binary"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ttymux/ttymux/internal/console"
	"github.com/ttymux/ttymux/internal/testwait"
	"github.com/ttymux/ttymux/session"
)

// offerProbeEnv makes the test binary a client of a server's offer socket
// that tries everything a console may do (list, watch, type) and writes
// what it got to a file: "socket|out|session|mark".
const offerProbeEnv = "TTYMUX_TEST_OFFER_PROBE"

// probeOffer asks the server at sock for its list, to watch id and to
// type "touch mark" into it, one connection each, and returns every byte
// each answered, the three separated by "\n---\n".
func probeOffer(sock, id, mark string) []byte {
	var all [][]byte
	for _, req := range []string{`{"op":"list"}`, `{"op":"watch","id":"` + id + `","tail":65536}`, `{"op":"drive","id":"` + id + `"}`} {
		c, err := net.Dial("unix", sock)
		if err != nil {
			all = append(all, []byte("dial: "+err.Error()))
			continue
		}
		c.Write([]byte(req + "\n"))
		if strings.Contains(req, "drive") {
			keys := []byte("touch " + mark + "\r")
			var h [5]byte
			h[0] = 'i'
			binary.BigEndian.PutUint32(h[1:], uint32(len(keys)))
			c.Write(append(h[:], keys...))
		}
		c.SetReadDeadline(time.Now().Add(5 * time.Second))
		b, _ := io.ReadAll(c)
		c.Close()
		all = append(all, b)
	}
	return append(bytes.Join(all, []byte("\n---\n")), "\n---done\n"...)
}

// runOfferProbe is the test binary as an offer probe (offerProbeEnv).
func runOfferProbe(spec string) int {
	f := strings.Split(spec, "|")
	if len(f) != 4 {
		return 2
	}
	if err := os.WriteFile(f[1], probeOffer(f[0], f[2], f[3]), 0o600); err != nil {
		return 1
	}
	return 0
}

// offerRig is a server (this process) offering its sessions on its
// socket, with a session the model drives.
type offerRig struct {
	dir, sock string
	mcp       *mcp.ClientSession
	target    OpenOut
}

func newOfferRig(t *testing.T) *offerRig {
	t.Helper()
	m := newTestManager(t)
	srv := newServer(m, nil)
	dir := filepath.Join(shortTempDir(t), "ttymux")
	sock := console.OfferPath(dir, os.Getpid())
	src := offerSource{managerSource{m}}
	of, err := console.ListenOffer(sock, console.OfferOptions{Source: src, Attached: src.Attached, Client: func() string { return clientName(srv) }})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { of.Close() })
	r := &offerRig{dir: dir, sock: sock, mcp: connect(t, srv, nil)}
	call(t, r.mcp, "open_local", map[string]any{"name": "target", "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &r.target)
	mustSend(t, r.mcp, map[string]any{"session_id": r.target.ID, "text": "echo secret-$((6*7))"})
	return r
}

// checkProbeRefused: what an untrusted probe got holds no session and no
// output, says why, and the keys it sent typed nothing.
func checkProbeRefused(t *testing.T, r *offerRig, got []byte, mark, why string) {
	t.Helper()
	parts := strings.Split(strings.TrimSuffix(string(got), "\n---done\n"), "\n---\n")
	if len(parts) != 3 {
		t.Fatalf("the probe got %q", got)
	}
	for i, p := range parts {
		if !strings.Contains(p, "not trusted") || !strings.Contains(p, why) {
			t.Errorf("request %d: want a refusal saying %q, got %q", i, why, p)
		}
		for _, leak := range []string{"target", "secret-42", `"sessions"`, `"session"`} {
			if strings.Contains(p, leak) {
				t.Errorf("request %d: an untrusted process got %q: %q", i, leak, p)
			}
		}
	}
	// The keys would have run by now: the model's next command comes after
	// them in the shell's input.
	mustSend(t, r.mcp, map[string]any{"session_id": r.target.ID, "text": "true"})
	if _, err := os.Stat(mark); err == nil {
		t.Fatal("an untrusted process typed into the session")
	}
	var rd session.Result
	call(t, r.mcp, "read", map[string]any{"session_id": r.target.ID}, &rd)
	if strings.Contains(rd.Note, "person typed") {
		t.Fatalf("the model is told a person typed: %+v", rd)
	}
}

// TestOfferUntrusted: a server's sessions go only to the console the human
// started. On the server's offer socket python3 (not ttymux) and the
// ttymux binary started from inside one of the server's sessions (what the
// model could start) each ask to list, to watch and to type (keys that
// Session.HumanWrite would put past the gate): each gets one line saying
// it is not trusted, no session and no output, and nothing is typed. The
// trusted console (this process) lists, and types, through the same
// socket. With CheckPeer removed from Offer.handle both probes list the
// session and type into it.
func TestOfferUntrusted(t *testing.T) {
	r := newOfferRig(t)
	t.Run("python3", func(t *testing.T) {
		py, err := exec.LookPath("python3")
		if err != nil {
			t.Skip("python3 not found")
		}
		mark := filepath.Join(t.TempDir(), "typed")
		out, err := exec.Command(py, "-c", `
import socket, struct, sys
sock, sid, mark = sys.argv[1:4]
res = []
for req in ['{"op":"list"}', '{"op":"watch","id":"%s","tail":65536}' % sid, '{"op":"drive","id":"%s"}' % sid]:
    s = socket.socket(socket.AF_UNIX); s.connect(sock); s.settimeout(5)
    data = b""
    try:
        s.sendall(req.encode() + b"\n")
        if "drive" in req:
            k = ("touch %s\r" % mark).encode()
            s.sendall(b"i" + struct.pack(">I", len(k)) + k)
        while True:
            b = s.recv(65536)
            if not b: break
            data += b
    except Exception as e:
        data += repr(e).encode()
    res.append(data); s.close()
sys.stdout.buffer.write(b"\n---\n".join(res) + b"\n---done\n")
`, r.sock, r.target.ID, mark).Output()
		if err != nil {
			t.Fatalf("python3: %v", err)
		}
		checkProbeRefused(t, r, out, mark, "not this ttymux binary")
	})
	t.Run("inside a session", func(t *testing.T) {
		self, err := os.Executable()
		if err != nil {
			t.Fatal(err)
		}
		var probe OpenOut
		call(t, r.mcp, "open_local", map[string]any{"name": "probe", "env": map[string]string{"PS1": "$ ", "HOME": t.TempDir()}}, &probe)
		mark, got := filepath.Join(t.TempDir(), "typed"), filepath.Join(t.TempDir(), "got")
		line := offerProbeEnv + "='" + strings.Join([]string{r.sock, got, r.target.ID, mark}, "|") + "' " + self
		mustSend(t, r.mcp, map[string]any{"session_id": probe.ID, "text": line, "timeout_ms": 30000})
		var b []byte
		testwait.Until(t, "the probe's report", 30*time.Second, func() bool {
			b, _ = os.ReadFile(got)
			return bytes.HasSuffix(b, []byte("---done\n"))
		})
		checkProbeRefused(t, r, b, mark, "runs inside a session")
	})
	t.Run("the console", func(t *testing.T) {
		v := &console.Servers{Dir: r.dir}
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		var id string
		for _, o := range v.Offers(ctx) {
			for _, s := range o.Sessions {
				if s.Name == "target" {
					id = s.ID
				}
			}
		}
		if id != r.target.ID+"@"+strconv.Itoa(os.Getpid()) {
			t.Fatalf("the trusted console lists %q, want %s@pid", id, r.target.ID)
		}
		st, err := v.Drive(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		defer st.Close()
		mark := filepath.Join(t.TempDir(), "typed")
		if _, err := st.Write([]byte("touch " + mark + "\r")); err != nil {
			t.Fatal(err)
		}
		testwait.Until(t, "the console's keys to run", humanWait, func() bool { _, err := os.Stat(mark); return err == nil })
	})
}
