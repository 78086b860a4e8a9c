package privdir

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestEnsure: a missing directory is created 0700; one that is a symbolic
// link, open to others or (as root) someone else's is refused by name and
// left as it was.
func TestEnsure(t *testing.T) {
	root := t.TempDir()
	fresh := filepath.Join(root, "a", "b")
	if err := Ensure(fresh, "state directory"); err != nil {
		t.Fatal(err)
	}
	if fi, _ := os.Lstat(fresh); fi.Mode().Perm() != 0o700 {
		t.Fatalf("created with %v", fi.Mode())
	}
	open := filepath.Join(root, "open")
	if err := os.Mkdir(open, 0o777); err != nil {
		t.Fatal(err)
	}
	_ = os.Chmod(open, 0o777)
	link := filepath.Join(root, "link")
	if err := os.Symlink(fresh, link); err != nil {
		t.Fatal(err)
	}
	cases := []struct{ name, dir, problem string }{
		{"open to others", open, "has unsafe permissions 0777"},
		{"symlink", link, "is a symbolic link"},
	}
	if os.Geteuid() == 0 {
		other := filepath.Join(root, "other")
		if err := os.Mkdir(other, 0o700); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(other, 65534, 65534); err != nil {
			t.Fatal(err)
		}
		cases = append(cases, struct{ name, dir, problem string }{"someone else's", other, "is owned by uid 65534"})
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := Ensure(tc.dir, "state directory")
			var ue *UnsafeDirError
			if !errors.As(err, &ue) || ue.Problem != tc.problem || !strings.Contains(err.Error(), "state directory "+tc.dir+" "+tc.problem) {
				t.Fatalf("Ensure = %v, want an UnsafeDirError %q", err, tc.problem)
			}
		})
	}
	if fi, _ := os.Lstat(open); fi.Mode().Perm() != 0o777 {
		t.Fatalf("a refused directory was changed: %v", fi.Mode())
	}
}

// TestWriteFileFIFOAndSymlink pins issue #14's attack on the shell start-up
// files: a FIFO where the file should be must neither block the comparison
// nor be kept, and a symbolic link must be replaced, not written through.
func TestWriteFileFIFOAndSymlink(t *testing.T) {
	dir := t.TempDir()
	want := []byte("the hook\n")
	if err := syscall.Mkfifo(filepath.Join(dir, "bashrc"), 0o666); err != nil {
		t.Fatal(err)
	}
	precious := filepath.Join(t.TempDir(), "precious")
	if err := os.WriteFile(precious, []byte("keep me"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(precious, filepath.Join(dir, "zshenv")); err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() {
		_, err := WriteFile(dir, "bashrc", want)
		if err == nil {
			_, err = WriteFile(dir, "zshenv", want)
		}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("WriteFile blocked on a FIFO")
	}
	for _, n := range []string{"bashrc", "zshenv"} {
		fi, err := os.Lstat(filepath.Join(dir, n))
		if err != nil || !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o600 {
			t.Fatalf("%s: %v %v, want a regular 0600 file", n, fi, err)
		}
		if b, _ := os.ReadFile(filepath.Join(dir, n)); string(b) != string(want) {
			t.Fatalf("%s = %q", n, b)
		}
	}
	if b, _ := os.ReadFile(precious); string(b) != "keep me" {
		t.Fatalf("written through a symlink: %q", b)
	}
	if wrote, err := WriteFile(dir, "bashrc", want); err != nil || wrote {
		t.Fatalf("rewrite of identical content: wrote=%v err=%v", wrote, err)
	}
	if left, _ := filepath.Glob(filepath.Join(dir, ".*.tmp")); len(left) > 0 {
		t.Fatalf("temporary files left: %v", left)
	}
}
