package transfer

import (
	"bytes"
	"context"
	"crypto/rand"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"testing"
	"time"

	"golang.org/x/crypto/ssh"

	"github.com/ttymux/ttymux/internal/sshdtest"
)

const sftpSubsystem = "Subsystem sftp /usr/lib/openssh/sftp-server"

// dialSSHD connects to a test sshd as its user.
func dialSSHD(t testing.TB, d *sshdtest.SSHD) *ssh.Client {
	t.Helper()
	key, err := os.ReadFile(d.ClientKey)
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.ParsePrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := ssh.Dial("tcp", d.Addr(), &ssh.ClientConfig{
		User:            d.User,
		Auth:            []ssh.AuthMethod{ssh.PublicKeys(signer)},
		HostKeyCallback: ssh.FixedHostKey(d.HostKey),
		Timeout:         10 * time.Second,
	})
	if err != nil {
		t.Fatalf("dial sshd: %v\n%s", err, d.Log())
	}
	t.Cleanup(func() { _ = c.Close() })
	return c
}

func randomFile(t testing.TB, dir string, n int) (string, []byte) {
	t.Helper()
	b := make([]byte, n)
	_, _ = rand.Read(b)
	p := filepath.Join(dir, "src.bin")
	if err := os.WriteFile(p, b, 0o640); err != nil {
		t.Fatal(err)
	}
	return p, b
}

func fileSource(t testing.TB, p string) Source {
	t.Helper()
	f, err := os.Open(p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = f.Close() })
	fi, _ := f.Stat()
	return Source{R: f, Size: fi.Size(), Mode: fi.Mode(), ModTime: fi.ModTime()}
}

// noPartials fails if dir holds a transfer's temporary file.
func noPartials(t testing.TB, dir string) {
	t.Helper()
	m, _ := filepath.Glob(filepath.Join(dir, ".*.ttymux-*.part"))
	if len(m) > 0 {
		t.Errorf("partial files left behind: %v", m)
	}
}

// TestSSHWays sends a file up and back by each way (SFTP, the legacy scp
// protocol, cat) to a real OpenSSH sshd, checking content, sha256, mode,
// mtime, overwrite and the error for a missing file.
func TestSSHWays(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{sftpSubsystem}})
	noSFTP := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{})
	for _, tc := range []struct {
		name   string
		d      *sshdtest.SSHD
		noSCP  bool
		via    string
		noteRe string
	}{
		{name: "sftp", d: d, via: "sftp"},
		{name: "scp", d: noSFTP, via: "scp"},
		{name: "cat", d: noSFTP, noSCP: true, via: "cat"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			ctx := t.Context()
			x := &SSH{Client: dialSSHD(t, tc.d), NoSCP: tc.noSCP}
			local := t.TempDir()
			remote := t.TempDir()
			src, data := randomFile(t, local, 3<<20+17)
			mtime := time.Unix(1700000000, 0)
			if err := os.Chtimes(src, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			dst := filepath.Join(remote, "up.bin")
			var calls int
			res, err := x.Upload(ctx, fileSource(t, src), dst, Options{Progress: func(done, total int64) { calls++ }})
			if err != nil {
				t.Fatalf("upload: %v", err)
			}
			if res.Via != tc.via || res.Bytes != int64(len(data)) || res.SHA256 != SumBytes(data) {
				t.Fatalf("upload result %+v", res)
			}
			if tc.via != "sftp" && res.Note == "" {
				t.Errorf("a fallback without a note: %+v", res)
			}
			if calls == 0 {
				t.Error("no progress calls")
			}
			got, _ := os.ReadFile(dst)
			if !bytes.Equal(got, data) {
				t.Fatal("uploaded bytes differ")
			}
			fi, _ := os.Stat(dst)
			if fi.Mode().Perm() != 0o640 {
				t.Errorf("mode %v, want 0640", fi.Mode().Perm())
			}
			if !fi.ModTime().Equal(mtime) {
				t.Errorf("mtime %v, want %v", fi.ModTime(), mtime)
			}
			noPartials(t, remote)

			// Overwrite is enforced.
			_, err = x.Upload(ctx, Source{R: bytes.NewReader([]byte("x")), Size: 1}, dst, Options{})
			if !errors.Is(err, ErrExists) {
				t.Fatalf("upload over an existing file: %v, want ErrExists", err)
			}
			res, err = x.Upload(ctx, Source{R: bytes.NewReader([]byte("new\n")), Size: 4}, dst, Options{Overwrite: true, Mode: 0o600})
			if err != nil {
				t.Fatalf("upload with overwrite: %v", err)
			}
			if got, _ := os.ReadFile(dst); string(got) != "new\n" {
				t.Fatalf("overwritten file holds %q", got)
			}
			if fi, _ := os.Stat(dst); fi.Mode().Perm() != 0o600 {
				t.Errorf("mode %v, want 0600", fi.Mode().Perm())
			}

			// Down again.
			if err := os.WriteFile(dst, data, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(dst, 0o640); err != nil {
				t.Fatal(err)
			}
			if err := os.Chtimes(dst, mtime, mtime); err != nil {
				t.Fatal(err)
			}
			back := filepath.Join(local, "back.bin")
			res, err = x.Download(ctx, dst, &FileSink{Path: back}, Options{})
			if err != nil {
				t.Fatalf("download: %v", err)
			}
			if res.Via != tc.via || res.SHA256 != SumBytes(data) || res.Bytes != int64(len(data)) {
				t.Fatalf("download result %+v", res)
			}
			got, _ = os.ReadFile(back)
			if !bytes.Equal(got, data) {
				t.Fatal("downloaded bytes differ")
			}
			fi, _ = os.Stat(back)
			if tc.via != "cat" {
				if !fi.ModTime().Equal(mtime) {
					t.Errorf("downloaded mtime %v, want %v", fi.ModTime(), mtime)
				}
				if fi.Mode().Perm() != 0o640 {
					t.Errorf("downloaded mode %v, want 0640", fi.Mode().Perm())
				}
			}
			_, err = x.Download(ctx, dst, &FileSink{Path: back}, Options{})
			if !errors.Is(err, ErrExists) {
				t.Fatalf("download over an existing file: %v, want ErrExists", err)
			}
			_, err = x.Download(ctx, filepath.Join(remote, "missing"), &FileSink{Path: filepath.Join(local, "m")}, Options{})
			if !errors.Is(err, fs.ErrNotExist) {
				t.Fatalf("download of a missing file: %v, want ErrNotExist", err)
			}
			t.Logf("missing file: %v", err)
			noPartials(t, local)

			// A small text file into memory.
			os.WriteFile(filepath.Join(remote, "t.txt"), []byte("hello\n"), 0o644)
			var m MemSink
			m.Limit = 1 << 20
			if _, err := x.Download(ctx, filepath.Join(remote, "t.txt"), &m, Options{}); err != nil || string(m.Bytes()) != "hello\n" {
				t.Fatalf("download to memory: %q %v", m.Bytes(), err)
			}
			m = MemSink{Limit: 3}
			if _, err := x.Download(ctx, filepath.Join(remote, "t.txt"), &m, Options{}); !errors.Is(err, ErrTooLarge) {
				t.Fatalf("download over the limit: %v", err)
			}
		})
	}
}

// TestSSHUploadCancelled pins that a cancelled upload leaves no partial file
// on the host.
func TestSSHUploadCancelled(t *testing.T) {
	d := sshdtest.StartSSHD(t, sshdtest.SSHDOptions{Config: []string{sftpSubsystem}})
	x := &SSH{Client: dialSSHD(t, d)}
	remote := t.TempDir()
	src, _ := randomFile(t, t.TempDir(), 50<<20)
	ctx, cancel := context.WithCancel(t.Context())
	_, err := x.Upload(ctx, fileSource(t, src), filepath.Join(remote, "big"), Options{Progress: func(done, total int64) {
		if done > 5<<20 {
			cancel()
		}
	}})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("cancelled upload: %v", err)
	}
	ents, _ := os.ReadDir(remote)
	if len(ents) != 0 {
		t.Fatalf("cancelled upload left %v", ents)
	}
}
